"""Serving the API with uvicorn, with the connection-level limits the app cannot set itself.

:func:`uvicorn_limits` are the settings ``arena serve api`` passes to uvicorn:

* ``http``: :class:`GuardedH11Protocol` (uvicorn's h11 protocol) which answers a malformed
  request with the API's JSON error shape (``{"error", "status": 400}``) instead of plain text,
  and closes a connection whose request line and headers have not all arrived within
  :data:`HEADER_TIMEOUT_S` (uvicorn has no such timeout: a client sending a header a minute
  would hold its connection for ever);
* ``h11_max_incomplete_event_size``: 16 KiB, the most a request line and headers may take;
* ``timeout_keep_alive``: 5 s an idle keep-alive connection is kept;
* ``limit_concurrency``: at most 256 connections and tasks at once, then 503;
* ``timeout_graceful_shutdown``: 10 s for requests in flight when stopping.

The request body's size and time limits are the app's (``ladder.api_limits.BodyLimits``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_TIMEOUT_S", "GuardedH11Protocol", "uvicorn_limits"]

#: seconds for a request line and its headers to arrive
HEADER_TIMEOUT_S: Final = 10.0
MAX_HEADER_BYTES: Final = 16 * 1024


def _raw_json_response(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message, "status": status}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with JSON 400s and a timeout on slow request headers."""

    _header_timer: asyncio.TimerHandle | None = None
    #: seconds for a request's line and headers to arrive (see :func:`uvicorn_limits`)
    header_timeout_s: float = HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock for the first request's headers."""
        super().connection_made(transport)
        self._start_header_timer()

    def data_received(self, data: bytes) -> None:
        """Feed h11; time the headers of a request that has begun but not finished arriving."""
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:  # a head has begun but is not complete
            if self._header_timer is None:
                self._start_header_timer()
        else:
            self._stop_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the header clock with the connection."""
        self._stop_header_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        """A response went out: the next request's headers are timed when its bytes arrive."""
        self._stop_header_timer()
        super().on_response_complete()

    def _start_header_timer(self) -> None:
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is being produced: the keep-alive logic owns the connection
        # bytes of a request arrived (or none did since the connection opened) but no full head
        self.transport.write(
            _raw_json_response(408, "Request Timeout", "request headers not received in time")
        )
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 could not parse with the API's JSON error shape, and close."""
        self._stop_header_timer()
        self.transport.write(_raw_json_response(400, "Bad Request", f"malformed HTTP request: {msg}"))
        self.transport.close()


def uvicorn_limits(header_timeout_s: float = HEADER_TIMEOUT_S) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config`` (see the module doc)."""
    protocol: type[GuardedH11Protocol] = GuardedH11Protocol
    if header_timeout_s != HEADER_TIMEOUT_S:

        class _Timed(GuardedH11Protocol):
            pass

        _Timed.header_timeout_s = header_timeout_s
        protocol = _Timed
    return {
        "http": protocol,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "timeout_keep_alive": 5,
        "limit_concurrency": 256,
        "timeout_graceful_shutdown": 10,
    }
