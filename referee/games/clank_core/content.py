"""The content both Clank! games read alike: secret tokens and the fields every card has.

Each game's `content.py` keeps its own files, card kinds, effect ops and checks; these helpers
hold the parts that read the same in both (the secret token kind, a secret's fields and checks,
a card's common fields), so a fix to one is a fix to both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.core.content_files import ContentEntry
from referee.core.effects import Effect

__all__ = ["SECRET_FIELDS", "SecretDef", "add_secret", "card_fields", "secret_def"]

#: the fields of a secret entry
SECRET_FIELDS = {"id", "name", "size", "count", "points", "dragon_egg", "potion", "effects"}


@dataclass(frozen=True, slots=True)
class SecretDef:
    """A secret token kind (`size` major or minor). `potion` secrets are kept and drunk later;
    the others resolve on taking."""

    id: str
    name: str
    size: str
    count: int
    points: int = 0
    dragon_egg: bool = False
    potion: bool = False
    effects: tuple[Effect, ...] = ()


def secret_def(
    e: ContentEntry, count_hi: int, effects: Callable[[ContentEntry], tuple[Effect, ...]]
) -> SecretDef:
    """A secret entry (its keys checked): size major or minor, up to `count_hi` copies, its
    effects parsed by `effects(e)` (with the game's allowed ops)."""
    size = e.str_("size")
    if size not in ("major", "minor"):
        raise e.fail("size", "must be 'major' or 'minor'")
    return SecretDef(
        id=e.str_("id"),
        name=e.str_("name"),
        size=size,
        count=e.int_("count", default=1, lo=1, hi=count_hi),
        points=e.int_("points", default=0, lo=0, hi=20),
        dragon_egg=e.bool_("dragon_egg"),
        potion=e.bool_("potion"),
        effects=effects(e),
    )


def add_secret(e: ContentEntry, s: SecretDef, out: dict[str, SecretDef]) -> None:
    """Add secret `s` to `out`: its id unique, and it does something (effects, points or an egg)."""
    if s.id in out:
        raise e.fail("id", "duplicate secret id")
    if not s.effects and not s.points and not s.dragon_egg:
        raise e.fail("effects", "a secret must do something")
    out[s.id] = s


def card_fields(e: ContentEntry, kinds: frozenset[str]) -> dict[str, Any]:
    """The fields every card has, read and checked: its kind one of `kinds`, its tags non-empty
    strings, then id, name, cost (0..20), count (1..50, 1 by default) and points (0..20)."""
    kind = e.str_("kind")
    if kind not in kinds:
        raise e.fail("kind", f"must be one of {', '.join(sorted(kinds))}")
    tags = e.list_("tags")
    if not all(isinstance(t, str) and t for t in tags):
        raise e.fail("tags", "must be a list of non-empty strings")
    return {
        "id": e.str_("id"),
        "name": e.str_("name"),
        "kind": kind,
        "cost": e.int_("cost", lo=0, hi=20),
        "count": e.int_("count", default=1, lo=1, hi=50),
        "points": e.int_("points", default=0, lo=0, hi=20),
        "tags": tuple(tags),
    }
