"""Card effects as data: the one effect shape every game's content uses.

An effect is an `op` plus only the fields that op needs: an amount `n`, a condition (`cond`,
`arg`) with effects to resolve if it holds (`then`), or `options` to choose among. Each game
decides which ops and conditions exist and what they do; this module only holds the shape and
its JSON form, which pending choices keep inside the game state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["Effect", "describe_effect", "describe_effects", "effects_from_json", "effects_to_json"]


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect primitive. Only the fields its `op` uses are set."""

    op: str
    n: int = 0
    cond: str = ""
    arg: str = ""
    then: tuple[Effect, ...] = ()
    options: tuple[tuple[Effect, ...], ...] = ()


def effects_to_json(effects: Sequence[Effect]) -> list[dict[str, Any]]:
    """Effects as the JSON of the content files."""
    out: list[dict[str, Any]] = []
    for e in effects:
        d: dict[str, Any] = {"op": e.op}
        if e.n:
            d["n"] = e.n
        if e.cond:
            d["cond"] = e.cond
        if e.arg:
            d["arg"] = e.arg
        if e.then:
            d["then"] = effects_to_json(e.then)
        if e.options:
            d["options"] = [effects_to_json(o) for o in e.options]
        out.append(d)
    return out


def effects_from_json(data: list[dict[str, Any]]) -> tuple[Effect, ...]:
    """Inverse of effects_to_json (memoised: pending choices are rebuilt often)."""
    return _effects_from_key(json.dumps(data, sort_keys=True))


@cache
def _effects_from_key(key: str) -> tuple[Effect, ...]:
    def build(items: list[dict[str, Any]]) -> tuple[Effect, ...]:
        return tuple(
            Effect(
                op=d["op"],
                n=d.get("n", 0),
                cond=d.get("cond", ""),
                arg=d.get("arg", ""),
                then=build(d.get("then", [])),
                options=tuple(build(o) for o in d.get("options", [])),
            )
            for d in items
        )

    data: list[dict[str, Any]] = json.loads(key)
    return build(data)


def describe_effect(effect: Effect, own: Callable[[Effect], str]) -> str:
    """A short rules text for one effect: the structural ops (trash, discard_for, choose, if)
    read alike in every game; `own` gives the game's text of its other ops."""
    op = effect.op
    if op == "trash":
        return "may trash a card"
    if op == "discard_for":
        return f"may discard a card for ({describe_effects(effect.then, own)})"
    if op == "choose":
        return "choose: " + " | ".join(describe_effects(o, own) for o in effect.options)
    if op == "if":
        cond = effect.cond + (f":{effect.arg}" if effect.arg else "")
        return f"if {cond}: ({describe_effects(effect.then, own)})"
    return own(effect)


def describe_effects(effects: Sequence[Effect], own: Callable[[Effect], str]) -> str:
    """Rules text for a list of effects ("nothing" for none); see `describe_effect`."""
    return ", ".join(describe_effect(e, own) for e in effects) or "nothing"
