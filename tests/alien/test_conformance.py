"""Alien's own conformance checks. The engine conformance suite (referee/core/conformance.py)
runs on Alien from its spec, at 1 to 5 players, in tests/test_conformance.py with every other
registered game; here: its registration, and what only Alien has (Coordinate decisions).
"""

from __future__ import annotations

from typing import Any

from referee.core import conformance as cf
from referee.games import game_class, game_spec
from referee.games.alien.content import default_content
from referee.games.alien.engine import AlienGame


def _config(players: int) -> dict[str, Any]:
    return AlienGame.default_config(players)


def test_registered_under_its_name() -> None:
    assert game_class("alien") is AlienGame
    spec = game_spec("alien")
    # the conformance suite and the ladder read the player range from the spec: it is the rules'
    assert [spec.min_players, spec.max_players] == list(default_content().rules["players"])
    assert spec.cooperative


def test_coordinate_decisions_belong_to_other_seats_in_random_games() -> None:
    """Random games do reach Coordinate decisions, asked of a seat that is not the active one."""
    seen = 0
    for seed in range(5):
        game, stats = cf.play_random(AlienGame, _config(3), seed, seed)
        del game
        replay = AlienGame.new_game(_config(3), seed)
        for action in stats.actions:
            d = replay.decision()
            assert d is not None
            if d.kind == "coordinate":
                assert d.seat != replay.s.current
                seen += 1
            replay.apply(action)
    assert seen > 0
