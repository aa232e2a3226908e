"""The copy and JSON form of an engine state that is plain data, shared by the games' states.

A game keeps its whole state in one slotted dataclass (`referee/games/<g>/state.py`) holding
primitives, lists, dicts, a list of player dataclasses and a few nested dataclasses (a turn
pool...). `DataState` gives such a class the copy, JSON view, JSON and rebuilding the contract
needs, from its fields: a state class names its player class and its nested dataclass fields,
nothing else. The JSON view lists the fields in their declared order, so a digest of it is the
same as ever.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from referee.core.fastcopy import copy_state

__all__ = ["DataState", "json_copy"]


def json_copy(data: Any) -> Any:
    """An independent copy of JSON data, through JSON text (what a saved state goes through)."""
    return json.loads(json.dumps(data))


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    """The field names of dataclass `cls`, in declared order (remembered: a digest reads them at
    every step)."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


class DataState:
    """Copy, JSON view, JSON and `from_json` for a slotted dataclass state (mix it in)."""

    __slots__ = ()

    #: the dataclass of each entry of the `players` field
    player_class: ClassVar[type]
    #: fields holding one dataclass each (the turn pool...), by name, with their class
    nested_classes: ClassVar[Mapping[str, type]] = {}

    players: list[Any]

    def copy(self) -> Self:
        """A deep, independent copy (referee.core.fastcopy: a copier made from the field types,
        several times faster than a pickle round trip)."""
        return copy_state(self)

    def json_view(self) -> dict[str, Any]:
        """The state as nested dicts and lists that SHARE the state's own lists: read-only use
        (digests, one-shot serialisation). Far cheaper than dataclasses.asdict."""
        view = {name: getattr(self, name) for name in _names(type(self))}
        names = _names(self.player_class)
        view["players"] = [{name: getattr(p, name) for name in names} for p in self.players]
        for field, cls in self.nested_classes.items():
            value = getattr(self, field)
            view[field] = {name: getattr(value, name) for name in _names(cls)}
        return view

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-able data (an independent copy)."""
        copied: dict[str, Any] = json_copy(self.json_view())
        return copied

    @staticmethod
    def _copy_input(data: dict[str, Any]) -> Any:
        """How `from_json` copies its input before rebuilding (the source data is not shared)."""
        return json_copy(data)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from to_json() output (the source data is not shared)."""
        values: dict[str, Any] = cls._copy_input(dict(data))
        values["players"] = [cls.player_class(**p) for p in values["players"]]
        for field, nested in cls.nested_classes.items():
            values[field] = nested(**values[field])
        return cls(**values)
