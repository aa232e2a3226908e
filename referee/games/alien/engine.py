"""Legendary Encounters: Alien (cooperative, 1-5 players) rules engine: a pure state machine.

Every rule of `docs/rules/alien.md` lives here or in `observation.py` (what a seat may see).
A turn runs through phases held in the state: ``hive`` (the turn begins), ``hive_coordinate``
(an ask, then the top Hive card enters the Complex), ``ongoing`` (Vigilant cards' ongoing
effects), ``coordinate`` (an ask), ``action`` (the active player's main decisions),
``strike_coordinate`` (an ask), ``strike`` (Combat Zone enemies strike, right to left) and
``cleanup``. In an ask each other living player, in turn order, may set aside Coordinate cards
for the active player (decisions whose seat is not the active player): "During another player's
turn, you can set aside a Coordinate card", so the team is asked automatically in every phase of
the turn (Hive, Action, Strike), and again whenever the active player chooses ``ask`` (legal once
they have taken another action since the last ask), which returns the turn to ``coordinate`` for
one more round.
Card effects that need a choice push pending decisions on a stack; the top of the stack says who
decides.

Decision kinds: ``turn`` (the active player's main decision, including ``ask``), ``coordinate``,
``discard``, ``choose``, ``scan_free``, ``heal_target``.

Engine choices the rules leave open are written down in `RULES_NOTES.md` beside this file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

from referee.core.game import Action, Arg, Decision, IllegalAction, InvalidConfig, Result
from referee.core.rng import RandomStreams
from referee.core.state_game import StateGame
from referee.games.alien import observation as seen
from referee.games.alien.content import (
    AlienContent,
    Effect,
    HiveCard,
    PlayerCard,
    default_content,
    describe_effects,
    effects_from_json,
    effects_to_json,
)
from referee.games.alien.state import ALIVE, DEAD, AlienState, PlayerState

__all__ = ["ENGINE_VERSION", "ROUND_LIMIT", "AlienGame"]

ENGINE_VERSION = "alien-3"
#: engine safeguard (not a printed rule): after this many rounds the Hive overruns the
#: Location and the players lose, so every game ends even when nobody can die any more.
ROUND_LIMIT = 60

MAIN = "turn"
#: the phases that run a Coordinate ask, and the phase of the turn each belongs to
_ASK_PHASES = {"hive_coordinate": "Hive", "coordinate": "Action", "strike_coordinate": "Strike"}


def _stream_deck(seat: int) -> str:
    return f"deck/{seat}"


class AlienGame(StateGame):
    """One game of Legendary Encounters: Alien."""

    name = "alien"
    engine_version = ENGINE_VERSION
    #: a seat that does not answer ends its Action phase, or lends nothing in a Coordinate
    passive_kinds = ("end_turn", "pass")

    __slots__ = ("_actions", "_decision", "content", "s")

    s: AlienState
    content: AlienContent
    state_type = AlienState

    def __init__(self, state: AlienState, content: AlienContent) -> None:
        super().__init__(state, content)
        #: legal actions built so far in this game, under what each one's text depends on (the
        #: content is fixed for a game): see _known
        self._actions: dict[tuple[Any, ...], Action] = {}

    # --- construction -------------------------------------------------------------------

    @classmethod
    def game_content(cls) -> AlienContent:
        return default_content()

    @classmethod
    def default_config(cls, players: int) -> dict[str, Any]:
        content = default_content()
        return {"players": players, "roles": list(content.role_order[:players])}

    @classmethod
    def new_game(cls, config: Mapping[str, Any], seed: int) -> Self:
        content = default_content()
        rules = content.rules
        lo, hi = rules["players"]
        players = config.get("players")
        if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
            raise InvalidConfig(f"config.players: Alien is for {lo} to {hi} players")
        roles = config.get("roles", list(content.role_order[:players]))
        if not isinstance(roles, list) or len(roles) != players:
            raise InvalidConfig("config.roles: one role id per player")
        for r in roles:
            if r not in content.roles:
                raise InvalidConfig(f"config.roles: unknown role {r!r}; known: {list(content.role_order)}")
        if len(set(roles)) != len(roles):
            raise InvalidConfig("config.roles: each player takes a different role")
        characters = config.get("characters", list(content.characters)[: rules["barracks_characters"]])
        if (
            not isinstance(characters, list)
            or len(characters) != rules["barracks_characters"]
            or len(set(characters)) != len(characters)
            or any(c not in content.characters for c in characters)
        ):
            raise InvalidConfig(
                f"config.characters: {rules['barracks_characters']} different characters of "
                f"{list(content.characters)}"
            )
        unknown = set(config) - {"players", "roles", "characters"}
        if unknown:
            raise InvalidConfig(f"config: unknown fields {sorted(unknown)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidConfig("seed: must be a non-negative integer")

        state = AlienState(
            seed=seed,
            players_n=players,
            content_version=content.version,
            characters=list(characters),
            players=[],
        )
        rng = RandomStreams(seed, state.rng)

        # Game stacks: Sergeants and Strikes shuffled, the Hatchery face up in its printed order.
        state.sergeants = list(content.sergeants)
        rng.shuffle("sergeants", state.sergeants)
        state.strike_deck = list(content.strike_deck)
        rng.shuffle("strikes", state.strike_deck)
        state.hatchery = list(content.hatchery)
        state.chestbursters = list(content.chestbursters)

        # The Hive: each Objective's mini-deck with one random Drone per player, shuffled,
        # stacked with Objective 1's cards on top (the end of the list is the top).
        drones = list(content.drones)
        hive: list[str] = []
        for k in reversed(range(len(content.objectives))):
            mini = list(content.objectives[k].deck)
            for _ in range(players):
                mini.append(drones.pop(rng.below("drones", len(drones))))
            rng.shuffle(f"hive/{k + 1}", mini)
            hive.extend(mini)
        state.hive = hive
        state.complex = [None] * rules["rooms"]
        state.met = [False] * len(content.objectives)

        # Barracks: the chosen characters' cards shuffled; five dealt face up to HQ.
        state.barracks = [c for char in characters for c in content.characters[char]]
        rng.shuffle("barracks", state.barracks)
        state.hq = [state.barracks.pop() if state.barracks else None for _ in range(rules["hq_size"])]

        # Players: 12 starting cards plus the Role card, shuffled; draw 6.
        for seat in range(players):
            role = content.roles[roles[seat]]
            deck = [*content.starting, role.card]
            rng.shuffle(_stream_deck(seat), deck)
            state.players.append(PlayerState(role=role.id, health=role.health, deck=deck))

        game = cls(state, content)
        for seat in range(players):
            game._draw(seat, rules["hand_size"])
        state.current = 0
        state.turn = 1
        state.phase = "hive"
        game._advance()
        return game

    # --- the contract --------------------------------------------------------------------

    def card(self, card_id: str) -> PlayerCard:
        """The definition of a player card."""
        return self.content.cards[card_id]

    def hive_card(self, card_id: str) -> HiveCard:
        """The definition of a Hive, Hatchery or Chestburster card."""
        return self.content.hive_cards[card_id]

    def _apply(self, decision: Decision, action: Action) -> None:
        self.s.step += 1
        if decision.kind == MAIN:
            self._apply_main(action)
        else:
            self._apply_pending(action)
        self._advance()

    def forfeit(self, seat: int) -> None:
        """Forfeit `seat` (a referee decision: timeouts, crash, disconnect).

        A forfeited seat's Avatar dies at once (its cards leave play with it) and it scores
        zero even if the team wins. Its pending choices are dropped; if it was the active
        player, the turn ends at once (no Strike phase) and play passes on.
        """
        if not 0 <= seat < self.s.players_n:
            raise IllegalAction(f"no seat {seat}")
        p = self.s.players[seat]
        if self.s.over or p.forfeited:
            return
        self._decision = None
        self.s.step += 1
        p.forfeited = True
        if p.status == ALIVE:
            self._die(seat)
        self._advance()

    def hidden_variant(self, seat: int, seed: int) -> Self:
        v = self.copy()
        s = v.s
        rng = RandomStreams(seed, {})
        for i, p in enumerate(s.players):
            if i == seat:
                rng.shuffle("own", p.deck)  # the owner knows what is in it, not the order
                continue
            # A Chestburster is never in a hand (drawing it kills), so it stays in the deck.
            bursters = [c for c in p.deck if c in self.content.hive_cards]
            unseen = [c for c in p.hand + p.deck if c not in self.content.hive_cards]
            rng.shuffle("other", unseen)
            p.hand, p.deck = unseen[: len(p.hand)], unseen[len(p.hand) :] + bursters
            rng.shuffle("other", p.deck)
        # Face-down Complex cards and the Hive deck are one pool of unknown cards.
        hidden_rooms = [i for i, r in enumerate(s.complex) if r is not None and not r["up"]]
        pool = s.hive + [str(s.complex[i]["card"]) for i in hidden_rooms]  # type: ignore[index]
        rng.shuffle("hive", pool)
        for i in hidden_rooms:
            s.complex[i] = {"card": pool.pop(), "up": False}
        s.hive = pool
        for name in ("barracks", "sergeants", "strike_deck"):
            rng.shuffle(name, getattr(s, name))
        s.rng = {name: rng.next64("rng") for name in s.rng}
        v._decision = None
        return v

    def observe(self, seat: int) -> dict[str, Any]:
        # the module is imported at load (an import statement here cost 0.4 us per decision),
        # its function looked up at each call (so a test may swap it)
        return seen.observe(self, seat)

    def observe_all(self) -> dict[str, Any]:
        return seen.observe_all(self)

    def summarize(self, observation: dict[str, Any]) -> list[str]:
        """Readable lines of an observation of this game."""
        return seen.summarize(self, observation)

    def result(self) -> Result:
        """Cooperative result: `team_won`; every seat shares place 1 (win or lose: the team
        finishes together); scores per the rules (lose: 0; win: each player scores the number
        of survivors, dead players too, forfeited seats 0)."""
        if not self.s.over:
            raise IllegalAction("the game is not over")
        survivors = self.survivors()
        scores = tuple(survivors if self.s.won and not p.forfeited else 0 for p in self.s.players)
        return Result(
            scores=scores,
            places=tuple(1 for _ in self.s.players),
            outcomes=tuple(self.outcome(seat) for seat in range(self.s.players_n)),
            team_won=self.s.won,
            details={
                "objectives_completed": self.s.objective,
                "turns": self.s.turn,
                "rounds": self.s.round,
                "survivors": survivors,
                "ended_by": self.s.ended_by,
                "steps": self.s.step,
            },
        )

    # --- scoring -------------------------------------------------------------------------

    def survivors(self) -> int:
        """How many players are alive."""
        return sum(1 for p in self.s.players if p.status == ALIVE)

    def outcome(self, seat: int) -> str:
        """How `seat` finished: survived, died, forfeited (or playing while the game runs)."""
        p = self.s.players[seat]
        if p.forfeited:
            return "forfeited"
        if p.status == DEAD:
            return "died"
        return "survived" if self.s.over else "playing"

    def damage(self, seat: int) -> int:
        """Total strike damage by `seat`'s Avatar."""
        strikes = self.content.strikes
        return sum(strikes[c].damage for c in self.s.players[seat].strikes)

    # --- decisions -----------------------------------------------------------------------

    def _make_decision(self) -> Decision:
        s = self.s
        if s.stack:
            top = s.stack[-1]
            return Decision(s.step, top["seat"], top["kind"], top["prompt"], self._pending_actions(top))
        return Decision(
            s.step, s.current, MAIN, "your turn: play, recruit, scan, fight", self._main_actions()
        )

    def _known(self, key: tuple[Any, ...], kind: str, args: tuple[Arg, ...], text: str) -> Action:
        """The action `kind` `args` with `text`, built once per game: `key` is everything the
        text depends on besides the content. Callers look in self._actions first, so that the
        text is formatted only when the action is new."""
        action = self._actions[key] = Action(kind, args, text)
        return action

    def _pending_actions(self, top: Mapping[str, Any]) -> tuple[Action, ...]:
        s = self.s
        kind = top["kind"]
        p = s.players[top["seat"]]
        known = self._actions
        if kind == "coordinate":
            ids = sorted({c for c in p.hand if self.card(c).coordinate})
            out = [
                known.get(("coordinate", c))
                or self._known(("coordinate", c), "coordinate", (c,), f"coordinate {self.card(c).name}")
                for c in ids
            ]
            return (*out, known.get(("pass",)) or self._known(("pass",), "pass", (), "do not coordinate"))
        if kind == "discard":
            return tuple(
                known.get(("discard", c))
                or self._known(("discard", c), "discard", (c,), f"discard {self.card(c).name}")
                for c in sorted(set(p.hand))
            )
        if kind == "choose":
            return tuple(
                Action("choose", (i,), "choose " + describe_effects(effects_from_json(o)))
                for i, o in enumerate(top["options"])
            )
        if kind == "scan_free":
            return tuple(
                Action("scan_free", (i,), f"scan room {i + 1} for free")
                for i, r in enumerate(s.complex)
                if r is not None and not r["up"]
            )
        if kind == "heal_target":
            return tuple(
                Action("heal_target", (i,), f"heal seat {i}")
                for i, q in enumerate(s.players)
                if q.status == ALIVE and q.strikes
            )
        raise AssertionError(f"unknown pending kind {kind}")  # pragma: no cover

    def _main_actions(self) -> tuple[Action, ...]:
        s = self.s
        rules = self.content.rules
        p = s.players[s.current]
        known = self._actions
        out: list[Action] = []
        for c in sorted(set(p.hand)):
            key: tuple[Any, ...] = ("play", c)
            out.append(known.get(key) or self._known(key, "play", (c,), f"play {self.card(c).name}"))
        for i, c in enumerate(p.play):
            card = self.card(c)
            if (
                card.once
                and not p.once_used[i]
                and s.attack >= card.once_cost_attack
                and s.recruit >= card.once_cost_recruit
            ):
                key = ("use_once", i, c)
                out.append(
                    known.get(key)
                    or self._known(key, "use_once", (i,), f"use {card.name}'s once-this-turn ability")
                )
            if card.sacrifice:
                key = ("sacrifice", i, c)
                out.append(known.get(key) or self._known(key, "sacrifice", (i,), f"sacrifice {card.name}"))
        for i, c in enumerate(p.vigilant):
            key = ("release", i, c)
            out.append(
                known.get(key)
                or self._known(key, "release", (i,), f"discard Vigilant {self.card(c).name} for its benefit")
            )
        for slot, hq_card in enumerate(s.hq):
            if hq_card is not None and s.recruit >= self.card(hq_card).cost:
                key = ("recruit", slot, hq_card)
                name = self.card(hq_card).name
                out.append(known.get(key) or self._known(key, "recruit", (slot,), f"recruit {name}"))
        if s.sergeants and s.recruit >= rules["sergeant_cost"]:
            out.append(Action("recruit_sergeant", (), "recruit a Sergeant"))
        for i, r in enumerate(s.complex):
            if r is None:
                continue
            if not r["up"]:
                if s.attack >= rules["scan_costs"][i]:
                    out.append(Action("scan", (i,), f"scan room {i + 1}"))
            elif self._fightable(r["card"]):
                out.append(
                    Action("fight", ("room", i), f"fight {self.hive_card(r['card']).name} in room {i + 1}")
                )
        for i, c in enumerate(s.combat):
            if self._fightable(c):
                out.append(
                    Action("fight", ("combat", i), f"fight {self.hive_card(c).name} in the Combat Zone")
                )
        for i, f in enumerate(s.facehuggers):
            if s.attack >= self.hive_card(f["card"]).attack:
                out.append(Action("fight", ("facehugger", i), f"kill the facehugger on seat {f['seat']}"))
        for k, o in enumerate(self.content.objectives):
            # "You must complete them in order!": only the current Objective can be completed
            open_now = o.condition == "spend" and self._objective_open(k)
            if open_now and s.attack >= o.attack and self._face_up(o.card):
                out.append(Action("complete", (k,), f"spend {o.attack} Attack: {o.name}"))
        if s.can_ask and self._teammates():
            out.append(Action("ask", (), "ask the team to Coordinate"))
        key = ("end_turn",)
        out.append(known.get(key) or self._known(key, "end_turn", (), "end the Action phase"))
        return tuple(out)

    def _teammates(self) -> list[int]:
        """The other living players in turn order from the active player's left."""
        s = self.s
        seats = ((s.current + k) % s.players_n for k in range(1, s.players_n))
        return [seat for seat in seats if s.players[seat].status == ALIVE]

    def _objective_open(self, k: int) -> bool:
        """Whether Objective `k` may be completed now: "You must complete them in order!", so
        only the current one."""
        return k == self.s.objective

    def _fightable(self, card_id: str) -> bool:
        c = self.hive_card(card_id)
        return c.is_enemy and self.s.attack >= c.attack and not self._kill_awaits_its_objective(card_id)

    def _kill_awaits_its_objective(self, card_id: str) -> bool:
        """Whether killing `card_id` would complete a later Objective than the current one.

        "You must complete them in order!": such a kill is not allowed until its Objective is
        current (were it allowed and not credited, the dead boss would make the game unwinnable).
        """
        s = self.s
        return any(
            o.condition == "kill" and o.card == card_id and k > s.objective
            for k, o in enumerate(self.content.objectives)
        )

    def _face_up(self, card_id: str) -> bool:
        s = self.s
        return card_id in s.combat or any(
            r is not None and r["up"] and r["card"] == card_id for r in s.complex
        )

    # --- applying ------------------------------------------------------------------------

    def _apply_main(self, action: Action) -> None:
        s = self.s
        seat = s.current
        p = s.players[seat]
        kind, args = action.kind, action.args
        rules = self.content.rules
        # Any action but these re-arms the ask: asks <= other main actions + 1 per Action phase.
        s.can_ask = kind not in ("ask", "end_turn")
        if kind == "play":
            card_id = str(args[0])
            p.hand.remove(card_id)
            p.play.append(card_id)
            p.once_used.append(False)
            self._resolve(seat, self.card(card_id).play, source=card_id, in_play=True)
        elif kind == "use_once":
            i = int(args[0])
            card = self.card(p.play[i])
            p.once_used[i] = True
            s.attack -= card.once_cost_attack
            s.recruit -= card.once_cost_recruit
            self._resolve(seat, card.once, source=card.id, in_play=True)
        elif kind == "sacrifice":
            i = int(args[0])
            card_id = p.play.pop(i)
            p.once_used.pop(i)
            s.dead_characters.append(card_id)
            self._resolve(seat, self.card(card_id).sacrifice, source=card_id, in_play=False)
        elif kind == "release":
            card_id = p.vigilant.pop(int(args[0]))
            p.discard.append(card_id)
            self._resolve(seat, self.card(card_id).release)
        elif kind == "recruit":
            slot = int(args[0])
            hq_card = s.hq[slot]
            assert hq_card is not None
            card_id = hq_card
            s.recruit -= self.card(card_id).cost
            s.hq[slot] = s.barracks.pop() if s.barracks else None  # refill at once
            self._gain(seat, card_id)
        elif kind == "recruit_sergeant":
            s.recruit -= rules["sergeant_cost"]
            self._gain(seat, s.sergeants.pop())
        elif kind == "scan":
            room = int(args[0])
            s.attack -= rules["scan_costs"][room]
            self._scan(room)
        elif kind == "fight":
            self._fight(str(args[0]), int(args[1]))
        elif kind == "complete":
            k = int(args[0])
            o = self.content.objectives[k]
            s.attack -= o.attack
            self._remove_face_up(o.card)
            s.hive_discard.append(o.card)
            s.met[k] = True
            self._check_objectives()
        elif kind == "ask":
            # Another round of Coordinate questions, then back to this player's main decision.
            s.phase = "coordinate"
            s.coordinate_queue = self._teammates()
        elif kind == "end_turn":
            s.phase = "strike_coordinate"
            s.coordinate_queue = self._phase_ask()  # the automatic ask of the Strike phase
            s.strike_log = []
        else:  # pragma: no cover - legal actions are generated above
            raise IllegalAction(kind)

    def _apply_pending(self, action: Action) -> None:
        s = self.s
        top = s.stack.pop()
        seat = top["seat"]
        p = s.players[seat]
        kind = action.kind
        if kind == "coordinate":
            card_id = str(action.args[0])
            p.hand.remove(card_id)
            p.set_aside.append(card_id)
            self._draw(seat, 1)  # the replacement (a Chestburster drawn here kills, as always)
            s.stack.append(top)  # the same player may coordinate another card
            self._resolve(s.current, self.card(card_id).play, source=card_id, in_play=False)
        elif kind == "pass":
            pass
        elif kind == "discard":
            card_id = str(action.args[0])
            p.hand.remove(card_id)
            p.discard.append(card_id)
        elif kind == "choose":
            chosen = effects_from_json(top["options"][int(action.args[0])])
            self._resolve(seat, chosen, source=top["source"], in_play=top["in_play"])
        elif kind == "scan_free":
            self._scan(int(action.args[0]))
        elif kind == "heal_target":
            self._heal(int(action.args[0]), int(top["n"]))

    def _strikes_of(self, card_id: str) -> int:
        return self.hive_card(card_id).strikes

    # --- the turn machine ----------------------------------------------------------------

    def _advance(self) -> None:
        """Run the automatic parts of the turn until a decision is needed or the game ends."""
        s = self.s
        rules = self.content.rules
        while not s.over:
            current = s.players[s.current]
            if current.status != ALIVE and s.phase != "cleanup":
                # The active player died (or forfeited): the turn ends at once.
                s.stack.clear()
                s.strike_queue.clear()
                s.coordinate_queue.clear()
                s.can_ask = False
                s.phase = "cleanup"
            if s.stack:
                top = s.stack[-1]
                if s.players[top["seat"]].status != ALIVE or not self._pending_actions(top):
                    s.stack.pop()  # nothing left to choose, or the chooser is gone
                    continue
                return
            if s.phase == "hive":
                s.phase = "hive_coordinate"
                s.coordinate_queue = self._phase_ask()  # the automatic ask of the Hive phase
            elif s.phase == "hive_coordinate":
                if s.coordinate_queue:
                    self._ask_next()
                    continue
                s.phase = "ongoing"
                if s.hive:  # an empty Hive deck puts nothing in
                    self._enter_complex(s.hive.pop(), up=False)
            elif s.phase == "ongoing":
                s.phase = "coordinate"
                s.coordinate_queue = self._teammates()  # the automatic ask at the phase's start
                s.can_ask = False
                for card_id in list(current.vigilant):
                    self._resolve(s.current, self.card(card_id).ongoing)
            elif s.phase == "coordinate":
                if not s.coordinate_queue:
                    s.phase = "action"
                    continue
                self._ask_next()
            elif s.phase == "action":
                return
            elif s.phase == "strike_coordinate":
                if s.coordinate_queue:
                    self._ask_next()
                    continue
                # The strike order is fixed as the strikes begin (a coordinated card's scan may
                # have changed the Combat Zone during the ask).
                s.phase = "strike"
                s.strike_queue = [c for c in reversed(s.combat) for _ in range(self._strikes_of(c))]
            elif s.phase == "strike":
                if s.strike_queue:
                    self._strike(s.current, s.strike_queue.pop(0))
                else:
                    s.phase = "cleanup"
            elif s.phase == "cleanup":
                self._cleanup()
                if not s.over:
                    self._next_turn(rules["hand_size"])

    def _phase_ask(self) -> list[int]:
        """Who the automatic ask of the Hive and the Strike phases asks: "During another
        player's turn, you can set aside a Coordinate card", so every living teammate."""
        return self._teammates()

    def _ask_next(self) -> None:
        """Ask the next teammate in the current Coordinate round (if still alive)."""
        s = self.s
        seat = s.coordinate_queue.pop(0)
        if s.players[seat].status == ALIVE:
            s.stack.append({"kind": "coordinate", "seat": seat, "prompt": self._ask_prompt()})

    def _ask_prompt(self) -> str:
        s = self.s
        return f"coordinate a card for seat {s.current} ({_ASK_PHASES[s.phase]} phase)?"

    def _cleanup(self) -> None:
        s = self.s
        p = s.players[s.current]
        for card_id in p.play:
            (p.vigilant if self.card(card_id).vigilant and p.status == ALIVE else p.discard).append(card_id)
        p.play.clear()
        p.once_used.clear()
        p.discard.extend(p.hand)
        p.hand.clear()
        for q in s.players:
            q.discard.extend(q.set_aside)
            q.set_aside.clear()
        # Facehuggers not killed by the end of the next player's turn impregnate their host.
        keep = []
        for f in s.facehuggers:
            if f["expires"] > s.turn:
                keep.append(f)
                continue
            s.hive_discard.append(f["card"])
            host = s.players[f["seat"]]
            if host.status == ALIVE and s.chestbursters:
                host.discard.append(s.chestbursters.pop())
        s.facehuggers = keep
        s.attack = s.recruit = 0
        s.can_ask = False
        if p.status == ALIVE:
            self._draw(s.current, self.content.rules["hand_size"])

    def _next_turn(self, hand_size: int) -> None:
        s = self.s
        del hand_size
        for _ in range(s.players_n):
            s.current = (s.current + 1) % s.players_n
            if s.current == 0:
                s.round += 1
            if s.players[s.current].status == ALIVE:
                break
        if s.round > ROUND_LIMIT:
            self._end(won=False, why="round_limit")
            return
        s.turn += 1
        s.phase = "hive"
        s.attack = s.recruit = 0

    def _end(self, won: bool, why: str) -> None:
        s = self.s
        s.over = True
        s.won = won
        s.ended_by = why
        s.phase = "over"
        s.stack.clear()
        s.strike_queue.clear()
        s.coordinate_queue.clear()
        s.can_ask = False

    # --- the Complex and the Combat Zone -------------------------------------------------

    def _enter_complex(self, card_id: str, up: bool) -> None:
        """A card enters the first room, pushing occupied rooms one step toward the Airlock."""
        rooms = self.s.complex
        empty = next((i for i, r in enumerate(rooms) if r is None), len(rooms))
        out = None
        if empty == len(rooms):
            out = rooms[-1]
            empty = len(rooms) - 1
        for i in range(empty, 0, -1):
            rooms[i] = rooms[i - 1]
        rooms[0] = {"card": card_id, "up": up}
        if out is not None:
            # Pushed off the Airlock: into the Combat Zone (newest on the left), flipped face up.
            self.s.combat.insert(0, out["card"])
            if not out["up"]:
                self._reveal(out["card"], "combat", 0)

    def _scan(self, room: int) -> None:
        r = self.s.complex[room]
        assert r is not None and not r["up"]
        r["up"] = True
        self._reveal(r["card"], "room", room)

    def _reveal(self, card_id: str, where: str, index: int) -> None:
        """A face-down card turns face up at `where` (room index or Combat Zone index)."""
        s = self.s
        c = self.hive_card(card_id)
        if c.kind in ("enemy", "trigger"):
            self._resolve(s.current, c.reveal)
            return
        # Every other kind leaves its place at once.
        if where == "room":
            s.complex[index] = None
        else:
            s.combat.pop(index)
        if c.kind == "facehugger":
            s.facehuggers.append({"card": card_id, "seat": s.current, "expires": s.turn + 1})
            self._resolve(s.current, c.reveal)
        elif c.kind == "event":
            s.hive_discard.append(card_id)
            if s.objective < len(self.content.objectives):
                self._resolve(s.current, self.content.objectives[s.objective].event)
        elif c.kind == "hazard":
            s.hive_discard.append(card_id)
            hazards = self.content.location.hazards
            ability = hazards[min(s.hazards_used, len(hazards) - 1)]
            s.hazards_used += 1
            self._resolve(s.current, ability)
        else:  # ally
            s.hive_discard.append(card_id)
            self._resolve(s.current, c.reveal)

    def _remove_face_up(self, card_id: str) -> None:
        s = self.s
        if card_id in s.combat:
            s.combat.remove(card_id)
            return
        for i, r in enumerate(s.complex):
            if r is not None and r["up"] and r["card"] == card_id:
                s.complex[i] = None
                return

    def _fight(self, zone: str, index: int) -> None:
        s = self.s
        if zone == "room":
            room = s.complex[index]
            assert room is not None
            card_id = str(room["card"])
            s.complex[index] = None
        elif zone == "combat":
            card_id = s.combat.pop(index)
        else:
            card_id = s.facehuggers.pop(index)["card"]
        c = self.hive_card(card_id)
        s.attack -= c.attack
        s.dead_enemies.append(card_id)
        for k, o in enumerate(self.content.objectives):
            if o.condition == "kill" and o.card == card_id and self._objective_open(k):
                s.met[k] = True  # only the current Objective (later ones cannot be fought yet)
        self._resolve(s.current, c.death)
        self._check_objectives()

    def _check_objectives(self) -> None:
        """The current Objective, once met, completes and the next one becomes current."""
        s = self.s
        while s.objective < len(s.met) and s.met[s.objective]:
            s.objective += 1
        if s.objective == len(s.met) and not s.over and any(p.status == ALIVE for p in s.players):
            self._end(won=True, why="objectives")

    # --- players -------------------------------------------------------------------------

    def _gain(self, seat: int, card_id: str) -> None:
        self.s.players[seat].discard.append(card_id)
        self._resolve(seat, self.card(card_id).mobilize)  # Mobilize triggers on gaining

    def _draw(self, seat: int, n: int) -> None:
        s = self.s
        p = s.players[seat]
        for _ in range(n):
            if p.status != ALIVE:
                return
            if not p.deck:
                if not p.discard:
                    return
                p.deck, p.discard = p.discard, []
                RandomStreams(s.seed, s.rng).shuffle(_stream_deck(seat), p.deck)
            card_id = p.deck.pop()
            if card_id in self.content.hive_cards:
                self._chestburster(seat, card_id)
                self._die(seat)
                return
            p.hand.append(card_id)

    def _chestburster(self, seat: int, card_id: str) -> None:
        """"When a player draws a Chestburster, they die horribly!" -- and that is all the seed
        says: the card stays with its dead host (it does not become an enemy)."""
        self.s.players[seat].discard.append(card_id)

    def _heal(self, seat: int, n: int) -> None:
        """Remove up to n Strike cards, the most recent first."""
        p = self.s.players[seat]
        for _ in range(n):
            if not p.strikes:
                return
            self.s.strike_discard.append(p.strikes.pop())

    def _strike(self, seat: int, enemy: str) -> None:
        s = self.s
        p = s.players[seat]
        if p.status != ALIVE:
            return
        if not s.strike_deck:
            s.strike_deck, s.strike_discard = s.strike_discard, []
            RandomStreams(s.seed, s.rng).shuffle("strikes", s.strike_deck)
            if not s.strike_deck:
                return
        strike_id = s.strike_deck.pop()
        sc = self.content.strikes[strike_id]
        s.strike_log.append({"seat": seat, "enemy": enemy, "strike": strike_id})
        if sc.damage == 0:
            s.strike_discard.append(strike_id)  # a miss is not kept
        else:
            p.strikes.append(strike_id)
            if self.damage(seat) >= p.health:
                self._die(seat)
                return
        self._resolve(seat, sc.effects)

    def _die(self, seat: int) -> None:
        s = self.s
        p = s.players[seat]
        p.status = DEAD
        p.died_turn = s.turn
        s.strike_discard.extend(p.strikes)
        p.strikes.clear()
        for f in [f for f in s.facehuggers if f["seat"] == seat]:
            s.facehuggers.remove(f)
            s.hive_discard.append(f["card"])
        if not any(q.status == ALIVE for q in s.players):
            self._end(won=False, why="all_dead")

    # --- effects -------------------------------------------------------------------------

    def _resolve(self, seat: int, effects: Sequence[Effect], source: str = "", in_play: bool = False) -> None:
        """Resolve effects for `seat`. Choices are pushed so the first listed is decided first.

        `source` is the card whose effects these are; combos look for *another* card of the
        class or crew among the cards played this turn (`in_play`: the source is one of them).
        """
        s = self.s
        p = s.players[seat]
        pushes: list[dict[str, Any]] = []
        for e in effects:
            if p.status != ALIVE or s.over:
                return
            op = e.op
            if op == "attack":
                s.attack += e.n
            elif op == "recruit":
                s.recruit += e.n
            elif op == "draw":
                self._draw(seat, e.n)
            elif op == "heal":
                self._heal(seat, e.n)
            elif op == "heal_any":
                pushes.append({"kind": "heal_target", "seat": seat, "n": e.n, "prompt": f"heal {e.n}: whom?"})
            elif op == "scan":
                for _ in range(e.n):
                    pushes.append({"kind": "scan_free", "seat": seat, "prompt": "scan a room for free"})
            elif op == "strike":
                for _ in range(e.n):
                    self._strike(seat, "")
            elif op == "strike_each":
                for k in range(s.players_n):
                    for _ in range(e.n):
                        self._strike((s.current + k) % s.players_n, "")
            elif op == "hatch":
                for _ in range(e.n):
                    if s.hatchery:
                        self._enter_complex(s.hatchery.pop(0), up=True)
            elif op == "hive":
                for _ in range(e.n):
                    if s.hive:
                        self._enter_complex(s.hive.pop(), up=False)
            elif op == "discard":
                for _ in range(e.n):
                    pushes.append({"kind": "discard", "seat": seat, "prompt": "discard a card"})
            elif op == "discard_each":
                for k in range(s.players_n):
                    for _ in range(e.n):
                        pushes.append(
                            {
                                "kind": "discard",
                                "seat": (s.current + k) % s.players_n,
                                "prompt": "discard a card",
                            }
                        )
            elif op == "choose":
                pushes.append(
                    {
                        "kind": "choose",
                        "seat": seat,
                        "source": source,
                        "in_play": in_play,
                        "options": [effects_to_json(o) for o in e.options],
                        "prompt": "choose one",
                    }
                )
            elif op == "if" and self._condition(seat, e, source, in_play):
                self._resolve(seat, e.then, source, in_play)
        for pending in reversed(pushes):
            s.stack.append(pending)

    def _condition(self, seat: int, e: Effect, source: str, in_play: bool) -> bool:
        s = self.s
        if e.cond == "hurt":
            return bool(s.players[seat].strikes)
        played = s.players[s.current].play
        attr = "cls" if e.cond == "played_class" else "crew"
        tagged = sum(1 for c in played if getattr(self.card(c), attr) == e.arg)
        own = 1 if in_play and source and getattr(self.card(source), attr) == e.arg else 0
        return tagged - own > 0
