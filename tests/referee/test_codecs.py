"""Typed observations carry exactly what the engine's observation holds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from arena_bot import decode_action, observation_dict
from arena_bot._proto.arena.v1 import bot_pb2

from referee.bots import make_bot
from referee.games import game_class
from referee.games.alien.content import default_content
from referee.games.alien.engine import AlienGame
from referee.server.codecs import codec_for, encode_action, encode_json


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


def _alien_round_trip(obs: dict[str, Any]) -> None:
    wire = bot_pb2.Observation.FromString(codec_for("alien")(obs).SerializeToString())
    assert wire.WhichOneof("game") == "alien"
    assert observation_dict(wire) == obs


@pytest.mark.parametrize("players", [1, 2, 4])
def test_alien_observation_round_trips_on_every_decision(players: int) -> None:
    """Whole games, mostly the coop bot (long games) with random moves mixed in; the roles rotate
    so that the Pilot's "choose" comes up. Every seat's view is checked at every decision."""
    cls = game_class("alien")
    order = list(default_content().role_order)
    kinds: set[str] = set()
    asks = 0
    for seed in range(4):  # 4 games: at 4 players the first 3 never meet a "discard"
        config = cls.default_config(players)
        config["roles"] = [order[(6 + 3 * seed + k) % len(order)] for k in range(players)]
        game = cls.new_game(config, seed)
        bots = [make_bot("alien", "coop", seed) for _ in range(players)]
        rnd = random.Random(seed)
        while not game.is_over():
            d = game.decision()
            assert d is not None
            kinds.add(d.kind)
            asks += any(a.kind == "ask" for a in d.actions)
            for seat in range(players):
                _alien_round_trip(game.observe(seat))
            for action in d.actions:
                decoded = decode_action(encode_action(action))
                assert (decoded.kind, decoded.args, decoded.text) == (action.kind, action.args, action.text)
            if rnd.random() < 0.8:
                index = bots[d.seat].act(game.observe(d.seat), d.actions)
            else:
                index = rnd.randrange(len(d.actions))
            game.apply_index(index)
        for seat in range(players):
            _alien_round_trip(game.observe(seat))  # the final view: nobody to act
    assert {"turn", "choose", "scan_free", "discard"} <= kinds
    if players > 1:
        assert "coordinate" in kinds and asks  # Coordinate, also asked for later in the phase


def test_alien_observation_nones_are_explicit_on_the_wire() -> None:
    """The dict's Nones (empty room, face-down card, empty HQ slot, empty Hatchery, no Objective
    left) survive the trip, and a key the message lacks makes the codec refuse (JSON fallback)."""
    cls = game_class("alien")
    game = cls.new_game(cls.default_config(2), 3)
    assert isinstance(game, AlienGame)
    game.s.hatchery.clear()
    game.s.hq[0] = None
    game.s.complex[1] = None
    game.s.complex[2] = {"card": next(iter(game.content.hive_cards)), "up": False}
    obs = game.observe(1)
    obs["objective_id"] = None
    assert obs["hatchery_top"] is None and obs["hq"][0] is None
    assert obs["complex"][1] is None and obs["complex"][2] == {"card": None, "up": False}
    _alien_round_trip(obs)
    wire = codec_for("alien")(obs).alien
    assert wire.complex[1].empty and not wire.complex[2].empty and wire.complex[2].card == ""
    assert not wire.HasField("hatchery_top") and not wire.HasField("objective_id")
    with pytest.raises(KeyError):
        codec_for("alien")({**obs, "new_field": 1})


def test_games_without_a_typed_codec_go_as_json() -> None:
    obs = {"game": "nogame", "seat": 0, "hand": ["grunt"]}
    assert codec_for("nogame") is encode_json
    assert observation_dict(encode_json(obs)) == obs
