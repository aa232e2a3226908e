"""A fast deep copy of an engine state: slotted dataclasses holding JSON-like data.

A search bot copies a state once per iteration (issue 27, "a forward model fast enough to
search"), so `copy()` is on its hot path. `copy.deepcopy` keeps a memo of every object it has
seen and `pickle` makes a round trip through bytes; an engine state needs neither, because it
is a tree (nothing reachable twice, no cycles) of slotted dataclasses, lists, dicts and atoms
(str, int, float, bool, None).

`copy_state` copies such a tree with a function made once per dataclass from its field types:
a field of atoms is taken as it is, a `list[str]` or `dict[str, int]` is one C-level `.copy()`,
a `dict[str, list[str]]` copies each list, a nested dataclass (or a list of them) calls that
class's own copier, and anything typed loosely (`Any`, `dict[str, Any]`, the pending-choice
stack) goes through a generic walk of lists and dicts. What is not JSON-like data at all (a
set, an object of another class) is handed to `copy.deepcopy`, so the copy stays deep and
independent whatever a state holds; only the speed is lost. Measured by `make bench`
(`forward_model`); tests/test_fastcopy.py checks that a copy shares no mutable object with its
original.
"""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["copier", "copy_state"]

T = TypeVar("T")

_ATOMS = frozenset({str, int, float, bool, type(None)})
_copiers: dict[type, Callable[[Any], Any]] = {}


def _copy_any(value: Any) -> Any:
    """A deep copy of loosely typed data (lists, dicts, atoms, dataclasses)."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list:
        out = value.copy()
        for i, item in enumerate(out):
            if type(item) not in _ATOMS:
                out[i] = _copy_any(item)
        return out
    if t is dict:
        out_d = value.copy()
        for key, item in out_d.items():
            if type(item) not in _ATOMS:  # replacing a value keeps the dict's size: safe here
                out_d[key] = _copy_any(item)
        return out_d
    if dataclasses.is_dataclass(t) and hasattr(t, "__slots__"):
        return copier(t)(value)
    return copy.deepcopy(value)


def _is_atom_type(tp: Any) -> bool:
    if tp in _ATOMS or tp is None:
        return True
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return all(_is_atom_type(a) for a in typing.get_args(tp))
    return origin is typing.Literal


def _slotted(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp) and hasattr(tp, "__slots__")


def _expression(tp: Any, ref: str, env: dict[str, Any]) -> str:
    """Python source copying the value `ref` of declared type `tp`."""
    if _is_atom_type(tp):
        return ref
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is list and args and _is_atom_type(args[0]):
        return f"{ref}.copy()"
    if origin is dict and len(args) == 2 and _is_atom_type(args[0]):
        value = args[1]
        if _is_atom_type(value):
            return f"{ref}.copy()"
        if typing.get_origin(value) is list and _is_atom_type(typing.get_args(value)[0]):
            return f"{{k: v.copy() for k, v in {ref}.items()}}"
    if origin is list and args and _slotted(args[0]):
        name = f"_c_{args[0].__name__}"
        env[name] = copier(args[0])
        return f"[{name}(x) for x in {ref}]"
    if _slotted(tp):
        name = f"_c_{tp.__name__}"
        env[name] = copier(tp)
        return f"{name}({ref})"
    return f"_copy_any({ref})"


def copier(cls: type[T]) -> Callable[[T], T]:
    """The copy function of slotted dataclass `cls`, made from its field types on first use."""
    made = _copiers.get(cls)
    if made is not None:
        return made
    if not _slotted(cls):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass")
    hints = typing.get_type_hints(cls)
    env: dict[str, Any] = {"_copy_any": _copy_any, "_new": object.__new__, "_cls": cls}
    lines = ["def _copy(s):", "    n = _new(_cls)"]
    setter = "n.{0} = {1}"
    if cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        env["_set"] = object.__setattr__
        setter = "_set(n, {0!r}, {1})"
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        lines.append("    " + setter.format(f.name, _expression(hints[f.name], f"s.{f.name}", env)))
    lines.append("    return n")
    # generated once per class: straight-line code, no per-field dispatch at copy time
    exec("\n".join(lines), env)  # the source is built above from field names and types only
    func: Callable[[T], T] = env["_copy"]
    _copiers[cls] = func
    return func


def copy_state(state: T) -> T:
    """A deep, independent copy of `state` (a slotted dataclass of JSON-like data)."""
    return copier(type(state))(state)
