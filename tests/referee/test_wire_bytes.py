"""Decision requests built as bytes from kept parts (referee.wire.codec) are the message
`messages.decision_request` builds: on every decision of whole games, each seat's observation
encoded field by field with its cache, the legal actions from the match's cache."""

from __future__ import annotations

import random

import pytest

from referee.core.game import Action, Game
from referee.games import all_specs, game_class
from referee.server import messages
from referee.server.codecs import action_cache, codec_for, observation_table
from referee.server.config import TimeControl
from referee.wire._proto.arena.v1 import bot_pb2, common_pb2
from referee.wire.codec import ActionCache, len_field, varint

#: the games whose observation codec has a field table
TABLE_GAMES = [s.name for s in all_specs() if observation_table(s.name) is not None]
SEEDS = range(6)


def test_the_typed_games_have_tables() -> None:
    assert {"clank", "alien"} <= set(TABLE_GAMES)


def test_varint_and_len_field_are_protobufs() -> None:
    for n in (1, 127, 128, 300, 16_383, 16_384, 2**31 - 1, 2**40):
        assert b"\x08" + varint(n) == common_pb2.Arg(int_value=n).SerializeToString()
    text = "x" * 200
    assert len_field(2, text.encode()) == common_pb2.Arg(string_value=text).SerializeToString()


def _new(game_name: str, seed: int) -> Game:
    cls = game_class(game_name)
    return cls.new_game(cls.default_config(2 + seed % 3), seed)


@pytest.mark.parametrize("game_name", TABLE_GAMES)
def test_bytes_are_the_message_on_every_decision(game_name: str) -> None:
    encode = codec_for(game_name)
    table = observation_table(game_name)
    assert table is not None
    clock = TimeControl(cpu_decision_ms=500, cpu_bank_ms=9_000)
    decisions = 0
    for seed in SEEDS:
        game = _new(game_name, seed)
        caches = [table.cache() for _ in range(game.num_seats)]
        actions = action_cache(game_name)
        parts = messages.RequestParts()
        rng = random.Random(seed)
        while not game.is_over():
            d = game.decision()
            assert d is not None
            # repeating clocks: the kept tails are reused, and must change with them
            bank, strikes = 30_000 - d.id % 5, d.id % 3
            cpu_bank = None if d.id % 2 else 8_000 - d.id % 7
            expected = messages.decision_request(game, d, encode, clock, bank, strikes, cpu_bank)
            obs = game.observe(d.seat)
            got = messages.decision_request_bytes(
                d, obs, caches[d.seat].encode(obs), actions.encode(d.actions, obs), clock, bank, strikes,
                cpu_bank, parts,
            )
            # equal as messages (a map's entries have no fixed order on the wire)
            assert bot_pb2.RefereeMessage.FromString(got) == expected, (seed, d.id)
            decisions += 1
            game.apply_index(rng.randrange(len(d.actions)))
    assert decisions > 200


def test_strict_table_refuses_an_unknown_key() -> None:
    """Alien's codec sends JSON rather than drop a key it has no field for: so does its cache."""
    table = observation_table("alien")
    assert table is not None and table.strict
    game = game_class("alien").new_game(game_class("alien").default_config(2), 1)
    d = game.decision()
    assert d is not None
    obs = dict(game.observe(d.seat), surprise=1)
    with pytest.raises(KeyError, match="surprise"):
        table.cache().encode(obs)


def test_a_failing_typed_action_goes_untyped_and_is_reported() -> None:
    failures: list[str] = []

    def typed(action: Action, _obs: object) -> common_pb2.Arg:
        if action.kind == "bad":
            raise ValueError("no typed message")
        return common_pb2.Arg(int_value=7)

    cache = ActionCache(typed, 4, None, lambda action, _exc: failures.append(action.kind))
    got = cache.encode([Action("ok", (1,), "ok 1"), Action("bad", ("x",), "bad x")], {})
    request = bot_pb2.DecisionRequest.FromString(got)
    assert [a.kind for a in request.legal_actions] == ["ok", "bad"]
    assert request.legal_actions[0].HasField("clank") and not request.legal_actions[1].HasField("clank")
    assert failures == ["bad"]
