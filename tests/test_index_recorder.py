"""The local runner's compact recorder (`IndexRecorder`) gives the same replay as `ReplayRecorder`."""

from __future__ import annotations

import json

import pytest

from referee.bots import make_bot
from referee.games import game_class
from referee.replay import CHECKPOINT_EVERY, ReplayRecorder, dumps, loads, verify
from referee.runner import play_local


def _with_replay_recorder(name: str, bots: list[str], seed: int) -> dict[str, object]:
    """The game play_local plays, recorded step by step by ReplayRecorder."""
    cls = game_class(name)
    cfg = cls.default_config(len(bots))
    game = cls.new_game(cfg, seed)
    players = [make_bot(name, bot, seed * 31 + seat) for seat, bot in enumerate(bots)]
    seats = [{"seat": i, "bot": bot, "kind": "builtin"} for i, bot in enumerate(bots)]
    recorder = ReplayRecorder(game, seed, cfg, seats, started=None)
    while (d := game.decision()) is not None:
        index = players[d.seat].act(game.observe(d.seat), d.actions)
        recorder.action(d.id, d.seat, index, game.apply_index(index))
    return recorder.finish()


@pytest.mark.parametrize(
    ("name", "bots", "seed"),
    [
        ("clank", ["random"] * 4, 3),
        ("clank", ["greedy", "random"], 8),
        ("alien", ["coop", "coop"], 5),
        ("alien", ["random"], 2),
    ],
)
def test_same_document_as_the_step_recorder(name: str, bots: list[str], seed: int) -> None:
    played = play_local(name, bots, seed)
    expected = _with_replay_recorder(name, bots, seed)
    # equal, key order included (a viewer or a log shows the dicts as they are built)
    assert json.dumps(played.replay) == json.dumps(expected)
    assert dumps(played.replay) == dumps(expected)
    digests = [n for n, step in enumerate(played.replay["steps"], start=1) if "digest" in step]
    steps = played.decisions
    assert digests == sorted({*range(CHECKPOINT_EVERY, steps + 1, CHECKPOINT_EVERY), steps})
    verify(loads(dumps(played.replay)))


def test_each_document_is_its_own() -> None:
    played = play_local("clank", ["random", "random"], 4)
    first = played.document()
    first["steps"][0]["action"]["args"].append("edited")
    first["result"]["scores"][0] = -1
    second = played.document()
    assert second == played.replay != first
    assert played.replay is played.replay  # built once
