"""A cooperative Alien bot over the wire: clear the threats nearest the Airlock, lend Attack cards
when a kill is in reach. It uses only the SDK: the observation (`observation_dict`), the legal
actions, and the static content the referee sends in GameStart (`self.content`: player cards, Hive
cards, Strikes, Objectives; PROTOCOL.md "Static content"), so it runs anywhere the SDK does.

Legendary Encounters: Alien is cooperative, and decisions also come outside your own turn: once
in every phase of another player's turn (Hive, Action, Strike), and whenever the active player
asks the team later in the Action phase, each other living player is asked whether to Coordinate
a card (`self.request.context.out_of_turn` is set, `context.active_seat` is whose turn it is).

It decides as the referee's built-in `coop` bot does. Plan each decision:
1. pending choices: discard the weakest card, pick the richest option, scan the hidden room
   nearest the Airlock, heal the most hurt player;
2. Coordinate (another player's turn): lend Attack cards (combos counted against the active
   player's play area) while the active player is short of Attack for a kill it wants, or, when
   the phase begins, the Complex is crowded near the Airlock; in the Strike phase, lend only a
   healing card, when the coming strikes could kill the hurt active player;
3. its own turn: play every card (combo cards last), use "Once this turn" abilities, complete
   an Objective, ask the team to Coordinate when short of Attack for the cheapest wanted kill
   (again that turn only when what it wants changed), kill facehuggers, bosses and the Combat
   Zone's worst enemies, scan from the Airlock back, kill face-up enemies in the Complex,
   recruit the best card it can afford; sacrifice or release Vigilant cards only when all of
   them together buy a kill; then end the turn. Siege: once the Hive is spent and only an
   unaffordable boss or Final Enemy is left in the Complex, recruit only Attack-dense cards.

    python bots/python/examples/alien_coop_bot.py --referee HOST:PORT --token T
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_bot import Action, Bot, observation_dict, run

#: what one unit of each effect is worth to this bot
VALUE = {"attack": 1.25, "recruit": 0.8, "draw": 1.0, "heal": 0.6, "heal_any": 0.6, "scan": 0.7}
#: Hive card kinds that are enemies (can be fought, strike, have Attack)
ENEMY_KINDS = ("enemy", "facehugger", "chestburster")

Effects = Sequence[dict[str, Any]]


def effects_value(effects: Effects) -> float:
    """Worth of a list of effects (the content's JSON form: op, n, then, options)."""
    total = 0.0
    for e in effects:
        op = e["op"]
        if op in VALUE:
            total += VALUE[op] * e.get("n", 0)
        elif op == "choose":
            total += max(effects_value(o) for o in e.get("options", []))
        elif op == "if":
            total += 0.6 * effects_value(e.get("then", []))
    return total


def attack_of(effects: Effects) -> int:
    """The plain Attack in `effects`."""
    return sum(int(e.get("n", 0)) for e in effects if e["op"] == "attack")


def punch(card: dict[str, Any]) -> int:
    """The Attack a card can add to one big turn: its play plus the best of its sacrifice,
    its release or (a Vigilant card kept) its ongoing Attack."""
    extra = max(attack_of(card["sacrifice"]), attack_of(card["release"]), attack_of(card["ongoing"]))
    return attack_of(card["play"]) + extra


def card_value(card: dict[str, Any]) -> float:
    """How much a player card is worth owning, per this bot's taste."""
    v = effects_value(card["play"]) + 0.5 * effects_value(card["once"])
    v += 0.4 * effects_value(card["sacrifice"])
    v += 1.5 * effects_value(card["ongoing"]) + 0.3 * effects_value(card["release"])
    v += 0.5 * effects_value(card["mobilize"]) + (0.3 if card["coordinate"] else 0.0)
    return v


def is_enemy(card: dict[str, Any]) -> bool:
    """A Hive card that is an enemy."""
    return card["kind"] in ENEMY_KINDS


class AlienCoopBot(Bot):
    """Clear the threats nearest the Airlock, lend Attack cards when a kill is in reach."""

    name = "coop"
    version = "1"
    #: most Coordinate cards lent in one of another player's turns
    lend_limit = 2

    def __init__(self) -> None:
        super().__init__()
        #: (turn, wanted cards) of this bot's last ask for Coordinate
        self.last_ask: tuple[int, tuple[str, ...]] | None = None

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        if self.content is None:
            raise RuntimeError("the referee sent no static content: this bot needs the card data")
        index = self.choose(observation_dict(observation), legal_actions)
        if self.request is not None and self.request.context.out_of_turn:
            self.note = f"for seat {self.request.context.active_seat}: {legal_actions[index].text}"
        return index

    # --- the content ---------------------------------------------------------------------

    @property
    def cards(self) -> dict[str, Any]:
        """Player card id -> card."""
        assert self.content is not None
        cards: dict[str, Any] = self.content["cards"]
        return cards

    @property
    def hive(self) -> dict[str, Any]:
        """Hive card id -> card."""
        assert self.content is not None
        hive: dict[str, Any] = self.content["hive_cards"]
        return hive

    @property
    def objectives(self) -> list[dict[str, Any]]:
        """The Objectives, in order."""
        assert self.content is not None
        objectives: list[dict[str, Any]] = self.content["objectives"]
        return objectives

    # --- deciding ------------------------------------------------------------------------

    def choose(self, obs: dict[str, Any], legal: Sequence[Action]) -> int:
        """Pick an action index (see the module docstring for the plan)."""
        kinds: dict[str, list[int]] = {}
        for i, a in enumerate(legal):
            kinds.setdefault(a.kind, []).append(i)
        pending = obs.get("pending")
        if "coordinate" in kinds or "pass" in kinds:
            return self.coordinate(obs, legal, kinds)
        if pending is not None:
            return self.pending(obs, pending, legal)
        return self.turn(obs, legal, kinds)

    def due(self, obs: dict[str, Any], card_id: str) -> bool:
        """False for a later Objective's boss: it cannot be fought before its Objective is current
        (Objectives complete in order)."""
        return not any(
            o["condition"] == "kill" and o["card"] == card_id and k > int(obs["objective"])
            for k, o in enumerate(self.objectives)
        )

    def threat_gap(self, obs: dict[str, Any]) -> int:
        """Attack the active player still lacks to kill the most dangerous visible enemy."""
        hive = self.hive
        targets = [hive[c]["attack"] for c in obs["combat"] if is_enemy(hive[c]) and self.due(obs, c)]
        targets += [hive[f["card"]]["attack"] for f in obs["facehuggers"]]
        if not targets:
            return 0
        return max(0, int(min(targets)) - int(obs["pool"]["attack"]))

    def stretch_gap(self, obs: dict[str, Any]) -> int:
        """Attack the active player lacks for the cheapest kill worth spending cards on: a Combat
        Zone enemy, a facehugger, or a face-up boss or Final Enemy anywhere (0: none)."""
        hive = self.hive
        targets = [hive[c]["attack"] for c in obs["combat"] if is_enemy(hive[c]) and self.due(obs, c)]
        targets += [hive[f["card"]]["attack"] for f in obs["facehuggers"]]
        for r in obs["complex"]:
            if r is not None and r["up"]:
                c = hive[r["card"]]
                if is_enemy(c) and (c["boss"] or c["final"]) and self.due(obs, c["id"]):
                    targets.append(c["attack"])
        if not targets:
            return 0
        return max(0, int(min(targets)) - int(obs["pool"]["attack"]))

    def wanted(self, obs: dict[str, Any]) -> list[tuple[int, str]]:
        """(Attack needed, card) of what the active player wants to spend Attack on: Combat Zone
        enemies, facehuggers, face-up bosses and Final Enemies, an Objective's spend card."""
        hive = self.hive
        out = [(int(hive[c]["attack"]), c) for c in obs["combat"] if is_enemy(hive[c]) and self.due(obs, c)]
        out += [(int(hive[f["card"]]["attack"]), f["card"]) for f in obs["facehuggers"]]
        up = [r["card"] for r in obs["complex"] if r is not None and r["up"]]
        out += [
            (int(hive[c]["attack"]), c)
            for c in up
            if is_enemy(hive[c]) and (hive[c]["boss"] or hive[c]["final"]) and self.due(obs, c)
        ]
        for k, o in enumerate(self.objectives):
            showing = o["card"] in up or o["card"] in obs["combat"]
            if o["condition"] == "spend" and not obs["met"][k] and showing:
                out.append((int(o["attack"]), o["card"]))
        return sorted(out)

    def want_gap(self, obs: dict[str, Any]) -> int:
        """Attack the active player lacks for the cheapest thing it wants (0: within reach, or
        nothing wanted)."""
        wanted = self.wanted(obs)
        return max(0, wanted[0][0] - int(obs["pool"]["attack"])) if wanted else 0

    def lent_attack(self, obs: dict[str, Any], card: dict[str, Any]) -> int:
        """The Attack a coordinated card gives the active player: its combos count the cards
        in the active player's play area."""
        played = obs["players"][obs["current"]]["play"]
        total = 0
        for e in card["play"]:
            if e["op"] == "attack":
                total += int(e.get("n", 0))
            elif e["op"] == "if" and e.get("cond") in ("played_class", "played_crew"):
                attr = "cls" if e["cond"] == "played_class" else "crew"
                if any(self.cards[c][attr] == e.get("arg", "") for c in played):
                    total += attack_of(e.get("then", []))
        return total

    def coordinate(self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]) -> int:
        """Another player's turn: lend a card, or pass."""
        if obs["phase"] == "strike_coordinate":
            return self.coordinate_heal(obs, legal, kinds)
        me = obs["players"][obs["seat"]]
        gap = max(self.threat_gap(obs), self.want_gap(obs))
        # crowded Complex: lend at the start of the phase (nothing played yet) to clear it
        busy = not obs["players"][obs["current"]]["play"] and any(r is not None for r in obs["complex"][2:])
        if "coordinate" not in kinds or len(me["set_aside"]) >= self.lend_limit or (gap <= 0 and not busy):
            return kinds["pass"][0]
        cards = self.cards
        best = max(kinds["coordinate"], key=lambda i: self.lent_attack(obs, cards[str(legal[i].args[0])]))
        if self.lent_attack(obs, cards[str(legal[best].args[0])]) >= 1:
            return best
        return kinds["pass"][0]

    def coordinate_heal(
        self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]
    ) -> int:
        """Before the strikes (Attack is of no use any more): lend a healing card when the
        active player is hurt and the coming strikes could kill them; otherwise pass."""
        assert self.content is not None
        hive = self.hive
        active = obs["players"][obs["current"]]
        worst = max(int(sc["damage"]) for sc in self.content["strikes"].values())
        coming = worst * sum(int(hive[c]["strikes"]) for c in obs["combat"] if is_enemy(hive[c]))
        if "coordinate" not in kinds or not active["damage"] or active["health_left"] > coming:
            return kinds["pass"][0]
        for i in kinds["coordinate"]:
            if any(e["op"] in ("heal", "heal_any") for e in self.cards[str(legal[i].args[0])]["play"]):
                return i
        return kinds["pass"][0]

    def pending(self, obs: dict[str, Any], pending: dict[str, Any], legal: Sequence[Action]) -> int:
        """Answer a pending choice (discard, choose, scan_free, heal_target)."""
        kind = pending["kind"]
        cards = self.cards
        if kind == "discard":
            return min(range(len(legal)), key=lambda i: card_value(cards[str(legal[i].args[0])]))
        if kind == "choose":
            need_attack = self.threat_gap(obs) > 0 or any(r and r["up"] is False for r in obs["complex"])
            weights = dict(VALUE)
            weights["attack"] = 1.5 if need_attack else 1.0

            def score(i: int) -> float:
                effects = pending["options"][int(legal[i].args[0])]
                return sum(weights.get(e["op"], 0.0) * int(e.get("n", 0)) for e in effects)

            return max(range(len(legal)), key=score)
        if kind == "scan_free":
            return max(range(len(legal)), key=lambda i: int(legal[i].args[0]))
        # heal_target: the player closest to death
        players = obs["players"]
        return min(range(len(legal)), key=lambda i: players[int(legal[i].args[0])]["health_left"])

    def turn(self, obs: dict[str, Any], legal: Sequence[Action], kinds: dict[str, list[int]]) -> int:
        """This bot's own turn."""
        cards, hive = self.cards, self.hive
        if "play" in kinds:
            # cards with combos last, so that the other cards of their class are already in play
            def order(i: int) -> tuple[int, float]:
                c = cards[str(legal[i].args[0])]
                combo = any(e["op"] == "if" for e in c["play"])
                return (1 if combo else 0, -effects_value(c["play"]))

            return min(kinds["play"], key=order)
        if "use_once" in kinds:
            return kinds["use_once"][0]
        if "complete" in kinds:
            return kinds["complete"][0]
        if "ask" in kinds and self.want_gap(obs) > 0:
            # ask once per turn for the same wants: a new one (e.g. revealed by a scan) asks again
            key = (int(obs["turn"]), tuple(c for _, c in self.wanted(obs)))
            if key != self.last_ask:
                self.last_ask = key
                return kinds["ask"][0]

        fights = [legal[i] for i in kinds.get("fight", [])]

        def fight_value(a: Action) -> float:
            zone, index = str(a.args[0]), int(a.args[1])
            if zone == "facehugger":
                return 100.0
            if zone == "combat":
                c = hive[obs["combat"][index]]
                big = 30 if c["boss"] or c["final"] else 0
                return 50.0 + 10 * int(c["strikes"]) + int(c["attack"]) + big
            c = hive[obs["complex"][index]["card"]]
            return 20.0 + 4 * index + int(c["attack"]) + (40 if c["boss"] or c["final"] else 0)

        if fights:
            best = max(fights, key=fight_value)
            if fight_value(best) >= 50 or not self.scan_worth(legal, kinds):
                return legal.index(best)
        if "scan" in kinds:
            # scan from the Airlock back
            return max(kinds["scan"], key=lambda i: int(legal[i].args[0]))
        if fights:
            return legal.index(max(fights, key=fight_value))
        # Release or sacrifice when the extra Attack, all together, buys a kill of a Combat Zone
        # enemy, a facehugger or a face-up boss or Final Enemy (also stuck in the Complex).
        gap = self.stretch_gap(obs)
        if gap > 0:
            me = obs["players"][obs["seat"]]
            extras: list[tuple[int, int]] = []
            for kind in ("release", "sacrifice"):
                zone = me["vigilant"] if kind == "release" else me["play"]
                for i in kinds.get(kind, []):
                    extra = attack_of(cards[zone[int(legal[i].args[0])]][kind])
                    if extra > 0:
                        extras.append((extra, i))
            if extras and sum(e for e, _ in extras) >= gap:
                return max(extras)[1]
        if self.siege(obs):
            # Only a big kill is left: recruit only cards that raise the deck's Attack density.
            recruits = kinds.get("recruit", [])
            punches = {i: punch(cards[str(obs["hq"][int(legal[i].args[0])])]) for i in recruits}
            if punches and max(punches.values()) >= 2:
                return max(punches, key=lambda i: punches[i])
            return kinds["end_turn"][0]
        best_i, best_v = -1, 0.0
        for i in kinds.get("recruit", []):
            c = cards[str(obs["hq"][int(legal[i].args[0])])]
            v = card_value(c) + 0.15 * c["cost"]
            if v > best_v:
                best_i, best_v = i, v
        if best_i >= 0 and obs["pool"]["recruit"] >= 2:
            return best_i
        if "recruit_sergeant" in kinds:
            return kinds["recruit_sergeant"][0]
        return kinds["end_turn"][0]

    def siege(self, obs: dict[str, Any]) -> bool:
        """The Hive is spent and nothing threatens: all that is left is a face-up boss or Final
        Enemy in the Complex that the active player cannot yet afford (it would never move)."""
        if obs["hive_size"] or obs["combat"] or obs["facehuggers"]:
            return False
        if any(r is not None and not r["up"] for r in obs["complex"]):
            return False
        return self.stretch_gap(obs) > 0

    @staticmethod
    def scan_worth(legal: Sequence[Action], kinds: dict[str, list[int]]) -> bool:
        """Scanning the room at the Airlock beats killing a Complex enemy further back."""
        scans = [int(legal[i].args[0]) for i in kinds.get("scan", [])]
        return bool(scans) and max(scans) >= 3


if __name__ == "__main__":
    raise SystemExit(run(AlienCoopBot()))
