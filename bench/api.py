"""Requests/s of the standings endpoint before and after the API's auth and limits, in one run.

    python -m bench.api [--db URL] [--seconds 3] [--rounds 3] [--clients 1]
    python -m bench.api --matches 1000 200000 [--bots 2000] [--requests 200] [--json]

With ``--matches``: whether `/`, a ladder page, a bot page and the standings API grow with the
ladder's history (``bench/pages.py``; PostgreSQL, a database of its own). Without it:

"before" is the standings route as it was served before accounts existed: a FastAPI app with
only the metrics middleware, on uvicorn's default settings. "after" is today's ``create_app``
(body and header limits middleware, auth dependencies on the writers, every route) on the
production uvicorn settings (``ladder.api_server.uvicorn_limits``: the guarded h11 protocol).
Both serve the same database (a ladder of 20 bots) from threads of this process; the client
keeps its connection alive. Rounds alternate before/after so machine noise hits both; the
median of the rounds is printed. ``GET /api/me`` (key lookup, last-used check, rate-limit
bucket) is measured too, as the cost of an authenticated call.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import httpx
from fastapi import FastAPI
from sqlalchemy import Engine

from ladder import queries
from ladder.accounts import create_account, create_key
from ladder.api import create_app
from ladder.db import create_engine, upgrade
from ladder.errors import NotFound
from ladder.metrics import RequestMetrics

__all__ = ["main"]

T = TypeVar("T")


def _baseline_app(engine: Engine) -> FastAPI:
    """The standings route as served before auth and limits."""
    app = FastAPI()
    app.add_middleware(RequestMetrics)

    @app.get("/api/ladders/{ladder_id}/standings")
    def standings(ladder_id: int) -> queries.StandingsPage:
        with engine.connect() as conn:
            page = queries.standings(conn, ladder_id)
        if page is None:
            raise NotFound(f"no ladder {ladder_id}")
        return page

    return app


def _rate(url: str, path: str, seconds: float, clients: int, headers: dict[str, str]) -> float:
    """Requests/s of `clients` keep-alive clients hitting `url + path` for `seconds`."""
    counts = [0] * clients
    stop = time.monotonic() + seconds

    def run(i: int) -> None:
        with httpx.Client(base_url=url, headers=headers) as client:
            client.get(path).raise_for_status()  # warm the connection
            while time.monotonic() < stop:
                client.get(path).raise_for_status()
                counts[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.monotonic() - started)


def _served(app: FastAPI, settings: dict[str, object], measure: Callable[[str], T]) -> T:
    import socket

    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="none",
                            lifespan="off", **settings)  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        return measure(f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    from ladder.api_server import uvicorn_limits
    from ladder.bots import add_bot_version, register_bot
    from ladder.ladders import create_ladder, join_ladder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--matches", type=int, nargs="+", metavar="N",
                        help="measure the pages at these numbers of recorded matches (PostgreSQL)")
    parser.add_argument("--bots", type=int, default=2000, help="bots on the ladder (with --matches)")
    parser.add_argument("--requests", type=int, default=200,
                        help="requests per page and size (with --matches)")
    parser.add_argument("--admin-db", default=None,
                        help="PostgreSQL server URL the page bench makes its database on "
                             "(default $ARENA_BENCH_POSTGRES or postgresql://postgres@127.0.0.1:5432/postgres)")
    parser.add_argument("--json", action="store_true", help="print the page figures as JSON (with --matches)")
    args = parser.parse_args(argv)
    if args.matches:
        from referee.settings import current

        from .pages import print_pages, run_pages

        if len(args.matches) < 2 or min(args.matches) < 1 or args.bots < 2 or args.requests < 1:
            parser.error("--matches: two or more sizes, each at least 1; --bots at least 2; "
                         "--requests at least 1")
        admin = args.admin_db or current().bench_postgres
        print_pages(run_pages(admin, args.matches, args.bots, args.requests), args.json)
        return 0
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='arena-bench-api-')) / 'bench.db'}"
    upgrade(url)
    engine = create_engine(url)
    try:
        suffix = str(int(time.time() * 1000))
        ladder_id = create_ladder(engine, f"bench-{suffix}", "clank", 2, decision_ms=1000, bank_ms=1000,
                                  max_strikes=3)
        for i in range(20):
            bot_id = register_bot(engine, f"bench-{suffix}-{i}", "bench").bot_id
            add_bot_version(engine, bot_id, "1", "builtin:random")
            join_ladder(engine, ladder_id, bot_id)
        account = create_account(engine, f"bench-{suffix}")
        key = create_key(engine, account.account_id, rate_per_minute=10**9).api_key
        path = f"/api/ladders/{ladder_id}/standings"
        before: list[float] = []
        after: list[float] = []
        me: list[float] = []
        for _ in range(args.rounds):
            before.append(_served(_baseline_app(engine), {},
                                  lambda u: _rate(u, path, args.seconds, args.clients, {})))
            after_app = create_app(engine)
            after.append(_served(after_app, uvicorn_limits(),
                                 lambda u: _rate(u, path, args.seconds, args.clients, {})))
            me.append(_served(create_app(engine), uvicorn_limits(),
                              lambda u: _rate(u, "/api/me", args.seconds, args.clients,
                                              {"Authorization": f"Bearer {key}"})))
    finally:
        engine.dispose()
    backend = url.split(":", 1)[0]
    print(f"database: {backend}; {args.clients} keep-alive client(s); "
          f"{args.rounds} rounds of {args.seconds:g} s")
    b, a, m = statistics.median(before), statistics.median(after), statistics.median(me)

    def rounds(values: list[float]) -> str:
        return ", ".join(f"{x:.0f}" for x in values)

    print(f"GET standings, before auth+limits: {b:8.1f} req/s  (rounds: {rounds(before)})")
    print(f"GET standings, after auth+limits:  {a:8.1f} req/s  (rounds: {rounds(after)})")
    print(f"change: {100 * (a - b) / b:+.1f}%")
    print(f"GET /api/me with a key (auth path): {m:8.1f} req/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
