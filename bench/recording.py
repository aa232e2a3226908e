"""Benchmark: recording a result (:func:`ladder.recording.record_result`) against raw SQL.

Figures, not pass/fail (``make bench``). Both sides run in the same run, on the same fresh
PostgreSQL database, with the same number of writer *processes* (workers record from separate
Celery processes, so that is the production shape):

- **arena**: ``record_result`` for each match, as a worker calls it (the replay is handed over
  uncompressed, so its compression is part of the cost).
- **raw**: the same transaction written by hand with psycopg: the same statements in the same
  order, the same row locks, the same rows written, the replay's gzip computed beforehand.

The rounds alternate (arena, raw, arena, raw, ...) so drift on this shared machine hits both.
The ratio is arena tx/s over raw tx/s; the goal (issue 14) is at least 0.5.

    python -m bench.recording [--writers 8] [--matches 400] [--rounds 5] [--bots 32]

PostgreSQL comes from ``$ARENA_TEST_POSTGRES`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``);
the benchmark creates a database of its own and drops it afterwards.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import random
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from bench.scratch import scratch_database
from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine
from ladder.ladders import create_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import compress_replay, record_result
from referee import settings

GOAL = 0.5


@dataclass(frozen=True)
class _Result:
    places: list[int]
    scores: list[int]
    outcomes: list[str]


def sample_replay(decisions: int = 600) -> bytes:
    """A replay-sized JSON document (deterministic): a header and one entry per decision."""
    rng = random.Random(7)
    steps = [
        {"seat": i % 2, "action": rng.randrange(12), "digest": f"{rng.getrandbits(64):016x}"}
        for i in range(decisions)
    ]
    doc = {"format": "arena-replay", "game": "clank", "seed": 1, "steps": steps}
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def _result_for(match_id: int) -> _Result:
    first = match_id % 2
    return _Result(
        places=[1, 2] if first == 0 else [2, 1],
        scores=[40, 25] if first == 0 else [25, 40],
        outcomes=["escaped", "knocked_out"] if first == 0 else ["knocked_out", "escaped"],
    )


def _record_arena(url: str, match_ids: list[int], replay: bytes, start: Any) -> float:
    engine = create_engine(url)
    try:
        start.wait()
        began = time.perf_counter()
        for match_id in match_ids:
            record_result(engine, match_id, _result_for(match_id), replay, "finished")
        return time.perf_counter() - began
    finally:
        engine.dispose()


def _record_raw(url: str, match_ids: list[int], replay: bytes, start: Any) -> float:
    """The same transaction as record_result, by hand (free-for-all ladder, 2 seats, Elo K=32)."""
    stored = compress_replay(replay)  # the same bytes record_result stores, computed once here
    digest = hashlib.sha256(replay).hexdigest()
    with psycopg.connect(url) as conn:
        start.wait()
        began = time.perf_counter()
        for match_id in match_ids:
            now = datetime.now(UTC)
            result = _result_for(match_id)
            with conn.transaction():
                match = conn.execute(
                    "SELECT ladder_id, status, seats, config FROM matches WHERE id = %s FOR UPDATE",
                    (match_id,),
                ).fetchone()
                assert match is not None
                ladder_id, _status, seats, _config = match
                bot_of: dict[int, int] = dict(
                    conn.execute(
                        "SELECT id, bot_id FROM bot_versions WHERE id = ANY(%s)", (list(seats),)
                    ).fetchall()
                )
                seat_bots = [bot_of[s] for s in seats]
                conn.execute(
                    "SELECT kind, game, players FROM ladders WHERE id = %s", (ladder_id,)
                ).fetchone()
                bot_ids = sorted(set(seat_bots))
                conn.execute(
                    "INSERT INTO ladder_entries (ladder_id, bot_id, rating, games, wins, joined_at,"
                    " updated_at) SELECT %s, b, 1500.0, 0, 0, %s, %s FROM unnest(%s::int[]) AS b"
                    " ON CONFLICT DO NOTHING",
                    (ladder_id, now, now, bot_ids),
                )
                entries = {
                    row[0]: row
                    for row in conn.execute(
                        "SELECT bot_id, rating, games FROM ladder_entries WHERE ladder_id = %s"
                        " AND bot_id = ANY(%s) ORDER BY bot_id FOR UPDATE",
                        (ladder_id, bot_ids),
                    )
                }
                ratings = [entries[b][1] for b in seat_bots]
                expected = 1 / (1 + 10 ** ((ratings[1] - ratings[0]) / 400))
                score = 1.0 if result.places[0] == 1 else 0.0
                deltas = [32 * (score - expected), -32 * (score - expected)]
                history = []
                for bot_id, delta, place in zip(seat_bots, deltas, result.places, strict=True):
                    before = entries[bot_id][1]
                    conn.execute(
                        "UPDATE ladder_entries SET rating = %s, games = games + 1, wins = wins + %s,"
                        " draws = draws + 0, updated_at = %s WHERE ladder_id = %s AND bot_id = %s",
                        (before + delta, 1 if place == 1 else 0, now, ladder_id, bot_id),
                    )
                    history.append((match_id, bot_id, ladder_id, before, before + delta, delta))
                conn.execute(
                    "INSERT INTO results (match_id, places, scores, outcomes, reason, team_won)"
                    " VALUES (%s, %s, %s, %s, %s, NULL)",
                    (
                        match_id,
                        json.dumps(result.places),
                        json.dumps(result.scores),
                        json.dumps(result.outcomes),
                        "finished",
                    ),
                )
                conn.execute(
                    "INSERT INTO replays (match_id, data, sha256) VALUES (%s, %s, %s)",
                    (match_id, stored, digest),
                )
                with conn.cursor() as cur:
                    cur.executemany(
                        'INSERT INTO rating_history (match_id, bot_id, ladder_id, "before", "after",'
                        " delta) VALUES (%s, %s, %s, %s, %s, %s)",
                        history,
                    )
                conn.execute(
                    "UPDATE matches SET status = 'done', finished_at = %s, lease_owner = NULL,"
                    " lease_expires_at = NULL, error = NULL WHERE id = %s",
                    (now, match_id),
                )
        return time.perf_counter() - began


def _run_phase(kind: str, url: str, match_ids: list[int], writers: int, replay: bytes) -> float:
    """Record `match_ids` with `writers` processes; transactions per second over the wall time."""
    target = _record_arena if kind == "arena" else _record_raw
    ctx = mp.get_context("fork")
    # forked children inherit the barrier (a pool could not pickle it)
    start = ctx.Barrier(writers + 1)
    procs = [
        ctx.Process(target=target, args=(url, match_ids[i::writers], replay, start))
        for i in range(writers)
    ]
    for proc in procs:
        proc.start()
    start.wait(timeout=120)
    began = time.perf_counter()
    for proc in procs:
        proc.join(timeout=600)
        if proc.exitcode != 0:
            raise RuntimeError(f"{kind} writer failed with exit code {proc.exitcode}")
    wall = time.perf_counter() - began
    return len(match_ids) / wall


def _seed(url: str, bots: int, matches: int) -> list[int]:
    engine = create_engine(url)
    try:
        ladder_id = create_ladder(
            engine, "bench", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
        )
        versions = []
        for i in range(bots):
            reg = register_bot(engine, f"bench-{i}", "bench")
            versions.append(add_bot_version(engine, reg.bot_id, "1"))
        rng = random.Random(1)
        ids = []
        for i in range(matches):
            a, b = rng.sample(versions, 2)
            ids.append(enqueue_match(engine, ladder_id, [a, b], seed=i))
        return ids
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print one line per round plus the median ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writers", type=int, default=8, help="writer processes per side")
    parser.add_argument("--matches", type=int, default=400, help="matches recorded per round and side")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per side")
    parser.add_argument("--bots", type=int, default=32, help="bots on the ladder (lock contention)")
    args = parser.parse_args(argv)
    admin_url = settings.current().test_postgres
    with scratch_database(admin_url) as url:
        # the raw side connects with psycopg itself (libpq's URL, no SQLAlchemy driver name)
        raw_url = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        per_round = args.matches
        ids = _seed(url, args.bots, per_round * args.rounds * 2)
        replay = sample_replay()
        print(
            f"record_result vs raw SQL: {args.writers} writer processes, {per_round} matches per "
            f"round, {args.bots} bots, replay {len(replay)} B"
        )
        ratios = []
        for r in range(args.rounds):
            base = r * 2 * per_round
            arena = _run_phase("arena", url, ids[base : base + per_round], args.writers, replay)
            raw = _run_phase(
                "raw", raw_url, ids[base + per_round : base + 2 * per_round], args.writers, replay
            )
            ratios.append(arena / raw)
            print(f"  round {r + 1}: arena {arena:7.1f} tx/s  raw {raw:7.1f} tx/s  ratio {arena / raw:.2f}")
        print(f"record_result / raw SQL: {statistics.median(ratios):.2f}x (goal >= {GOAL}x)")


if __name__ == "__main__":
    main()
