"""Fixtures and small state-editing helpers for the Alien rules tests.

Rules tests build the exact situation a rule needs by editing a fresh game's state (plain
data) and then drive it only through legal actions, so every assertion is about the engine's
own behaviour.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from referee.core.game import Action
from referee.games.alien.content import AlienContent, default_content
from referee.games.alien.engine import AlienGame


def new_game(players: int = 1, seed: int = 0) -> AlienGame:
    return AlienGame.new_game(AlienGame.default_config(players), seed)


def refresh(game: AlienGame) -> AlienGame:
    """Forget the cached decision after editing the state by hand."""
    game._decision = None
    return game


def clear_board(game: AlienGame) -> AlienGame:
    s = game.s
    s.complex = [None] * 5
    s.combat = []
    s.facehuggers = []
    s.stack = []
    return refresh(game)


def to_main(game: AlienGame) -> AlienGame:
    """Pass every pending Coordinate question until the active player's main decision."""
    while True:
        d = game.decision()
        assert d is not None
        if d.kind == "turn":
            return game
        assert d.kind == "coordinate", d
        game.apply(Action("pass"))


def pass_asks(game: AlienGame, phase: str) -> AlienGame:
    """Pass the Coordinate questions of the ask running in `phase` (e.g. "strike_coordinate")."""
    while not game.is_over() and game.s.phase == phase:
        d = game.decision()
        assert d is not None
        if d.kind != "coordinate":
            break
        game.apply(Action("pass"))
    return game


def end_turn(game: AlienGame) -> AlienGame:
    """End the Action phase and pass the Strike phase's Coordinate questions (the strikes,
    cleanup and the next turn then run up to the next decision)."""
    act(game, "end_turn")
    return pass_asks(game, "strike_coordinate")


def legal(game: AlienGame, kind: str) -> list[Action]:
    d = game.decision()
    assert d is not None
    return [a for a in d.actions if a.kind == kind]


def act(game: AlienGame, kind: str, *args: int | str) -> None:
    d = game.decision()
    assert d is not None
    for a in d.actions:
        if a.kind == kind and tuple(a.args) == tuple(args):
            game.apply(a)
            return
    raise AssertionError(f"{kind} {args} not legal; legal: {[(a.kind, a.args) for a in d.actions]}")


def set_hand(game: AlienGame, seat: int, cards: list[str]) -> AlienGame:
    game.s.players[seat].hand = list(cards)
    return refresh(game)


def strikes_of(content: AlienContent, damage: int) -> str:
    return next(s.id for s in content.strikes.values() if s.damage == damage and not s.effects)


@pytest.fixture(scope="session")
def content() -> AlienContent:
    return default_content()


@pytest.fixture
def solo() -> AlienGame:
    """A 1-player game at its first main decision, with an empty Complex and Combat Zone."""
    return clear_board(to_main(new_game(1, seed=3)))


@pytest.fixture
def make() -> Callable[..., AlienGame]:
    return new_game
