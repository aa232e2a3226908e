"""Typed observations, and their plain-dict form for bots ported from the in-process API.

`act()` receives the game's typed message (`<Game>Observation`, the message its .proto declares,
e.g. `ClankObservation`). `observation_dict` turns it into exactly the dict the engine's
`observe(seat)` returns, which is what the built-in bots were written against.

Nothing here names a game: how a message reads as the engine's dict is read from the options its
.proto puts on fields and messages (`proto/arena/v1/options.proto`): `(empty_is_null)` (an ""
slot is None), `(unset_is_empty)` (an unset message is {}), `(omit_if_default)` (a field left out
at its default), `(null_flag)` (a bool that makes its message None), `(unwrap)` (a one-field
message read as that field's value). A proto3 `optional` scalar that is unset reads as None. A
new typed game's observation therefore needs no code here: its generated stub is enough.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from ._proto.arena.v1 import bot_pb2, options_pb2

__all__ = ["message_to_dict", "observation_dict", "unwrap"]

#: the view options (their stubs type them as plain fields, not as extensions)
_EMPTY_IS_NULL: Any = options_pb2.empty_is_null
_UNSET_IS_EMPTY: Any = options_pb2.unset_is_empty
_OMIT_IF_DEFAULT: Any = options_pb2.omit_if_default
_NULL_FLAG: Any = options_pb2.null_flag
_UNWRAP: Any = options_pb2.unwrap


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


#: descriptors are typed Any: the stubs type them as the pure-Python or the upb class, by backend


def _is_message(f: Any) -> bool:
    return bool(f.type == FieldDescriptor.TYPE_MESSAGE)


def _map_value(f: Any) -> Any:
    """The value field of a map field's entry, or None for any other field."""
    entry = f.message_type if _is_message(f) else None
    if entry is not None and entry.GetOptions().map_entry:
        return entry.fields_by_name["value"]
    return None


def message_to_dict(msg: Message) -> dict[str, Any]:
    """Every field by its proto name, options ignored: unset messages are None, maps are dicts,
    lists are lists."""
    out: dict[str, Any] = {}
    for f in msg.DESCRIPTOR.fields:
        value = getattr(msg, f.name)
        value_field = _map_value(f)
        if value_field is not None:
            if _is_message(value_field):
                out[f.name] = {k: message_to_dict(v) for k, v in value.items()}
            else:
                out[f.name] = dict(value)
        elif f.is_repeated:
            out[f.name] = [message_to_dict(v) for v in value] if _is_message(f) else list(value)
        elif _is_message(f):
            out[f.name] = message_to_dict(value) if msg.HasField(f.name) else None
        else:
            out[f.name] = value
    return out


# --- the engine's view of a message, from its descriptor's options ---------------------------

#: how one field's value reads: (the message holding it) -> the value in the dict
_Read = Callable[[Message], Any]


@dataclass(frozen=True, slots=True)
class _Plan:
    """How a message type reads as the engine's dict, worked out once per type."""

    #: (field name, how its value reads, left out when at its default)
    fields: tuple[tuple[str, _Read, bool], ...]
    #: the `(null_flag)` field: when it is true the whole message reads as None
    null_flag: str | None
    #: `(unwrap)`: the message reads as its one field's value
    unwrap: bool


_PLANS: dict[str, _Plan] = {}


def _plan(descriptor: Any) -> _Plan:
    """The reading plan of a message type (cached by its full name)."""
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        fields = []
        null_flag = None
        for f in descriptor.fields:
            options = f.GetOptions()
            if options.Extensions[_NULL_FLAG]:
                null_flag = f.name
                continue
            fields.append((f.name, _reader(f), bool(options.Extensions[_OMIT_IF_DEFAULT])))
        unwrap_one = bool(descriptor.GetOptions().Extensions[_UNWRAP])
        if unwrap_one and len(fields) != 1:
            raise ValueError(f"{descriptor.full_name}: (unwrap) needs exactly one field, not {len(fields)}")
        plan = _Plan(tuple(fields), null_flag, unwrap_one)
        _PLANS[descriptor.full_name] = plan
    return plan


def _view(msg: Message) -> Any:
    """A message as the engine's value: a dict, or None / its one field's value (by options)."""
    plan = _plan(msg.DESCRIPTOR)
    if plan.null_flag is not None and getattr(msg, plan.null_flag):
        return None
    if plan.unwrap:
        return plan.fields[0][1](msg)
    out: dict[str, Any] = {}
    for name, read, omit_default in plan.fields:
        value = read(msg)
        if omit_default and not value:  # every default reads falsy: 0, "", False, [], {}, None
            continue
        out[name] = value
    return out


def _reader(f: Any) -> _Read:
    """How the value of field `f` reads in the engine's dict."""
    name = f.name
    options = f.GetOptions()
    value_field = _map_value(f)
    if value_field is not None:
        if _is_message(value_field):
            return lambda m: {k: _view(v) for k, v in getattr(m, name).items()}
        return lambda m: dict(getattr(m, name))
    if _is_message(f):
        if f.is_repeated:
            return lambda m: [_view(v) for v in getattr(m, name)]
        unset: Any = {} if options.Extensions[_UNSET_IS_EMPTY] else None
        return lambda m: _view(getattr(m, name)) if m.HasField(name) else unset
    empty_is_null = bool(options.Extensions[_EMPTY_IS_NULL])
    if f.is_repeated:
        if empty_is_null:
            return lambda m: [v or None for v in getattr(m, name)]
        return lambda m: list(getattr(m, name))
    if f.has_presence:  # proto3 `optional` (or a oneof member): unset reads as None
        if empty_is_null:
            return lambda m: (getattr(m, name) or None) if m.HasField(name) else None
        return lambda m: getattr(m, name) if m.HasField(name) else None
    if empty_is_null:
        return lambda m: getattr(m, name) or None
    return lambda m: getattr(m, name)


def observation_dict(observation: Message | dict[str, Any]) -> dict[str, Any]:
    """The engine's observation dict for a typed observation (or an Observation wrapper)."""
    if isinstance(observation, dict):
        return observation
    if isinstance(observation, bot_pb2.Observation):
        return observation_dict(unwrap(observation))
    view = _view(observation)
    if not isinstance(view, dict):
        name = observation.DESCRIPTOR.full_name
        raise ValueError(f"{name} does not read as a dict: its options make it {view!r}")
    return view
