"""A platform fault never fails a match: workers killed under load, every match still played once.

The real stack: PostgreSQL, Redis, `arena beat` (sweeper every SWEEP_S) and two Celery workers of
two pool processes each (lease LEASE_S). A killer SIGKILLs, every 2 to 5 s, a pool child, a
worker's main process alone (its children play on, orphaned), or a whole worker (main process
and children: a lost machine), and restarts a dead worker as a supervisor would. The season's
matches are queued up front (the matchmaker makes none: ARENA_QUEUE_DEPTH=0), so every match
killed mid-game waits behind a backlog of new ones unless it is sent ahead of them.

Asserted: every match recorded once (0 lost, 0 doubled, 0 failed, 0 parked); each stored replay
re-simulates to the stored result with the match's own seed; the ladder's books audit clean.
Printed, never asserted (a timing is a figure, not a test; `pytest -s tests/workers/test_faults.py`
shows them): the counts; the kill-to-result time of every match a kill hit, p50 and max, against
lease + sweep + the match's own length; each hit match's timeline as a watcher polling the
matches table saw it (queued again, started again, how many other matches started while it
waited: a new match started ahead of a requeued one is a broken priority), with the worker's and
the beat's log lines that name it; and the load average, since the machine is shared.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import matches, rating_history, replays, results
from referee import replay as rp
from workers.audit import audit_ladder
from workers.celery_app import CeleryDispatcher, make_app
from workers.worker_processes import stop_worker

from .conftest import REPO, Broker, WorkerFarm, make_ladder

pytestmark = [pytest.mark.slow, pytest.mark.integration]

LEASE_S = 5.0
SWEEP_S = 1.0
MATCHES = 24
WORKERS = 2
CONCURRENCY = 2
#: random bots pacing themselves 3 ms a decision: a match lasts 2-4 s
BOT = "builtin:random?think_ms=3"
#: the kills, in order, each of a worker playing a match, at least KILL_GAP_S apart
KINDS = ("child", "whole", "child", "main", "child", "whole", "child", "main")
KILL_GAP_S = 3.0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
            found += [int(c) for c in text.split()]
    return found


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def _held_by(engine: Engine, pids: list[int]) -> list[int]:
    """Running matches whose lease holder is one of `pids` (lease owner ``host:pid``)."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(matches.c.id, matches.c.lease_owner).where(matches.c.status == "running")
        ).all()
    wanted = {str(p) for p in pids}
    return [r.id for r in rows if r.lease_owner and r.lease_owner.rsplit(":", 1)[1] in wanted]


def _statuses(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {str(s): int(n) for s, n in conn.execute(
            sa.select(matches.c.status, sa.func.count()).group_by(matches.c.status)
        ).all()}


class Watcher:
    """Every match's status changes, as seen by polling the matches table every 0.1 s: the
    timeline of each hit match (kill, queued again, started again, result) in the printout."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: (time.time(), match id, new status, lease owner)
        self.changes: list[tuple[float, int, str, str | None]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        seen: dict[int, tuple[str, str | None]] = {}
        while not self._stop.wait(0.1):
            with contextlib.suppress(sa.exc.SQLAlchemyError), self.engine.connect() as conn:
                rows = conn.execute(sa.select(matches.c.id, matches.c.status, matches.c.lease_owner)).all()
                now = time.time()
                for row in rows:
                    state = (str(row.status), row.lease_owner)
                    if seen.get(row.id) != state:
                        seen[row.id] = state
                        self.changes.append((now, row.id, *state))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def first(self, match_id: int, status: str, after: float) -> float | None:
        """When `match_id` was first seen in `status` after `after`."""
        return next((t for t, m, s, _ in self.changes if m == match_id and s == status and t > after), None)

    def starts_between(self, start: float, end: float, exclude: int) -> int:
        """Matches other than `exclude` seen starting (running, a new owner) in (start, end]."""
        return sum(1 for t, m, s, _ in self.changes if m != exclude and s == "running" and start < t <= end)


def _plus(when: float | None, at: float) -> str:
    return "?" if when is None else f"{when - at:.1f} s"


def _count(engine: Engine, status: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(
            sa.select(sa.func.count()).select_from(matches).where(matches.c.status == status)
        ).scalar_one())


def test_killed_workers_never_fail_lose_or_double_a_match(
    worker_farm: WorkerFarm, broker: Broker, pg_url: str, tmp_path: Path
) -> None:
    engine = create_engine(pg_url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    rng = random.Random(24)
    beat = None
    beat_log = (tmp_path / "beat.log").open("wb")
    orphans: set[int] = set()  # process groups whose main process was killed
    try:
        ladder = make_ladder(engine, [BOT] * 4)
        ids = []
        for i in range(MATCHES):  # the whole season queued and sent before any worker starts
            pair = [ladder.version_ids[i % 4], ladder.version_ids[(i + 1 + i // 4) % 4]]
            if pair[0] == pair[1]:
                pair[1] = ladder.version_ids[(i + 2) % 4]
            ids.append(enqueue_match(engine, ladder.ladder_id, pair, seed=1000 + i))
            dispatcher.dispatch(ids[-1])
        worker_farm.env.update({
            "ARENA_LEASE_SECONDS": str(LEASE_S), "ARENA_BEAT_SECONDS": str(SWEEP_S),
            "ARENA_QUEUE_DEPTH": "0",
        })
        slots = worker_farm.start(WORKERS, concurrency=CONCURRENCY)
        beat = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "beat", "--loglevel", "WARNING"],
            env={**os.environ, **worker_farm.env}, cwd=REPO,
            stdout=subprocess.DEVNULL, stderr=beat_log,
        )
        watcher = Watcher(engine)
        started = time.monotonic()
        hits: list[tuple[float, int, str]] = []  # (kill time, match id, kind)
        kills = {"child": 0, "main": 0, "whole": 0}
        deadline = started + 170
        last_kill = 0.0
        for kind in KINDS:
            # the next kill: at least KILL_GAP_S after the last, of a worker playing a match
            while True:
                assert time.monotonic() < deadline, ("season not over", _statuses(engine), kills)
                if _count(engine, "done") >= MATCHES - 2:
                    break
                time.sleep(0.05)
                if time.monotonic() - last_kill < KILL_GAP_S:
                    continue
                # a match not hit before: each kill-to-result below is one fault's
                hit_before = {m for _, m, _ in hits}
                playing = [(slot, child) for slot, proc in enumerate(slots)
                           for child in _children(proc.pid)
                           if set(_held_by(engine, [child])) - hit_before]
                if playing:
                    break
            if not playing:
                break
            slot, child = rng.choice(playing)
            main = slots[slot].pid
            pids = {"child": [child], "main": [main], "whole": [main, *_children(main)]}[kind]
            _signal(pids, signal.SIGSTOP)  # frozen: what it holds now it can never finish
            held = _held_by(engine, pids)
            at = time.time()
            _signal(pids, signal.SIGKILL)
            last_kill = time.monotonic()
            if kind != "main":  # a main process alone holds no match: its children play on
                hits += [(at, m, kind) for m in held]
            kills[kind] += 1
            if kind != "child":  # the supervisor starts the worker again
                slots[slot].wait(timeout=10)
                if kind == "main":
                    orphans.add(main)
                slots[slot] = worker_farm.start(1, concurrency=CONCURRENCY)[0]
            print(f"{time.monotonic() - started:.1f} s: {kind} kill of {pids}, held {held}, "
                  f"{_statuses(engine)}",
                  file=sys.stderr)
        while _count(engine, "done") + _count(engine, "failed") + _count(engine, "parked") < MATCHES:
            assert time.monotonic() < deadline, ("season not over", _statuses(engine), kills)
            time.sleep(0.2)
        season_s = time.monotonic() - started
        watcher.stop()

        # --- the counts: 0 lost, 0 doubled, 0 failed ---------------------------------------
        with engine.connect() as conn:
            rows = {r.id: r for r in conn.execute(sa.select(matches).where(matches.c.id.in_(ids)))}
            result_rows = {r.match_id: r for r in conn.execute(sa.select(results))}
            rated = dict(conn.execute(
                sa.select(rating_history.c.match_id, sa.func.count()).group_by(rating_history.c.match_id)
            ).all())
            stored = dict(conn.execute(sa.select(replays.c.match_id, replays.c.data)).all())
            total = conn.execute(sa.select(sa.func.count()).select_from(matches)).scalar_one()
        statuses = {m: r.status for m, r in rows.items()}
        counts = {
            "lost": sum(s in ("queued", "running") for s in statuses.values()) + MATCHES - len(rows),
            "doubled": sum(rated.get(m, 0) > 2 for m in ids),
            "failed": sum(s == "failed" for s in statuses.values()),
            "parked": sum(s == "parked" for s in statuses.values()),
        }
        print(f"\n{counts}")
        assert total == MATCHES and sorted(rows) == sorted(ids)
        assert [m for m, s in statuses.items() if s != "done"] == [], (
            {m: (rows[m].status, rows[m].error) for m in ids if rows[m].status != "done"}
        )
        assert sorted(result_rows) == sorted(ids)  # one result each (its primary key)
        assert rated == {m: 2 for m in ids}  # one rating change per seat, none twice
        assert audit_ladder(engine, ladder.ladder_id) == []
        # --- every game as re-simulation says, with the match's own seed ---------------------
        for match_id in ids:
            replay = rp.loads(stored[match_id])
            assert replay["seed"] == rows[match_id].seed
            verified = rp.verify(replay).result
            assert verified is not None
            row = result_rows[match_id]
            assert (list(verified.places), list(verified.scores)) == (row.places, row.scores)
        # the kills did hit matches mid-game, and those were played again
        faulted = [m for m in ids if rows[m].attempts > 0]
        assert hits and faulted, (hits, kills)

        # --- the figures ------------------------------------------------------------------
        waits, lengths, bounds = [], [], []
        for at, match_id, _kind in hits:
            row = rows[match_id]
            waits.append(row.finished_at.timestamp() - at)
            length = (row.finished_at - row.started_at).total_seconds()
            lengths.append(length)
            bounds.append(LEASE_S + SWEEP_S + length)
        p50, worst = statistics.median(waits), max(waits)
        by_kind = {
            kind: [w for w, (_, _, k) in zip(waits, hits, strict=True) if k == kind]
            for kind in ("child", "whole")
        }
        restarts = [rows[m].started_at.timestamp() - at for at, m, _ in hits]
        kinds_line = "; ".join(
            f"{kind}: {len(w)} hit, p50 {statistics.median(w):.1f} s, max {max(w):.1f} s"
            for kind, w in by_kind.items() if w
        )
        print(
            f"\n{MATCHES} matches, {WORKERS} workers x {CONCURRENCY} processes, lease {LEASE_S:g} s, "
            f"sweep {SWEEP_S:g} s; kills: {kills['child']} pool children, {kills['main']} main "
            f"processes, {kills['whole']} whole workers; {len(hits)} matches hit mid-game, "
            f"{len(faulted)} played again ({sum(r.attempts for r in rows.values())} platform faults); "
            f"lost {counts['lost']}, doubled {counts['doubled']}, failed {counts['failed']}, "
            f"parked {counts['parked']}; season {season_s:.1f} s\n"
            f"kill-to-result p50 {p50:.1f} s (bound lease + sweep + own length, p50 "
            f"{statistics.median(bounds):.1f} s), max {worst:.1f} s (twice the bound at the max: "
            f"{2 * max(bounds):.1f} s); match length p50 {statistics.median(lengths):.1f} s\n"
            f"by kill: {kinds_line}; kill to the last start p50 {statistics.median(restarts):.1f} s, "
            f"max {max(restarts):.1f} s"
        )
        for at, match_id, kind in hits:
            row = rows[match_id]
            queued = watcher.first(match_id, "queued", at)
            again = watcher.first(match_id, "running", queued or at)
            ahead = watcher.starts_between(queued, again, match_id) if queued and again else 0
            trail = ", ".join(f"+{t - at:.1f} {st} {(owner or '').rsplit(':', 1)[-1]}"
                              for t, m, st, owner in watcher.changes if m == match_id and t > at)
            print(
                f"  match {match_id} ({kind} kill): queued again +{_plus(queued, at)}, started again "
                f"+{_plus(again, at)} ({ahead} other starts while it waited), result "
                f"+{row.finished_at.timestamp() - at:.1f} s (its last start to result "
                f"{(row.finished_at - row.started_at).total_seconds():.1f} s)\n    {trail}"
            )
            for log in (tmp_path / "beat.log", *sorted(worker_farm.logs.glob("*.log"))):
                for line in log.read_text(errors="replace").splitlines():
                    if f"match {match_id}:" in line:
                        print(f"    {log.stem}: {line}")
        load = os.getloadavg()
        print(f"load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min, "
              f"{os.cpu_count()} cores, shared)")
        # no timing is asserted: the figures above are the measure (workers/README.md)
    finally:
        if beat is not None:
            beat.terminate()
            beat.wait(timeout=20)
        beat_log.close()
        for proc in worker_farm.procs:
            stop_worker(proc, sig=signal.SIGKILL)
        for group in orphans:  # children of a killed main process, if any still play
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
        dispatcher.close()
        engine.dispose()
