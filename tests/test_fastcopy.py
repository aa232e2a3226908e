"""`referee.core.fastcopy`: an engine state's copy is equal to its original and shares no mutable
object with it, for every registered game's state at many points of random games; and the
copier stays deep for data its field types do not describe."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from referee.core.fastcopy import copy_state
from referee.games import all_specs, game_class

_ATOMS = (str, int, float, bool, type(None))


def _mutables(value: Any, out: dict[int, str], path: str) -> None:
    """id -> path of every mutable object reachable from `value` (lists, dicts, dataclasses)."""
    if isinstance(value, _ATOMS):
        return
    if isinstance(value, tuple):  # immutable itself: only what it holds may be shared
        for i, item in enumerate(value):
            _mutables(item, out, f"{path}[{i}]")
        return
    out[id(value)] = path
    if isinstance(value, list | set):
        for i, item in enumerate(value):
            _mutables(item, out, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _mutables(item, out, f"{path}[{key!r}]")
    else:
        for name in type(value).__slots__:
            _mutables(getattr(value, name), out, f"{path}.{name}")


@pytest.mark.parametrize("name", [spec.name for spec in all_specs()])
def test_a_copy_equals_its_state_and_shares_no_mutable_object(name: str) -> None:
    cls = game_class(name)
    spec = next(s for s in all_specs() if s.name == name)
    checked = 0
    for seed in range(3):
        players = min(spec.max_players, max(spec.min_players, 2 + seed))
        game = cls.new_game(cls.default_config(players), seed)
        rnd = random.Random(seed)
        step = 0
        while not game.is_over():
            if step % 7 == 0:
                state = game.s  # type: ignore[attr-defined]
                copied = copy_state(state)
                assert copied == state and type(copied) is type(state)
                original: dict[int, str] = {}
                _mutables(state, original, "s")
                mine: dict[int, str] = {}
                _mutables(copied, mine, "s")
                shared = sorted(original[i] for i in original.keys() & mine.keys())
                assert not shared, f"{name} step {step}: shared with the original: {shared[:5]}"
                assert game.copy().digest() == game.digest()
                checked += 1
            d = game.decision()
            assert d is not None
            game.apply_index(rnd.randrange(len(d.actions)))
            step += 1
    assert checked > 20


@dataclass(slots=True)
class _Inner:
    tags: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Loose:
    n: int
    names: list[str]
    counts: dict[str, int]
    piles: dict[str, list[str]]
    inner: _Inner
    inners: list[_Inner]
    stack: list[dict[str, Any]]
    anything: Any
    #: not JSON-like data: goes through copy.deepcopy
    seen: set[str]
    pair: tuple[list[int], int]


def test_every_kind_of_field_is_copied_deep() -> None:
    s = _Loose(
        n=1, names=["a"], counts={"a": 1}, piles={"x": ["a"]}, inner=_Inner(["t"]),
        inners=[_Inner(["u"])], stack=[{"kind": "k", "opts": [["a"], {"b": [1]}]}],
        anything={"deep": [[1]]}, seen={"a"}, pair=([1], 2),
    )
    c = copy_state(s)
    assert c == s
    original: dict[int, str] = {}
    _mutables(s, original, "s")
    mine: dict[int, str] = {}
    _mutables(c, mine, "s")
    assert not original.keys() & mine.keys()
    assert c.seen is not s.seen and c.pair[0] is not s.pair[0]
