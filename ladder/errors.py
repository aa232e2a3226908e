"""Errors raised by the ladder's storage functions.

LadderError
├── NotFound        a bot, ladder or match id that does not exist     (HTTP 404)
├── Conflict        a unique name already taken                       (HTTP 409)
└── InvalidInput    a malformed request: bad name, result of the wrong shape (HTTP 422)
"""

from __future__ import annotations

__all__ = ["Conflict", "InvalidInput", "LadderError", "NotFound"]


class LadderError(Exception):
    """Base class of ladder storage errors."""


class NotFound(LadderError, LookupError):
    """The bot, ladder or match does not exist."""


class Conflict(LadderError):
    """A unique value (a bot or ladder name) is already taken."""


class InvalidInput(LadderError, ValueError):
    """The input is malformed (the message says which field and why)."""
