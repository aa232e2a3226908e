"""Clank! (base game) rules engine: a pure state machine.

Every rule of `docs/rules/clank.md` lives here or in `observation.py` (what a seat may see).
Decisions come in four kinds:

- ``turn``: the active player's main decision (play a card, acquire, fight, move, teleport, take
  a token, buy, drink a potion, end the turn);
- ``trash``, ``discard``, ``choose``: pending choices pushed by card effects, on a stack.

Engine choices the rules leave open are written down in `RULES_NOTES.md` beside this file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from referee.core.effects import effects_from_json
from referee.core.game import Action, Decision, IllegalAction, InvalidConfig
from referee.core.rng import RandomStreams
from referee.games.clank import observation as seen
from referee.games.clank.content import (
    Board,
    CardDef,
    ClankContent,
    Effect,
    default_content,
    describe_effects,
)
from referee.games.clank.state import ESCAPED, KNOCKED_OUT, PLAYING, ClankState, PlayerState
from referee.games.clank_core.game import MAIN, ClankGameBase
from referee.games.clank_core.observation import summary_lines
from referee.games.clank_core.rules import redeal_hidden_cards, stream_deck

__all__ = ["ClankGame"]

ENGINE_VERSION = "clank-2"
#: engine safeguard (not a printed rule): if nobody has finished after this many rounds, the
#: dragon wakes and the countdown starts on its own, so every game ends.
ROUND_LIMIT = 60


class ClankGame(ClankGameBase[Board, CardDef]):
    """One game of Clank!."""

    name = "clank"
    engine_version = ENGINE_VERSION
    #: a seat that does not answer ends its turn, or trashes / discards nothing
    passive_kinds = ("end_turn", "skip")

    __slots__ = ("_actions", "_decision", "content", "s")

    s: ClankState
    content: ClankContent
    state_type = ClankState

    def __init__(self, state: ClankState, content: ClankContent) -> None:
        super().__init__(state, content)
        #: the main turn's actions built so far in this game, under what each one's text depends
        #: on (the content and the board are fixed for a game): see _main_actions
        self._actions: dict[tuple[Any, ...], Action] = {}

    # --- construction -------------------------------------------------------------------

    @classmethod
    def default_config(cls, players: int) -> dict[str, Any]:
        return {"players": players, "board": "side_a"}

    @classmethod
    def game_content(cls) -> ClankContent:
        return default_content()

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
            rng.shuffle(stream_deck(seat), deck)
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

    # num_seats, content_version, is_over, copy, to_json, from_json, digest, board, card:
    # ClankGameBase

    def _apply(self, decision: Decision, action: Action) -> None:
        self.s.step += 1
        if decision.kind == MAIN:
            self._apply_main(action)
        else:
            self._apply_pending(action)

    # forfeit (a forfeited seat is knocked out where it stands: in the Depths it scores zero):
    # ClankGameBase

    def hidden_variant(self, seat: int, seed: int) -> Self:
        variant: Self = _hidden_variant(self, seat, seed)  # type: ignore[assignment]
        return variant

    def summarize(self, observation: dict[str, Any]) -> list[str]:
        """Readable lines of an observation of this game."""
        return summarize(self, observation)

    def observe(self, seat: int) -> dict[str, Any]:
        # the module is imported at load (an import statement here cost 0.4 us per decision),
        # its function looked up at each call (the leak-check test swaps it for a leaky one)
        return seen.observe(self, seat)

    def observe_all(self) -> dict[str, Any]:
        return seen.observe_all(self)

    # result, outcome, score: ClankGameBase, with these rules of Clank!'s

    #: "rescued": knocked out outside the Depths with an artifact (it keeps its points)
    knocked_out_outcomes = ("rescued", "knocked_out")

    def _keeps_points(self, p: PlayerState) -> bool:
        """Rescued: knocked out outside the Depths, carrying an artifact."""
        return bool(p.artifacts) and not self.board.rooms[p.room].depths and not p.forfeited

    def _own_points(self, p: PlayerState) -> int:
        """Crown points, Monkey Idols and the Mastery token."""
        rules = self.content.rules
        points: int = p.crown_points + p.idols * rules["idol_points"]
        return points + (rules["mastery_points"] if p.mastery else 0)

    # --- decisions -----------------------------------------------------------------------

    def _main_actions(self) -> list[Action]:
        # A turn offers mostly the same few dozen actions again and again: each is built (its
        # text formatted) once per game and kept in self._actions under what its text depends
        # on; `get(key) or setdefault(key, Action(...))` builds it only when it is missing.
        s, seat = self.s, self.s.current
        p = s.players[seat]
        pool = s.pool
        board = self.board
        cards = self.content.cards
        rules = self.content.rules
        known = self._actions
        out: list[Action] = []
        self._card_actions(known, self.content.reserve, out)
        goblin = cards[self.content.goblin]
        if pool.swords >= goblin.cost:
            key: tuple[Any, ...] = ("fight_goblin",)
            out.append(known.get(key) or known.setdefault(
                key, Action("fight_goblin", (), f"fight {goblin.name} ({goblin.cost} swords)")))
        if not pool.exhausted:
            has_key = "master_key" in p.items
            for t_index in board.exits[p.room]:
                t = board.tunnels[t_index]
                if pool.boots < t.boots or (t.locked and not has_key):
                    continue
                for spend in range(min(t.monsters, pool.swords) + 1):
                    key = ("move", p.room, t_index, spend)
                    action = known.get(key)
                    if action is None:
                        dest = board.other_end(t_index, p.room)
                        text = f"move to {board.rooms[dest].name} [{dest}]"
                        if t.monsters:
                            text += f" taking {t.monsters - spend} damage"
                            if spend:
                                text += f", spending {spend} swords"
                        action = known[key] = Action("move", (t_index, spend), text)
                    out.append(action)
        if pool.teleports > 0:
            for t_index in board.touching[p.room]:
                key = ("teleport", p.room, t_index)
                action = known.get(key)
                if action is None:
                    dest = board.other_end(t_index, p.room)
                    text = f"teleport to {board.rooms[dest].name} [{dest}]"
                    action = known[key] = Action("teleport", (t_index,), text)
                out.append(action)
        if p.may_take:
            for token in self._takeable_tokens(p):
                key = ("take", token)
                out.append(known.get(key) or known.setdefault(
                    key, Action("take", (token,), f"take the {token.replace('_', ' ')} here")))
        if board.rooms[p.room].market and p.gold >= rules["market_price"]:
            for item in self._market_offers(p):
                key = ("buy_item", item)
                out.append(known.get(key) or known.setdefault(
                    key, Action("buy_item", (item,), f"buy a {item.replace('_', ' ')} (7 gold)")))
        for potion in sorted(set(p.potions)):
            key = ("drink", potion)
            out.append(known.get(key) or known.setdefault(
                key, Action("drink", (potion,), f"drink {self.content.secrets[potion].name}")))
        if len(p.hand) == len(p.new_hand):  # every card played (new ones cannot be)
            key = ("end_turn",)
            out.append(known.get(key) or known.setdefault(key, Action("end_turn", (), "end the turn")))
        return out

    def _market_offers(self, p: PlayerState) -> list[str]:
        """The items a player in a market room with the gold may buy. A market item is a token:
        one per entry. "Each Backpack lets you carry one more": Backpacks may be stacked; one of
        each other item (checklist pin)."""
        if not p.may_take:
            return []
        return [i for i, left in self.s.market.items() if left > 0 and (i == "backpack" or i not in p.items)]

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

    # --- applying --------------------------------------------------------------------------

    def _apply_main(self, action: Action) -> None:
        s = self.s
        seat = s.current
        p = s.players[seat]
        pool = s.pool
        kind, args = action.kind, action.args
        if self._apply_card_action(seat, action):
            pass  # play, acquire, buy_reserve, fight, drink: the shared rules (ClankCore)
        elif kind == "fight_goblin":
            self._fight_guardian(seat, self.content.goblin)
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
            self._buy_item(p, str(args[0]))
        elif kind == "end_turn":
            self._end_turn()
            return
        else:  # pragma: no cover - legal actions are generated above
            raise IllegalAction(kind)
        if p.status == ESCAPED:
            self._end_turn()

    def _acquire_row_card(self, seat: int, card_id: str) -> None:
        """A device is not gained: it goes to the dungeon discard pile, its effects resolve."""
        c = self.content.cards[card_id]
        if c.kind == "device":
            self.s.dungeon_discard.append(card_id)
            self._resolve(seat, c.use)
        else:
            self._acquired(seat, card_id)

    def _row_discard(self) -> list[str]:
        return self.s.dungeon_discard

    def _buy_item(self, p: PlayerState, item: str) -> None:
        s = self.s
        p.gold -= self.content.rules["market_price"]
        p.may_take = False  # the one token of this entry
        s.market[item] -= 1
        p.items.append(item)
        if item == "crown":
            p.crown_points += self.content.rules["crown_points"][s.crowns_sold]
            s.crowns_sold += 1

    # --- the core's hooks ----------------------------------------------------------------

    def _describe(self, effects_json: list[dict[str, Any]]) -> str:
        return _describe(effects_json)

    def _game_condition(self, seat: int, e: Effect, source: str) -> bool:
        if e.cond == "in_depths":
            return self.board.rooms[self.s.players[seat].room].depths
        raise ValueError(f"unknown condition {e.cond!r}")

    # --- moving and taking -----------------------------------------------------------------

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
            self._take_artifact(p, room)
        elif token == "monkey_idol":
            s.idols.remove(room)
            p.idols += 1
        else:
            secrets = (s.minor_secrets if token == "minor_secret" else s.major_secrets)[room]
            self._gain_secret(seat, secrets.pop())

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
        self._clean_up(p, p.hand)
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
        danger = sum(1 for c in s.row if c is not None and self.content.cards[c].danger)
        self._attack(self.content.rules["rage_track"][s.rage] + danger + extra, reason)

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
    redeal_hidden_cards(s.players, seat, rng)
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
    lines += summary_lines(game.content.cards, obs)
    lines.append(
        f"rage {obs['rage']} (draws {obs['rage_draws']}), bag black {obs['bag']['black']},"
        f" countdown {obs['countdown']}"
    )
    return lines
