"""Clank! observation dict -> `arena.v1.ClankObservation` (see proto/arena/v1/clank.proto).

The inverse lives in the SDK (`arena_bot.observation_dict`); tests check the round trip on
every decision of whole games, so a field added to the engine's observation and forgotten here
fails a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bots.python.arena_bot._proto.arena.v1 import bot_pb2, clank_pb2

__all__ = ["encode_effects", "encode_observation"]


def encode_effects(effects: Sequence[Mapping[str, Any]]) -> list[clank_pb2.ClankEffect]:
    """Effect dicts (content JSON) -> ClankEffect messages."""
    return [
        clank_pb2.ClankEffect(
            op=e["op"],
            n=e.get("n", 0),
            cond=e.get("cond", ""),
            arg=e.get("arg", ""),
            then=encode_effects(e.get("then", ())),
            options=[clank_pb2.ClankEffectList(effects=encode_effects(o)) for o in e.get("options", ())],
        )
        for e in effects
    ]


def _player(p: Mapping[str, Any]) -> clank_pb2.ClankPlayer:
    return clank_pb2.ClankPlayer(**p)


def encode_observation(obs: Mapping[str, Any]) -> bot_pb2.Observation:
    """The typed Clank! observation, wrapped in the Observation oneof."""
    you = obs["you"]
    pending = obs["pending"]
    attack = obs["last_attack"]
    msg = clank_pb2.ClankObservation(
        game=obs["game"],
        seat=obs["seat"],
        step=obs["step"],
        round=obs["round"],
        current=obs["current"],
        over=obs["over"],
        board=obs["board"],
        you=clank_pb2.ClankYou(hand=you["hand"], deck_contents=you["deck_contents"], may_take=you["may_take"])
        if you is not None
        else None,
        players=[_player(p) for p in obs["players"]],
        pool=clank_pb2.ClankPool(**obs["pool"]),
        pending=clank_pb2.ClankPending(
            kind=pending["kind"],
            seat=pending["seat"],
            prompt=pending["prompt"],
            options=[clank_pb2.ClankEffectList(effects=encode_effects(o)) for o in pending["options"]],
            then=encode_effects(pending["then"]),
        )
        if pending is not None
        else None,
        row=[card or "" for card in obs["row"]],
        dungeon_deck_size=obs["dungeon_deck_size"],
        dungeon_discard=obs["dungeon_discard"],
        reserve=obs["reserve"],
        market=obs["market"],
        crowns_sold=obs["crowns_sold"],
        mastery_left=obs["mastery_left"],
        rage=obs["rage"],
        rage_draws=obs["rage_draws"],
        bag=clank_pb2.ClankBag(black=obs["bag"]["black"], cubes=obs["bag"]["cubes"]),
        clank_area=obs["clank_area"],
        artifacts=obs["artifacts"],
        minor_secrets=obs["minor_secrets"],
        major_secrets=obs["major_secrets"],
        idols=obs["idols"],
        countdown=obs["countdown"],
        countdown_seat=obs["countdown_seat"],
        last_attack=clank_pb2.ClankAttack(**attack) if attack else None,
    )
    return bot_pb2.Observation(clank=msg)
