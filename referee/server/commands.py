"""The referee's `arena` subcommands: `serve referee`, `match`, `bot check`.

Imports stay inside the handlers so `arena --help` does not load gRPC. What the referee needs
from higher layers comes in as functions through :func:`register`, passed by the composition
root (``cli/main.py``): the ladder's bot-token check for ``serve referee --db``, the
workers' sandbox for ``match --sandbox`` and their in-process client of a built-in bot for
``match --bot builtin:NAME``. The referee imports none of them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import settings

if TYPE_CHECKING:  # not at run time: the lobby loads gRPC, which `arena --help` must not
    from referee.cli_checks import Commands
    from referee.server.launcher import SeatPlayer
    from referee.server.lobby import Authenticator

__all__ = ["BUILTIN_PREFIX", "AuthenticatorFactory", "BuiltinSeatFactory", "SandboxFactory", "register"]

#: database URL -> the bot-token check remote bots are let in with (`serve referee --db URL`)
AuthenticatorFactory = Callable[[str], "Authenticator"]
#: a sandbox to run bots in as the ladder runs hosted bots, checked to work on this machine
#: (raises, with the reason, if it cannot); used by `match --sandbox`
SandboxFactory = Callable[[], Any]
#: (game, built-in bot name, seed) -> the player of that seat in this process (`match --bot
#: builtin:NAME`): the bot behind a gRPC client, as the ladder's workers play built-in seats
BuiltinSeatFactory = Callable[[str, str, int], "SeatPlayer"]

#: `arena match --bot builtin:NAME` seats built-in bot NAME (`referee/bots/`, `arena play`'s)
BUILTIN_PREFIX = "builtin:"

#: `arena bot check --cpu-decision-ms`: the check plays outside the sandbox, which alone measures
#: a bot's CPU time; where to try the CPU clock instead
BOT_CHECK_CPU_NOTE = (
    "the CPU clock applies to sandboxed bots and the check runs yours outside the sandbox, on the "
    "wall clock only; try the CPU clock with arena match --sandbox --cpu-decision-ms N"
)


def _time_args(
    parser: argparse.ArgumentParser,
    cpu_where: str = "for bots whose CPU time is measured (--sandbox)",
) -> None:
    parser.add_argument("--decision-ms", type=int, default=None, help="per-decision allowance (default 1000)")
    parser.add_argument(
        "--bank-ms", type=int, default=None, help="per-seat time bank (default 30000; 0: no bank)"
    )
    parser.add_argument(
        "--max-strikes", type=int, default=None, help="strikes that forfeit a seat (default 3)"
    )
    parser.add_argument(
        "--connect-ms", type=int, default=None, help="wait for bots to connect (default 15000)"
    )
    parser.add_argument(
        "--cpu-decision-ms",
        type=int,
        default=None,
        help=f"per-decision CPU allowance, {cpu_where}; default 0: off",
    )
    parser.add_argument("--cpu-bank-ms", type=int, default=None, help="per-seat CPU bank (default 0)")


def _time_control(args: argparse.Namespace) -> Any:
    from referee.server.config import TimeControl

    given = {
        k: getattr(args, k)
        for k in ("decision_ms", "bank_ms", "max_strikes", "connect_ms", "cpu_decision_ms", "cpu_bank_ms")
        if getattr(args, k) is not None
    }
    return TimeControl(**given)


_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _referee_security(args: argparse.Namespace) -> tuple[str | None, tuple[bytes, bytes] | None]:
    """The admin token and TLS material `serve referee` was given; raises SystemExit (status 2,
    one `error:` line) when it must not start: no admin credential without --insecure, a
    plaintext listener beyond this host without --insecure, half a TLS pair, unreadable files."""
    from referee.server.auth import ADMIN_TOKEN_ENV, CredentialError, TlsFiles, read_admin_token

    def fail(message: str) -> SystemExit:
        print(f"error: {message}", file=sys.stderr)
        return SystemExit(2)

    if args.admin_token_value is not None:
        raise fail(
            "--admin-token VALUE is not accepted: a command line is visible to every user (ps); "
            f"use --admin-token-file PATH or ${ADMIN_TOKEN_ENV}"
        )
    try:
        token = read_admin_token(args.admin_token_file)
        tls = None
        if args.tls_cert or args.tls_key:
            if not (args.tls_cert and args.tls_key):
                raise fail("give both --tls-cert and --tls-key")
            tls = TlsFiles(Path(args.tls_cert), Path(args.tls_key)).load()
    except CredentialError as exc:
        raise fail(str(exc)) from None
    if token is None and not args.insecure:
        raise fail(
            "no admin credential: give --admin-token-file PATH or set "
            f"${ADMIN_TOKEN_ENV} (or --insecure to let anyone create and cancel matches)"
        )
    if tls is None and args.host not in _LOOPBACK and not args.insecure:
        raise fail(
            f"listening on {args.host} without TLS: give --tls-cert and --tls-key "
            "(or --insecure for plaintext beyond this host)"
        )
    return token, tls


def _cmd_serve_referee(
    args: argparse.Namespace, *, authenticator_for: AuthenticatorFactory | None = None
) -> int:
    import asyncio
    import logging

    from referee.cli_checks import check_listen
    from referee.server.auth import FAILED_AUTH_WINDOW_S, FailedAuthLimiter
    from referee.server.config import ServerLimits
    from referee.server.server import serve_forever

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.db and authenticator_for is None:
        print("error: --db: this arena has no ladder to check bot tokens against", file=sys.stderr)
        return 2
    admin_token, tls = _referee_security(args)
    check_listen(args.host, args.port)  # UsageError: one line, status 2
    if args.metrics_port:
        check_listen(args.host, args.metrics_port)
    try:
        limiter = FailedAuthLimiter(
            args.auth_failure_limit, FAILED_AUTH_WINDOW_S, exempt=["unix", *args.auth_limit_exempt]
        )
    except ValueError as exc:
        print(f"error: --auth-failure-limit / --auth-limit-exempt: {exc}", file=sys.stderr)
        return 2
    if args.processes > 1:
        return _serve_processes(args)
    if admin_token is None:
        print(
            "WARNING: --insecure: admin calls are open to anyone who reaches this port "
            "(create, cancel and watch matches, bind remote bots)",
            file=sys.stderr,
            flush=True,
        )
    if args.metrics_port:
        from prometheus_client import start_http_server

        from referee.cli_checks import UsageError
        from referee.server.metrics import PROCESS_RESTARTS
        from referee.server.processes import supervised

        try:  # a child of `--processes N`: its slot's restart count, from the parent
            slot = supervised()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if slot is not None:
            PROCESS_RESTARTS.labels(process=str(slot[0])).set(slot[1])
        start_http_server(args.metrics_port, addr=args.host)  # arena_referee_* on /metrics
    limits = ServerLimits(max_matches=args.max_matches)
    authenticator: Authenticator | None = (
        authenticator_for(args.db) if args.db and authenticator_for is not None else None
    )
    asyncio.run(
        serve_forever(
            args.host,
            args.port,
            limits=limits,
            admin_token=admin_token,
            authenticator=authenticator,
            insecure=admin_token is None,
            tls=tls,
            auth_limiter=limiter,
            supervisor_pid=args.supervisor_pid,
            shared_port=args.shared_port,
        )
    )
    return 0


def _serve_processes(args: argparse.Namespace) -> int:
    """`serve referee --processes N` (N > 1): the supervisor of N referee processes, each an
    `arena serve referee` on port base+i and metrics port metrics+i (referee/server/PROCESSES.md)."""
    from referee.cli_checks import UsageError, check_listen
    from referee.server.processes import Supervisor

    n = args.processes
    # PORT is shared by every process (SO_REUSEPORT: remote bots spread over them); each has its
    # own PORT+1+i too, where matches are created and their seats connect
    ports = [0] * n if args.port == 0 else [args.port + 1 + i for i in range(n)]
    metrics = [args.metrics_port + i for i in range(n)] if args.metrics_port else [0] * n
    if max(ports + metrics) > 65535:
        raise UsageError(
            f"--processes {n}: ports {args.port}..{args.port + n} (and metrics) must be <= 65535"
        )
    if {*ports, args.port} & set(metrics) - {0}:
        raise UsageError(
            f"--processes {n}: the referee ports {args.port}..{args.port + n} overlap the metrics "
            f"ports {args.metrics_port}..{args.metrics_port + n - 1}"
        )
    for port in ports + metrics[1:]:  # PORT and METRICS were checked already
        check_listen(args.host, port)
    shared = args.port or _free_port(args.host)
    common = ["-m", "referee.cli", "serve", "referee", "--host", args.host]
    common += ["--max-matches", str(args.max_matches), "--auth-failure-limit", str(args.auth_failure_limit)]
    for cidr in args.auth_limit_exempt:
        common += ["--auth-limit-exempt", cidr]
    if args.admin_token_file:  # else each child reads $ARENA_ADMIN_TOKEN, as the parent did
        common += ["--admin-token-file", args.admin_token_file]
    if args.insecure:
        common.append("--insecure")
    if args.tls_cert:
        common += ["--tls-cert", args.tls_cert, "--tls-key", args.tls_key]
    if args.db:
        common += ["--db", args.db]

    def argv_for(port: int, metrics_port: int) -> list[str]:
        return [
            *common, "--port", str(port), "--metrics-port", str(metrics_port), "--shared-port", str(shared)
        ]

    return Supervisor(argv_for, ports, metrics, shared=f"{args.host}:{shared}").run()


def _free_port(host: str) -> int:
    """A port free on `host` now (`--port 0 --processes N`: the shared port, chosen once for all)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _describe_event(event: Any, names: list[str]) -> str | None:
    """A match event in words, the seat named (protobuf's text form drops a field that is 0,
    so seat 0 went unnamed); None for the events not shown (each action)."""
    which = event.WhichOneof("event")

    def seat(n: int) -> str:
        return f"seat {n} ({names[n]})" if 0 <= n < len(names) else f"seat {n}"

    if which == "connected":
        e = event.connected
        own = f" as {e.bot_name!r}" if e.bot_name and e.bot_name != names[e.seat] else ""
        return f"{seat(e.seat)} connected{own}"
    if which == "strike":
        e = event.strike
        return f"{seat(e.seat)} strike {e.strikes} at decision {e.decision_id}: {e.reason}"
    if which == "forfeit":
        return f"{seat(event.forfeit.seat)} forfeits: {event.forfeit.reason}"
    return None


def _crashed_before_playing(replay: dict[str, Any]) -> list[int]:
    """Seats forfeited before making a single decision (a bot that crashed or never came)."""
    played = {int(step["seat"]) for step in replay["steps"] if "seat" in step and "forfeit" not in step}
    return [
        i for i, record in enumerate(replay["seats"]) if record.get("forfeit") and i not in played
    ]


def _check_game(game: str, players: int, seed: int) -> None:
    """The game exists and takes this many players: refused before any bot is started."""
    from referee.cli_checks import UsageError
    from referee.core.game import InvalidConfig
    from referee.games import game_class

    try:
        cls = game_class(game)
        cls.new_game(cls.default_config(players), seed)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    except (InvalidConfig, ValueError) as exc:
        raise UsageError(f"{players} --bot commands: {exc}") from None


def _builtin_seats(
    game: str, commands: list[str], seed: int, factory: BuiltinSeatFactory | None
) -> dict[int, SeatPlayer]:
    """The seats given as ``builtin:NAME``, each with its in-process player; UsageError (one
    line, status 2) for a name the game has no built-in bot of, listing the ones it has."""
    from referee.bots import available
    from referee.cli_checks import UsageError

    seats: dict[int, SeatPlayer] = {}
    for seat, command in enumerate(commands):
        if not command.startswith(BUILTIN_PREFIX):
            continue
        name = command.removeprefix(BUILTIN_PREFIX)
        known = available(game)
        if name not in known:
            raise UsageError(
                f"--bot {command}: no built-in bot {name!r} for {game}; known: "
                + ", ".join(BUILTIN_PREFIX + k for k in known)
            )
        if factory is None:
            raise UsageError(f"--bot {command}: this arena cannot play built-in bots")
        # the seed the ladder's workers give a built-in seat
        seats[seat] = factory(game, name, seed * 31 + seat)
    return seats


@dataclass
class _MatchInputs:
    """What `arena match` checked before starting anything."""

    tc: Any
    names: list[str]
    builtins: dict[int, Any]
    target: Path | None
    logs: Path | None


def _match_inputs(args: argparse.Namespace, builtin_factory: BuiltinSeatFactory | None) -> _MatchInputs:
    """Set-up: the time control, seats, names, replay target and log folder, each checked
    (UsageError: one line, status 2) before a bot is started."""
    from referee.cli_checks import UsageError, check_replay_target, check_writable_dir, seat_names

    try:
        tc = _time_control(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not args.bot:
        raise UsageError('give one --bot "CMD" per seat')
    names = seat_names(args.bot, args.name)
    _check_game(args.game, len(args.bot), args.seed)
    builtins = _builtin_seats(args.game, args.bot, args.seed, builtin_factory)
    if not args.name:  # a built-in seat is named by its bot (greedy), not by "builtin:greedy"
        for seat in builtins:
            names[seat] = args.bot[seat].removeprefix(BUILTIN_PREFIX)
    target = check_replay_target(args.replay) if args.replay else None
    logs = check_writable_dir(args.bot_logs, "--bot-logs") if args.bot_logs else None
    if tc.cpu_clock and not args.sandbox:
        # only a sandbox measures a bot's CPU time (its cgroup): say so rather than ignore it
        print(
            "note: the CPU clock applies to sandboxed bots (--sandbox); these are on the wall clock only",
            file=sys.stderr,
        )
    return _MatchInputs(tc, names, builtins, target, logs)


def _match_sandbox(args: argparse.Namespace, sandbox_factory: SandboxFactory | None) -> Any:
    """The sandbox of `--sandbox` (None without it); UsageError when it cannot run here."""
    from referee.cli_checks import UsageError

    if not args.sandbox:
        return None
    try:
        if sandbox_factory is None:
            raise RuntimeError("this arena has no sandbox")
        return sandbox_factory()
    except Exception as exc:  # any reason it cannot run is one line for the user
        raise UsageError(f"the sandbox cannot run here: {exc}") from None


def _match_summary(
    args: argparse.Namespace, launched: Any, replay: Any, inputs: _MatchInputs
) -> dict[str, Any]:
    """The played match as `--json` prints it: its end, each seat's row, who crashed early."""
    from referee.replay_view import describe_incident, place_notes

    status = launched.status
    names = inputs.names
    result = status.result if status.HasField("result") else None
    rows = []
    for seat, run in enumerate(launched.bots):
        record = replay["seats"][seat]
        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "bot": record.get("bot_name") or names[seat],
                "command": run.command,
                "place": result.places[seat] if result is not None else None,
                "score": result.scores[seat] if result is not None else None,
                "outcome": result.outcomes[seat] if result is not None else None,
                "strikes": record.get("strikes", 0),
                "forfeit": record.get("forfeit", ""),
                "incidents": [describe_incident(i) for i in record.get("incidents") or ()],
                "exit_code": run.exit_code,
                "killed_for": run.killed_for,
                "log": str(run.log_path),
            }
        )
    notes = (
        place_notes(list(result.places), list(result.scores), list(result.outcomes)) if result else {}
    )
    for r in rows:
        r["place_note"] = notes.get(r["seat"], "")
    return {
        "match_id": launched.match_id,
        "game": args.game,
        "seed": args.seed,
        "ended_by": status.ended_by,
        # cooperative games (Alien): did the team win; None for competitive games
        "team_won": result.team_won if result is not None and result.HasField("team_won") else None,
        "decisions": status.decisions,
        "seats": rows,
        "replay": str(inputs.target) if inputs.target is not None else None,
        "crashed_before_playing": _crashed_before_playing(replay),
    }


def _print_match(summary: dict[str, Any]) -> None:
    """The summary as text: the match's end, then a line per seat with its incidents."""
    won = summary["team_won"]
    team = "" if won is None else "; the team " + ("won" if won else "lost")
    print(
        f"match {summary['match_id']} ({summary['game']}, seed {summary['seed']}): "
        f"{summary['ended_by']}, {summary['decisions']} decisions{team}"
    )
    for r in summary["seats"]:
        own = f", calls itself {r['bot']!r}" if r["bot"] != r["name"] else ""
        outcome = str(r["outcome"]).replace("_", " ")
        line = (
            f"  seat {r['seat']} ({r['name']}{own}): place {r['place']}, score {r['score']}, "
            f"{outcome}, {r['strikes']} strikes"
        )
        if r["forfeit"]:
            line += f"; forfeited: {r['forfeit']}"
        if r["killed_for"]:
            line += f"; killed at its sandbox's {r['killed_for']} (workers/SANDBOX.md, Limits)"
        if r["place_note"]:
            line += f" ({r['place_note']})"
        print(line)
        for incident in r["incidents"]:
            print(f"    incident: {incident}")
    if summary["replay"] is not None:
        print(f"replay written to {summary['replay']}")


def _report_crashes(launched: Any, summary: dict[str, Any]) -> None:
    """One error line per seat that ended before playing: what it printed, where its output is,
    and the fix when it is a missing SDK."""
    from referee.bot_output import error_line
    from referee.server.launcher import missing_sdk_hint

    for seat in summary["crashed_before_playing"]:
        r = summary["seats"][seat]
        last = error_line(launched.bots[seat].log_tail(40))
        said = f"; it printed: {last}" if last else ""
        hint = missing_sdk_hint(last)
        print(
            f"error: seat {seat} ({r['name']}) ended before playing ({r['forfeit']}){said}; "
            f"its output: {r['log']}" + (f"; {hint}" if hint else ""),
            file=sys.stderr,
        )


def _cmd_match(
    args: argparse.Namespace,
    *,
    sandbox_factory: SandboxFactory | None = None,
    builtin_factory: BuiltinSeatFactory | None = None,
) -> int:
    """`arena match`: check the inputs (:func:`_match_inputs`), start the sandbox, play the
    match, then write the replay and report (:func:`_match_summary`, :func:`_print_match`,
    :func:`_report_crashes`)."""
    import asyncio

    import grpc

    from referee.cli_checks import UsageError, write_replay
    from referee.replay import loads
    from referee.server.launcher import run_match

    try:
        inputs = _match_inputs(args, builtin_factory)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def progress(event: Any) -> None:
        line = None if args.json else _describe_event(event, inputs.names)
        if line is not None:
            print(f"  {line}", file=sys.stderr)

    try:
        sandbox = _match_sandbox(args, sandbox_factory)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        launched = asyncio.run(
            run_match(
                args.game,
                args.bot,
                seed=args.seed,
                time_control=inputs.tc,
                log_dir=inputs.logs,
                on_event=progress,
                names=inputs.names,
                sandbox=sandbox,
                files_dir=Path.cwd() if sandbox is not None else None,
                in_process=inputs.builtins,
            )
        )
    except grpc.aio.AioRpcError as exc:
        print(f"error: {exc.code().name}: {exc.details()}", file=sys.stderr)
        return 2
    replay = loads(launched.replay)
    if inputs.target is not None:
        write_replay(replay, inputs.target)
    summary = _match_summary(args, launched, replay, inputs)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_match(summary)
    _report_crashes(launched, summary)
    return 1 if summary["crashed_before_playing"] else 0

def _cmd_bot_check(args: argparse.Namespace) -> int:
    import asyncio

    from referee.games import default_game
    from referee.server.bot_check import check_bot

    if args.game is None:
        args.game = default_game()
    try:
        tc = _time_control(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _check_game(args.game, 2, args.seed)  # the check plays 2-seat games; UsageError: one line
    if tc.cpu_clock:
        # the check runs the bot unsandboxed, and only a sandbox measures CPU time: say so
        print(f"note: {BOT_CHECK_CPU_NOTE}", file=sys.stderr)
    report = asyncio.run(
        check_bot(args.command, game=args.game, games=args.games, seed=args.seed, time_control=tc)
    )
    if args.json:
        print(
            json.dumps(
                {
                    "command": report.command,
                    "passed": report.passed,
                    "reasons": report.reasons(),
                    "faults": report.faults,
                    "timings_ms": report.timings(),
                    "games": [
                        {
                            "seed": g.seed,
                            "seat": g.seat,
                            "ended_by": g.ended_by,
                            "outcome": g.outcome,
                            "decisions": g.decisions,
                            "forfeit": g.forfeit,
                            "exit_code": g.exit_code,
                            "problems": g.problems(),
                        }
                        for g in report.games
                    ],
                },
                indent=2,
            )
        )
    else:
        print("\n".join(report.lines()))
    return 0 if report.passed else 1


def register(
    sub: Commands,
    *,
    authenticator_for: AuthenticatorFactory | None = None,
    sandbox: SandboxFactory | None = None,
    builtin_seat: BuiltinSeatFactory | None = None,
) -> None:
    """Add `serve referee`, `match` and `bot check` to the `arena` commands `sub`.

    `authenticator_for` turns `serve referee --db URL` into the bot-token check remote bots
    are let in with; `sandbox` makes the sandbox of `match --sandbox`; `builtin_seat` plays a
    `match --bot builtin:NAME` seat. Without them those options end with one error line (the
    referee alone has no ladder, no sandbox and no bot client).
    """
    from referee.bots import available
    from referee.cli_checks import REPLAY_FILE, port_number, positive_int
    from referee.games import game_names

    ssub = sub.group("serve")
    ref = ssub.add_parser("referee", help="the gRPC referee (bots connect here)")
    ref.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ref.add_argument("--port", type=port_number, default=50051, help="port to listen on (default 50051)")
    ref.add_argument(
        "--admin-token-file",
        default=settings.current().admin_token_file,
        metavar="PATH",
        help="the admin token is this file's first line ($ARENA_ADMIN_TOKEN_FILE; "
        "else $ARENA_ADMIN_TOKEN); admin calls need it",
    )
    # refused with a message: a secret on the command line is visible to every user (ps)
    ref.add_argument("--admin-token", dest="admin_token_value", default=None, help=argparse.SUPPRESS)
    ref.add_argument(
        "--insecure",
        action="store_true",
        help="start without an admin credential (admin calls open to anyone) and allow "
        "plaintext on a non-loopback --host",
    )
    ref.add_argument("--tls-cert", metavar="FILE", help="serve TLS with this PEM certificate chain")
    ref.add_argument("--tls-key", metavar="FILE", help="... and this PEM private key")
    ref.add_argument(
        "--auth-failure-limit",
        type=int,
        default=20,
        metavar="N",
        help="failed authentications per client address per minute before it is refused (default 20)",
    )
    ref.add_argument(
        "--auth-limit-exempt",
        action="append",
        default=[],
        metavar="CIDR",
        help="never limit clients from this network (e.g. the workers'); Unix-socket clients always are",
    )
    ref.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="the ladder database: remote bots may then connect with their bot tokens",
    )
    ref.add_argument(
        "--max-matches", type=positive_int, default=1024, help="matches held at once (default 1024)"
    )
    ref.add_argument(
        "--metrics-port",
        type=port_number,
        default=0,
        help="serve Prometheus metrics (arena_referee_*) on this port",
    )
    ref.add_argument(
        "--processes",
        type=positive_int,
        default=1,
        metavar="N",
        help="run N referee processes (one per core), supervised by this one: each on its own "
        "port PORT+1+i (workers create matches there: list them in ARENA_REFEREE_ADDR) and all on "
        "PORT (remote bots connect there and are spread over the processes), metrics on "
        "METRICS+i; a match lives in one process (referee/server/PROCESSES.md). Default 1",
    )
    # set by the supervisor on its children: stop when that process is gone; the shared port
    ref.add_argument("--supervisor-pid", type=int, default=None, help=argparse.SUPPRESS)
    ref.add_argument("--shared-port", type=port_number, default=None, help=argparse.SUPPRESS)
    ref.set_defaults(func=partial(_cmd_serve_referee, authenticator_for=authenticator_for))

    match = sub.add_parser("match", help="play one match over gRPC between bot commands")
    match.add_argument("game", help=f"the game: {', '.join(game_names())}")
    match.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="CMD",
        help="a bot command, one per seat (it gets ARENA_REFEREE and ARENA_TOKEN); `python` in it "
        "is the interpreter arena runs on; or builtin:NAME, one of the built-in bots `arena play` "
        "uses, played inside arena as the ladder plays them ("
        + "; ".join(f"{g}: {', '.join(available(g))}" for g in game_names())
        + ")",
    )
    match.add_argument(
        "--name",
        action="append",
        default=[],
        help="the seat's name, as opponents and the replay see it; one per --bot, in order "
        "(default: the bot's script or program name, never the command line)",
    )
    match.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    match.add_argument(
        "--replay", metavar="FILE", help=f"write the replay here: {REPLAY_FILE}"
    )
    match.add_argument("--bot-logs", help="folder for each bot's output (default: a temp folder)")
    match.add_argument("--json", action="store_true", help="print the result as JSON")
    match.add_argument(
        "--sandbox",
        action="store_true",
        help="run every bot command exactly as the ladder runs hosted bots: in the sandbox, with "
        "the current directory as its read-only files (workers/SANDBOX.md); a builtin:NAME seat "
        "plays inside arena, as on the ladder",
    )
    _time_args(match)
    match.set_defaults(func=partial(_cmd_match, sandbox_factory=sandbox, builtin_factory=builtin_seat))

    check = sub.group("bot").add_parser("check", help="the conformance kit: run a bot through short games")
    check.add_argument("command", help='the bot command, e.g. "python my_bot.py"')
    check.add_argument(
        "--game", default=None, help="the game to play (default: the registry's default game, "
        "the one whose spec declares default=True)"
    )
    check.add_argument("--games", type=positive_int, default=2, help="how many short games (default 2)")
    check.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    _time_args(
        check,
        "for sandboxed bots only: the check runs yours outside the sandbox, so it has no effect "
        "here (arena match --sandbox)",
    )
    check.set_defaults(func=_cmd_bot_check)
