"""Reading content data files (cards, boards, scenarios) and the errors for invalid ones.

Every problem is a `ContentError` naming the file, the entry and the field, so a bad edit is
caught when the content loads, with a message that says where to look.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from referee.core.effects import Effect

__all__ = [
    "ContentEntry",
    "ContentError",
    "EffectParser",
    "amount_effect",
    "choose_effect",
    "content_version",
    "effect_items",
    "file_entries",
    "listed_entries",
    "load_json",
    "then_effects",
]


class ContentError(ValueError):
    """A content file is invalid. The message names the file, the entry and the field."""

    def __init__(self, file: str, entry: str, field: str, problem: str) -> None:
        self.file = file
        self.entry = entry
        self.field = field
        self.problem = problem
        super().__init__(f"{file}: entry {entry!r}: field {field!r}: {problem}")


def load_json(path: Path) -> Any:
    """Read a content file as JSON; any problem is a ContentError naming the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContentError(path.name, "*", "*", "file not found") from None
    except json.JSONDecodeError as exc:
        raise ContentError(path.name, "*", "*", f"not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ContentError(path.name, "*", "*", f"not UTF-8 text: {exc}") from None


class ContentEntry:
    """Typed field access on one JSON entry, raising ContentError with file/entry/field.

    `prefix` is put before field names, for entries nested in another entry's field.
    """

    def __init__(self, file: str, entry: str, data: Any, prefix: str = "") -> None:
        if not isinstance(data, dict):
            raise ContentError(file, entry, prefix or "*", "entry must be a JSON object")
        self.file, self.entry, self.data, self.prefix = file, entry, data, prefix

    def fail(self, fld: str, problem: str) -> ContentError:
        """The error for field `fld` of this entry."""
        return ContentError(self.file, self.entry, self.prefix + fld, problem)

    def check_keys(self, allowed: set[str]) -> None:
        """Refuse fields not in `allowed` (a typo is an error, not a silently ignored field)."""
        for key in self.data:
            if key not in allowed:
                raise self.fail(key, f"unknown field (allowed: {', '.join(sorted(allowed))})")

    def str_(self, fld: str, default: str | None = None) -> str:
        """A required non-empty string."""
        v = self.data.get(fld, default)
        if not isinstance(v, str) or not v:
            raise self.fail(fld, "required non-empty string")
        return v

    def int_(self, fld: str, default: int | None = None, lo: int = 0, hi: int = 1000) -> int:
        """An integer in lo..hi (booleans are not integers here)."""
        v = self.data.get(fld, default)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(fld, "required integer")
        if not lo <= v <= hi:
            raise self.fail(fld, f"must be between {lo} and {hi}, got {v}")
        return v

    def bool_(self, fld: str) -> bool:
        """A boolean, false when absent."""
        v = self.data.get(fld, False)
        if not isinstance(v, bool):
            raise self.fail(fld, "must be true or false")
        return v

    def list_(self, fld: str) -> list[Any]:
        """A list, empty when absent."""
        v = self.data.get(fld, [])
        if not isinstance(v, list):
            raise self.fail(fld, "must be a list")
        return v


def file_entries(file: str, raw: Any, key: str) -> list[ContentEntry]:
    """The entries of a file shaped ``{key: [entry, ...]}``, each named by its ``id`` (or
    ``#index``); another top-level field or a non-list is a ContentError naming the file."""
    top = ContentEntry(file, "*", raw)
    top.check_keys({key})
    items = raw.get(key)
    if not isinstance(items, list):
        raise top.fail(key, f"file must be an object with a '{key}' list")
    out = []
    for i, item in enumerate(items):
        name = item.get("id", f"#{i}") if isinstance(item, dict) else f"#{i}"
        out.append(ContentEntry(file, str(name), item))
    return out


def listed_entries(file: str, top: ContentEntry, fld: str) -> Iterator[ContentEntry]:
    """The entries of the list field `fld` of `top` (a board's rooms or spaces...), each named by
    its ``id`` (or ``fld[index]``)."""
    for i, item in enumerate(top.list_(fld)):
        name = item.get("id", f"{fld}[{i}]") if isinstance(item, dict) else f"{fld}[{i}]"
        yield ContentEntry(file, str(name), item)


def content_version(directory: Path) -> str:
    """A digest of every JSON content file under `directory`, by parsed content (so line endings,
    indentation and key order do not change it; any change of data does)."""
    h = hashlib.sha256()
    for path in sorted(directory.rglob("*.json")):
        h.update(path.relative_to(directory).as_posix().encode())
        h.update(b"\0")
        data = load_json(path)
        h.update(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


# --- effect lists: the checks every game's parser makes alike ------------------------------------

#: a game's parser of a nested effect list: (where, raw) -> the effects (one level deeper)
EffectParser = Callable[[str, Any], tuple[Effect, ...]]


def effect_items(e: ContentEntry, fld: str, raw: Any, depth: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The items of an effect list, each with where it stands (`fld[i]`): the list must be a
    list, nested no deeper than 3, of objects. Checked item by item as the parser goes, so the
    first problem in file order is the one named."""
    if not isinstance(raw, list):
        raise e.fail(fld, "effects must be a list")
    if depth > 3:
        raise e.fail(fld, "effects nested too deeply")
    for i, item in enumerate(raw):
        where = f"{fld}[{i}]"
        if not isinstance(item, dict):
            raise e.fail(where, "effect must be an object with an 'op'")
        yield where, item


def amount_effect(e: ContentEntry, where: str, item: dict[str, Any], op: str, signed: bool) -> Effect:
    """An amount op (`{"op", "n"}`): `n` in 1..10, or, `signed`, non-zero in -10..10 with only
    `clank` negative."""
    n = item.get("n")
    if signed:
        if isinstance(n, bool) or not isinstance(n, int) or n == 0 or abs(n) > 10:
            raise e.fail(f"{where}.n", "required non-zero integer in -10..10")
        if n < 0 and op != "clank":
            raise e.fail(f"{where}.n", f"only clank may be negative, not {op}")
    elif isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
        raise e.fail(f"{where}.n", "required integer in 1..10")
    if set(item) - {"op", "n"}:
        raise e.fail(where, f"op {op} takes only 'n'")
    return Effect(op=op, n=n)


def choose_effect(
    e: ContentEntry, where: str, item: dict[str, Any], parse: EffectParser, empty_options: bool
) -> Effect:
    """A `choose` op: at least two option lists, each parsed by `parse` (empty ones refused
    unless `empty_options`)."""
    if set(item) - {"op", "options"}:
        raise e.fail(where, "op choose takes only 'options'")
    options = item.get("options")
    if not isinstance(options, list) or len(options) < 2:
        raise e.fail(f"{where}.options", "needs a list of at least two effect lists")
    parsed = tuple(parse(f"{where}.options[{j}]", o) for j, o in enumerate(options))
    if not empty_options and not all(parsed):
        raise e.fail(f"{where}.options", "an option must not be empty")
    return Effect(op="choose", options=parsed)


def then_effects(
    e: ContentEntry, where: str, item: dict[str, Any], parse: EffectParser
) -> tuple[Effect, ...]:
    """The non-empty `then` list of a `discard_for` or an `if`, parsed by `parse`."""
    then = parse(f"{where}.then", item.get("then"))
    if not then:
        raise e.fail(f"{where}.then", "must not be empty")
    return then
