"""Input limits of the HTTP API: request body sizes and read time, and request rates.

* :class:`BodyLimits` (ASGI middleware): the headers may take at most
  :attr:`ApiLimits.header_bytes` (16 KiB, else 431); a request body may be at most
  :attr:`ApiLimits.json_body_bytes` (1 MiB), or :attr:`ApiLimits.upload_body_bytes` (10 MiB) on
  the upload endpoint. A ``Content-Length`` over the limit is answered 413 before anything is
  read; a body without one (chunked) is counted as it arrives and cut off at the limit (413).
  The whole body must arrive within :attr:`ApiLimits.body_timeout_s` (30 s) or the request is
  answered 408, so a slow sender cannot hold a request open.
* :class:`RateLimiter`: token buckets in this process (one per account, shared by all its keys;
  one per client address for failed authentications and for open sign-ups). With several API
  processes each keeps its own buckets: the effective limit is the per-process limit times the
  number of processes.
"""

from __future__ import annotations

import asyncio
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.archives import MAX_COMPRESSED_BYTES

__all__ = ["ApiLimits", "BodyLimits", "BodyTimeout", "BodyTooLarge", "RateLimiter"]

#: buckets a limiter keeps; past this the least recently used are forgotten (memory stays bounded)
MAX_BUCKETS: Final = 100_000


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """The API's limits (defaults in the field values)."""

    #: all request headers together (names and values), else 431; uvicorn's
    #: ``h11_max_incomplete_event_size`` bounds only heads that arrive in pieces
    header_bytes: int = 16 * 1024
    #: a request body (JSON) in bytes
    json_body_bytes: int = 1024 * 1024
    #: the body of an archive upload (POST /api/bots/{bot_id}/versions)
    upload_body_bytes: int = MAX_COMPRESSED_BYTES
    #: seconds for a whole request body to arrive
    body_timeout_s: float = 30.0
    #: failed authentications per client address a minute, after which it gets 429
    auth_failures_per_minute: int = 20
    #: accounts created per client address a minute by open sign-up
    signups_per_minute: int = 5
    #: uploads received and checked at once by this process (each spools its body and its
    #: unpacked files to disk and holds its normalized archive); one more is answered 503
    concurrent_uploads: int = 4
    #: the Retry-After of that 503, seconds
    upload_retry_after_s: int = 5


class BodyTooLarge(HTTPException):
    """A request body over its limit (413)."""

    def __init__(self, limit: int) -> None:
        """The error for a body over `limit` bytes."""
        # the rest of the body is never read: the connection cannot carry another request
        super().__init__(413, f"request body larger than {limit} bytes", headers={"Connection": "close"})


class BodyTimeout(HTTPException):
    """A request body that did not arrive in time (408)."""

    def __init__(self, seconds: float) -> None:
        """The error for a body slower than `seconds`."""
        message = f"request body not received within {seconds:g} s"
        super().__init__(408, message, headers={"Connection": "close"})


def _json_error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status,
                        headers={"Connection": "close"})


class BodyLimits:
    """ASGI middleware bounding every request body's size and the time it takes to arrive."""

    def __init__(self, app: ASGIApp, limits: ApiLimits, upload_path: str) -> None:
        """Wrap `app`; POSTs whose path fully matches the regex `upload_path` get the upload limit."""
        self.app = app
        self.limits = limits
        self.upload_path = re.compile(upload_path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an announced oversize body, else count the body as the app reads it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_upload = scope["method"] == "POST" and self.upload_path.fullmatch(scope["path"])
        limit = self.limits.upload_body_bytes if is_upload else self.limits.json_body_bytes
        if sum(len(name) + len(value) for name, value in scope["headers"]) > self.limits.header_bytes:
            message = f"request headers larger than {self.limits.header_bytes} bytes"
            await _json_error(431, message)(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                if not value.isdigit():
                    await _json_error(400, "malformed Content-Length")(scope, receive, send)
                    return
                if int(value) > limit:
                    await _json_error(413, f"request body larger than {limit} bytes")(scope, receive, send)
                    return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.body_timeout_s
        received = 0
        finished = False

        async def limited_receive() -> Message:
            nonlocal received, finished
            if finished:  # the body is in; what follows is a disconnect notice, no deadline
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.001))
            except TimeoutError:
                raise BodyTimeout(self.limits.body_timeout_s) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
                finished = not message.get("more_body", False)
            else:
                finished = True
            return message

        response_started = False

        async def note_start(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, note_start)
        except (BodyTooLarge, BodyTimeout) as exc:
            # raised where no exception handler sees it (e.g. by middleware reading the body)
            if response_started:
                raise
            await _json_error(exc.status_code, str(exc.detail))(scope, receive, send)


class RateLimiter:
    """Token buckets: `rate` requests a minute, bursts of up to `rate`, per key. Thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """Buckets read the time from `clock` (seconds)."""
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def _level(self, key: str, rate: int, now: float) -> float:
        tokens, stamp = self._buckets.get(key, (float(rate), now))
        return min(float(rate), tokens + (now - stamp) * rate / 60.0)

    def _store(self, key: str, tokens: float, now: float) -> None:
        self._buckets[key] = (tokens, now)
        self._buckets.move_to_end(key)
        while len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)

    def _wait(self, tokens: float, rate: int) -> int:
        return max(1, math.ceil((1.0 - tokens) * 60.0 / rate))

    def take(self, key: str, rate: int) -> int | None:
        """Spend one token of `key`'s bucket: None if there was one, else seconds to wait."""
        with self._lock:
            now = self._clock()
            tokens = self._level(key, rate, now)
            if tokens < 1.0:
                return self._wait(tokens, rate)
            self._store(key, tokens - 1.0, now)
            return None

    def blocked(self, key: str, rate: int) -> int | None:
        """Seconds to wait if `key`'s bucket is empty, else None (spends nothing)."""
        with self._lock:
            tokens = self._level(key, rate, self._clock())
            return None if tokens >= 1.0 else self._wait(tokens, rate)
