"""Helpers for Clank! rules tests: build a game, arrange an exact situation, act publicly.

Situations are arranged by editing `game.s` (the ClankState) directly; every edit goes through
`arranged(game)` afterwards so the cached decision is rebuilt. Actions then go through the public
API (`decision().actions`, `apply`, `forfeit`). Cards and rooms are picked from the content by
their properties, never by hard-coded id, so a content edit cannot silently void a test.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.core.game import Action
from referee.games.clank.content import CardDef, Room
from referee.games.clank.engine import ClankGame
from referee.games.clank.state import ESCAPED, KNOCKED_OUT, PLAYING

__all__ = [
    "ESCAPED",
    "KNOCKED_OUT",
    "PLAYING",
    "act",
    "arranged",
    "card_where",
    "discard_hand",
    "end_turn",
    "escape",
    "find_action",
    "has_action",
    "make_game",
    "move",
    "plain_card",
    "quiet_dragon",
    "rage_index_drawing",
    "room_where",
    "tunnel_between",
    "two_way_step",
]


def make_game(players: int = 2, seed: int = 7) -> ClankGame:
    """A fresh game on board side A."""
    return ClankGame.new_game({"players": players, "board": "side_a"}, seed)


def arranged(game: ClankGame) -> ClankGame:
    """Call after editing the state: the next decision is recomputed from it."""
    game._decision = None
    return game


# --- content pickers -------------------------------------------------------------------------


def card_where(game: ClankGame, pred: Callable[[CardDef], bool], *, exclude: tuple[str, ...] = ()) -> str:
    """The id (sorted first) of a dungeon card matching `pred`."""
    ids = sorted(c for c in set(game.content.dungeon) if c not in exclude and pred(game.card(c)))
    assert ids, "no dungeon card fits this test"
    return ids[0]


def plain_card(game: ClankGame, *, exclude: tuple[str, ...] = ()) -> str:
    """A dungeon card that is acquired with Skill and does nothing else that could disturb a test:
    no Danger, no Dragon Attack symbol, no Arrive or Acquire effect, no points."""
    return card_where(
        game,
        lambda c: (
            c.kind == "card"
            and not c.danger
            and not c.dragon_attack
            and not c.arrive
            and not c.acquire
            and c.points == 0
        ),
        exclude=exclude,
    )


def room_where(game: ClankGame, pred: Callable[[Room], bool]) -> str:
    """The id (sorted first) of a room of the board matching `pred`."""
    ids = sorted(r.id for r in game.board.rooms.values() if pred(r))
    assert ids, "no room fits this test"
    return ids[0]


def tunnel_between(game: ClankGame, a: str, b: str) -> int:
    """Index of the tunnel joining rooms a and b."""
    for i, t in enumerate(game.board.tunnels):
        if {t.a, t.b} == {a, b}:
            return i
    raise AssertionError(f"no tunnel between {a} and {b}")


def two_way_step(
    game: ClankGame, dest_pred: Callable[[Room], bool], from_pred: Callable[[Room], bool] = lambda r: True
) -> tuple[str, str, int]:
    """(from_room, dest_room, tunnel) for a plain tunnel (1 Boot, no monster, no lock, both ways)
    into a room matching `dest_pred` from a room matching `from_pred` (other than the start)."""
    board = game.board
    found = []
    for i, t in enumerate(board.tunnels):
        if t.boots != 1 or t.monsters or t.locked or t.one_way:
            continue
        for src, dst in ((t.a, t.b), (t.b, t.a)):
            if src == board.start or dst == board.start:
                continue
            if dest_pred(board.rooms[dst]) and from_pred(board.rooms[src]):
                found.append((src, dst, i))
    assert found, "no tunnel fits this test"
    return sorted(found)[0]


def rage_index_drawing(game: ClankGame, cubes: int) -> int:
    """The first Rage space that draws `cubes` cubes."""
    track: list[int] = game.content.rules["rage_track"]
    return track.index(cubes)


# --- arranging ---------------------------------------------------------------------------------


def quiet_dragon(game: ClankGame, *, black: int = 0, rage_draws: int = 2) -> None:
    """No cubes anywhere but `black` black ones in the bag; Rage draws `rage_draws`; the Dungeon Row
    holds six plain cards (no Danger, no Dragon Attack symbol)."""
    s = game.s
    s.clank_area = [0] * s.players_n
    s.bag_cubes = [0] * s.players_n
    s.bag_black = black
    s.rage = rage_index_drawing(game, rage_draws)
    s.row = [plain_card(game)] * game.content.rules["row_size"]
    for p in s.players:
        p.supply = game.content.rules["cubes"] - p.damage
    arranged(game)


def discard_hand(game: ClankGame, seat: int) -> None:
    """Put `seat`'s hand in its discard pile (so the turn may end without playing anything)."""
    p = game.s.players[seat]
    p.discard.extend(p.hand)
    p.hand.clear()
    arranged(game)


# --- acting ------------------------------------------------------------------------------------


def find_action(game: ClankGame, kind: str, *args: int | str) -> Action:
    """The legal action of this kind and arguments (fails the test if it is not legal)."""
    d = game.decision()
    assert d is not None, "the game is over"
    for a in d.actions:
        if a.kind == kind and a.args == args:
            return a
    raise AssertionError(f"{kind} {args} is not legal; legal: {[(a.kind, a.args) for a in d.actions]}")


def has_action(game: ClankGame, kind: str, *args: int | str) -> bool:
    """Whether an action of this kind (and these arguments, if given) is legal now."""
    d = game.decision()
    if d is None:
        return False
    return any(a.kind == kind and (not args or a.args == args) for a in d.actions)


def act(game: ClankGame, kind: str, *args: int | str) -> None:
    """Apply the legal action of this kind and arguments."""
    game.apply(find_action(game, kind, *args))


def end_turn(game: ClankGame) -> None:
    """End the current player's turn without playing: the hand goes to the discard pile first."""
    discard_hand(game, game.s.current)
    act(game, "end_turn")


def move(game: ClankGame, dest: str, swords: int = 0) -> None:
    """Move the current player through the tunnel to `dest` (Boots must be in the pool)."""
    act(game, "move", tunnel_between(game, game.s.players[game.s.current].room, dest), swords)


def escape(game: ClankGame, seat: int, artifact: int) -> None:
    """Mark `seat` as having escaped with `artifact` and a Mastery token (pawn on the start space),
    and as the first finisher if nobody finished before."""
    s = game.s
    p = s.players[seat]
    p.status = ESCAPED
    p.room = game.board.start
    p.artifacts = [artifact]
    p.mastery = True
    s.mastery_left -= 1
    if s.countdown < 0:
        s.countdown, s.countdown_seat = 0, seat
    arranged(game)
