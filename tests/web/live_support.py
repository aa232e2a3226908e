"""What the live-match tests share: a server for the app, a match to play, an SSE reader."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import Engine

from ladder.match_queue import enqueue_match
from tests.workers.conftest import make_ladder

#: built-in random bots thinking a few ms a decision: a Clank! game of ~640 decisions lasts
#: a few seconds, long enough to be watched, short enough for the suite
SLOW_RANDOM = "builtin:random?think_ms=4"


def queue_match(engine: Engine, commands: list[str] | None = None, seed: int = 5, name: str = "live") -> int:
    """A queued Clank! match between two bots (default: slow random built-ins)."""
    ladder = make_ladder(engine, commands or [SLOW_RANDOM] * 2, name=name)
    return enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=seed)


@dataclass
class SseEvent:
    """One server-sent event, with when it arrived (time.monotonic())."""

    event: str
    data: Any
    ident: str | None
    at: float


@dataclass
class SseStream:
    """What a stream sent: its events and its comment lines."""

    events: list[SseEvent] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)


def read_sse(response: httpx.Response, stream: SseStream) -> Iterator[SseEvent]:
    """Parse `response`'s body as server-sent events, yielding each event as it arrives (every
    line is also kept in `stream`)."""
    name, data, ident = "message", [], None
    for line in response.iter_lines():
        stream.raw.append(line)
        if line.startswith(":"):
            stream.comments.append(line)
        elif line == "":
            if data:
                event = SseEvent(name, json.loads("\n".join(data)), ident, time.monotonic())
                stream.events.append(event)
                yield event
            name, data, ident = "message", [], None
        else:
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "event":
                name = value
            elif key == "data":
                data.append(value)
            elif key == "id":
                ident = value
