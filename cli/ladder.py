"""The ``arena`` subcommands of the ladder side: demo, db, serve api, worker, beat.

:func:`register` adds them to the ``arena`` commands (called by the composition root,
``cli/main.py``). Imports stay inside the command functions so ``arena --help`` is fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from referee.cli_checks import Commands

__all__ = ["register"]


def _cmd_demo(args: argparse.Namespace) -> int:
    # Multiprocess metrics before any metric exists, so the pool processes' match metrics
    # reach the demo's /metrics page (prometheus_client picks its mode at import).
    from referee.settings import current

    if not current().prometheus_multiproc_dir:  # set for this process and the pool it starts
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="arena-demo-metrics-")
    from ladder.db import is_outage
    from workers.demo import PortInUse, run_demo
    from workers.season import SeasonDatabaseUnavailable, SeasonStalled

    try:
        summary = run_demo(
            matches=args.matches,
            players=args.players,
            workers=args.workers,
            db=args.db,
            serve=not args.no_serve,
            host=args.host,
            port=args.port,
            seed=args.seed,
            timeout=args.timeout,
        )
    except PortInUse as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SeasonDatabaseUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except SeasonStalled as exc:
        print(f"error: {exc} (are the workers running, on this database? --timeout sets the "
              "limit)", file=sys.stderr)
        return 1
    except Exception as exc:
        if not is_outage(exc):
            raise
        # before or after the season (migrating, setting up the ladder, the standings)
        first_line = (str(exc).strip().splitlines() or [""])[0]
        print(f"error: the database is unreachable ({type(exc).__name__}: {first_line})",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0 if summary.failed == 0 and summary.parked == 0 else 1


def _cmd_db_upgrade(args: argparse.Namespace) -> int:
    from ladder.db import database_url, is_outage, upgrade

    url = database_url(args.url)
    try:
        upgrade(url)
    except Exception as exc:
        if not is_outage(exc):
            raise
        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        print(f"error: the database is unreachable ({type(exc).__name__}: {first})", file=sys.stderr)
        return 1
    print(f"database at migration head: {url.split('@')[-1]}")
    return 0


def _cmd_db_parked(args: argparse.Namespace) -> int:
    """List the parked matches (too many platform faults), with their reason."""
    from ladder.db import create_engine, database_url
    from ladder.match_queue import parked_matches

    engine = create_engine(database_url(args.url))
    try:
        parked = parked_matches(engine)
    finally:
        engine.dispose()
    if not parked:
        print("no parked matches")
    for match in parked:
        print(f"match {match.match_id} (ladder {match.ladder_id}, seed {match.seed}, "
              f"{match.faults} platform faults): {match.error}")
    return 0


def _cmd_db_requeue(args: argparse.Namespace) -> int:
    """Put parked matches back in the queue (the sweeper of `arena beat`, or the next season,
    sends them)."""
    from ladder.db import create_engine, database_url
    from ladder.match_queue import requeue_parked

    engine = create_engine(database_url(args.url))
    refused = []
    try:
        for match_id in args.match_ids:
            if requeue_parked(engine, match_id):
                print(f"match {match_id}: queued again (its fault budget renewed)")
            else:
                refused.append(match_id)
    finally:
        engine.dispose()
    if refused:
        print(f"error: not parked: {', '.join(map(str, refused))} (`arena db parked` lists "
              "the parked matches)", file=sys.stderr)
        return 2
    return 0


def _cmd_serve_api(args: argparse.Namespace) -> int:
    import uvicorn

    from ladder.api import create_app
    from ladder.api_server import schema_problem, uvicorn_limits
    from ladder.db import create_engine, upgrade

    if bool(args.tls_cert) != bool(args.tls_key):
        print("error: give both --tls-cert and --tls-key", file=sys.stderr)
        return 2
    tls = bool(args.tls_cert)
    if not tls and args.host not in ("127.0.0.1", "::1", "localhost") and not args.insecure:
        print(f"error: serving {args.host} without TLS: give --tls-cert and --tls-key "
              "(or --insecure for plaintext beyond this host)", file=sys.stderr)
        return 2
    for path in (args.tls_cert, args.tls_key) if tls else ():
        if not os.access(path, os.R_OK):
            print(f"error: cannot read {path}", file=sys.stderr)
            return 2
    if args.upgrade:
        upgrade(args.db)
    engine = create_engine(args.db)
    problem = schema_problem(engine)  # an unmigrated database would answer every page with 500
    if problem is not None:
        engine.dispose()
        print(f"error: {problem}", file=sys.stderr)
        return 2
    from referee.cli_checks import UsageError, check_listen

    try:
        check_listen(args.host, args.port)
    except UsageError as exc:
        engine.dispose()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from ladder.remote_bots import public_referee

    try:  # where remote bots connect, as the API tells their authors
        referee = public_referee()
    except ValueError as exc:
        engine.dispose()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from ladder.api import default_limits

    try:  # the uploads one process checks at once ($ARENA_API_CONCURRENT_UPLOADS)
        limits = default_limits()
    except ValueError as exc:
        engine.dispose()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    scheme = "https" if tls else "http"
    print(f"Serving the ladder at {scheme}://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    print(referee.info()["message"], flush=True)
    try:
        uvicorn.run(
            create_app(engine, referee=referee, limits=limits), host=args.host, port=args.port,
            log_level=args.log_level,
            ssl_certfile=args.tls_cert, ssl_keyfile=args.tls_key,
            **uvicorn_limits(),  # header timeout, JSON 400s, header size, keep-alive (ladder/api_server.py)
        )
    finally:
        engine.dispose()
    return 0


def _multiproc_env() -> dict[str, str]:
    from referee.settings import current

    env = dict(os.environ)  # the worker's environment, handed to the Celery worker it execs
    if not current().prometheus_multiproc_dir:
        env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="arena-metrics-")
    return env


def _connections_line(process: str) -> str:
    """Which broker and database `process` uses, passwords hidden, and whether each is the
    default (its variable unset): a worker or beat started without them works against a local
    Redis and `arena.db`, which an operator should see rather than discover."""
    from sqlalchemy.engine import make_url

    from referee.settings import current
    from workers.celery_app import BROKER_ENV, broker_url, database_label

    def origin(variable: str, value: str | None) -> str:
        return f"${variable}" if value else f"the default: ${variable} is not set"

    broker = make_url(broker_url()).render_as_string(hide_password=True)
    return (
        f"{process}: broker {broker} ({origin(BROKER_ENV, current().broker_url)}), "
        f"database {database_label()} ({origin('DATABASE_URL', current().database_url)})"
    )


def sandbox_warnings() -> list[str]:
    """What `arena worker` says at start about its sandbox: that it cannot run here, or each
    runtime it cannot give hosted bots (checking it also stages what the bots get,
    workers/sandbox/staging.py)."""
    from workers.sandbox import Sandbox, SandboxUnavailable

    sandbox = Sandbox()
    try:
        sandbox.check()
    except SandboxUnavailable as exc:
        return [
            f"warning: the sandbox cannot run here ({exc}): matches with hosted bots will "
            "fail as 'unavailable' (see workers/SANDBOX.md)"
        ]
    return [
        f"warning: no {runtime} runtime for hosted bots on this worker: {why}; such a bot ends at "
        "its start with this reason, and its version fails qualification"
        for runtime, why in sorted(sandbox.runtime.unavailable.items())
    ]


def _cmd_worker(args: argparse.Namespace) -> int:
    from workers.celery_app import match_queue
    from workers.worker_processes import celery_worker_command

    env = _multiproc_env()
    if args.metrics_port:
        env["ARENA_METRICS_PORT"] = str(args.metrics_port)
    if args.unsafe_no_sandbox:
        env["ARENA_UNSAFE_NO_SANDBOX"] = "1"
        print(
            "warning: --unsafe-no-sandbox: hosted bots run as plain processes of this worker, "
            "with its user and files in reach; never on a public ladder",
            file=sys.stderr,
        )
    else:
        env.pop("ARENA_UNSAFE_NO_SANDBOX", None)  # only the flag turns the sandbox off
        for line in sandbox_warnings():
            print(line, file=sys.stderr)
    cmd = celery_worker_command(
        match_queue(), name=args.name, concurrency=args.concurrency, loglevel=args.loglevel
    )
    print(_connections_line("arena worker"), file=sys.stderr, flush=True)
    os.execve(cmd[0], cmd, env)


def _cmd_beat(args: argparse.Namespace) -> int:
    """The control process: sweeper, matchmaker, competitions and campaign ladders inline, every
    interval, until SIGTERM/SIGINT."""
    import logging
    import signal

    from workers.control import arena_control_loop

    logging.basicConfig(level=args.loglevel.upper(),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.metrics_port:
        # the matchmaker's arena_queue_depth and the sweeper's arena_matches_requeued_total
        # are counted in this process: without this port no one can scrape them
        from workers.metrics import serve_metrics

        serve_metrics(args.metrics_port)
    loop = arena_control_loop(args.interval)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: loop.stop.set())
    print(f"arena beat: sweeper, matchmaker, competitions and campaign ladders every {loop.interval:g} s "
          "(Ctrl-C stops)", flush=True)  # fmt: skip
    print(_connections_line("arena beat"), flush=True)
    loop.run()
    return 0


def _operator_engine(db: str | None) -> Engine | None:
    """An engine on the operator's database, or None after one error line (not migrated)."""
    from ladder.account_commands import UPGRADE_FIRST
    from ladder.api_server import schema_problem
    from ladder.db import create_engine, database_url

    engine = create_engine(database_url(db))
    problem = schema_problem(engine, UPGRADE_FIRST)
    if problem is not None:
        engine.dispose()
        print(f"error: {problem}", file=sys.stderr)
        return None
    return engine


def _cmd_audit(args: argparse.Namespace) -> int:
    """Print the bots holding a name reserved for the platform's, with the fix; exit 1 if any."""
    from workers.audit import reserved_name_problems

    engine = _operator_engine(args.db)
    if engine is None:
        return 2
    try:
        problems = reserved_name_problems(engine, f" --db {args.db}" if args.db else "")
    finally:
        engine.dispose()
    for line in problems:
        print(line)
    if not problems:
        print("no problems found: no bot outside the platform holds a reserved name")
    return 1 if problems else 0


def _cmd_bot_rename(args: argparse.Namespace) -> int:
    from ladder.bots import rename_bot
    from ladder.errors import LadderError

    engine = _operator_engine(args.db)
    if engine is None:
        return 2
    try:
        bot_id = rename_bot(engine, args.name, args.new_name)
    except LadderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    print(f"bot {bot_id} renamed {args.name} -> {args.new_name}")
    return 0


def register(sub: Commands) -> None:
    """Add demo, db, serve api, worker, beat, audit and bot rename to the `arena` commands `sub`."""
    from referee.cli_checks import database_url_arg, port_number, positive_int

    demo = sub.add_parser(
        "demo", help="register the bundled bots, play a ladder season, print standings, serve"
    )
    demo.add_argument("--matches", type=positive_int, default=60,
                      help="the season's length (default 60)")
    demo.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                      help="seats per match (default 2)")
    demo.add_argument("--workers", type=positive_int, default=None,
                      help="match processes (default: cores, at most 4)")
    demo.add_argument("--db", type=database_url_arg,
                      help="database URL (default $DATABASE_URL, else sqlite:///arena-demo.db)")
    demo.add_argument("--no-serve", action="store_true", help="exit after printing the standings")
    demo.add_argument("--host", default="127.0.0.1",
                      help="address to serve the ladder on (default 127.0.0.1)")
    demo.add_argument("--port", type=port_number, default=8000,
                      help="port to serve on (default 8000; checked before the season)")
    demo.add_argument("--seed", type=int, default=None, help="seed the matchmaker")
    demo.add_argument("--timeout", type=float, default=None,
                      help="give the season up after this many seconds (default 120 + 10 a match)")
    demo.set_defaults(func=_cmd_demo_with_defaults)

    db = sub.add_parser("db", help="database maintenance")
    dbsub = db.add_subparsers(dest="db_command", required=True)
    up = dbsub.add_parser("upgrade", help="migrate the database to the newest schema")
    # --db as every other command that takes a database names it; --url kept for scripts
    up.add_argument("--db", "--url", dest="url", type=database_url_arg,
                    help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    up.set_defaults(func=_cmd_db_upgrade)
    parked = dbsub.add_parser(
        "parked", help="list the matches parked after too many platform faults (workers/README.md)"
    )
    parked.add_argument("--db", "--url", dest="url", type=database_url_arg,
                        help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    parked.set_defaults(func=_cmd_db_parked)
    requeue = dbsub.add_parser("requeue", help="put parked matches back in the queue")
    requeue.add_argument("match_ids", metavar="MATCH_ID", nargs="+", type=positive_int,
                         help="a parked match's id")
    requeue.add_argument("--db", "--url", dest="url", type=database_url_arg,
                         help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    requeue.set_defaults(func=_cmd_db_requeue)

    api = sub.group("serve").add_parser("api", help="the ladder's HTTP API and web page")
    api.add_argument("--db", type=database_url_arg,
                     help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    api.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    api.add_argument("--port", type=port_number, default=8000, help="port to listen on (default 8000)")
    api.add_argument("--upgrade", action="store_true",
                     help="migrate the database first (without it, an unmigrated one is refused)")
    api.add_argument("--log-level", default="info",
                     choices=("critical", "error", "warning", "info", "debug", "trace"),
                     help="uvicorn's log level (default info)")
    api.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this PEM certificate chain")
    api.add_argument("--tls-key", metavar="FILE", help="... and this PEM private key")
    api.add_argument("--insecure", action="store_true",
                     help="allow plaintext HTTP on a non-loopback --host")
    api.set_defaults(func=_cmd_serve_api)

    worker = sub.add_parser("worker", help="a Celery worker playing ladder matches ($BROKER_URL)")
    worker.add_argument("--concurrency", type=positive_int, default=os.cpu_count() or 1,
                        help="matches played at once (default: the number of cores)")
    worker.add_argument("--name", default=None, help="worker node name (default arena-<random>)")
    worker.add_argument("--metrics-port", type=port_number, default=None,
                        help="serve the worker's Prometheus metrics on this port")
    worker.add_argument("--loglevel", default="INFO", help="Celery's log level (default INFO)")
    worker.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run hosted bots WITHOUT the sandbox (logged, and marked in every replay); "
        "for trusted bots on a private machine only (workers/SANDBOX.md)",
    )
    worker.set_defaults(func=_cmd_worker)

    beat = sub.add_parser(
        "beat",
        help="the control process: runs the sweeper, the matchmaker, competitions and campaign "
        "ladders (not via the queue)",
        description="The control process (one is enough; a second is harmless). Every interval it "
        "requeues matches whose worker died, tops up each ladder's queue, schedules running "
        "competitions' next rounds and plays campaign ladders (the queue top-up and the campaign "
        "ladders also run whenever a worker reports a match taken or finished). On each campaign "
        "ladder it keeps $ARENA_CAMPAIGNS_PER_LADDER campaigns (default 4) of "
        "$ARENA_CAMPAIGN_GAMES games (default 10) running, seating the joined bots as the "
        "matchmaker does, queues each campaign's next game for the workers when its previous one "
        "is recorded, retries a failed game once, and rates each finished campaign once "
        "(ladder/RATINGS.md, \"Campaign ladders\").",
    )
    beat.add_argument("--loglevel", default="INFO", help="log level (default INFO)")
    beat.add_argument("--interval", type=float, default=None, metavar="S",
                      help="seconds between passes (default $ARENA_BEAT_SECONDS, else 5)")
    beat.add_argument("--metrics-port", type=int, default=None,
                      help="serve the matchmaker's and sweeper's Prometheus metrics on this port")
    beat.set_defaults(func=_cmd_beat)

    audit = sub.add_parser(
        "audit", help="(operator, on the server host) check the platform's rows: reserved names",
        description="Lists every bot that is not the platform's but holds a name reserved for the "
        "platform's bots (reference-*, builtin-*, the built-in bots' names, "
        "$ARENA_RESERVED_BOT_PREFIXES), the ladders it sits on and the commands that fix it. "
        "Exit 1 if it found any.",
    )
    audit.add_argument("--db", type=database_url_arg,
                       help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    audit.set_defaults(func=_cmd_audit)

    rename = sub.group("bot").add_parser(
        "rename", help="(operator, on the server host) rename a bot in the database",
    )
    rename.add_argument("name", help="the bot's name now")
    rename.add_argument("new_name", help="its new name")
    rename.add_argument("--db", type=database_url_arg,
                        help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    rename.set_defaults(func=_cmd_bot_rename)


def _cmd_demo_with_defaults(args: argparse.Namespace) -> int:
    if args.workers is None:
        from workers.local_pool import DEFAULT_POOL_SIZE

        args.workers = DEFAULT_POOL_SIZE
    return _cmd_demo(args)
