"""``arena demo``: register the bundled bots, play a ladder season, print the standings, serve.

Embedded (nothing set): the database is the SQLite file ``arena-demo.db`` in the current folder
(``--db`` picks another; running the demo again continues the same ladder) and matches run in a
local process pool. With ``DATABASE_URL`` and ``BROKER_URL`` set, the same season runs on that
database through Celery. Workers are used only if they consume the demo's queue
(``$ARENA_QUEUE``, default ``arena``; asked with ``inspect active_queues``) and play on the demo's
database (the ``arena_database`` control command); if none do, the demo starts ``--workers`` of
them and stops them afterwards. If the queue's consumers play on another database (or do not
say), the demo does not share it: it uses a queue of its own (``<queue>-demo-<pid>``) with
workers it starts.

The port it will serve on is checked before the season (:class:`PortInUse`: a second demo says
so at once), and a match in which a bot crashed or never started counts as failed in the summary
(:func:`crash_forfeits`), though it was recorded and rated.

The season is bounded: ``--timeout`` seconds (default :func:`default_timeout`) and a database
outage of at most ``workers.season.DB_OUTAGE_SECONDS``; either ends it with a one-line error
(``SeasonStalled``), never a hang.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import queries
from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine, database_url, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import bot_versions, bots, ladders, replays
from referee.games import default_game
from referee.settings import current
from workers.bot_commands import builtin_command
from workers.local_pool import DEFAULT_POOL_SIZE, LocalPool
from workers.season import Dispatcher, SeasonSummary, play_season

__all__ = [
    "DEMO_BOTS",
    "DEMO_DATABASE_URL",
    "DemoSetup",
    "PortInUse",
    "crash_forfeits",
    "default_timeout",
    "queue_workers",
    "run_demo",
    "setup_demo_ladder",
]

DEMO_DATABASE_URL: Final = "sqlite:///arena-demo.db"
#: the demo ladder's entrants: (bot name, built-in strategy)
DEMO_BOTS: Final = (
    ("greedy-1", "greedy"),
    ("greedy-2", "greedy"),
    ("greedy-3", "greedy"),
    ("random-1", "random"),
    ("random-2", "random"),
    ("random-3", "random"),
)
DEMO_OWNER: Final = "arena-demo"


#: forfeit reasons (their kind, before the first colon) of a bot that crashed or never started
CRASH_KINDS: Final = frozenset({"crashed", "exited before the game ended", "never connected"})


class PortInUse(Exception):
    """The demo cannot serve on the port it was given (another demo, or any server, has it)."""


def check_port(
    host: str, port: int, hint: str = "is another demo running? Stop it, or give --port N (or --no-serve)"
) -> None:
    """Raise :class:`PortInUse` unless `host`:`port` can be listened on (as uvicorn will); its
    message ends with `hint`, what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # uvicorn sets it too
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise PortInUse(f"cannot serve on {host}:{port} ({exc.strerror or exc}): {hint}") from None


def crash_forfeits(engine: Engine, match_ids: Sequence[int]) -> int:
    """How many of `match_ids` have a seat that forfeited because its bot crashed, exited early
    or never connected (read from the stored replays)."""
    from referee.replay import ReplayError, loads

    crashed = 0
    with engine.connect() as conn:
        for start in range(0, len(match_ids), 200):
            rows = conn.execute(
                sa.select(replays.c.data).where(replays.c.match_id.in_(match_ids[start : start + 200]))
            )
            for (data,) in rows:
                try:
                    replay = loads(gzip.decompress(bytes(data)))
                except (OSError, ReplayError):
                    crashed += 1  # an unreadable replay is no sign of a sound match
                    continue
                kinds = {
                    str(seat.get("forfeit", "")).split(":", 1)[0].strip() for seat in replay["seats"]
                }
                crashed += bool(kinds & CRASH_KINDS)
    return crashed


def default_timeout(matches: int) -> float:
    """The demo season's time limit: 2 minutes plus 10 s a match (a demo match takes < 1 s)."""
    return 120.0 + 10.0 * matches


@dataclass(frozen=True, slots=True)
class DemoSetup:
    """The demo ladder and its bots."""

    ladder_id: int
    ladder_name: str
    bot_ids: tuple[int, ...]


def _bot_id(engine: Engine, name: str) -> int | None:
    with engine.connect() as conn:
        found: int | None = conn.execute(
            sa.select(bots.c.id).where(bots.c.name == name)
        ).scalar_one_or_none()
    return found


def setup_demo_ladder(
    engine: Engine,
    *,
    players: int = 2,
    entrants: Sequence[tuple[str, str]] = DEMO_BOTS,
    think_ms: int = 0,
    name: str | None = None,
    game: str | None = None,
) -> DemoSetup:
    """Create (or find) a ladder of `game` (None: the registry's default game,
    `referee.games.default_game`) for `players` with the bundled bots on it, named
    ``<game>-<players>p`` unless `name` is given."""
    game = game or default_game()
    ladder_name = name or f"{game}-{players}p"
    with engine.connect() as conn:
        ladder_id = conn.execute(
            sa.select(ladders.c.id).where(ladders.c.name == ladder_name)
        ).scalar_one_or_none()
    if ladder_id is None:
        ladder_id = create_ladder(
            engine, ladder_name, game, players, decision_ms=1000, bank_ms=30_000, max_strikes=3
        )
    bot_ids = []
    for bot_name, strategy in entrants:
        bot_id = _bot_id(engine, bot_name)
        if bot_id is None:
            bot_id = register_bot(engine, bot_name, DEMO_OWNER).bot_id
        with engine.connect() as conn:
            has_version = conn.execute(
                sa.select(bot_versions.c.id).where(bot_versions.c.bot_id == bot_id)
            ).first()
        if has_version is None:
            add_bot_version(engine, bot_id, "1", builtin_command(strategy, think_ms=think_ms))
        join_ladder(engine, ladder_id, bot_id)
        bot_ids.append(bot_id)
    return DemoSetup(ladder_id, ladder_name, tuple(bot_ids))


def print_standings(engine: Engine, ladder_id: int) -> None:
    """The ladder's standings as a table on the terminal."""
    from rich.table import Table

    from referee.cli_checks import output_console

    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    table = Table(title=f"{page['ladder']['name']} standings")
    for col in ("#", "bot", "rating", "games", "wins", "win %"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for row in page["standings"]:
        mark = " (provisional)" if row["provisional"] else ""
        win_rate = 100 * row["wins"] / row["games"] if row["games"] else 0.0
        table.add_row(
            str(row["rank"]),
            row["bot_name"] + mark,
            f"{row['rating']:.1f}",
            str(row["games"]),
            str(row["wins"]),
            f"{win_rate:.0f}",
        )
    output_console().print(table)


def queue_workers(celery: Any, queue: str, *, timeout: float = 1.0) -> dict[str, str | None]:
    """Celery workers on `celery`'s broker that consume `queue`: name -> the database they play
    on (``arena_database``; None if a worker does not answer it). Workers of other queues on
    the same broker are not counted."""
    active = celery.control.inspect(timeout=timeout).active_queues() or {}
    consumers = sorted(
        name for name, queues in active.items()
        if any(q.get("name") == queue for q in (queues or []))
    )
    if not consumers:
        return {}
    replies = celery.control.broadcast(
        "arena_database", reply=True, timeout=timeout, destination=consumers
    ) or []
    databases: dict[str, str | None] = dict.fromkeys(consumers)
    for reply in replies:
        for name, answer in reply.items():
            if name in databases and isinstance(answer, dict):
                databases[name] = answer.get("database")
    return databases


@contextlib.contextmanager
def _celery_dispatcher(workers: int, db_url: str) -> Iterator[Dispatcher]:
    from workers import celery_app
    from workers.worker_processes import start_worker, stop_worker

    queue = celery_app.match_queue()
    ours = celery_app.database_label(db_url)
    consumers = queue_workers(celery_app.app, queue)
    foreign = {name: db for name, db in consumers.items() if db != ours}
    started: list[subprocess.Popen[bytes]] = []
    if consumers and not foreign:
        print(f"using {len(consumers)} Celery worker(s) already on queue {queue!r}", file=sys.stderr)
    else:
        if foreign:
            queue = f"{queue}-demo-{os.getpid()}"
            print(
                f"Celery workers {sorted(foreign)} consume the queue but play on another "
                f"database; using a queue of our own, {queue!r}",
                file=sys.stderr,
            )
        print(f"no Celery worker on queue {queue!r}; starting {workers}", file=sys.stderr)
        env = {"DATABASE_URL": db_url, "BROKER_URL": celery_app.broker_url(), "ARENA_QUEUE": queue}
        started = [
            start_worker(env, queue, name=f"demo{i}-{os.getpid()}") for i in range(workers)
        ]
    dispatcher = celery_app.CeleryDispatcher(celery_app.app, queue)
    try:
        yield dispatcher
    finally:
        dispatcher.close()
        for proc in started:
            stop_worker(proc)


def run_demo(
    *,
    matches: int = 60,
    players: int = 2,
    workers: int = DEFAULT_POOL_SIZE,
    db: str | None = None,
    serve: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
    seed: int | None = None,
    timeout: float | None = None,
) -> SeasonSummary:
    """The whole demo. Returns the season's summary (after serving, if `serve`); its `failed`
    counts the matches that failed and those in which a bot crashed (:func:`crash_forfeits`).

    Raises :class:`PortInUse` before the season if it is to serve on a port that is taken.
    The season gives up after `timeout` seconds (default :func:`default_timeout`) and raises
    ``workers.season.SeasonStalled`` (``SeasonDatabaseUnavailable`` after a long database
    outage)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if serve:
        check_port(host, port)  # before the season, not after minutes of it
    distributed = current().distributed
    db_url = database_url(db or current().database_url or DEMO_DATABASE_URL)
    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        setup = setup_demo_ladder(engine, players=players)
        where = "Celery workers" if distributed else f"a local pool of {workers} processes"
        print(f"Ladder {setup.ladder_name!r} on {_describe(db_url)}: {matches} matches on {where}")
        dispatcher_cm = (
            _celery_dispatcher(workers, db_url) if distributed else LocalPool(db_url, workers)
        )
        columns = (
            TextColumn("[bold]season"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with dispatcher_cm as dispatcher, Progress(*columns) as progress:
            task = progress.add_task("season", total=matches)
            summary = play_season(
                engine,
                dispatcher,
                [setup.ladder_id],
                matches,
                target_depth=max(2, 2 * workers),
                on_progress=lambda done, _total: progress.update(task, completed=done),
                rng_seed=seed,
                timeout=default_timeout(matches) if timeout is None else timeout,
            )
        rate = 60 * summary.done / summary.seconds if summary.seconds else 0.0
        crashed = crash_forfeits(engine, summary.match_ids)
        why = f" ({crashed} with a bot that crashed or never started)" if crashed else ""
        # parked: stopped by platform faults (dead workers), not by a bot; for an operator
        parked = f", {summary.parked} parked (arena db parked)" if summary.parked else ""
        print(
            f"{summary.done} matches recorded, {summary.failed + crashed} failed{why}{parked}, "
            f"in {summary.seconds:.1f} s ({rate:.0f} matches/min)"
        )
        summary = dataclasses.replace(summary, failed=summary.failed + crashed)
        print_standings(engine, setup.ladder_id)
        if serve:
            _serve(engine, host, port)
        return summary
    finally:
        engine.dispose()


def _describe(db_url: str) -> str:
    return sa.engine.make_url(db_url).render_as_string(hide_password=True)


def _serve(engine: Engine, host: str, port: int) -> None:
    import uvicorn

    from ladder.api import create_app

    print(f"Serving the ladder at http://{host}:{port}/ (API docs at /docs); Ctrl-C stops")
    uvicorn.run(create_app(engine), host=host, port=port, log_level="warning")

