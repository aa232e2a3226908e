"""The built-in bots (referee/bots): legal, deterministic, greedy clearly better than random; and
the SDK examples written after them decide alike while importing only the SDK."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from arena_bot import Bot, decode_action
from arena_bot._proto.arena.v1 import bot_pb2

from bots.python.examples.alien_coop_bot import AlienCoopBot
from bots.python.examples.greedy_clank_bot import GreedyClankBot
from referee.bots import LocalBot, available, make_bot
from referee.core.game import Action
from referee.games import game_class
from referee.games.static_content import wire_content
from referee.runner import play_local
from referee.server.codecs import codec_for, encode_action

REPO = Path(__file__).resolve().parents[1]


def test_greedy_beats_random_with_seats_swapped() -> None:
    """A strength check, not a timing: over 20 two-player games (10 per seat order) greedy must
    win outright at least 15. The benchmark reports the 200-game figure."""
    wins = 0
    for i in range(20):
        lineup = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        g = play_local("clank", lineup, seed=900 + i // 2)
        me = lineup.index("greedy")
        wins += g.result.places[me] == 1 and g.result.places[1 - me] == 2
    assert wins >= 15


def test_greedy_escapes_with_an_artifact_most_of_the_time() -> None:
    escapes = sum(
        play_local("clank", ["greedy", "greedy"], seed=s).result.outcomes.count("escaped") for s in range(6)
    )
    assert escapes >= 8


def test_same_seed_same_bots_same_game() -> None:
    a = play_local("clank", ["random", "greedy", "random"], seed=4)
    b = play_local("clank", ["random", "greedy", "random"], seed=4)
    assert a.replay["steps"] == b.replay["steps"]


def test_unknown_bot_is_a_clear_error() -> None:
    assert "greedy" in available("clank") and "random" in available("clank")
    with pytest.raises(ValueError, match="available: greedy, ismcts, random"):
        make_bot("clank", "smart", 0)


class _Twin:
    """A built-in bot that, at every decision, also asks the SDK example written after it (fed
    what the wire would give it: the encoded observation, the encoded legal actions, GameStart's
    content) and records where the two disagree."""

    def __init__(self, builtin: LocalBot, example: Bot, game: str) -> None:
        self.name = builtin.name
        self.builtin, self.example, self.encode = builtin, example, codec_for(game)
        self.decisions = 0
        self.disagreements: list[tuple[int, int, int]] = []

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        mine = self.builtin.act(observation, legal_actions)
        wire = bot_pb2.Observation.FromString(self.encode(observation).SerializeToString())
        theirs = self.example.act(wire, [decode_action(encode_action(a)) for a in legal_actions])
        if mine != theirs:
            self.disagreements.append((self.decisions, mine, theirs))
        self.decisions += 1
        return mine


@pytest.mark.parametrize(
    ("game", "builtin", "players", "seeds"),
    [("clank", "greedy", 2, range(3)), ("clank", "greedy", 4, range(1)), ("alien", "coop", 3, range(2))],
)
def test_sdk_examples_decide_as_the_builtin_bots(game: str, builtin: str, players: int, seeds: range) -> None:
    """The examples under bots/python/examples use only the SDK and GameStart's content, yet
    choose exactly what the referee's built-in bots choose, decision after decision."""
    example_class = {"greedy": GreedyClankBot, "coop": AlienCoopBot}[builtin]
    cls = game_class(game)
    for seed in seeds:
        config = cls.default_config(players)
        content = json.loads(wire_content(cls.new_game(config, seed)).json)
        twins = []
        for seat in range(players):
            example = example_class()
            example.content = content
            twins.append(_Twin(make_bot(game, builtin, seed * 31 + seat), example, game))
        played = play_local(game, [builtin] * players, seed, config, bots=twins)
        assert played.decisions > 50
        assert sum(t.decisions for t in twins) == played.decisions
        assert [t.disagreements for t in twins] == [[] for _ in twins], f"seed {seed}"


def test_sdk_examples_import_only_the_sdk() -> None:
    """They run in the sandbox, where only the SDK (`arena_bot`) is mounted: no referee/, no
    repository module other than the SDK itself."""
    examples = REPO / "bots" / "python" / "examples"
    for path in sorted(examples.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names] if isinstance(node, ast.Import)
                else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            for name in names:
                top = name.split(".")[0]
                allowed = top == "arena_bot"
                assert allowed or top in sys.stdlib_module_names or top == "__future__", (
                    f"{path.name}:{node.lineno} imports {name}"
                )
