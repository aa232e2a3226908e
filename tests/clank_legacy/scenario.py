"""Scenario helpers for the Clank! Legacy rules tests.

A test builds a real game (a real campaign state in its config), edits its state into a precise
situation (hand, pool, space, row...), then acts only through the public API
(`decision().actions`, `apply`) and checks the outcome. Paths and spaces are picked by property
(a canoe path, a Coach space...) so the tests survive board edits.

Acting and arranging the hand and pool are Clank!'s helpers too: they are imported from
`tests/clank_core/scenario.py`.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.core.game import Decision
from referee.core.rng import RandomStreams
from referee.games.clank_legacy.campaign import CampaignState, new_campaign
from referee.games.clank_legacy.content import Board, BoardPath, Space
from referee.games.clank_legacy.engine import ClankLegacyGame
from tests.clank_core.scenario import act, actions, can, player, refresh, set_hand, set_pool

__all__ = [
    "act",
    "actions",
    "can",
    "finish_play",
    "new_game",
    "path_where",
    "place",
    "play_out",
    "player",
    "refresh",
    "set_hand",
    "set_pool",
    "space_where",
]


def new_game(players: int = 2, seed: int = 7, campaign: CampaignState | None = None) -> ClankLegacyGame:
    """A fresh game through the public constructor (a new campaign's first game by default)."""
    state = campaign if campaign is not None else new_campaign(players)
    return ClankLegacyGame.new_game({"players": players, "campaign": state.to_json()}, seed)


def place(game: ClankLegacyGame, space: str, seat: int | None = None, visited: bool = True) -> None:
    """Put a figure on `space` without entering it (marked visited unless told otherwise)."""
    p = player(game, seat)
    p.space = space
    p.may_take = False
    if visited and space not in p.visited:
        p.visited.append(space)
    refresh(game)


def path_where(board: Board, test: Callable[[BoardPath], bool]) -> int:
    """Index of the first path passing `test` (the board must have one)."""
    found = [i for i, p in enumerate(board.paths) if test(p)]
    assert found, "the board has no path for this scenario"
    return found[0]


def space_where(board: Board, test: Callable[[Space], bool]) -> Space:
    """The first space passing `test` (the board must have one)."""
    found = [s for s in board.spaces.values() if test(s)]
    assert found, "the board has no space for this scenario"
    return found[0]


def finish_play(game: ClankLegacyGame) -> None:
    """Bring play to its end the natural way: every other seat already escaped, the current
    player carries an artifact one step from HQ, walks home and ends the turn."""
    s = game.s
    board = game.board
    for i, p in enumerate(s.players):
        if i != s.current:
            p.status = "escaped"
    i = path_where(board, lambda p: board.hq in (p.a, p.b) and p.boots == 1 and not p.monsters)
    path = board.paths[i]
    place(game, path.b if path.a == board.hq else path.a)
    p = player(game)
    p.artifacts = [5]
    p.hand = []
    set_pool(game, boots=1)
    act(game, "move", i, 0)
    act(game, "end_turn")


def play_out(game: ClankLegacyGame, seed: int, chooser: Callable[[Decision], int] | None = None) -> int:
    """Play to the end with random choices (seeded); returns the number of actions."""
    rng = RandomStreams(seed, {})
    n = 0
    while not game.is_over():
        d = game.decision()
        assert d is not None
        game.apply_index(chooser(d) if chooser is not None else rng.below("bot", len(d.actions)))
        n += 1
        assert n < 50_000, "a game that does not end"
    return n
