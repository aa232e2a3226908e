"""Live matches: the public record of a running match, from the worker that plays it to the API
that streams it to spectators (``GET /api/matches/{id}/live``, server-sent events).

The worker that follows a match on its referee (``workers.grpc_executor``: the referee's
WatchMatch events; ``workers.executor.InProcessExecutor``: the built-in bots' moves) hands each
step to a :class:`LiveFeed`, which appends it to the match's entry in a :class:`LiveChannel`
both sides reach:

* distributed (``BROKER_URL`` is a Redis URL): a Redis stream per match,
  ``arena:live:<database tag>:<match id>`` (:class:`RedisChannel`). The worker, its referee and
  the API may each be on another host; Redis is the one thing they share besides the database.
* embedded (`arena demo`, the local process pool): a file per match in a folder beside the
  SQLite database (:class:`FileChannel`; ``$ARENA_LIVE_DIR`` chooses another).

What is published is the public record only, the one the replay viewer shows every perspective
(``referee.replay_view``: "seat N: <action text>"): per step its number, the seat, the action's
text and the referee's reason for a default action, or a forfeit and its reason; at the end the
match's status. Never an observation, a legal-action list or an index: those are what a seat
was sent, and an opponent's owner watching must not learn another seat's hand from them.

Spectators get each step late (:func:`released`): a step is sent once ``$ARENA_LIVE_DELAY_DECISIONS``
later decisions have been played **and** ``$ARENA_LIVE_DELAY_SECONDS`` have passed since it was
played (defaults 2 and 5: of "2 decisions or 5 s" we read the stricter, the later of the two,
so that a fast match is still 5 s behind and a slow one still 2 decisions behind); the end of
the match releases every step at once (the replay is public from then on anyway).

Publishing never fails a match: a channel that cannot be written is logged once and the feed
goes quiet (the match plays on; only its live view stops).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from sqlalchemy.engine import make_url

from ladder.db import database_url
from referee import settings

__all__ = [
    "FLUSH_S",
    "FileChannel",
    "LiveChannel",
    "LiveEntry",
    "LiveFeed",
    "RedisChannel",
    "channel_for",
    "released",
]

log = logging.getLogger(__name__)

#: a feed sends what it holds at most this long after a step (one write per batch, not per step:
#: a fast match plays hundreds of steps a second)
FLUSH_S: Final = 0.2
#: a live stream's key is dropped this long after its last write (a worker that died mid-match
#: leaves no stream behind for ever)
KEEP_S: Final = 6 * 3600
#: ... and this long after the match ended (late spectators are sent to the replay)
KEEP_ENDED_S: Final = 600
#: steps kept per match at most (a runaway match's stream stays bounded)
MAX_ENTRIES: Final = 100_000


#: what a feed writes: (sequence number, event)
Published = tuple[int, Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class LiveEntry:
    """One published event: its sequence number (1, 2, ...), when it was published (the
    channel's clock, seconds) and the event (``kind`` "step" or "end")."""

    seq: int
    at: float
    event: Mapping[str, Any]


class LiveChannel(Protocol):
    """Where a match's live events go (the worker) and are read from (the API)."""

    def publish(self, match_id: int, entries: Sequence[Published], *, ended: bool) -> None:
        """Append (seq, event) pairs to the match's log."""
        ...

    def reset(self, match_id: int) -> None:
        """Drop the match's log (a new attempt at the match starts afresh)."""
        ...

    def read(self, match_id: int, cursor: Any) -> tuple[list[LiveEntry], Any, float]:
        """The entries after `cursor` (None: from the start), the cursor after them, and the
        channel's clock now."""
        ...


def _database_tag(db_url: str) -> str:
    """A short tag of the database (host, port, name; never the password): two platforms
    sharing a Redis keep apart, the worker and the API of one agree."""
    url = make_url(database_url(db_url))
    where = f"{url.get_backend_name()}|{url.host or ''}|{url.port or ''}|{url.database or ''}"
    return hashlib.sha256(where.encode()).hexdigest()[:12]


class RedisChannel:
    """A Redis stream per match; entry times are the Redis server's (one clock for every host)."""

    def __init__(self, url: str, db_url: str) -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self._prefix = f"arena:live:{_database_tag(db_url)}:"

    def key(self, match_id: int) -> str:
        """The match's stream key."""
        return f"{self._prefix}{match_id}"

    def publish(self, match_id: int, entries: Sequence[Published], *, ended: bool) -> None:
        key = self.key(match_id)
        pipe = self._redis.pipeline(transaction=False)
        for seq, event in entries:
            pipe.xadd(key, {"seq": seq, "e": json.dumps(event, separators=(",", ":"))},
                      maxlen=MAX_ENTRIES, approximate=True)
        pipe.expire(key, KEEP_ENDED_S if ended else KEEP_S)
        pipe.execute()

    def reset(self, match_id: int) -> None:
        self._redis.delete(self.key(match_id))

    def read(self, match_id: int, cursor: Any) -> tuple[list[LiveEntry], Any, float]:
        pipe = self._redis.pipeline(transaction=False)
        pipe.xread({self.key(match_id): cursor or "0-0"}, count=1000)
        pipe.time()
        found, (secs, micros) = pipe.execute()
        entries: list[LiveEntry] = []
        last = cursor
        for _key, rows in found or ():
            for entry_id, fields in rows:
                ident = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
                last = ident
                ms = int(ident.split("-")[0])
                entries.append(LiveEntry(int(fields[b"seq"]), ms / 1000, json.loads(fields[b"e"])))
        return entries, last, secs + micros / 1e6


class FileChannel:
    """A file per match in `folder` (one host: the embedded mode's worker processes and API)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, match_id: int) -> Path:
        """The match's file."""
        return self.folder / f"match-{int(match_id)}.jsonl"

    def publish(self, match_id: int, entries: Sequence[Published], *, ended: bool) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        now = time.time()
        lines = "".join(
            json.dumps({"seq": seq, "at": now, "e": event}, separators=(",", ":")) + "\n"
            for seq, event in entries
        )
        # one append per batch: a reader sees whole lines or none of a batch's last line
        fd = os.open(self.path(match_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)

    def reset(self, match_id: int) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(match_id).unlink()

    def read(self, match_id: int, cursor: Any) -> tuple[list[LiveEntry], Any, float]:
        offset = int(cursor or 0)
        try:
            with self.path(match_id).open("rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size < offset:  # the file was started afresh (a new attempt)
                    offset = 0
                f.seek(offset)
                data = f.read(size - offset)
        except FileNotFoundError:
            return [], 0, time.time()
        whole = data[: data.rfind(b"\n") + 1]  # a line still being written waits
        entries = []
        for line in whole.splitlines():
            row = json.loads(line)
            entries.append(LiveEntry(int(row["seq"]), float(row["at"]), row["e"]))
        return entries, offset + len(whole), time.time()


def default_live_dir(db_url: str) -> Path:
    """The embedded channel's folder: ``$ARENA_LIVE_DIR``, else beside a SQLite database file
    (``<file>.live``), else a folder of this user's under the temporary folder."""
    chosen = settings.current().live_dir
    if chosen:
        return Path(chosen)
    url = make_url(database_url(db_url))
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(f"{url.database}.live")
    return Path(tempfile.gettempdir()) / f"arena-live-{os.getuid()}" / _database_tag(db_url)


def channel_for(db_url: str) -> LiveChannel:
    """The live channel of the platform on database `db_url`: Redis when ``BROKER_URL`` is a
    Redis URL (distributed), else the embedded file channel."""
    broker = settings.current().broker_url
    if broker is not None and broker.startswith(("redis://", "rediss://", "unix://")):
        return RedisChannel(broker, db_url)
    return FileChannel(default_live_dir(db_url))


def released(
    entries: Sequence[LiveEntry], now: float, *, decisions: int, seconds: float
) -> list[LiveEntry]:
    """The entries a spectator may be sent now, in order: a step once `decisions` later steps
    were published and `seconds` passed since it was; everything once the match ended."""
    if any(e.event.get("kind") == "end" for e in entries):
        return list(entries)
    head = max((e.seq for e in entries), default=0)
    return [e for e in entries if e.seq <= head - decisions and e.at <= now - seconds]


class LiveFeed:
    """One match's publisher: numbers its steps, batches them (a write every :data:`FLUSH_S` at
    most, from a background thread too, so a step is not held back while a bot thinks) and
    writes its end. Thread-safe; every method returns at once and none ever raises."""

    def __init__(self, channel: LiveChannel, match_id: int) -> None:
        self.channel = channel
        self.match_id = match_id
        self._lock = threading.Lock()
        self._pending: list[tuple[int, dict[str, Any]]] = []
        self._seq = 0
        self._broken = False
        self._closed = threading.Event()
        try:
            channel.reset(match_id)
        except Exception as exc:
            self._give_up(exc)
        self._thread = threading.Thread(target=self._flusher, name=f"live-{match_id}", daemon=True)
        self._thread.start()

    @property
    def steps(self) -> int:
        """Steps published so far."""
        return self._seq

    def action(self, seat: int, text: str, reason: str = "") -> None:
        """Seat `seat` played the action whose text is `text` (`reason`: why the referee chose
        it, for a default action)."""
        event: dict[str, Any] = {"kind": "step", "seat": int(seat), "text": str(text)[:500]}
        if reason:
            event["reason"] = str(reason)[:200]
        self._add(event)

    def forfeit(self, seat: int, reason: str) -> None:
        """Seat `seat` forfeited (a step of the replay, as the referee records it)."""
        self._add({"kind": "step", "seat": int(seat), "forfeit": True, "reason": str(reason)[:200]})

    def _add(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._seq += 1
            event["step"] = self._seq
            self._pending.append((self._seq, event))

    def end(self, status: str) -> None:
        """The match is over (`status`: done, failed, aborted): flush, write the end, stop."""
        with self._lock:
            self._seq += 1
            self._pending.append((self._seq, {"kind": "end", "status": status, "steps": self._seq - 1}))
        self._closed.set()
        self._thread.join(5)
        self._flush(ended=True)

    def close(self) -> None:
        """Stop without an end (the match was handed to another worker)."""
        self._closed.set()
        self._thread.join(5)
        self._flush(ended=False)

    def _flusher(self) -> None:
        while not self._closed.wait(FLUSH_S):
            self._flush(ended=False)

    def _flush(self, *, ended: bool) -> None:
        with self._lock:
            batch, self._pending = self._pending, []
            if self._broken or not batch:
                return
            try:
                self.channel.publish(self.match_id, batch, ended=ended)
            except Exception as exc:
                self._give_up(exc)

    def _give_up(self, exc: Exception) -> None:
        self._broken = True
        log.warning("match %s: its live view stops, the live channel failed: %s: %s",
                    self.match_id, type(exc).__name__, exc)
