"""Clank! Legacy's typed wire: the ClankLegacyObservation carries exactly what the engine's
observation holds (campaign state included) on every decision of chained campaign games, what a
seat may not know never changes its bytes, and an observation key the codec does not know sends
the seat JSON rather than a typed message with the key missing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from arena_bot import decode_action, observation_dict, typed_kind_args
from arena_bot._proto.arena.v1 import bot_pb2, common_pb2

from referee.bots import make_bot
from referee.games import game_class
from referee.games.clank_legacy.engine import ClankLegacyGame
from referee.server.codecs import codec_for, encode_actions, observation_table

GAMES_PER_CAMPAIGN = 3


def _round_trip(obs: dict[str, Any]) -> bot_pb2.Observation:
    wire = bot_pb2.Observation.FromString(codec_for("clank_legacy")(obs).SerializeToString())
    assert wire.WhichOneof("game") == "clank_legacy"
    assert observation_dict(wire) == obs
    return wire


@pytest.mark.parametrize("players", [2, 3, 4])
def test_observation_round_trips_through_a_campaign(players: int) -> None:
    """Three chained games of one campaign (each started from the campaign state the last one
    left), the built-in greedy bot with random moves mixed in: at every decision every seat's
    typed observation gives back the engine's dict exactly, and the legal actions their engine
    (kind, args). The later games carry Mission Reports, abilities and Checkmarks in
    `campaign`, and the votes of the Prologue / Epilogue come up."""
    cls = game_class("clank_legacy")
    config = cls.default_config(players)
    kinds: set[str] = set()
    reports = checkmarks = 0
    for k in range(GAMES_PER_CAMPAIGN):
        game = cls.new_game(config, 100 * players + k)
        assert isinstance(game, ClankLegacyGame)
        bots = [make_bot("clank_legacy", "greedy", seat) for seat in range(players)]
        rnd = random.Random(k)
        while not game.is_over():
            d = game.decision()
            assert d is not None
            kinds.add(d.kind)
            for seat in range(players):
                wire = _round_trip(game.observe(seat))
                reports += len(wire.clank_legacy.campaign.reports)
                checkmarks += sum(wire.clank_legacy.campaign_now.checkmarks)
            wire_actions = encode_actions(d.actions, "clank_legacy", game.observe(d.seat))
            for legal, action in zip(wire_actions, d.actions, strict=True):
                decoded = decode_action(common_pb2.LegalAction.FromString(legal.SerializeToString()))
                assert decoded.game == "clank_legacy" and decoded.game_action is not None, action
                assert typed_kind_args(decoded.game_action) == (action.kind, action.args), action.text
            if rnd.random() < 0.7:
                index = bots[d.seat].act(game.observe(d.seat), d.actions)
            else:
                index = rnd.randrange(len(d.actions))
            game.apply_index(index)
        for seat in range(players):
            _round_trip(game.observe(seat))  # the final view: nobody to act
        config = {"players": players, "campaign": game.campaign_after().to_json()}
    assert {"turn", "vote"} <= kinds
    assert reports > 0 and checkmarks > 0


def test_what_a_seat_may_not_know_never_changes_its_bytes() -> None:
    """Re-dealing everything a seat may not know (other hands, every deck order, the Adventure
    deck, the Bank's face-down tokens, the face-down major secrets) leaves its typed observation
    byte for byte the same, at sampled steps of games at 2, 3 and 4 players."""
    cls = game_class("clank_legacy")
    encode = codec_for("clank_legacy")
    compared = 0
    for seed in range(6):
        players = 2 + seed % 3
        game = cls.new_game(cls.default_config(players), seed)
        rnd = random.Random(seed)
        step = 0
        while not game.is_over():
            d = game.decision()
            assert d is not None
            if step % 37 == 0:
                for seat in range(players):
                    own = encode(game.observe(seat)).SerializeToString(deterministic=True)
                    for variant_seed in (1, 2):
                        other = game.hidden_variant(seat, variant_seed).observe(seat)
                        assert encode(other).SerializeToString(deterministic=True) == own, (seed, step, seat)
                        compared += 1
            game.apply_index(rnd.randrange(len(d.actions)))
            step += 1
    assert compared > 100


def test_an_unknown_observation_key_is_refused_by_the_typed_codec() -> None:
    """The table is strict: a key the engine adds that the message lacks is a KeyError for the
    whole-message codec and for the per-seat cache, on which the referee sends that seat the
    observation as JSON (session `_observation`), never a typed one missing the key."""
    cls = game_class("clank_legacy")
    game = cls.new_game(cls.default_config(2), 3)
    obs = game.observe(0)
    table = observation_table("clank_legacy")
    assert table is not None and table.strict
    grown = {**obs, "new_engine_key": 1}
    with pytest.raises(KeyError, match="new_engine_key"):
        codec_for("clank_legacy")(grown)
    with pytest.raises(KeyError, match="new_engine_key"):
        table.cache().encode(grown)
    # the unchanged observation still encodes, through the cache as through the whole message
    cache = table.cache()
    whole = bot_pb2.Observation.FromString(cache.encode(obs))
    assert whole == codec_for("clank_legacy")(obs)
