"""``GET /api/matches/{id}/live``: a running match's public record as server-sent events.

The stream (``text/event-stream``) reads the match's live channel (:mod:`ladder.live`: Redis
or, embedded, a file) and sends each step once the operator's delay lets it go
(:func:`ladder.live.released`):

* ``event: step`` with ``id: N`` (the step number, the replay's) and data
  ``{"step": N, "seat": S, "text": "...", "reason": "..."}`` (``"forfeit": true`` for a
  forfeit); the public record only, as the replay viewer shows it to every seat;
* ``event: restart`` when the match is played again from its start (a requeued attempt);
* ``event: end`` with ``{"status": "done", "steps": N, "replay_url": ...}``, then the stream closes;
* a ``: keepalive`` comment every :data:`HEARTBEAT_S` seconds (proxies keep the connection).

``Last-Event-ID`` (sent by every EventSource when it reconnects) resumes after that step. A
stream lasts :data:`MAX_STREAM_S` at most (the browser reconnects and resumes). One API process
serves ``$ARENA_LIVE_SUBSCRIBERS`` streams at once; one more is answered 503 with Retry-After.
An unknown match is a 404; a finished one is a 410 whose body names its replay.
"""

# no `from __future__ import annotations`: FastAPI must see the route annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any, Final

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse
from sqlalchemy import Engine

from ladder import queries
from ladder.live import LiveChannel, LiveEntry, channel_for, released
from referee import settings

__all__ = ["HEARTBEAT_S", "MAX_STREAM_S", "POLL_S", "live_router"]

#: how often a stream looks for new steps
POLL_S: Final = 0.3
#: a comment is sent when nothing else was for this long
HEARTBEAT_S: Final = 15.0
#: how often a stream checks the match's status in the database (a worker that died without
#: writing the end: the stream still ends once the match is recorded or failed)
STATUS_EVERY_S: Final = 5.0
#: a stream's longest life; the browser reconnects with Last-Event-ID
MAX_STREAM_S: Final = 3600.0
#: Retry-After of a 503 over the subscriber cap
BUSY_RETRY_S: Final = 10


def _sse(event: str, data: Any, ident: int | None = None) -> str:
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _public_step(event: Any) -> dict[str, Any]:
    """The step's public fields only, whatever else a channel entry may hold."""
    out: dict[str, Any] = {
        "step": int(event["step"]), "seat": int(event["seat"]), "text": str(event.get("text", ""))
    }
    if event.get("forfeit"):
        out["forfeit"] = True
    if event.get("reason"):
        out["reason"] = str(event["reason"])
    return out


def _end(match_id: int, status: str, steps: int) -> dict[str, Any]:
    return {
        "status": status,
        "steps": steps,
        "replay_url": f"/matches/{match_id}/replay",
        "match_url": f"/matches/{match_id}",
    }


def _last_event_id(request: Request) -> int:
    raw = request.headers.get("last-event-id", "").strip()
    return int(raw) if raw.isdigit() and len(raw) <= 12 else 0


def live_router(engine: Engine, channel: LiveChannel | None = None) -> APIRouter:
    """The live route over the database behind `engine` (its channel: `channel`, default the
    platform's, :func:`ladder.live.channel_for`)."""
    router = APIRouter()
    state = {"subscribers": 0}
    db_url = engine.url.render_as_string(hide_password=False)
    chosen: list[LiveChannel] = [channel] if channel is not None else []

    def the_channel() -> LiveChannel:
        if not chosen:
            chosen.append(channel_for(db_url))
        return chosen[0]

    def status_of(match_id: int) -> str | None:
        with engine.connect() as conn:
            info = queries.match_info(conn, match_id)
        return None if info is None else str(info["status"])

    @router.get(
        "/api/matches/{match_id}/live",
        response_class=StreamingResponse,
        responses={
            200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                  "description": "the match's public record as server-sent events"},
            404: {"description": "No such match"},
            410: {"description": "The match is over: the body names its replay"},
            503: {"description": "As many live streams as this server serves at once; "
                  "wait Retry-After seconds"},
        },
    )
    async def live(request: Request, match_id: int = Path(ge=1, le=queries.MAX_ID)) -> Response:
        """Follow a queued or running match as it is played (server-sent events, delayed by
        the operator's ``$ARENA_LIVE_DELAY_DECISIONS`` / ``$ARENA_LIVE_DELAY_SECONDS``)."""
        status = await run_in_threadpool(status_of, match_id)
        if status is None:
            return JSONResponse({"error": f"no match {match_id}", "status": 404}, 404)
        if status in ("done", "failed"):
            replay = f"/matches/{match_id}/replay"
            return JSONResponse(
                {"error": f"match {match_id} is over ({status}); its replay: {replay}",
                 "status": 410, "replay_url": replay}, 410,
            )
        config = settings.current()
        if state["subscribers"] >= config.live_subscribers:
            return JSONResponse(
                {"error": f"this server already streams {config.live_subscribers} live matches; "
                 f"try again in {BUSY_RETRY_S} s", "status": 503},
                503, headers={"Retry-After": str(BUSY_RETRY_S)},
            )
        state["subscribers"] += 1
        try:
            channel = the_channel()
        except Exception:
            state["subscribers"] -= 1
            raise
        after = _last_event_id(request)
        return StreamingResponse(
            _stream(channel, match_id, after, config.live_delay_decisions, config.live_delay_seconds),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _stream(
        channel: LiveChannel, match_id: int, after: int, decisions: int, seconds: float
    ) -> AsyncIterator[str]:
        try:
            async for chunk in _events(channel, match_id, after, decisions, seconds):
                yield chunk
        finally:
            state["subscribers"] -= 1

    async def _events(
        channel: LiveChannel, match_id: int, after: int, decisions: int, seconds: float
    ) -> AsyncIterator[str]:
        started = last_write = next_status = time.monotonic()
        yield "retry: 2000\n\n"
        cursor: Any = None
        held: list[LiveEntry] = []
        sent = after
        seen = 0  # the highest sequence number read: a lower one later means a new attempt
        while time.monotonic() - started < MAX_STREAM_S:
            entries, cursor, now = await asyncio.to_thread(channel.read, match_id, cursor)
            for entry in entries:
                if entry.seq <= seen and entry.event.get("kind") == "step":
                    held, sent, seen = [], 0, 0
                    yield _sse("restart", {"reason": "the match is played again from its start"})
                seen = max(seen, entry.seq)
                if entry.seq > sent:
                    held.append(entry)
            for entry in released(held, now, decisions=decisions, seconds=seconds):
                if entry.event.get("kind") == "end":
                    yield _sse("end", _end(match_id, str(entry.event.get("status", "done")), sent), entry.seq)
                    return
                yield _sse("step", _public_step(entry.event), entry.seq)
                sent = entry.seq
                last_write = time.monotonic()
            held = [e for e in held if e.seq > sent]
            if time.monotonic() >= next_status:
                next_status = time.monotonic() + STATUS_EVERY_S
                status = await run_in_threadpool(status_of, match_id)
                if status not in ("queued", "running"):
                    # recorded (or failed, or gone) without an end on the channel: end anyway
                    yield _sse("end", _end(match_id, status or "gone", sent))
                    return
            if time.monotonic() - last_write >= HEARTBEAT_S:
                yield ": keepalive\n\n"
                last_write = time.monotonic()
            await asyncio.sleep(POLL_S)

    return router
