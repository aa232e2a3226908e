"""Alien observation dict -> `arena.v1.AlienObservation` (see proto/arena/v1/alien.proto).

The inverse lives in the SDK (`arena_bot.observation_dict`); tests check the round trip on
every decision of whole games, so a field added to the engine's observation and forgotten here
fails a test. The dict's Nones become explicit: an empty room is `AlienRoom(empty=True)`, a
face-down card and an empty HQ slot are "", and `hatchery_top` / `objective_id` stay unset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bots.python.arena_bot._proto.arena.v1 import alien_pb2, bot_pb2

__all__ = ["encode_effects", "encode_observation"]

_KEYS = frozenset(alien_pb2.AlienObservation.DESCRIPTOR.fields_by_name)


def encode_effects(effects: Sequence[Mapping[str, Any]]) -> list[alien_pb2.AlienEffect]:
    """Effect dicts (content JSON) -> AlienEffect messages."""
    return [
        alien_pb2.AlienEffect(
            op=e["op"],
            n=e.get("n", 0),
            cond=e.get("cond", ""),
            arg=e.get("arg", ""),
            then=encode_effects(e.get("then", ())),
            options=[alien_pb2.AlienEffectList(effects=encode_effects(o)) for o in e.get("options", ())],
        )
        for e in effects
    ]


def _room(room: Mapping[str, Any] | None) -> alien_pb2.AlienRoom:
    if room is None:
        return alien_pb2.AlienRoom(empty=True)
    return alien_pb2.AlienRoom(card=room["card"] or "", up=room["up"])


def _pending(pending: Mapping[str, Any]) -> alien_pb2.AlienPending:
    return alien_pb2.AlienPending(
        kind=pending["kind"],
        prompt=pending["prompt"],
        options=[alien_pb2.AlienEffectList(effects=encode_effects(o)) for o in pending["options"]],
        n=pending["n"],
    )


def encode_observation(obs: Mapping[str, Any]) -> bot_pb2.Observation:
    """The typed Alien observation, wrapped in the Observation oneof.

    KeyError if the dict has a key the message lacks (the referee then sends JSON)."""
    unknown = set(obs) - _KEYS
    if unknown:
        raise KeyError(f"alien observation keys without a typed field: {sorted(unknown)}")
    you = obs["you"]
    to_act = obs["to_act"]
    pending = obs["pending"]
    msg = alien_pb2.AlienObservation(
        game=obs["game"],
        seat=obs["seat"],
        step=obs["step"],
        turn=obs["turn"],
        round=obs["round"],
        current=obs["current"],
        phase=obs["phase"],
        over=obs["over"],
        won=obs["won"],
        you=alien_pb2.AlienYou(hand=you["hand"], deck_contents=you["deck_contents"])
        if you is not None
        else None,
        players=[alien_pb2.AlienPlayer(**p) for p in obs["players"]],
        pool=alien_pb2.AlienPool(**obs["pool"]),
        to_act=alien_pb2.AlienToAct(**to_act) if to_act is not None else None,
        pending=_pending(pending) if pending is not None else None,
        complex=[_room(r) for r in obs["complex"]],
        scan_costs=obs["scan_costs"],
        combat=obs["combat"],
        facehuggers=[alien_pb2.AlienFacehugger(**f) for f in obs["facehuggers"]],
        strike_queue=obs["strike_queue"],
        strike_log=[alien_pb2.AlienStrike(**x) for x in obs["strike_log"]],
        hq=[card or "" for card in obs["hq"]],
        barracks_size=obs["barracks_size"],
        hive_size=obs["hive_size"],
        strike_deck_size=obs["strike_deck_size"],
        strike_discard=obs["strike_discard"],
        sergeants_size=obs["sergeants_size"],
        hatchery_top=obs["hatchery_top"],
        hatchery_size=obs["hatchery_size"],
        chestbursters_left=obs["chestbursters_left"],
        location=obs["location"],
        hazards_used=obs["hazards_used"],
        objective=obs["objective"],
        objective_id=obs["objective_id"],
        met=obs["met"],
        hive_discard=obs["hive_discard"],
        dead_enemies=obs["dead_enemies"],
        dead_characters=obs["dead_characters"],
    )
    return bot_pb2.Observation(alien=msg)
