"""Pages that must not grow with history: `/`, a ladder page, a bot page and the standings API,
p50/p99 at a small and a large number of recorded matches on PostgreSQL (issue 29).

    python -m bench.api --matches 1000 200000 [--bots 2000] [--requests 200] [--json]

One ladder (2-player Clank!) with `--bots` bots; the matches are bulk-loaded with ``COPY`` as
recording would have left them (done matches, results, ``rating_history``, the bots' ratings,
games, wins and accumulated information), rated by the ladder's Elo as they go, so the pages
read a realistic database. The database grows from the first size to the next (the same bots,
more matches), and at each size every page is requested `--requests` times, sequentially, over
HTTP from a keep-alive client to ``ladder.api.create_app`` on uvicorn in this process, pages
interleaved. Printed per page: p50 and p99 at each size and the p99 ratio largest / smallest
beside the goal (at most 1.5x). The database is a fresh one on the server of `--admin-db`, dropped
afterwards.
"""

from __future__ import annotations

import io
import json
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, Final

import httpx
import psycopg
import sqlalchemy as sa
from psycopg import sql
from sqlalchemy import Engine

from bench.scratch import scratch_database
from ladder import elo, skill
from ladder.db import create_engine
from ladder.ladders import create_ladder, ladder_policy

__all__ = ["GOAL", "run_pages"]

#: p99 at the largest size ÷ p99 at the smallest, per page (issue 29)
GOAL: Final = 1.5
DEFAULT_ADMIN_URL: Final = "postgresql://postgres@127.0.0.1:5432/postgres"


@dataclass
class _Ladder:
    """The simulated ladder's state between seeding steps."""

    ladder_id: int
    version_of: list[int]
    bot_ids: list[int]
    skill: list[float]
    rating: list[float]
    games: list[int]
    wins: list[int]
    information: list[float]
    engine_version: str
    rng: random.Random = field(default_factory=lambda: random.Random(29))
    recorded: int = 0


def _setup(engine: Engine, bots: int) -> _Ladder:
    suffix = secrets.token_hex(3)
    ladder_id = create_ladder(
        engine, f"bench-pages-{suffix}", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
    )
    with engine.begin() as conn:
        bot_ids = [
            int(b)
            for b in conn.execute(
                sa.text(
                    "INSERT INTO bots (name, owner, token_hash, created_at) "
                    "SELECT 'bench-' || :s || '-' || g, 'bench', md5(:s || g) || md5(g || :s), now() "
                    "FROM generate_series(1, :n) g ORDER BY g RETURNING id"
                ),
                {"s": suffix, "n": bots},
            ).scalars()
        ]
        versions: dict[int, int] = dict(
            conn.execute(
                sa.text(
                    "INSERT INTO bot_versions (bot_id, version, command, created_at) "
                    "SELECT id, '1', 'builtin:random', now() FROM bots WHERE id = ANY(:ids) "
                    "RETURNING bot_id, id"
                ),
                {"ids": bot_ids},
            ).all()
        )
        version = str(
            conn.execute(
                sa.text("SELECT engine_version FROM ladders WHERE id = :l"), {"l": ladder_id}
            ).scalar_one()
        )
    policy_rating = 1500.0
    rng = random.Random(29)
    return _Ladder(
        ladder_id=ladder_id,
        version_of=[int(versions[b]) for b in bot_ids],
        bot_ids=bot_ids,
        skill=[rng.gauss(1500.0, 200.0) for _ in bot_ids],
        rating=[policy_rating] * bots,
        games=[0] * bots,
        wins=[0] * bots,
        information=[0.0] * bots,
        engine_version=version,
    )


def _copy(cur: psycopg.Cursor[Any], table: str, columns: Sequence[str], rows: io.StringIO) -> None:
    rows.seek(0)
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns)
    )
    with cur.copy(statement) as copy:
        while chunk := rows.read(1 << 20):
            copy.write(chunk)


def _seed(engine: Engine, state: _Ladder, count: int) -> float:
    """Record `count` more done matches (bulk); seconds taken."""
    started = time.monotonic()
    with engine.connect() as conn:
        policy = ladder_policy(conn, state.ladder_id)
        first_id = int(conn.execute(sa.text("SELECT coalesce(max(id), 0) + 1 FROM matches")).scalar_one())
    n = len(state.bot_ids)
    match_rows, result_rows, history_rows = io.StringIO(), io.StringIO(), io.StringIO()
    seat_rows = io.StringIO()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    for k in range(count):
        match_id = first_id + k
        a, b = state.rng.sample(range(n), 2)
        a_wins = state.rng.random() < skill.score_from_elo(state.skill[a] - state.skill[b])
        places = (1, 2) if a_wins else (2, 1)
        seats = [a, b]
        before = [state.rating[a], state.rating[b]]
        deltas = elo.rating_deltas(before, places, [policy.k_factor(state.games[s]) for s in seats])
        gained = skill.free_for_all_information(seats, before)
        at = (t0 + timedelta(seconds=state.recorded + k)).isoformat()
        match_rows.write(
            f"{match_id}\t{state.ladder_id}\tdone\t{match_id}\t"
            f"[{state.version_of[a]}, {state.version_of[b]}]\t1\t{at}\t{at}\t{at}\t{state.engine_version}\n"
        )
        seat_rows.write(f"{match_id}\t0\t{state.version_of[a]}\n{match_id}\t1\t{state.version_of[b]}\n")
        result_rows.write(
            f"{match_id}\t[{places[0]}, {places[1]}]\t[1, 0]\t[\"escaped\", \"dead\"]\tfinished\n"
        )
        # rating_history rows in bot id order, as recording writes them
        for s, old, delta in sorted(zip(seats, before, deltas, strict=True), key=lambda x: x[0]):
            history_rows.write(
                f"{match_id}\t{state.bot_ids[s]}\t{state.ladder_id}\t{old!r}\t{old + delta!r}\t{delta!r}\n"
            )
            state.rating[s] = old + delta
            state.games[s] += 1
            state.information[s] += gained[s]
        state.wins[a if a_wins else b] += 1
    state.recorded += count
    entry_rows = io.StringIO()
    now = datetime.now(UTC).isoformat()
    for i, bot_id in enumerate(state.bot_ids):
        entry_rows.write(
            f"{state.ladder_id}\t{bot_id}\t{state.rating[i]!r}\t{state.games[i]}\t{state.wins[i]}\t0\t"
            f"{state.information[i]!r}\t{now}\t{now}\n"
        )
    raw = engine.raw_connection()
    try:
        driver = raw.driver_connection
        assert isinstance(driver, psycopg.Connection)
        with driver.cursor() as cur:
            _copy(cur, "matches", ("id", "ladder_id", "status", "seed", "seats", "attempts", "created_at",
                                   "started_at", "finished_at", "engine_version"), match_rows)
            _copy(cur, "match_seats", ("match_id", "seat", "version_id"), seat_rows)
            _copy(cur, "results", ("match_id", "places", "scores", "outcomes", "reason"), result_rows)
            _copy(cur, "rating_history", ("match_id", "bot_id", "ladder_id", "before", "after", "delta"),
                  history_rows)
            cur.execute("DELETE FROM ladder_entries WHERE ladder_id = %s", (state.ladder_id,))
            _copy(cur, "ladder_entries", ("ladder_id", "bot_id", "rating", "games", "wins", "draws",
                                          "information", "joined_at", "updated_at"), entry_rows)
            cur.execute(
                "SELECT setval(pg_get_serial_sequence('matches', 'id'), (SELECT max(id) FROM matches))"
            )
        driver.commit()
        driver.autocommit = True
        with driver.cursor() as cur:
            cur.execute("VACUUM ANALYZE")
        driver.autocommit = False
    finally:
        raw.close()
    return time.monotonic() - started


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def _measure(base: str, paths: dict[str, str], requests: int) -> dict[str, list[float]]:
    """Milliseconds per request of each page, `requests` each, pages interleaved."""
    times: dict[str, list[float]] = {name: [] for name in paths}
    with httpx.Client(base_url=base, timeout=60) as client:
        for path in paths.values():  # warm: connection, caches, first-request imports
            for _ in range(3):
                client.get(path).raise_for_status()
        for _ in range(requests):
            for name, path in paths.items():
                started = time.perf_counter()
                client.get(path).raise_for_status()
                times[name].append(1000 * (time.perf_counter() - started))
    return times


def run_pages(admin_url: str, sizes: Sequence[int], bots: int, requests: int) -> dict[str, Any]:
    """Seed and measure at each of `sizes` (ascending); the figures as a dict (the --json form)."""
    from ladder.api import create_app
    from ladder.api_server import uvicorn_limits

    from .api import _served

    figures: dict[str, Any] = {"bots": bots, "requests": requests, "sizes": list(sizes), "goal": GOAL,
                               "seed_seconds": {}, "pages": {}}
    with scratch_database(admin_url, "arena_bench_pages") as url:
        engine = create_engine(url)
        try:
            state = _setup(engine, bots)
            # a bot with the median number of games: its page is the typical one
            middle = sorted(range(bots), key=lambda i: state.games[i])[bots // 2]
            measured: dict[int, dict[str, list[float]]] = {}
            for size in sorted(sizes):
                figures["seed_seconds"][str(size)] = round(_seed(engine, state, size - state.recorded), 1)
                paths = {
                    "/": "/",
                    "ladder page": f"/ladders/{state.ladder_id}",
                    "bot page": f"/bots/{state.bot_ids[middle]}",
                    "standings API": f"/api/ladders/{state.ladder_id}/standings",
                }
                measured[size] = _served(
                    create_app(engine), uvicorn_limits(), partial(_measure, paths=paths, requests=requests)
                )
        finally:
            engine.dispose()
    low, high = min(sizes), max(sizes)
    for page in measured[low]:
        row: dict[str, Any] = {}
        for size in sorted(sizes):
            row[str(size)] = {
                "p50_ms": round(_percentile(measured[size][page], 0.5), 2),
                "p99_ms": round(_percentile(measured[size][page], 0.99), 2),
            }
        row["p99_ratio"] = round(row[str(high)]["p99_ms"] / row[str(low)]["p99_ms"], 2)
        row["p50_ratio"] = round(row[str(high)]["p50_ms"] / row[str(low)]["p50_ms"], 2)
        row["meets_goal"] = row["p99_ratio"] <= GOAL
        figures["pages"][page] = row
    return figures


def print_pages(figures: dict[str, Any], as_json: bool) -> None:
    """Print the figures: a table, or one JSON object."""
    if as_json:
        print(json.dumps(figures, indent=2))
        return
    sizes = [str(s) for s in sorted(figures["sizes"])]
    print(f"PostgreSQL, {figures['bots']} bots, one 2-player ladder; {figures['requests']} sequential "
          f"requests per page and size (pages interleaved); seeding took "
          + ", ".join(f"{s} matches: {figures['seed_seconds'][s]} s" for s in sizes))
    head = "".join(f"  p50/p99 @ {int(s):,} (ms)".rjust(26) for s in sizes)
    print(f"{'page':<15}{head}  {'p99 ratio':>10}  {'p50 ratio':>10}  goal")
    for page, row in figures["pages"].items():
        cells = "".join(f"{row[s]['p50_ms']:>12.1f} / {row[s]['p99_ms']:<9.1f}".rjust(26) for s in sizes)
        verdict = "ok" if row["meets_goal"] else "MISSED"
        print(f"{page:<15}{cells}  {row['p99_ratio']:>9.2f}x  {row['p50_ratio']:>9.2f}x  "
              f"<= {figures['goal']}x p99 ({verdict})")
