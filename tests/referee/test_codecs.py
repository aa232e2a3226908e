"""Typed observations carry exactly what the engine's observation holds."""

from __future__ import annotations

import random

import pytest

from bots.python.arena_bot import decode_action, observation_dict
from bots.python.arena_bot._proto.arena.v1 import bot_pb2
from referee.games import game_class
from referee.server.codecs import codec_for, encode_action, encode_json
from referee.server.session import default_index


@pytest.mark.parametrize("players", [2, 4])
def test_clank_observation_round_trips_on_every_decision(players: int) -> None:
    cls = game_class("clank")
    encode = codec_for("clank")
    for seed in range(3):
        game = cls.new_game(cls.default_config(players), seed)
        rnd = random.Random(seed)
        while not game.is_over():
            d = game.decision()
            assert d is not None
            for seat in range(players):
                obs = game.observe(seat)
                wire = bot_pb2.Observation.FromString(encode(obs).SerializeToString())
                assert wire.WhichOneof("game") == "clank"
                assert observation_dict(wire) == obs
            for action in d.actions:
                decoded = decode_action(encode_action(action))
                assert (decoded.kind, decoded.args, decoded.text) == (action.kind, action.args, action.text)
            game.apply_index(rnd.randrange(len(d.actions)))


def test_games_without_a_typed_codec_go_as_json() -> None:
    obs = {"game": "alien", "seat": 0, "hand": ["grunt"]}
    assert codec_for("alien") is encode_json
    assert observation_dict(encode_json(obs)) == obs


def test_default_action_prefers_end_turn_then_skip() -> None:
    from referee.core.game import Action

    assert default_index([Action("play", ("x",)), Action("end_turn")]) == 1
    assert default_index([Action("trash", ("play", "x")), Action("skip")]) == 1
    assert default_index([Action("choose", (0,)), Action("choose", (1,))]) == 0
