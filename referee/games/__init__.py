"""The game registry: the referee and the runners look games up by name, never import one.

A game is a folder ``referee/games/<name>/`` that exports ``SPEC`` (a `GameSpec`, from its
``spec.py`` or its ``__init__.py``); the registry finds such folders with pkgutil the first time
it is asked, so adding a game is adding its folder (README.md "Adding a game"). Folders without
a SPEC (shared code, content not yet playable) are not games.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator, Mapping
from functools import cache

from referee.core.game import Game
from referee.games.spec import GameSpec

__all__ = [
    "GAMES",
    "GameSpec",
    "all_specs",
    "campaign_game_names",
    "default_game",
    "forget_specs",
    "game_class",
    "game_names",
    "game_spec",
]


def _folder_spec(folder: str) -> GameSpec | None:
    """The SPEC a game folder exports, or None for a folder that is not a game."""
    package = importlib.import_module(f"{__name__}.{folder}")
    found = getattr(package, "SPEC", None)
    if found is None and importlib.util.find_spec(f"{__name__}.{folder}.spec") is not None:
        found = getattr(importlib.import_module(f"{__name__}.{folder}.spec"), "SPEC", None)
    if found is None:
        return None
    if not isinstance(found, GameSpec):
        raise TypeError(f"referee/games/{folder}: SPEC is a {type(found).__name__}, not a GameSpec")
    if found.name != folder:
        raise ValueError(f"referee/games/{folder}: SPEC is named {found.name!r}, not after its folder")
    return found


@cache
def _registry() -> dict[str, GameSpec]:
    specs = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.ispkg:
            spec = _folder_spec(info.name)
            if spec is not None:
                specs[spec.name] = spec
    return specs


def all_specs() -> tuple[GameSpec, ...]:
    """Every registered game's spec, by name."""
    return tuple(_registry().values())


def game_names() -> tuple[str, ...]:
    """The registered games' names, sorted."""
    return tuple(_registry())


def campaign_game_names() -> tuple[str, ...]:
    """The names of the games played in campaigns (`GameSpec.campaign`), sorted."""
    return tuple(s.name for s in _registry().values() if s.campaign)


def default_game() -> str:
    """The game played when none is named: the one whose spec declares `default`, else the
    first registered game; LookupError when two declare it or no game is registered."""
    declared = [s.name for s in _registry().values() if s.default]
    if len(declared) > 1:
        raise LookupError(f"two games declare default=True: {', '.join(declared)}")
    if declared:
        return declared[0]
    if not _registry():
        raise LookupError("no game is registered (referee/games/<name>/ with a SPEC)")
    return game_names()[0]


def forget_specs() -> None:
    """Discover the game folders again on the next lookup (tests that add a folder)."""
    _registry.cache_clear()


def game_spec(name: str) -> GameSpec:
    """The spec registered under `name`; KeyError names the known games."""
    try:
        return _registry()[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(game_names())}") from None


def game_class(name: str, version: str | None = None) -> type[Game]:
    """The engine class registered under `name` playing engine `version` (None: the current
    rules); KeyError names the known games, or the versions of the game this build has."""
    return game_spec(name).engine_class(version)


class _Engines(Mapping[str, str]):
    """name -> "module:Class" of every registered game, read from the specs at each use."""

    def __getitem__(self, name: str) -> str:
        return _registry()[name].engine

    def __iter__(self) -> Iterator[str]:
        return iter(_registry())

    def __len__(self) -> int:
        return len(_registry())


#: name -> "module:Class" of each engine (a live view of the registry, for `name in GAMES`)
GAMES: Mapping[str, str] = _Engines()
