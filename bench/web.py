"""Figures for the web pages: the ladder page at scale, and opening a long replay in the viewer.

    python -m bench.web [--admin-url postgresql://postgres@127.0.0.1:5432/postgres]
                               [--bots 1000] [--matches 100000] [--requests 200]

Builds a throwaway PostgreSQL database (dropped at the end) holding one 2-player ladder with
`--bots` bots and `--matches` recorded matches (results and rating history; filled with
``generate_series`` in the server), serves the app with uvicorn in this process and times:

- ``GET /ladders/{id}`` over HTTP, `--requests` times (p50, p99, mean), and beside it, in the
  same run, the JSON API's ``queries.standings`` the page is built from, the raw SQL of the
  standings table through psycopg with no app at all, and the page's own "last played" query;
- the viewer opening a 1,000-step replay: the viewer page plus its first frame, cold (the replay
  is re-simulated), then a frame once the timeline is built (p50 over 50 random steps).

Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import psycopg
import uvicorn
from sqlalchemy.engine import make_url

from bench.scratch import scratch_database
from ladder import queries
from ladder.api import create_app
from ladder.db import create_engine
from ladder.web.data import last_played
from referee import settings
from referee.core.game import canonical_json
from referee.runner import play_local

__all__ = ["main"]

DEFAULT_ADMIN = settings.current().test_postgres


def _fill(dsn: str, bots: int, n_matches: int) -> int:
    """One ladder, `bots` bots with a version each, `n_matches` recorded matches; its id."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO ladders (id, name, game, players, decision_ms, bank_ms, max_strikes, created_at)"
            " VALUES (1, 'bench', 'clank', 2, 1000, 30000, 3, now())"
        )
        conn.execute(
            "INSERT INTO bots (id, name, owner, token_hash, created_at, game)"
            " SELECT g, 'bot' || g, 'owner' || (g %% 97), md5(g::text) || md5('x' || g), now(), 'clank'"
            " FROM generate_series(1, %(n)s) g",
            {"n": bots},
        )
        conn.execute(
            "INSERT INTO bot_versions (id, bot_id, version, command, created_at)"
            " SELECT g, g, '1', 'python bot.py', now() FROM generate_series(1, %(n)s) g",
            {"n": bots},
        )
        # seat a: a pseudo-random bot; seat b: another one (offset 1..bots-1)
        pair = (
            "(1 + (g * 7919) %% %(n)s) AS a,"
            " (1 + ((g * 7919) %% %(n)s + 1 + (g * 31) %% (%(n)s - 1)) %% %(n)s) AS b"
        )
        conn.execute(
            f"INSERT INTO matches (id, ladder_id, status, seed, seats, attempts, created_at, started_at,"
            f" finished_at) SELECT g, 1, 'done', g, json_build_array(a, b), 0,"
            f" now() - (%(m)s - g) * interval '1 minute', now() - (%(m)s - g) * interval '1 minute',"
            f" now() - (%(m)s - g) * interval '1 minute' + interval '20 seconds'"
            f" FROM (SELECT g, {pair} FROM generate_series(1, %(m)s) g) s",
            {"n": bots, "m": n_matches},
        )
        conn.execute(
            "INSERT INTO results (match_id, places, scores, outcomes, reason)"
            " SELECT g, CASE WHEN g %% 10 = 0 THEN '[1, 1]'::json WHEN g %% 2 = 0 THEN '[1, 2]'::json"
            " ELSE '[2, 1]'::json END, '[10, 5]'::json, '[\"escaped\", \"knocked_out\"]'::json, 'finished'"
            " FROM generate_series(1, %(m)s) g",
            {"m": n_matches},
        )
        conn.execute(
            f"INSERT INTO rating_history (match_id, bot_id, ladder_id, before, after, delta)"
            f" SELECT g, a, 1, 1500 + (g %% 97), 1510 + (g %% 97), 10"
            f" FROM (SELECT g, {pair} FROM generate_series(1, %(m)s) g) s"
            f" UNION ALL SELECT g, b, 1, 1500 - (g %% 89), 1490 - (g %% 89), -10"
            f" FROM (SELECT g, {pair} FROM generate_series(1, %(m)s) g) s",
            {"n": bots, "m": n_matches},
        )
        conn.execute(
            "INSERT INTO ladder_entries (ladder_id, bot_id, rating, games, wins, joined_at, updated_at)"
            " SELECT 1, g, 1300 + (g * 37) %% 400, 200, 90, now(), now() FROM generate_series(1, %(n)s) g",
            {"n": bots},
        )
        for table in ("ladders", "bots", "bot_versions", "matches", "rating_history"):
            top = f"(SELECT max(id) FROM {table})"
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {top})")
        conn.execute("ANALYZE")
    return 1


def _long_replay(steps: int) -> dict[str, Any]:
    """A Clank! replay of exactly `steps` steps (a 4-player random game cut there, no result)."""
    for seed in range(1, 200):
        replay = play_local("clank", ["random"] * 4, seed).replay
        if len(replay["steps"]) >= steps:
            replay["steps"] = replay["steps"][:steps]
            replay["result"] = None
            replay["ended_by"] = "cut for the benchmark"
            return replay
    raise RuntimeError(f"no 4-player random game reached {steps} steps")


def _stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"p50 {1000 * statistics.median(ordered):7.1f} ms  p99 {1000 * p99:7.1f} ms  "
        f"mean {1000 * statistics.fmean(ordered):7.1f} ms  (n={len(ordered)})"
    )


def _time(fn: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


@contextmanager
def _serve(app: Any) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__.split("\n")[0])
    parser.add_argument("--admin-url", default=DEFAULT_ADMIN)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--replay-steps", type=int, default=1000)
    args = parser.parse_args(argv)

    with scratch_database(args.admin_url) as url:
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        started = time.perf_counter()
        ladder_id = _fill(dsn, args.bots, args.matches)
        print(f"filled {args.bots} bots, {args.matches} matches in {time.perf_counter() - started:.1f} s")
        engine = create_engine(url, pool_size=4)
        replay = _long_replay(args.replay_steps)
        from ladder.match_queue import enqueue_match
        from ladder.recording import record_result
        from referee.core.game import Result

        match_id = enqueue_match(engine, ladder_id, [1, 2], seed=int(replay["seed"]))
        record_result(
            engine, match_id, Result((0, 0), (1, 2), ("x", "y")), canonical_json(replay).encode(), "bench"
        )
        with _serve(create_app(engine)) as base, httpx.Client(base_url=base, timeout=60) as client:
            page = f"/ladders/{ladder_id}"
            body = client.get(page)
            body.raise_for_status()
            rows = body.text.count("<tr data-bot=")
            print(f"ladder page: {len(body.content)} bytes, {rows} standings rows")
            http = _time(lambda: client.get(page).raise_for_status(), args.requests)
            with psycopg.connect(dsn) as raw, engine.connect() as conn:
                # the slowest part of the page, timed alone on fewer runs (the run stays short)
                api_standings = _time(lambda: queries.standings(conn, ladder_id), min(args.requests, 50))
                latest = _time(lambda: last_played(conn, ladder_id), args.requests)
                standings = _time(
                    lambda: raw.execute(
                        "SELECT e.bot_id, b.name, b.owner, e.rating, e.games, e.wins, e.draws"
                        " FROM ladder_entries e JOIN bots b ON b.id = e.bot_id WHERE e.ladder_id = %s"
                        " ORDER BY e.rating DESC, b.name",
                        (ladder_id,),
                    ).fetchall(),
                    args.requests,
                )
            print(f"GET {page} over HTTP             {_stats(http)}")
            print(f"  queries.standings (as the API)   {_stats(api_standings)}")
            print(f"  standings SQL, raw psycopg       {_stats(standings)}")
            print(f"  last played per bot (web.data)   {_stats(latest)}")

            viewer = f"/matches/{match_id}/replay"
            started = time.perf_counter()
            client.get(viewer).raise_for_status()
            client.get(f"{viewer}/frames/1?seat=0").raise_for_status()
            cold = time.perf_counter() - started
            rng = random.Random(1)

            def some_frame() -> None:
                step, seat = rng.randint(1, len(replay["steps"])), rng.choice(["0", "1", "all"])
                client.get(f"{viewer}/frames/{step}?seat={seat}").raise_for_status()

            warm = _time(some_frame, 50)
            print(f"viewer, {len(replay['steps'])}-step replay: open (page + first frame, cold) "
                  f"{1000 * cold:.0f} ms; a frame once open: {_stats(warm)}")
        engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
