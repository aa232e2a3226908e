"""Reading content data files (cards, boards, scenarios) and the errors for invalid ones.

Every problem is a `ContentError` naming the file, the entry and the field, so a bad edit is
caught when the content loads, with a message that says where to look.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

__all__ = ["ContentEntry", "ContentError", "content_version", "file_entries", "load_json"]


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
