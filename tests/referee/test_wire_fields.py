"""Observations encoded field by field with parts kept between decisions (`wire.Fields`, the
direct scalar and repeated encoders): the same message as protobuf builds whole, the same bytes
as a cache that kept nothing, whatever the seat's cache saw before."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.games import game_class
from referee.games.clank import codec as clank_codec
from referee.wire._proto.arena.v1 import bot_pb2, clank_pb2
from referee.wire.codec import repeated_encoder, scalar_encoder

TABLE = clank_codec.OBSERVATION


def _game(players: int, seed: int) -> Any:
    cls = game_class("clank")
    return cls.new_game(cls.default_config(players), seed)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seat_at_every_step_through_its_own_cache(players: int) -> None:
    """Each seat's cache encodes its view after every action (the deciding seat's and the
    others', so a cache meets both small and large changes): the bytes are those of a fresh
    cache, and the message is the one protobuf builds from the whole observation."""
    steps = 0
    for seed in range(3):
        game = _game(players, seed)
        caches = [TABLE.cache() for _ in range(players)]
        rng = random.Random(seed)
        while True:
            for seat in range(players):
                obs = game.observe(seat)
                got, where = caches[seat].encode(obs), (seed, game.s.step, seat)
                assert got == TABLE.cache().encode(obs), where
                assert bot_pb2.Observation.FromString(got) == TABLE.observation(obs), where
            if game.is_over():
                break
            d = game.decision()
            game.apply_index(rng.randrange(len(d.actions)))
            steps += 1
    assert steps > 300


def _midgame() -> tuple[Any, dict[str, Any]]:
    game = _game(3, 7)
    rng = random.Random(7)
    for _ in range(120):
        game.apply_index(rng.randrange(len(game.decision().actions)))
    return game, game.observe(game.decision().seat)


def _with_player(obs: dict[str, Any], index: int, player: dict[str, Any]) -> dict[str, Any]:
    players = list(obs["players"])
    players[index] = player
    return dict(obs, players=players)


def test_a_player_of_another_shape_is_encoded_as_protobuf_encodes_it() -> None:
    """A player dict with a key missing is what protobuf makes of it (that field's default);
    with an unknown key it is refused as protobuf refuses it (the referee then sends JSON)."""
    _, obs = _midgame()
    cache = TABLE.cache()
    cache.encode(obs)
    player = dict(obs["players"][1])
    del player["gold"]
    missing = _with_player(obs, 1, player)
    got = bot_pb2.Observation.FromString(cache.encode(missing))
    assert got == TABLE.observation(missing) and got.clank.players[1].gold == 0
    unknown = _with_player(obs, 1, dict(obs["players"][1], surprise=1))
    with pytest.raises(ValueError):
        TABLE.observation(unknown)
    with pytest.raises(ValueError):
        cache.encode(unknown)


def test_an_error_half_way_leaves_nothing_stale() -> None:
    """An observation refused after some of its fields were encoded: the next one's bytes are
    still those of a fresh cache (no part kept from the refused one)."""
    game, obs = _midgame()
    cache = TABLE.cache()
    cache.encode(obs)
    you = dict(obs["you"], hand=["changed"])
    bad = dict(obs, you=you, step=obs["step"] + 1, last_attack={"no_such_field": 1})
    with pytest.raises(ValueError):
        cache.encode(bad)
    assert cache.encode(obs) == TABLE.cache().encode(obs)
    later = game.observe((obs["seat"] + 1) % 3)
    assert cache.encode(later) == TABLE.cache().encode(later)


def test_no_you_and_a_you_again() -> None:
    """`you` None (a spectator's view) is an unset field; the next seat's `you` is whole."""
    _, obs = _midgame()
    cache = TABLE.cache()
    cache.encode(obs)
    spectator = dict(obs, you=None)
    assert not bot_pb2.Observation.FromString(cache.encode(spectator)).clank.HasField("you")
    assert cache.encode(obs) == TABLE.cache().encode(obs)


_INTS = [0, 1, 127, 128, 300, 16_383, 16_384, 2**31 - 1, -1, -(2**31)]
_STRS = ["", "x", "é", "x" * 200]


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("seat", _INTS),
        ("room", _STRS),
        ("mastery", [False, True]),
        ("items", [[], ["a"], ["", "b", "b"], ["x" * 200, "é"]]),
        ("artifacts", [[], [0], [1, 300, 2**31 - 1], [-1, 5]]),
    ],
)
def test_direct_encoders_are_protobufs(field: str, values: list[Any]) -> None:
    fd = clank_pb2.ClankPlayer.DESCRIPTOR.fields_by_name[field]
    encode = scalar_encoder(fd) or repeated_encoder(fd)
    assert encode is not None
    for value in values * 2:  # the second time from the encoder's kept values
        assert encode(value) == clank_pb2.ClankPlayer(**{field: value}).SerializeToString(), value


def test_direct_encoders_leave_other_values_to_protobuf() -> None:
    fields = clank_pb2.ClankPlayer.DESCRIPTOR.fields_by_name
    seat = scalar_encoder(fields["seat"])
    items = repeated_encoder(fields["items"])
    assert seat is not None and items is not None
    assert seat(1) is not None
    for odd in (True, 1.0, 2**31, "1", None):
        assert seat(odd) is None
    for odd_list in (("a",), ["a", 1], None, ["\ud800"]):
        assert items(odd_list) is None


def test_a_plain_field_left_out_of_the_table_is_sent_as_it_is() -> None:
    """A field added to the .proto and the observation needs no codec line when it is plain
    (scalars, lists or maps of them): a table without Clank!'s plain fields encodes the same
    bytes; a message-typed field left out, or a field the message lacks, is refused on import."""
    from referee.wire.codec import ObservationTable

    _, obs = _midgame()
    message = clank_pb2.ClankObservation
    listed = dict(clank_codec.OBSERVATION_FIELDS)
    plain = set(message.DESCRIPTOR.fields_by_name) - set(listed)
    assert len(plain) > 15 and {"round", "clank_area", "market"} <= plain
    full = ObservationTable(message, "clank", {**dict.fromkeys(plain), **listed})
    assert TABLE.cache().encode(obs) == full.cache().encode(obs)
    assert TABLE.observation(obs) == full.observation(obs)
    assert TABLE.observation(obs).clank.clank_area == obs["clank_area"]
    with pytest.raises(ValueError, match=r"\['you'\] do not match"):
        ObservationTable(message, "clank", {k: v for k, v in listed.items() if k != "you"})
    with pytest.raises(ValueError, match=r"\['nosuch'\] do not match"):
        ObservationTable(message, "clank", {**listed, "nosuch": None})
