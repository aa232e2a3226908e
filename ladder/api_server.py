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

Before serving, ``arena serve api`` asks :func:`schema_problem` whether the database is at the
newest migration: on an unmigrated (or older) database every page would be a 500, so it says to
run ``arena db upgrade`` (or ``--upgrade``) instead of starting.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

import h11
from sqlalchemy import Engine
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_TIMEOUT_S", "GuardedH11Protocol", "schema_problem", "uvicorn_limits"]

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


def schema_problem(
    engine: Engine, fix: str = "run `arena db upgrade` first (or start with --upgrade)"
) -> str | None:
    """Why the API (or an operator command, its own `fix`) cannot use `engine`'s database, in one
    sentence; None when it is at the newest migration. An unreachable database is a problem too
    (its error's first line)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy.exc import SQLAlchemyError

    from ladder.db import alembic_config

    heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
    try:
        with engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except SQLAlchemyError as exc:
        cause = getattr(exc, "orig", None) or exc  # the driver's own message, without SQL
        first = (str(cause).strip().splitlines() or [""])[0]
        return f"cannot reach the database ({type(exc).__name__}: {first})"
    if current == heads:
        return None
    if not current:
        return f"the database has no Arena tables yet: {fix}"
    return (
        f"the database is at migration {', '.join(sorted(current))}, this build needs "
        f"{', '.join(sorted(heads))}: {fix}"
    )
