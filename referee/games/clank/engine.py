"""Clank! (base game) rules engine: a pure state machine.

Every rule of `shared/games/clank.md` lives here or in `observation.py` (what a seat may see).
Decisions come in four kinds:

- ``turn``: the active player's main decision (play a card, acquire, fight, move, teleport, take
  a token, buy, drink a potion, end the turn);
- ``trash``, ``discard``, ``choose``: pending choices pushed by card effects, on a stack.

Engine choices the rules leave open are written down in `RULES_NOTES.md` beside this file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

from referee.core.effects import effects_from_json, effects_to_json
from referee.core.game import Action, Decision, Game, IllegalAction, InvalidConfig, Result, json_digest
from referee.core.rng import RandomStreams
from referee.games.clank.content import (
    Board,
    CardDef,
    ClankContent,
    Effect,
    default_content,
    describe_effects,
)
from referee.games.clank.state import ESCAPED, KNOCKED_OUT, PLAYING, ClankState, PlayerState

__all__ = ["ClankGame"]

ENGINE_VERSION = "clank-2"
#: engine safeguard (not a printed rule): if nobody has finished after this many rounds, the
#: dragon wakes and the countdown starts on its own, so every game ends.
ROUND_LIMIT = 60

MAIN = "turn"


def _stream_deck(seat: int) -> str:
    return f"deck/{seat}"


class ClankGame(Game):
    """One game of Clank!."""

    name = "clank"
    engine_version = ENGINE_VERSION
    #: a seat that does not answer ends its turn, or trashes / discards nothing
    passive_kinds = ("end_turn", "skip")

    __slots__ = ("_decision", "content", "s")

    def __init__(self, state: ClankState, content: ClankContent) -> None:
        self.s = state
        self.content = content
        self._decision: Decision | None = None

    # --- construction -------------------------------------------------------------------

    @classmethod
    def default_config(cls, players: int) -> dict[str, Any]:
        return {"players": players, "board": "side_a"}

    @classmethod
    def new_game(cls, config: Mapping[str, Any], seed: int) -> Self:
        content = default_content()
        players = config.get("players")
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise InvalidConfig("config.players: Clank! is for 2 to 4 players")
        board_id = config.get("board", "side_a")
        if board_id not in content.boards:
            raise InvalidConfig(f"config.board: unknown board {board_id!r}; known: {sorted(content.boards)}")
        unknown = set(config) - {"players", "board"}
        if unknown:
            raise InvalidConfig(f"config: unknown fields {sorted(unknown)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidConfig("seed: must be a non-negative integer")
        board = content.boards[board_id]
        rules = content.rules
        state = ClankState(
            seed=seed,
            players_n=players,
            board=board_id,
            content_version=content.version,
            players=[],
        )
        rng = RandomStreams(seed, state.rng)

        # Players: 30 cubes, shuffled starting deck, five cards drawn, pawn at the entrance.
        for seat in range(players):
            deck = list(content.starting)
            rng.shuffle(_stream_deck(seat), deck)
            p = PlayerState(deck=deck, room=board.start, supply=rules["cubes"])
            state.players.append(p)

        # Artifacts: return 1 (3 players) or 2 (2 players) at random, unseen; fill the artifact
        # rooms from the lowest value nearest the entrance upward.
        values = list(content.artifacts)
        for _ in range(rules["artifacts_returned"][str(players)]):
            state.returned_artifacts.append(values.pop(rng.below("artifacts", len(values))))
        state.returned_artifacts.sort()
        for room, value in zip(board.artifact_rooms(), sorted(values), strict=False):
            state.artifacts[room] = value

        # Secrets: face down, two per minor room and one per major room.
        minors = [s.id for s in content.secrets.values() if s.size == "minor" for _ in range(s.count)]
        majors = [s.id for s in content.secrets.values() if s.size == "major" for _ in range(s.count)]
        rng.shuffle("secrets", minors)
        rng.shuffle("secrets", majors)
        for place in board.rooms.values():
            if place.minor_secrets:
                state.minor_secrets[place.id] = [minors.pop() for _ in range(place.minor_secrets)]
            if place.major_secret:
                state.major_secrets[place.id] = [majors.pop()]
        state.unused_secrets = sorted(minors + majors)
        state.idols = sorted(r.id for r in board.rooms.values() if r.idol)

        state.market = dict(rules["market"])
        state.mastery_left = players
        state.reserve = {pile: content.cards[pile].count for pile in content.reserve}
        state.bag_black = rules["black_cubes"]
        state.bag_cubes = [0] * players
        state.clank_area = [0] * players
        state.rage = rules["rage_start"][str(players)]

        # Dungeon row: deal six; replace each initial Dragon Attack card, then shuffle those back.
        deck = list(content.dungeon)
        rng.shuffle("dungeon", deck)
        set_aside: list[str] = []
        row: list[str] = []
        while len(row) < rules["row_size"] and deck:
            card = deck.pop()
            (set_aside if content.cards[card].dragon_attack else row).append(card)
        deck.extend(set_aside)
        rng.shuffle("dungeon", deck)
        state.dungeon_deck = deck
        state.row = list(row)

        # Starting Clank!: 3, 2, 1, 0 cubes in turn order.
        for seat in range(players):
            n = rules["starting_clank"][seat]
            state.clank_area[seat] += n
            state.players[seat].supply -= n

        game = cls(state, content)
        for seat in range(players):
            game._draw(seat, rules["hand_size"])
        return game

    # --- the contract --------------------------------------------------------------------

    @property
    def num_seats(self) -> int:
        return self.s.players_n

    @property
    def content_version(self) -> str:
        return self.s.content_version

    @property
    def board(self) -> Board:
        """The board side in play."""
        return self.content.boards[self.s.board]

    def card(self, card_id: str) -> CardDef:
        """The definition of a card."""
        return self.content.cards[card_id]

    def is_over(self) -> bool:
        return self.s.over

    def copy(self) -> Self:
        return type(self)(self.s.copy(), self.content)

    def to_json(self) -> dict[str, Any]:
        return self.s.to_json()

    def digest(self) -> str:
        return json_digest(self.s.json_view())

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        content = default_content()
        state = ClankState.from_json(dict(data))
        if state.content_version != content.version:
            raise InvalidConfig(
                f"state was made with content {state.content_version}, this build has {content.version}"
            )
        return cls(state, content)

    def _apply(self, decision: Decision, action: Action) -> None:
        self.s.step += 1
        if decision.kind == MAIN:
            self._apply_main(action)
        else:
            self._apply_pending(action)

    def forfeit(self, seat: int) -> None:
        """Forfeit `seat` (a referee decision: timeouts, crash, disconnect).

        A forfeited Clank! seat is knocked out in the Depths: it scores zero. If it was that
        seat's turn, the turn ends and play passes on.
        """
        if not 0 <= seat < self.s.players_n:
            raise IllegalAction(f"no seat {seat}")
        p = self.s.players[seat]
        if self.s.over or p.status != PLAYING:
            return  # a player who already escaped or was knocked out keeps what they earned
        self._decision = None
        self.s.step += 1
        p.forfeited = True
        self._knock_out(seat)
        if seat == self.s.current:
            self.s.stack.clear()
            self._end_turn()

    def hidden_variant(self, seat: int, seed: int) -> Self:
        variant: Self = _hidden_variant(self, seat, seed)  # type: ignore[assignment]
        return variant

    def summarize(self, observation: dict[str, Any]) -> list[str]:
        """Readable lines of an observation of this game."""
        return summarize(self, observation)

    def observe(self, seat: int) -> dict[str, Any]:
        from referee.games.clank.observation import observe

        return observe(self, seat)

    def observe_all(self) -> dict[str, Any]:
        from referee.games.clank.observation import observe_all

        return observe_all(self)

    def result(self) -> Result:
        if not self.s.over:
            raise IllegalAction("the game is not over")
        scores = [self.score(seat) for seat in range(self.s.players_n)]
        # Tie-break: "the tied player with the more valuable artifact wins" -- zero scorers too
        # (the seed makes no exception); a forfeited seat's artifacts break no tie.
        best = [0 if p.forfeited else max(p.artifacts, default=0) for p in self.s.players]
        keys = [(scores[i], best[i]) for i in range(self.s.players_n)]
        places = [1 + sum(1 for other in keys if other > mine) for mine in keys]
        return Result(
            scores=tuple(scores),
            places=tuple(places),
            outcomes=tuple(self.outcome(seat) for seat in range(self.s.players_n)),
            details={"rounds": self.s.round, "steps": self.s.step},
        )

    # --- scoring -------------------------------------------------------------------------

    def outcome(self, seat: int) -> str:
        """How `seat` finished: escaped, rescued, knocked_out, forfeited, or playing."""
        p = self.s.players[seat]
        if p.forfeited:
            return "forfeited"
        if p.status == ESCAPED:
            return "escaped"
        if p.status == KNOCKED_OUT:
            return "rescued" if self._rescued(p) else "knocked_out"
        return "playing"

    def _rescued(self, p: PlayerState) -> bool:
        return bool(p.artifacts) and not self.board.rooms[p.room].depths and not p.forfeited

    def score(self, seat: int) -> int:
        """Points of `seat` now (a knocked-out player not rescued scores 0)."""
        p = self.s.players[seat]
        if p.forfeited or (p.status == KNOCKED_OUT and not self._rescued(p)):
            return 0
        rules = self.content.rules
        cards = p.deck + p.hand + p.play + p.discard
        total: int = sum(self.content.cards[c].points for c in cards)
        total += sum(p.artifacts) + p.gold + p.crown_points + p.idols * rules["idol_points"]
        total += sum(self.content.secrets[s].points for s in p.kept_secrets)
        if p.mastery:
            total += rules["mastery_points"]
        return total

    # --- decisions -----------------------------------------------------------------------

    def _make_decision(self) -> Decision:
        s = self.s
        if s.stack:
            top = s.stack[-1]
            return Decision(s.step, top["seat"], top["kind"], top["prompt"], self._pending_actions(top))
        return Decision(s.step, s.current, MAIN, "your turn", tuple(self._main_actions()))

    def _main_actions(self) -> list[Action]:
        s, seat = self.s, self.s.current
        p = s.players[seat]
        pool = s.pool
        board = self.board
        cards = self.content.cards
        rules = self.content.rules
        out: list[Action] = []
        for card_id in sorted(set(p.hand)):
            # a card acquired this turn and drawn again this turn cannot be used yet
            if p.hand.count(card_id) > p.new_hand.count(card_id):
                out.append(Action("play", (card_id,), f"play {cards[card_id].name}"))
        for slot, row_card in enumerate(s.row):
            if row_card is None:
                continue
            c = cards[row_card]
            if c.kind == "monster":
                if pool.swords >= c.cost:
                    out.append(Action("fight", (slot,), f"fight {c.name} ({c.cost} swords)"))
            elif pool.skill >= c.cost:
                out.append(Action("acquire", (slot,), f"acquire {c.name} ({c.cost} skill)"))
        for pile in self.content.reserve:
            c = cards[pile]
            if s.reserve[pile] > 0 and pool.skill >= c.cost:
                out.append(Action("buy_reserve", (pile,), f"acquire {c.name} ({c.cost} skill)"))
        goblin = cards[self.content.goblin]
        if pool.swords >= goblin.cost:
            out.append(Action("fight_goblin", (), f"fight {goblin.name} ({goblin.cost} swords)"))
        if not pool.exhausted:
            has_key = "master_key" in p.items
            for t_index in board.exits[p.room]:
                t = board.tunnels[t_index]
                if pool.boots < t.boots or (t.locked and not has_key):
                    continue
                dest = board.other_end(t_index, p.room)
                for spend in range(min(t.monsters, pool.swords) + 1):
                    text = f"move to {board.rooms[dest].name} [{dest}]"
                    if t.monsters:
                        text += f" taking {t.monsters - spend} damage"
                        if spend:
                            text += f", spending {spend} swords"
                    out.append(Action("move", (t_index, spend), text))
        if pool.teleports > 0:
            for t_index in board.touching[p.room]:
                dest = board.other_end(t_index, p.room)
                out.append(Action("teleport", (t_index,), f"teleport to {board.rooms[dest].name} [{dest}]"))
        if p.may_take:
            for token in self._takeable_tokens(p):
                out.append(Action("take", (token,), f"take the {token.replace('_', ' ')} here"))
        if board.rooms[p.room].market and p.may_take and p.gold >= rules["market_price"]:
            # A market item is a token: one per entry. "Each Backpack lets you carry one more":
            # Backpacks may be stacked; one of each other item (checklist pin).
            for item, left in s.market.items():
                if left > 0 and (item == "backpack" or item not in p.items):
                    out.append(Action("buy_item", (item,), f"buy a {item.replace('_', ' ')} (7 gold)"))
        for potion in sorted(set(p.potions)):
            out.append(Action("drink", (potion,), f"drink {self.content.secrets[potion].name}"))
        if len(p.hand) == len(p.new_hand):  # every card played (new ones cannot be)
            out.append(Action("end_turn", (), "end the turn"))
        return out

    def _takeable_tokens(self, p: PlayerState) -> list[str]:
        s, room = self.s, p.room
        tokens = []
        if room in s.artifacts and len(p.artifacts) < 1 + p.items.count("backpack"):
            tokens.append("artifact")
        if s.minor_secrets.get(room):
            tokens.append("minor_secret")
        if s.major_secrets.get(room):
            tokens.append("major_secret")
        if room in s.idols:
            tokens.append("monkey_idol")
        return tokens

    def _pending_actions(self, top: dict[str, Any]) -> tuple[Action, ...]:
        p = self.s.players[top["seat"]]
        cards = self.content.cards
        out: list[Action] = []
        if top["kind"] == "trash":
            for card_id in sorted(set(p.play)):
                out.append(Action("trash", ("play", card_id), f"trash {cards[card_id].name} from play"))
            for card_id in sorted(set(p.discard)):
                out.append(Action("trash", ("discard", card_id), f"trash {cards[card_id].name} from discard"))
            out.append(Action("skip", (), "trash nothing"))
        elif top["kind"] == "discard":
            for card_id in sorted(set(p.hand)):
                out.append(Action("discard", (card_id,), f"discard {cards[card_id].name}"))
            out.append(Action("skip", (), "discard nothing"))
        else:  # choose
            for i, option in enumerate(top["options"]):
                out.append(Action("choose", (i,), "choose " + _describe(option)))
        return tuple(out)

    # --- applying --------------------------------------------------------------------------

    def _apply_main(self, action: Action) -> None:
        s = self.s
        seat = s.current
        p = s.players[seat]
        pool = s.pool
        cards = self.content.cards
        kind, args = action.kind, action.args
        if kind == "play":
            card_id = str(args[0])
            p.hand.remove(card_id)
            p.play.append(card_id)
            self._resolve(seat, cards[card_id].play, source=card_id)
        elif kind == "acquire":
            slot = int(args[0])
            row_card = s.row[slot]
            assert row_card is not None
            card_id = row_card
            c = cards[card_id]
            pool.skill -= c.cost
            s.row[slot] = None
            if c.kind == "device":
                s.dungeon_discard.append(card_id)
                self._resolve(seat, c.use)
            else:
                p.discard.append(card_id)
                p.new_discard.append(card_id)
                self._resolve(seat, c.acquire)
        elif kind == "buy_reserve":
            pile = str(args[0])
            c = cards[pile]
            pool.skill -= c.cost
            s.reserve[pile] -= 1
            p.discard.append(pile)
            p.new_discard.append(pile)
            self._resolve(seat, c.acquire)
        elif kind == "fight":
            slot = int(args[0])
            row_card = s.row[slot]
            assert row_card is not None
            card_id = row_card
            c = cards[card_id]
            pool.swords -= c.cost
            s.row[slot] = None
            s.dungeon_discard.append(card_id)
            self._resolve(seat, c.defeat)
        elif kind == "fight_goblin":
            c = cards[self.content.goblin]
            pool.swords -= c.cost
            self._resolve(seat, c.defeat)
        elif kind == "move":
            t_index, spend = int(args[0]), int(args[1])
            t = self.board.tunnels[t_index]
            pool.boots -= t.boots
            pool.swords -= spend
            dest = self.board.other_end(t_index, p.room)
            if t.monsters - spend > 0:
                self._damage(seat, t.monsters - spend)
                if p.status != PLAYING:  # knocked out in the tunnel: stays where it was
                    self._end_turn()
                    return
            self._enter(seat, dest)
        elif kind == "teleport":
            pool.teleports -= 1
            self._enter(seat, self.board.other_end(int(args[0]), p.room))
        elif kind == "take":
            self._take(seat, str(args[0]))
        elif kind == "buy_item":
            item = str(args[0])
            p.gold -= self.content.rules["market_price"]
            p.may_take = False  # the one token of this entry
            s.market[item] -= 1
            p.items.append(item)
            if item == "crown":
                p.crown_points += self.content.rules["crown_points"][s.crowns_sold]
                s.crowns_sold += 1
        elif kind == "drink":
            potion = str(args[0])
            p.potions.remove(potion)
            self._resolve(seat, self.content.secrets[potion].effects)
        elif kind == "end_turn":
            self._end_turn()
            return
        else:  # pragma: no cover - legal actions are generated above
            raise IllegalAction(kind)
        if p.status == ESCAPED:
            self._end_turn()

    def _apply_pending(self, action: Action) -> None:
        s = self.s
        top = s.stack.pop()
        seat = top["seat"]
        p = s.players[seat]
        if action.kind == "trash":
            zone, card_id = str(action.args[0]), str(action.args[1])
            (p.play if zone == "play" else p.discard).remove(card_id)
            if zone == "discard" and card_id in p.new_discard:
                p.new_discard.remove(card_id)  # of identical copies, the new one goes first
            p.trashed += 1
        elif action.kind == "discard":
            card_id = str(action.args[0])
            p.hand.remove(card_id)
            p.discard.append(card_id)
            if card_id in p.new_hand:  # of identical copies, the unplayable new one goes first
                p.new_hand.remove(card_id)
                p.new_discard.append(card_id)
            self._resolve(seat, effects_from_json(top["then"]), top.get("source", ""))
        elif action.kind == "choose":
            self._resolve(seat, effects_from_json(top["options"][int(action.args[0])]), top.get("source", ""))

    # --- effects -------------------------------------------------------------------------

    def _resolve(self, seat: int, effects: Sequence[Effect], source: str = "") -> None:
        """Resolve effects for `seat`. Choices are pushed so the first listed is decided first.

        `source` is the card being played, so that `played_tag` looks for *another* card.
        """
        s = self.s
        p = s.players[seat]
        pool = s.pool
        pushes: list[dict[str, Any]] = []
        for e in effects:
            op = e.op
            if op == "skill":
                pool.skill += e.n
            elif op == "swords":
                pool.swords += e.n
            elif op == "boots":
                pool.boots += e.n
            elif op == "teleport":
                pool.teleports += e.n
            elif op == "gold":
                p.gold += e.n
            elif op == "clank":
                self._clank(seat, e.n)
            elif op == "clank_all":
                for other in range(s.players_n):
                    if s.players[other].status == PLAYING:
                        self._add_clank(other, e.n)
            elif op == "draw":
                self._draw(seat, e.n)
            elif op == "heal":
                self._heal(seat, e.n)
            elif op == "rage":
                self._advance_rage(e.n)
            elif op == "trash":
                if p.play or p.discard:
                    pushes.append({"kind": "trash", "seat": seat, "prompt": "you may trash a card"})
            elif op == "discard_for":
                pushes.append(
                    {
                        "kind": "discard",
                        "seat": seat,
                        "source": source,
                        "then": effects_to_json(e.then),
                        "prompt": "you may discard a card from hand for: "
                        + _describe(effects_to_json(e.then)),
                    }
                )
            elif op == "choose":
                pushes.append(
                    {
                        "kind": "choose",
                        "seat": seat,
                        "source": source,
                        "options": [effects_to_json(o) for o in e.options],
                        "prompt": "choose one",
                    }
                )
            elif op == "if" and self._condition(seat, e, source):
                self._resolve(seat, e.then, source)
        for pending in reversed(pushes):
            # A discard choice with an empty hand has nothing to choose (only unplayed cards).
            if pending["kind"] == "discard" and not p.hand:
                continue
            s.stack.append(pending)

    def _condition(self, seat: int, e: Effect, source: str) -> bool:
        p = self.s.players[seat]
        if e.cond == "has_artifact":
            return bool(p.artifacts)
        if e.cond == "in_depths":
            return self.board.rooms[p.room].depths
        if e.cond == "has_item":
            return e.arg in p.items
        # played_tag: another card with the tag is in the play area (the source itself is there)
        cards = self.content.cards
        tagged = sum(1 for c in p.play if e.arg in cards[c].tags)
        own = 1 if source and e.arg in cards[source].tags else 0
        return tagged - own > 0

    def _clank(self, seat: int, n: int) -> None:
        """Clank! from the player's own effects: negative removes own cubes, then offsets later."""
        pool = self.s.pool
        if n < 0:
            removable = min(-n, self.s.clank_area[seat])
            self.s.clank_area[seat] -= removable
            self.s.players[seat].supply += removable
            pool.negative_clank += -n - removable
            return
        offset = min(n, pool.negative_clank)
        pool.negative_clank -= offset
        self._add_clank(seat, n - offset)

    def _add_clank(self, seat: int, n: int) -> None:
        p = self.s.players[seat]
        if p.status != PLAYING:
            return
        added = min(n, p.supply)  # none left in the supply: no more added
        p.supply -= added
        self.s.clank_area[seat] += added

    def _draw(self, seat: int, n: int) -> None:
        p = self.s.players[seat]
        for _ in range(n):
            if not p.deck:
                if not p.discard:
                    return
                p.deck, p.discard = p.discard, []
                p.new_deck.extend(p.new_discard)
                p.new_discard.clear()
                RandomStreams(self.s.seed, self.s.rng).shuffle(_stream_deck(seat), p.deck)
            card_id = p.deck.pop()
            p.hand.append(card_id)
            if card_id in p.new_deck:
                # Copies of a card are alike but for being new: the top one of k copies, j of
                # them new, is a new one with chance j/k (its own stream, so games without a
                # mid-turn reshuffle draw exactly as before).
                new, copies = p.new_deck.count(card_id), p.deck.count(card_id) + 1
                if new >= copies or RandomStreams(self.s.seed, self.s.rng).below(f"new/{seat}", copies) < new:
                    p.new_deck.remove(card_id)
                    p.new_hand.append(card_id)

    def _heal(self, seat: int, n: int) -> None:
        p = self.s.players[seat]
        healed = min(n, p.damage)
        p.damage -= healed
        p.supply += healed

    def _damage(self, seat: int, n: int) -> None:
        """Damage from the player's supply (tunnels). An empty supply takes from the Clank! Area,
        then the bag, so the 30 cubes are always accounted for."""
        s = self.s
        p = s.players[seat]
        for _ in range(n):
            if p.supply > 0:
                p.supply -= 1
            elif s.clank_area[seat] > 0:
                s.clank_area[seat] -= 1
            elif s.bag_cubes[seat] > 0:
                s.bag_cubes[seat] -= 1
            p.damage += 1
        if p.damage >= self.content.rules["health"] and p.status == PLAYING:
            self._knock_out(seat)

    def _advance_rage(self, n: int) -> None:
        self.s.rage = min(self.s.rage + n, len(self.content.rules["rage_track"]) - 1)

    def _enter(self, seat: int, room_id: str) -> None:
        s = self.s
        p = s.players[seat]
        room = self.board.rooms[room_id]
        p.room = room_id
        p.may_take = True
        if room.crystal:
            s.pool.exhausted = True
        if room_id == self.board.start and p.artifacts:
            p.status = ESCAPED
            if s.mastery_left > 0:
                s.mastery_left -= 1
                p.mastery = True
            self._finished(seat)

    def _take(self, seat: int, token: str) -> None:
        s = self.s
        p = s.players[seat]
        room = p.room
        p.may_take = False
        if token == "artifact":
            p.artifacts.append(s.artifacts.pop(room))
            self._advance_rage(1)
        elif token == "monkey_idol":
            s.idols.remove(room)
            p.idols += 1
        else:
            secrets = (s.minor_secrets if token == "minor_secret" else s.major_secrets)[room]
            secret_id = secrets.pop()
            secret = self.content.secrets[secret_id]
            if secret.dragon_egg:
                self._advance_rage(1)
            if secret.potion:
                p.potions.append(secret_id)
            else:
                if secret.points or secret.dragon_egg:
                    p.kept_secrets.append(secret_id)
                self._resolve(seat, secret.effects)

    # --- finishing ----------------------------------------------------------------------

    def _knock_out(self, seat: int) -> None:
        self.s.players[seat].status = KNOCKED_OUT
        self._finished(seat)

    def _finished(self, seat: int) -> None:
        """The first player to escape or be knocked out starts the countdown."""
        if self.s.countdown < 0:
            self.s.countdown = 0
            self.s.countdown_seat = seat

    def _in_dungeon(self) -> list[int]:
        return [i for i, p in enumerate(self.s.players) if p.status == PLAYING]

    # --- turn end and dragon ------------------------------------------------------------

    def _end_turn(self) -> None:
        s = self.s
        seat = s.current
        p = s.players[seat]
        s.stack.clear()
        s.pool.negative_clank = 0  # unused negative Clank! expires
        p.may_take = False  # "take at most one token when you enter": not on a later turn
        p.new_discard.clear()
        p.new_deck.clear()
        p.new_hand.clear()
        p.discard.extend(p.play)
        p.discard.extend(p.hand)
        p.play.clear()
        p.hand.clear()
        if p.status == PLAYING:
            self._draw(seat, self.content.rules["hand_size"])
        attack = self._refill_row()
        if attack:
            self._dragon_attack(0, "refill")
        self._next_turn()

    def _refill_row(self) -> bool:
        s = self.s
        rng = RandomStreams(s.seed, s.rng)
        attack = False
        for slot, card_id in enumerate(s.row):
            if card_id is not None:
                continue
            if not s.dungeon_deck:
                if not s.dungeon_discard:
                    continue
                s.dungeon_deck, s.dungeon_discard = s.dungeon_discard, []
                rng.shuffle("dungeon", s.dungeon_deck)
            new = s.dungeon_deck.pop()
            s.row[slot] = new
            c = self.content.cards[new]
            # Arrive effects resolve as the card enters, before any attack.
            for e in c.arrive:
                if e.op == "clank_all":
                    for other in self._in_dungeon():
                        self._add_clank(other, e.n)
                elif e.op == "rage":
                    self._advance_rage(e.n)
            attack = attack or c.dragon_attack
        return attack

    def _dragon_attack(self, extra: int, reason: str) -> None:
        """All Clank! Area cubes go into the bag; draw Rage + Danger cards + extra cubes."""
        s = self.s
        rules = self.content.rules
        for seat in range(s.players_n):
            s.bag_cubes[seat] += s.clank_area[seat]
            s.clank_area[seat] = 0
        danger = sum(1 for c in s.row if c is not None and self.content.cards[c].danger)
        to_draw = rules["rage_track"][s.rage] + danger + extra
        rng = RandomStreams(s.seed, s.rng)
        drawn: list[int] = []  # -1 black, else seat
        for _ in range(to_draw):
            total = s.bag_black + sum(s.bag_cubes)
            if total == 0:
                break  # an empty bag draws nothing more
            pick = rng.below("dragon_bag", total)
            if pick < s.bag_black:
                s.bag_black -= 1
                drawn.append(-1)
                continue
            pick -= s.bag_black
            for seat in range(s.players_n):
                if pick < s.bag_cubes[seat]:
                    break
                pick -= s.bag_cubes[seat]
            s.bag_cubes[seat] -= 1
            drawn.append(seat)
            p = s.players[seat]
            if p.status == PLAYING:
                p.damage += 1  # the drawn cube goes onto the Health Meter
                if p.damage >= rules["health"]:
                    self._knock_out(seat)
            # a finished player's cube is removed with no damage
        s.last_attack = {
            "reason": reason,
            "round": s.round,
            "cubes": to_draw,
            "drawn": len(drawn),
            "black": drawn.count(-1),
            "damage": [drawn.count(seat) for seat in range(s.players_n)],
        }

    def _next_turn(self) -> None:
        s = self.s
        rules = self.content.rules
        s.pool = type(s.pool)()
        for _ in range(4 * s.players_n + 8):
            if not self._in_dungeon():
                s.over = True
                return
            s.current = (s.current + 1) % s.players_n
            if s.current == 0:
                s.round += 1
                if s.countdown < 0 and s.round > ROUND_LIMIT:
                    s.countdown, s.countdown_seat = 0, 0
            seat = s.current
            if seat == s.countdown_seat:
                s.countdown += 1
                if s.countdown >= rules["countdown_spaces"]:
                    for other in self._in_dungeon():
                        self._knock_out(other)
                    s.over = True
                    return
                self._dragon_attack(rules["countdown_extra"][s.countdown - 1], f"countdown {s.countdown}")
            if s.players[seat].status == PLAYING:
                return
        raise AssertionError("turn order found no player")  # pragma: no cover


def _describe(effects_json: list[dict[str, Any]]) -> str:
    return describe_effects(effects_from_json(effects_json))


def _hidden_variant(game: ClankGame, seat: int, seed: int) -> ClankGame:
    """See Game.hidden_variant: re-deal what `seat` cannot know."""
    v = game.copy()
    s = v.s
    rng = RandomStreams(seed, {})
    for i, p in enumerate(s.players):
        if i == seat:
            rng.shuffle("own", p.deck)  # the owner knows what is in it, not the order
            continue
        unseen = p.hand + p.deck
        rng.shuffle("other", unseen)
        p.hand, p.deck = unseen[: len(p.hand)], unseen[len(p.hand) :]
        # cards acquired and redrawn this turn: spread over the re-dealt hand, the rest in the deck
        new, p.new_hand, p.new_deck = p.new_hand + p.new_deck, [], []
        for card_id in new:
            in_hand = p.hand.count(card_id) > p.new_hand.count(card_id)
            (p.new_hand if in_hand else p.new_deck).append(card_id)
    rng.shuffle("dungeon", s.dungeon_deck)
    for size, rooms in (("minor", s.minor_secrets), ("major", s.major_secrets)):
        pool = [x for r in sorted(rooms) for x in rooms[r]]
        unused = [x for x in s.unused_secrets if game.content.secrets[x].size == size]
        others = [x for x in s.unused_secrets if game.content.secrets[x].size != size]
        pool += unused
        rng.shuffle("secrets", pool)
        for r in sorted(rooms):
            n = len(rooms[r])
            rooms[r], pool = pool[:n], pool[n:]
        s.unused_secrets = sorted(others + pool)
    s.rng = {name: rng.next64("rng") for name in s.rng}
    v._decision = None
    return v


def summarize(game: ClankGame, obs: dict[str, Any]) -> list[str]:
    """A few readable lines of a Clank! observation (for `arena replay show`)."""
    board = game.board
    lines = []
    for p in obs["players"]:
        room = board.rooms[p["room"]]
        lines.append(
            f"seat {p['seat']}: {p['status']} in {room.name} [{room.id}]{' (Depths)' if room.depths else ''}"
            f" hp {p['health']} gold {p['gold']} artifacts {p['artifacts']} items {p['items']}"
            f" clank {p['clank_area']} bag {p['bag_cubes']} hand {p['hand_size']} deck {p['deck_size']}"
        )
    names = game.content.cards
    if obs["you"] is not None:
        lines.append("hand: " + ", ".join(names[c].name for c in obs["you"]["hand"]))
    else:
        lines.append("hands: " + " | ".join(", ".join(names[c].name for c in h) for h in obs["hands"]))
    pool = obs["pool"]
    lines.append(
        f"pool: skill {pool['skill']} swords {pool['swords']} boots {pool['boots']}"
        f" teleports {pool['teleports']}{' exhausted' if pool['exhausted'] else ''}"
    )
    lines.append("row: " + ", ".join(names[c].name if c else "-" for c in obs["row"]))
    lines.append(
        f"rage {obs['rage']} (draws {obs['rage_draws']}), bag black {obs['bag']['black']},"
        f" countdown {obs['countdown']}"
    )
    return lines
