"""Competition formats: a registry of :class:`Format` objects, one module each. Pure: no I/O.

Every module of this package but ``base`` (and names starting with ``_``) is a format: it
defines ``FORMAT``, an instance of a :class:`ladder.formats.base.Format` subclass, and nothing
else needs to know of it -- creating a competition, planning its rounds, its standings, the API's
list of formats, the `arena tournament` commands and the competition page all ask the registry.
Adding a format is adding one file here (``README.md`` in this folder walks through it).

The formats there are listed once, in ``README.md``'s table; each module's docstring says how it
plans and ranks. The shared pieces (tables, duplicate sets, pairwise points) are in
:mod:`ladder.formats.base`.

:func:`next_round` is the whole scheduler: given the format, the field and the games played so
far, it returns the next round's tables, or None when the competition is over.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Sequence
from typing import Final

from ladder.formats.base import (
    Column,
    Format,
    GameRecord,
    Options,
    Ranking,
    RankInput,
    TablePlan,
    by_round,
    complete,
    forfeit_places,
    plan_games,
    rotations,
    set_seed,
    table_points,
)
from ladder.formats.knockout import TIEBREAK_SETS, knockout_survivors
from ladder.formats.swiss import swiss_byes, swiss_pairing, swiss_points, swiss_rounds

__all__ = [
    "FORMATS",
    "REGISTRY",
    "TIEBREAK_SETS",
    "Column",
    "Format",
    "GameRecord",
    "Options",
    "RankInput",
    "Ranking",
    "TablePlan",
    "by_round",
    "forfeit_places",
    "get",
    "knockout_survivors",
    "next_round",
    "plan_games",
    "rotations",
    "set_seed",
    "swiss_byes",
    "swiss_pairing",
    "swiss_points",
    "swiss_rounds",
    "table_points",
]

#: a format's name: what `--format` takes and ``competitions.format`` (16 characters) stores
_NAME: Final = re.compile(r"[a-z][a-z0-9_-]{0,15}")
#: the order the formats are listed in (the rest follow by name)
_FIRST: Final = ("round-robin", "swiss", "knockout", "gauntlet", "scenarios")


def _discover() -> dict[str, Format]:
    """Import every format module of the package and collect its ``FORMAT``. A module without
    one, a name that is not a valid format name or a name taken twice is a programming error,
    raised at import so it never reaches a competition."""
    found: dict[str, Format] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base" or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if not isinstance(fmt, Format):
            raise TypeError(f"ladder.formats.{info.name}: defines no FORMAT (a Format instance)")
        if not _NAME.fullmatch(fmt.name):
            raise ValueError(f"ladder.formats.{info.name}: format name {fmt.name!r}: {_NAME.pattern}")
        if fmt.name in found:
            raise ValueError(f"ladder.formats.{info.name}: format name {fmt.name!r} is taken")
        found[fmt.name] = fmt
    order = [n for n in _FIRST if n in found] + sorted(n for n in found if n not in _FIRST)
    return {n: found[n] for n in order}


#: every format by name
REGISTRY: Final = _discover()
#: the formats' names, in listing order
FORMATS: Final = tuple(REGISTRY)


def get(name: str) -> Format:
    """The format called `name`. Raises ValueError naming the formats there are."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"format: one of {', '.join(FORMATS)}, got {name!r}") from None


def next_round(
    fmt: str,
    n: int,
    players: int,
    games: Sequence[GameRecord],
    *,
    sets: int = 1,
    rounds: int | None = None,
    scenarios: int = 1,
) -> list[TablePlan] | None:
    """The next round's tables given the games so far, or None when the competition is over.

    Returns an empty list while the current round still has games to play (the caller waits).
    Raises ValueError for an unknown format or a field too small for it.
    """
    format_ = get(fmt)
    if sets < 1:
        raise ValueError("sets: at least 1")
    minimum = format_.minimum_entrants(players)
    if n < minimum:
        raise ValueError(f"{fmt} with {players} players needs at least {minimum} entrants, got {n}")
    if not complete(games):
        return []
    return format_.plan(n, players, games, Options(sets=sets, rounds=rounds, scenarios=scenarios))
