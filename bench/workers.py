"""Benchmarks of the ladder's execution side (figures, not pass/fail): ``python -m bench.workers``.

1. **production shape** (issue 14): matches/min with 1 and then 2 match-worker processes, run
   as in production: one ``arena beat`` process (the sweeper and the matchmaker, refilling the
   queue when a match ends, at its default ``$ARENA_QUEUE_DEPTH`` and ``$ARENA_BEAT_SECONDS``),
   Celery workers on PostgreSQL + Redis (``arena worker``'s command line, one process each),
   and built-in greedy bots that think ``--think-ms`` (default 20) per decision. The ratio
   2 workers / 1 worker is printed beside the goal (>= 1.8x).

   Why bots that think: the machine's cores are shared by the workers, the beat, PostgreSQL
   and Redis. Bots that answer in microseconds make a match pure CPU (a greedy Clank! match
   is about 10 ms of engine), so two workers would only split the same cores between them and
   the ratio would measure the CPU count, not the platform. A ladder's bots take tens of
   milliseconds per move (a network round trip, a search), so a worker mostly waits on its
   bots: the workers are the limit, as in production, and whatever keeps a second worker from
   doubling the rate (an empty queue, refill latency, prefetch, database contention) shows.
   The rate is timed between two finished matches after a warm-up (``matches.finished_at``),
   so worker start-up and the last, half-busy stretch are not counted.
2. matches/min of random-bot Clank! matches (no think time) with 1 and 2 worker processes:
   Celery workers on PostgreSQL + Redis fed by a season loop, and the embedded local pool on
   SQLite (the CPU-bound case: at most the number of free cores);
3. result-recording transactions/s with 8 concurrent writers on PostgreSQL, all recording
   matches among the same 8 bots (so they contend for the same rating rows), followed by an
   audit that proves no rating update was lost.

Needs PostgreSQL (``$ARENA_BENCH_POSTGRES``, default ``postgresql://postgres@127.0.0.1:5432/
postgres``: a scratch database is created and dropped) and Redis (``$BROKER_URL``, default
``redis://127.0.0.1:6379/0``; a private queue name is used).
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import Engine

from bench.scratch import scratch_database
from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import matches as matches_table
from ladder.schema import metadata
from referee import settings
from workers.audit import audit_ladder
from workers.bot_commands import builtin_command
from workers.celery_app import CeleryDispatcher, broker_url, make_app
from workers.control import beat_seconds
from workers.local_pool import LocalPool
from workers.matchmaker import queue_depth
from workers.season import Dispatcher, play_season
from workers.worker_processes import start_worker, stop_worker

__all__ = ["main"]



def _empty(engine: Engine) -> None:
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            names = ", ".join(t.name for t in metadata.sorted_tables)
            conn.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        else:
            for table in reversed(metadata.sorted_tables):
                conn.execute(table.delete())


def _random_ladder(engine: Engine, bots: int) -> int:
    ladder_id = create_ladder(engine, "bench", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
    for i in range(bots):
        bot_id = register_bot(engine, f"random-{i}", "bench").bot_id
        add_bot_version(engine, bot_id, "1", "builtin:random")
        join_ladder(engine, ladder_id, bot_id)
    return ladder_id


def _season_rate(engine: Engine, dispatcher: Dispatcher, matches: int, depth: int) -> float:
    ladder_id = _random_ladder(engine, 6)
    summary = play_season(engine, dispatcher, [ladder_id], matches, target_depth=depth, poll_seconds=0.1,
                          timeout=600, rng_seed=1)
    problems = audit_ladder(engine, ladder_id)
    if summary.failed or problems:
        raise RuntimeError(f"season went wrong: {summary.failed} failed; {problems[:3]}")
    return 60 * summary.done / summary.seconds


def bench_celery(pg_url: str, workers: int, matches: int) -> float:
    """Matches/min on `workers` single-process Celery workers (PostgreSQL + Redis)."""
    broker = broker_url()
    queue = f"arena-bench-{secrets.token_hex(4)}"
    engine = create_engine(pg_url)
    _empty(engine)
    env = {"BROKER_URL": broker, "DATABASE_URL": pg_url, "ARENA_QUEUE": queue}
    procs = [start_worker(env, queue, name=f"bench{i}-{queue}") for i in range(workers)]
    dispatcher = CeleryDispatcher(make_app(broker, queue), queue, broker)
    try:
        # warm up: let the workers boot and import the engine before the clock starts
        _season_rate(engine, dispatcher, 2 * workers, workers)
        _empty(engine)
        return _season_rate(engine, dispatcher, matches, 3 * workers)
    finally:
        dispatcher.close()
        for proc in procs:
            stop_worker(proc)
        engine.dispose()


#: the production-shape bench's goal: 2 worker processes play this many times the matches of one
PRODUCTION_GOAL = 1.8


@dataclass(frozen=True)
class ProductionRate:
    """One production-shape run: matches/min between two finished matches, and what it counted."""

    workers: int
    matches_per_min: float
    timed_matches: int
    seconds: float
    #: mean queued matches seen while timing (the matchmaker keeps the queue topped up)
    mean_queued: float
    #: mean running matches seen while timing (at most `workers`)
    mean_running: float


def _status_counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(matches_table.c.status, sa.func.count()).group_by(matches_table.c.status)
        ).all()
    return {str(status): int(n) for status, n in rows}


def _finished_times(engine: Engine) -> list[float]:
    with engine.connect() as conn:
        stamps = conn.execute(
            sa.select(matches_table.c.finished_at)
            .where(matches_table.c.status == "done")
            .order_by(matches_table.c.finished_at)
        ).scalars().all()
    return [stamp.timestamp() for stamp in stamps]


def start_beat(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``arena beat`` (the installed root, ``python -m referee.cli``) in a session of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "beat", "--loglevel", "WARNING"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def bench_production(
    pg_url: str, workers: int, matches: int, *, think_ms: int, warmup: int, bots: int = 8,
    timeout: float = 900.0,
) -> ProductionRate:
    """Matches/min of `workers` Celery worker processes fed by an ``arena beat`` process.

    The ladder has `bots` built-in greedy bots thinking `think_ms` per decision. The first
    `warmup` finished matches (at least one per worker) start the clock; the rate is taken over
    the next `matches` finishes, from their ``finished_at``.
    """
    broker = broker_url()
    queue = f"arena-bench-{secrets.token_hex(4)}"
    engine = create_engine(pg_url)
    _empty(engine)
    ladder_id = create_ladder(
        engine, "production", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
    )
    for i in range(bots):
        bot_id = register_bot(engine, f"greedy-{i}", "bench").bot_id
        add_bot_version(engine, bot_id, "1", builtin_command("greedy", think_ms=think_ms))
        join_ladder(engine, ladder_id, bot_id)
    env = {"BROKER_URL": broker, "DATABASE_URL": pg_url, "ARENA_QUEUE": queue}
    procs = [start_worker(env, queue, name=f"prod{i}-{queue}") for i in range(workers)]
    beat = start_beat(env)
    samples: list[dict[str, int]] = []
    try:
        deadline = time.monotonic() + timeout
        first = max(warmup, workers)
        while True:
            counts = _status_counts(engine)
            done = counts.get("done", 0)
            if done > first:
                samples.append(counts)
            if done >= first + matches:
                break
            if beat.poll() is not None:
                err = beat.stderr.read().decode(errors="replace") if beat.stderr else ""
                raise RuntimeError(f"arena beat exited ({beat.returncode}): {err[-2000:]}")
            if counts.get("failed", 0):
                raise RuntimeError(f"{counts['failed']} matches failed")
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {done} matches done in {timeout:.0f} s")
            time.sleep(0.2)
    finally:
        stop_worker(beat)
        for proc in procs:
            stop_worker(proc)
    finished = _finished_times(engine)
    engine.dispose()
    # from the `first`-th finish to the (`first` + `matches`)-th: `matches` intervals
    seconds = finished[first + matches - 1] - finished[first - 1]
    return ProductionRate(
        workers=workers,
        matches_per_min=60 * matches / seconds,
        timed_matches=matches,
        seconds=seconds,
        mean_queued=sum(s.get("queued", 0) for s in samples) / max(1, len(samples)),
        mean_running=sum(s.get("running", 0) for s in samples) / max(1, len(samples)),
    )


def bench_local_pool(workers: int, matches: int) -> float:
    """Matches/min in the embedded local pool on a SQLite file."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        engine = create_engine(url)
        try:
            with LocalPool(url, workers) as pool:
                _season_rate(engine, pool, 2 * workers, workers)
                _empty(engine)
                return _season_rate(engine, pool, matches, 3 * workers)
        finally:
            engine.dispose()


@dataclass(frozen=True)
class _FakeResult:
    places: tuple[int, ...]
    scores: tuple[int, ...]
    outcomes: tuple[str, ...]


def bench_recording(pg_url: str, writers: int, per_writer: int) -> tuple[float, list[str]]:
    """Recording transactions/s with `writers` threads on PostgreSQL, and the audit's problems."""
    engine = create_engine(pg_url, pool_size=writers + 2)
    _empty(engine)
    try:
        ladder_id = create_ladder(engine, "rec", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
        versions = []
        for i in range(8):
            bot_id = register_bot(engine, f"w{i}", "bench").bot_id
            versions.append(add_bot_version(engine, bot_id, "1", "builtin:random"))
            join_ladder(engine, ladder_id, bot_id)
        jobs: list[list[int]] = [[] for _ in range(writers)]
        for n in range(writers * per_writer):
            a, b = versions[n % 8], versions[(n * 3 + 1) % 8]
            if a == b:
                b = versions[(n + 1) % 8]
            jobs[n % writers].append(enqueue_match(engine, ladder_id, [a, b], n))
        replay = b'{"bench": true}' * 64
        errors: list[BaseException] = []

        def writer(ids: list[int]) -> Callable[[], None]:
            def run() -> None:
                try:
                    for k, match_id in enumerate(ids):
                        places = (1, 2) if k % 2 else (2, 1)
                        record_result(engine, match_id, _FakeResult(places, (1, 0), ("x", "y")), replay,
                                      "finished")
                except BaseException as exc:
                    errors.append(exc)
            return run

        threads = [threading.Thread(target=writer(ids)) for ids in jobs]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - started
        if errors:
            raise errors[0]
        return writers * per_writer / seconds, audit_ladder(engine, ladder_id)
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print the figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.workers", description=__doc__)
    parser.add_argument("--production-matches", type=int, default=30,
                        help="matches timed per production-shape run")
    parser.add_argument("--think-ms", type=int, default=20,
                        help="production shape: each bot's think time per decision")
    parser.add_argument("--rounds", type=int, default=1,
                        help="production shape: alternating 1-worker / 2-worker rounds")
    parser.add_argument("--only-production", action="store_true",
                        help="run the production-shape bench only")
    parser.add_argument("--matches", type=int, default=120, help="matches per throughput run")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--records", type=int, default=1600, help="recording transactions in all")
    args = parser.parse_args(argv)
    cores = os.cpu_count()
    problems: list[str] = []
    with scratch_database(settings.current().bench_postgres) as pg_url:
        print(
            f"bench.workers, production shape: arena beat (queue depth {queue_depth()}, beat "
            f"{beat_seconds():g} s, refill when a match is taken or ends) + Celery worker processes, "
            f"8 greedy bots thinking {args.think_ms} ms per decision, {args.production_matches} matches "
            f"timed after a warm-up, {cores} cores"
        )
        ratios = []
        for r in range(args.rounds):
            rates = {}
            for workers in (1, 2):
                run = bench_production(
                    pg_url, workers, args.production_matches, think_ms=args.think_ms,
                    warmup=2 * workers,
                )
                rates[workers] = run.matches_per_min
                print(
                    f"  round {r + 1}, {workers} worker process(es): {run.matches_per_min:6.1f} "
                    f"matches/min ({run.timed_matches} in {run.seconds:.1f} s; queued "
                    f"{run.mean_queued:.1f}, running {run.mean_running:.2f} on average)"
                )
            ratios.append(rates[2] / rates[1])
        ratio = statistics.median(ratios)
        print(f"  2 workers / 1 worker: {ratio:.2f}x (goal >= {PRODUCTION_GOAL}x)")
        if args.only_production:
            return 0
        print(f"bench.workers: {args.matches} random-bot Clank! 2p matches per run, no think time")
        for workers in (1, 2):
            rate = bench_celery(pg_url, workers, args.matches)
            print(f"  Celery + PostgreSQL + Redis, {workers} worker process(es): {rate:7.1f} matches/min")
        for workers in (1, 2):
            rate = bench_local_pool(workers, args.matches)
            print(f"  local pool + SQLite,          {workers} worker process(es): {rate:7.1f} matches/min")
        per_writer = max(1, args.records // args.writers)
        tx, problems = bench_recording(pg_url, args.writers, per_writer)
        lost = "0 lost updates (audit clean)" if not problems else f"AUDIT FAILED: {problems[:3]}"
        print(f"  record_result on PostgreSQL, {args.writers} concurrent writers, 8 shared bots: "
              f"{tx:7.1f} tx/s; {lost}")
    return 0 if not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
