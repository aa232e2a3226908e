"""Typed observations, and their plain-dict form for bots ported from the in-process API.

`act()` receives the game's typed message (`ClankObservation` for Clank!, `AlienObservation` for
Legendary Encounters: Alien, `ClankLegacyObservation` for Clank! Legacy). `observation_dict` turns
it into exactly the dict the engine's `observe(seat)` returns, which is what the built-in bots
were written against.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from ._proto.arena.v1 import alien_pb2, bot_pb2, clank_legacy_pb2, clank_pb2

__all__ = ["message_to_dict", "observation_dict", "unwrap"]


def unwrap(observation: bot_pb2.Observation) -> Message | dict[str, Any]:
    """The per-game message inside an Observation (a dict for games sent as JSON)."""
    which = observation.WhichOneof("game")
    if which is None:
        return {}
    if which == "json":
        data: dict[str, Any] = json.loads(observation.json)
        return data
    inner: Message = getattr(observation, which)
    return inner


def message_to_dict(msg: Message) -> dict[str, Any]:
    """Every field by its proto name: unset messages are None, maps are dicts, lists are lists."""
    out: dict[str, Any] = {}
    for f in msg.DESCRIPTOR.fields:
        value = getattr(msg, f.name)
        is_message = f.type == FieldDescriptor.TYPE_MESSAGE
        entry = f.message_type if is_message else None
        if entry is not None and entry.GetOptions().map_entry:
            value_field = entry.fields_by_name["value"]
            if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                out[f.name] = {k: message_to_dict(v) for k, v in value.items()}
            else:
                out[f.name] = dict(value)
        elif f.is_repeated:
            out[f.name] = [message_to_dict(v) for v in value] if is_message else list(value)
        elif is_message:
            out[f.name] = message_to_dict(value) if msg.HasField(f.name) else None
        else:
            out[f.name] = value
    return out


def _effects(effects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Effect dicts as the content files write them (default fields left out)."""
    out = []
    for e in effects:
        d: dict[str, Any] = {"op": e["op"]}
        for key in ("n", "cond", "arg"):
            if e[key]:
                d[key] = e[key]
        if e["then"]:
            d["then"] = _effects(e["then"])
        if e["options"]:
            d["options"] = [_effects(o["effects"]) for o in e["options"]]
        out.append(d)
    return out


def _clank(obs: clank_pb2.ClankObservation) -> dict[str, Any]:
    d = message_to_dict(obs)
    d["row"] = [card or None for card in d["row"]]
    d["last_attack"] = d["last_attack"] or {}
    pending = d["pending"]
    if pending is not None:
        pending["options"] = [_effects(o["effects"]) for o in pending["options"]]
        pending["then"] = _effects(pending["then"])
    return d


def _alien(obs: alien_pb2.AlienObservation) -> dict[str, Any]:
    d = message_to_dict(obs)
    d["complex"] = [
        None if room["empty"] else {"card": room["card"] or None, "up": room["up"]} for room in d["complex"]
    ]
    d["hq"] = [card or None for card in d["hq"]]
    for key in ("hatchery_top", "objective_id"):  # proto3 optional: unset is None
        d[key] = getattr(obs, key) if obs.HasField(key) else None
    pending = d["pending"]
    if pending is not None:
        pending["options"] = [_effects(o["effects"]) for o in pending["options"]]
    return d


def _clank_legacy(obs: clank_legacy_pb2.ClankLegacyObservation) -> dict[str, Any]:
    d = message_to_dict(obs)
    d["row"] = [card or None for card in d["row"]]
    d["last_attack"] = d["last_attack"] or {}
    d["turn"]["waiting_conditions"] = [_effects(o["effects"]) for o in d["turn"]["waiting_conditions"]]
    pending = d["pending"]
    if pending is not None:
        pending["options"] = [_effects(o["effects"]) for o in pending["options"]]
        pending["then"] = _effects(pending["then"])
    for key in ("campaign", "campaign_now"):
        campaign = d[key]
        campaign["promotions"] = [p["names"] for p in campaign["promotions"]]
    return d


#: typed observation (full proto name) -> its dict, for games whose engine dict is shaped other
#: than `message_to_dict` reads the message (a game missing here gets `message_to_dict`)
_ENGINE_SHAPE: Mapping[str, Callable[[Any], dict[str, Any]]] = {
    clank_pb2.ClankObservation.DESCRIPTOR.full_name: _clank,
    alien_pb2.AlienObservation.DESCRIPTOR.full_name: _alien,
    clank_legacy_pb2.ClankLegacyObservation.DESCRIPTOR.full_name: _clank_legacy,
}


def observation_dict(observation: Message | dict[str, Any]) -> dict[str, Any]:
    """The engine's observation dict for a typed observation (or an Observation wrapper)."""
    if isinstance(observation, dict):
        return observation
    if isinstance(observation, bot_pb2.Observation):
        return observation_dict(unwrap(observation))
    name = observation.DESCRIPTOR.full_name
    shape: Callable[[Any], dict[str, Any]] = _ENGINE_SHAPE.get(name, message_to_dict)
    return shape(observation)
