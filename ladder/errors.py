"""Errors raised by the ladder's storage functions.

LadderError
├── NotFound        a bot, ladder or match id that does not exist     (HTTP 404)
├── Conflict        a unique name already taken                       (HTTP 409)
├── InvalidInput    a malformed request: bad name, result of the wrong shape (HTTP 422)
│   └── TooLarge    an upload or a body over its size limit           (HTTP 413)
├── Unauthorized    no credential, or one that is not valid           (HTTP 401)
├── Forbidden       a valid credential that may not do this           (HTTP 403)
├── RateLimited     too many requests; retry after `retry_after` s    (HTTP 429)
└── Busy            the server is at a capacity limit; retry after `retry_after` s (HTTP 503)
"""

from __future__ import annotations

__all__ = [
    "Busy",
    "Conflict",
    "Forbidden",
    "InvalidInput",
    "LadderError",
    "NotFound",
    "RateLimited",
    "TooLarge",
    "Unauthorized",
]


class LadderError(Exception):
    """Base class of ladder storage errors."""


class NotFound(LadderError, LookupError):
    """The bot, ladder or match does not exist."""


class Conflict(LadderError):
    """A unique value (a bot or ladder name) is already taken."""


class InvalidInput(LadderError, ValueError):
    """The input is malformed (the message says which field and why)."""


class TooLarge(InvalidInput):
    """The input is over a size limit (an upload, an archive's unpacked size, a request body)."""


class Unauthorized(LadderError):
    """No credential was given, or it is unknown or revoked."""


class Forbidden(LadderError):
    """The credential is valid but lacks the scope, or the thing belongs to another account."""


class RateLimited(LadderError):
    """Too many requests; `retry_after` is the number of seconds to wait."""

    def __init__(self, message: str, retry_after: int) -> None:
        """A rate-limit error asking the caller to wait `retry_after` seconds."""
        super().__init__(message)
        self.retry_after = retry_after


class Busy(LadderError):
    """The server is at one of its capacity limits (e.g. uploads checked at once); `retry_after`
    is the number of seconds to wait."""

    def __init__(self, message: str, retry_after: int) -> None:
        """A capacity error asking the caller to wait `retry_after` seconds."""
        super().__init__(message)
        self.retry_after = retry_after
