"""Errors for content data files (cards, boards, scenarios) found invalid at load time."""

from __future__ import annotations

__all__ = ["ContentError"]


class ContentError(ValueError):
    """A content file is invalid. The message names the file, the entry and the field."""

    def __init__(self, file: str, entry: str, field: str, problem: str) -> None:
        self.file = file
        self.entry = entry
        self.field = field
        self.problem = problem
        super().__init__(f"{file}: entry {entry!r}: field {field!r}: {problem}")
