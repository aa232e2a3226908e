"""A cooperative heuristic Alien bot: clear the threats nearest the Airlock, build an Attack deck.

It reads only its observation and the public content (card data), like any bot would.
Plan each decision:
1. pending choices: discard the weakest card, pick the richest option, scan the hidden room
   nearest the Airlock, heal the most hurt player;
2. Coordinate (another player's turn): lend Attack cards (combos counted against the active
   player's play area) while the active player is short of Attack for a kill it wants, or, when
   the phase begins, the Complex is crowded near the Airlock; in the Strike phase, lend only a
   healing card, when the coming strikes could kill the hurt active player;
3. its own turn: play every card (combo cards last), use "Once this turn" abilities, complete
   an Objective, ask the team to Coordinate when short of Attack for the cheapest wanted kill
   (a Combat Zone enemy, a facehugger, a face-up boss or Final Enemy, or an Objective's
   spend) -- again that turn only when what it wants changed --, kill facehuggers, bosses
   and the Combat Zone's worst enemies, scan from the Airlock back, kill face-up enemies in
   the Complex, recruit the best card it can afford; sacrifice or release Vigilant cards only
   when all of them together buy a kill (a Combat Zone enemy, a facehugger, or a face-up boss
   or Final Enemy, even one stuck in the Complex); then end the turn. Siege: once the Hive is
   spent and only an unaffordable boss or Final Enemy is left in the Complex (it never moves
   again), recruit only Attack-dense cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.core.game import Action
from referee.games.alien.content import AlienContent, Effect, PlayerCard, default_content, effects_from_json

__all__ = ["AlienCoopBot"]

_VALUE = {"attack": 1.25, "recruit": 0.8, "draw": 1.0, "heal": 0.6, "heal_any": 0.6, "scan": 0.7}


def _effects_value(effects: Sequence[Effect]) -> float:
    total = 0.0
    for e in effects:
        if e.op in _VALUE:
            total += _VALUE[e.op] * e.n
        elif e.op == "choose":
            total += max(_effects_value(o) for o in e.options)
        elif e.op == "if":
            total += 0.6 * _effects_value(e.then)
    return total


def _attack_of(effects: Sequence[Effect]) -> int:
    return sum(e.n for e in effects if e.op == "attack")


def _punch(card: PlayerCard) -> int:
    """The Attack a card can add to one big turn: its play plus the best of its sacrifice,
    its release or (a Vigilant card kept) its ongoing Attack."""
    extra = max(_attack_of(card.sacrifice), _attack_of(card.release), _attack_of(card.ongoing))
    return _attack_of(card.play) + extra


class AlienCoopBot:
    """The cooperative reference bot for Alien."""

    name = "coop"

    def __init__(self, content: AlienContent | None = None, lend_limit: int = 2) -> None:
        self.content = content or default_content()
        #: most Coordinate cards lent in one of another player's turns
        self.lend_limit = lend_limit
        #: (turn, wanted cards) of this bot's last ask for Coordinate
        self._last_ask: tuple[int, tuple[str, ...]] | None = None

    def card_value(self, card: PlayerCard) -> float:
        """How much a card is worth owning, per the bot's taste."""
        v = _effects_value(card.play) + 0.5 * _effects_value(card.once) + 0.4 * _effects_value(card.sacrifice)
        v += 1.5 * _effects_value(card.ongoing) + 0.3 * _effects_value(card.release)
        v += 0.5 * _effects_value(card.mobilize) + (0.3 if card.coordinate else 0.0)
        return v

    # --- deciding ------------------------------------------------------------------------

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """Pick an action index (see the module docstring for the plan)."""
        obs = observation
        kinds: dict[str, list[int]] = {}
        for i, a in enumerate(legal_actions):
            kinds.setdefault(a.kind, []).append(i)
        pending = obs.get("pending")
        if "coordinate" in kinds or "pass" in kinds:
            return self._coordinate(obs, legal_actions, kinds)
        if pending is not None:
            return self._pending(obs, pending, legal_actions)
        return self._turn(obs, legal_actions, kinds)

    def _threat_gap(self, obs: dict[str, Any]) -> int:
        """Attack the active player still lacks to kill the most dangerous visible enemy."""
        hive = self.content.hive_cards
        targets = [hive[c].attack for c in obs["combat"] if hive[c].is_enemy and self._due(obs, c)]
        targets += [hive[f["card"]].attack for f in obs["facehuggers"]]
        if not targets:
            return 0
        return max(0, min(targets) - int(obs["pool"]["attack"]))

    def _due(self, obs: dict[str, Any], card_id: str) -> bool:
        """False for a later Objective's boss: it cannot be fought before its Objective is current
        (Objectives complete in order)."""
        objectives = self.content.objectives
        return not any(
            o.condition == "kill" and o.card == card_id and k > int(obs["objective"])
            for k, o in enumerate(objectives)
        )

    def _stretch_gap(self, obs: dict[str, Any]) -> int:
        """Attack the active player lacks for the cheapest kill worth spending cards on: a Combat
        Zone enemy, a facehugger, or a face-up boss or Final Enemy anywhere (0: none)."""
        hive = self.content.hive_cards
        targets = [hive[c].attack for c in obs["combat"] if hive[c].is_enemy and self._due(obs, c)]
        targets += [hive[f["card"]].attack for f in obs["facehuggers"]]
        for r in obs["complex"]:
            if r is not None and r["up"]:
                c = hive[r["card"]]
                if c.is_enemy and (c.boss or c.final) and self._due(obs, c.id):
                    targets.append(c.attack)
        if not targets:
            return 0
        return max(0, min(targets) - int(obs["pool"]["attack"]))

    def _wanted(self, obs: dict[str, Any]) -> list[tuple[int, str]]:
        """(Attack needed, card) of what the active player wants to spend Attack on: Combat Zone
        enemies, facehuggers, face-up bosses and Final Enemies, an Objective's spend card."""
        hive = self.content.hive_cards
        out = [(hive[c].attack, c) for c in obs["combat"] if hive[c].is_enemy and self._due(obs, c)]
        out += [(hive[f["card"]].attack, f["card"]) for f in obs["facehuggers"]]
        up = [r["card"] for r in obs["complex"] if r is not None and r["up"]]
        out += [
            (hive[c].attack, c)
            for c in up
            if hive[c].is_enemy and (hive[c].boss or hive[c].final) and self._due(obs, c)
        ]
        for k, o in enumerate(self.content.objectives):
            if o.condition == "spend" and not obs["met"][k] and (o.card in up or o.card in obs["combat"]):
                out.append((o.attack, o.card))
        return sorted(out)

    def _want_gap(self, obs: dict[str, Any]) -> int:
        """Attack the active player lacks for the cheapest thing it wants (0: within reach, or
        nothing wanted)."""
        wanted = self._wanted(obs)
        return max(0, wanted[0][0] - int(obs["pool"]["attack"])) if wanted else 0

    def _lent_attack(self, obs: dict[str, Any], card: PlayerCard) -> int:
        """The Attack a coordinated card gives the active player: its combos count the cards
        in the active player's play area."""
        played = obs["players"][obs["current"]]["play"]
        cards = self.content.cards
        total = 0
        for e in card.play:
            if e.op == "attack":
                total += e.n
            elif e.op == "if" and e.cond in ("played_class", "played_crew"):
                attr = "cls" if e.cond == "played_class" else "crew"
                if any(getattr(cards[c], attr) == e.arg for c in played):
                    total += _attack_of(e.then)
        return total

    def _coordinate(self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]) -> int:
        if obs["phase"] == "strike_coordinate":
            return self._coordinate_heal(obs, legal, kinds)
        me = obs["players"][obs["seat"]]
        gap = max(self._threat_gap(obs), self._want_gap(obs))
        # crowded Complex: lend at the start of the phase (nothing played yet) to clear it
        busy = not obs["players"][obs["current"]]["play"] and any(r is not None for r in obs["complex"][2:])
        lent = len(me["set_aside"])
        if "coordinate" not in kinds or lent >= self.lend_limit or (gap <= 0 and not busy):
            return kinds["pass"][0]
        cards = self.content.cards
        best = max(kinds["coordinate"], key=lambda i: self._lent_attack(obs, cards[str(legal[i].args[0])]))
        if self._lent_attack(obs, cards[str(legal[best].args[0])]) >= 1:
            return best
        return kinds["pass"][0]

    def _coordinate_heal(
        self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]
    ) -> int:
        """Before the strikes (Attack is of no use any more): lend a healing card when the
        active player is hurt and the coming strikes could kill them; otherwise pass."""
        hive = self.content.hive_cards
        active = obs["players"][obs["current"]]
        worst = max(sc.damage for sc in self.content.strikes.values())
        coming = worst * sum(hive[c].strikes for c in obs["combat"] if hive[c].is_enemy)
        if "coordinate" not in kinds or not active["damage"] or active["health_left"] > coming:
            return kinds["pass"][0]
        cards = self.content.cards
        for i in kinds["coordinate"]:
            if any(e.op in ("heal", "heal_any") for e in cards[str(legal[i].args[0])].play):
                return i
        return kinds["pass"][0]

    def _pending(self, obs: dict[str, Any], pending: dict[str, Any], legal: Sequence[Action]) -> int:
        kind = pending["kind"]
        cards = self.content.cards
        if kind == "discard":
            return min(range(len(legal)), key=lambda i: self.card_value(cards[str(legal[i].args[0])]))
        if kind == "choose":
            need_attack = self._threat_gap(obs) > 0 or any(r and r["up"] is False for r in obs["complex"])
            weights = dict(_VALUE)
            weights["attack"] = 1.5 if need_attack else 1.0

            def score(i: int) -> float:
                effects = effects_from_json(pending["options"][int(legal[i].args[0])])
                return sum(weights.get(e.op, 0.0) * e.n for e in effects)

            return max(range(len(legal)), key=score)
        if kind == "scan_free":
            return max(range(len(legal)), key=lambda i: int(legal[i].args[0]))
        # heal_target: the player closest to death
        players = obs["players"]
        return min(range(len(legal)), key=lambda i: players[int(legal[i].args[0])]["health_left"])

    def _turn(self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]) -> int:
        cards = self.content.cards
        hive = self.content.hive_cards
        pool = obs["pool"]
        if "play" in kinds:
            # cards with combos last, so that the other cards of their class are already in play
            def order(i: int) -> tuple[int, float]:
                c = cards[str(legal[i].args[0])]
                combo = any(e.op == "if" for e in c.play)
                return (1 if combo else 0, -_effects_value(c.play))

            return min(kinds["play"], key=order)
        if "use_once" in kinds:
            return kinds["use_once"][0]
        if "complete" in kinds:
            return kinds["complete"][0]
        if "ask" in kinds and self._want_gap(obs) > 0:
            # ask once per turn for the same wants: a new one (e.g. revealed by a scan) asks again
            key = (int(obs["turn"]), tuple(c for _, c in self._wanted(obs)))
            if key != self._last_ask:
                self._last_ask = key
                return kinds["ask"][0]

        fights = [legal[i] for i in kinds.get("fight", [])]

        def fight_value(a: Action) -> float:
            zone, index = str(a.args[0]), int(a.args[1])
            if zone == "facehugger":
                return 100.0
            if zone == "combat":
                c = hive[obs["combat"][index]]
                return 50.0 + 10 * c.strikes + c.attack + (30 if c.boss or c.final else 0)
            room = obs["complex"][index]
            c = hive[room["card"]]
            return 20.0 + 4 * index + c.attack + (40 if c.boss or c.final else 0)

        if fights:
            best = max(fights, key=fight_value)
            if fight_value(best) >= 50 or not self._scan_worth(obs, legal, kinds):
                return legal.index(best)
        if "scan" in kinds:
            # scan from the Airlock back
            return max(kinds["scan"], key=lambda i: int(legal[i].args[0]))
        if fights:
            return legal.index(max(fights, key=fight_value))
        # Release or sacrifice when the extra Attack, all together, buys a kill of a Combat Zone
        # enemy, a facehugger or a face-up boss or Final Enemy (also stuck in the Complex).
        gap = self._stretch_gap(obs)
        if gap > 0:
            me = obs["players"][obs["seat"]]
            extras: list[tuple[int, int]] = []
            for kind in ("release", "sacrifice"):
                zone = me["vigilant"] if kind == "release" else me["play"]
                for i in kinds.get(kind, []):
                    extra = _attack_of(getattr(cards[zone[int(legal[i].args[0])]], kind))
                    if extra > 0:
                        extras.append((extra, i))
            if extras and sum(e for e, _ in extras) >= gap:
                return max(extras)[1]
        if self._siege(obs):
            # Only a big kill is left: recruit only cards that raise the deck's Attack density.
            recruits = kinds.get("recruit", [])
            punch = {i: _punch(cards[str(obs["hq"][int(legal[i].args[0])])]) for i in recruits}
            if punch and max(punch.values()) >= 2:
                return max(punch, key=lambda i: punch[i])
            return kinds["end_turn"][0]
        best_i, best_v = -1, 0.0
        for i in kinds.get("recruit", []):
            c = cards[str(obs["hq"][int(legal[i].args[0])])]
            v = self.card_value(c) + 0.15 * c.cost
            if v > best_v:
                best_i, best_v = i, v
        if best_i >= 0 and pool["recruit"] >= 2:
            return best_i
        if "recruit_sergeant" in kinds:
            return kinds["recruit_sergeant"][0]
        return kinds["end_turn"][0]

    def _siege(self, obs: dict[str, Any]) -> bool:
        """The Hive is spent and nothing threatens: all that is left is a face-up boss or Final
        Enemy in the Complex that the active player cannot yet afford (it would never move)."""
        if obs["hive_size"] or obs["combat"] or obs["facehuggers"]:
            return False
        if any(r is not None and not r["up"] for r in obs["complex"]):
            return False
        return self._stretch_gap(obs) > 0

    def _scan_worth(self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]) -> bool:
        """Scanning the room at the Airlock beats killing a Complex enemy further back."""
        scans = [int(legal[i].args[0]) for i in kinds.get("scan", [])]
        return bool(scans) and max(scans) >= 3
