"""Errors for content data files (cards, boards, scenarios) found invalid at load time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["ContentError", "load_json"]


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
