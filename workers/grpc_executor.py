"""The ladder's gRPC executor: plays a match with hosted and/or remote seats through the referee.

`workers.executor` loads `create_executor()` lazily, in the worker process that first needs it
(after any fork), for a match with a seat that is not a built-in bot. Its `execute(spec, stop)`:

* **no remote seat** — starts a referee in this process on a free local port (like `arena
  match`), so the referee sees the hosted bots' processes and names a crash a crash;
* **a remote seat** — uses a long-lived referee of ``$ARENA_REFEREE_ADDR`` (one HOST:PORT or
  several, comma-separated; admin token ``$ARENA_ADMIN_TOKEN``), where remote bots wait with
  their bot tokens: the match is created on the one holding its remote bots' streams (`place`)
  with the remote seats bound to their bot ids (`SeatSpec.bot_id`); the referee seats each bot
  when it is free. If that referee goes away mid-match the match is handed back to the
  sweeper (``workers.lease.HandBack``), not failed (deploy/SCALING.md, "Several hosts").

Then, either way, every hosted seat's command line is launched as its own process (own process
group) with the referee's address and its one-time seat token (`launcher.launch_bot`: the
same code as `arena match`); every built-in seat (``builtin:<name>``) in such a mixed match is
played by an **in-process SDK client** — the built-in bot behind `arena_bot.Bot`, one thread
each, over the same gRPC protocol and clock as everyone else (our own code, so no process is
needed). The match is followed through WatchMatch; `stop` (lease lost, time limit) is asked
every `POLL_S` seconds, and a stop cancels the match on the referee (`CancelMatch`: it ends
between two actions) and raises `MatchAborted`. The result and the replay come from GetMatch
and GetReplay; timeouts, forfeits and decision times from the match's events.

`can_seat(command, bot_id)`: hosted commands can always be launched; a remote bot can be
seated only while it is connected to a referee of ``$ARENA_REFEREE_ADDR`` (ListBots on each,
cached for `LOBBY_CACHE_S`; `referee_of` says which one, for the matchmaker).

Hosted bot output goes to ``$ARENA_BOT_LOG_DIR/match-<id>/seat<N>.log`` if that is set (else to
a temporary folder removed after the match; a crashed bot's last lines are logged). A hosted bot
gets the worker's environment minus its secrets (`bot_environment`: DATABASE_URL, BROKER_URL and
any variable named like a token, secret, password or key), plus ARENA_REFEREE and ARENA_TOKEN.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import ssl
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
from arena_bot import Action as WireAction
from arena_bot import Bot, observation_dict, play
from arena_bot.wire import (
    KEEPALIVE_TIME_MS,
    KEEPALIVE_TIMEOUT_MS,
    TLS_CA_ENV,
    TLS_ENV,
    Tls,
    admin_calls,
    aio_channel,
    bearer,
    channel,
)

from ladder.live import LiveFeed
from referee import settings
from referee.bots import LocalBot, make_bot
from referee.core.game import Action, Result, canonical_json
from referee.replay import loads
from referee.server.config import TimeControl
from referee.server.launcher import (
    BotProcess,
    BotRun,
    BotSandbox,
    follow_match,
    killed_for,
    launch_bot,
    stop_bots,
)
from referee.server.rulings import ForfeitKind
from referee.server.server import RunningReferee, start
from referee.wire._proto.arena.v1 import admin_pb2
from workers.bot_commands import BotCommand
from workers.executor import (
    Execution,
    ExecutorUnavailable,
    LadderMatchSpec,
    MatchAborted,
    StopSignal,
    live_feed,
)
from workers.lease import HandBack

__all__ = [
    "ENV_ADMIN_TOKEN",
    "ENV_BOT_LOG_DIR",
    "ENV_REFEREE_ADDR",
    "ENV_REFEREE_CA",
    "ENV_REFEREE_TLS",
    "ENV_UNSAFE_NO_SANDBOX",
    "GrpcMatchExecutor",
    "bot_environment",
    "builtin_seat",
    "create_executor",
    "forfeit_kind",
    "read_log",
    "referee_tls",
    "unix_to_tcp_proxy",
]

log = logging.getLogger("arena.executor")

ENV_REFEREE_ADDR: Final = "ARENA_REFEREE_ADDR"
ENV_ADMIN_TOKEN: Final = "ARENA_ADMIN_TOKEN"
#: the long-lived referee serves TLS: trust the CA in this PEM file (or, with only
#: ARENA_REFEREE_TLS=1, the system's roots). The referees a worker starts itself stay local.
ENV_REFEREE_CA: Final = "ARENA_REFEREE_CA"
#: seconds a proxied connection may take to close (TLS close_notify) before it is dropped
PROXY_CLOSE_S: Final = 1.0
ENV_REFEREE_TLS: Final = "ARENA_REFEREE_TLS"
ENV_BOT_LOG_DIR: Final = "ARENA_BOT_LOG_DIR"
ENV_UNSAFE_NO_SANDBOX: Final = "ARENA_UNSAFE_NO_SANDBOX"
#: how often the stop signal is asked while a match runs
POLL_S: Final = 0.2
#: how long a ListBots answer is trusted by can_seat
LOBBY_CACHE_S: Final = 1.0
#: what a call to a referee that went away ends with
_REFEREE_LOST: Final = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
#: keepalive on the channel to a long-lived referee (the policy it accepts, bots/python
#: arena_bot.wire): a referee cut off without a reset (a partition, a host powered off) is
#: found within keepalive time + timeout, and its match handed back like a killed one
_REFEREE_KEEPALIVE: Final = [
    ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
]
#: a referee that did not answer ListBots is not asked again for this long
REFEREE_DOWN_S: Final = 5.0
#: admin calls other than WatchMatch
RPC_TIMEOUT_S: Final = 30.0
#: how long in-process clients and bot processes get to end after the match
EXIT_WAIT_S: Final = 5.0
#: a hosted seat's output kept for its owner (the end of it: where a crash is)
LOG_LIMIT_BYTES: Final = 256 * 1024


#: never passed on to a hosted bot: the worker's credentials (and anything named like one)
_SECRET_NAMES: Final = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "_KEY")
_SECRET_VARS: Final = frozenset({"DATABASE_URL", "BROKER_URL", "ARENA_TEST_POSTGRES", "ARENA_TEST_REDIS"})


def bot_environment() -> dict[str, str]:
    """The worker's environment without its secrets: what a hosted bot starts with."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in _SECRET_VARS and not any(part in k.upper() for part in _SECRET_NAMES)
    }


def forfeit_kind(reason: str) -> str:
    """A forfeit reason's kind (``crashed``, ``disconnected``, ``strikes``, ``never connected``,
    ``exited before the game ended``, ``flood``, ``not reading``, ``message too large``): the
    metrics label (``unknown`` for a text that names none); the full reason is in the replay."""
    kind = ForfeitKind.of(reason)
    return kind.value if kind is not None else "unknown"


class _BuiltinClient(Bot):
    """A built-in bot played over the wire by the SDK, in a thread of the worker."""

    def __init__(self, local: LocalBot, think_s: float) -> None:
        super().__init__()
        self.local = local
        self.name = local.name
        self.version = "builtin"
        self.think_s = think_s

    def act(self, observation: Any, legal_actions: Sequence[WireAction]) -> int:
        if self.think_s:
            time.sleep(self.think_s)
        actions = [Action(a.kind, a.args, a.text) for a in legal_actions]
        return self.local.act(observation_dict(observation), actions)

    def on_notice(self, notice: Any) -> None:
        log.debug("built-in %s: referee notice %s %s", self.name, notice.code, notice.message)


def referee_tls() -> Tls:
    """How to reach the long-lived referee at $ARENA_REFEREE_ADDR ($ARENA_REFEREE_CA /
    $ARENA_REFEREE_TLS; plaintext when neither is set)."""
    parsed = settings.current()
    return Tls.from_env({TLS_ENV: "1" if parsed.referee_tls else "", TLS_CA_ENV: parsed.referee_ca or ""})


def builtin_seat(game: str, name: str, seed: int) -> Callable[[str, str, Path], None]:
    """The player of an `arena match --bot builtin:NAME` seat (`referee.server.launcher.SeatPlayer`).

    Built-in bot `name` behind the SDK client, as a ladder match seats one beside hosted bots;
    `arena match` runs it in a thread. Raises ValueError (naming the known bots) for an unknown
    name. It prints nothing; what ended its stream early goes to the seat's log file.
    """
    client = _BuiltinClient(make_bot(game, name, seed), 0.0)

    def play_seat(address: str, token: str, log_path: Path) -> None:
        with log_path.open("w", encoding="utf-8") as out:
            try:
                play(client, address, token)
            except grpc.RpcError as exc:  # the referee ruled (forfeit) or went away: its replay says so
                code = exc.code().name if isinstance(exc, grpc.Call) else "error"
                details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
                out.write(f"built-in {name}: the stream ended: {code}: {details}\n")
            except Exception:
                out.write(f"built-in {name} failed:\n{traceback.format_exc()}")

    return play_seat


def _play_builtin(bot: _BuiltinClient, address: str, token: str, tls: Tls | None = None) -> None:
    try:
        play(bot, address, token, tls=tls)
    except grpc.RpcError as exc:  # the referee ruled (forfeit) or went away: its replay says so
        log.debug("built-in %s: stream ended: %s", bot.name, exc)
    except Exception:
        log.exception("built-in %s failed", bot.name)


def _result(msg: Any) -> Result:
    import json

    return Result(
        scores=tuple(msg.scores),
        places=tuple(msg.places),
        outcomes=tuple(msg.outcomes),
        team_won=msg.team_won if msg.HasField("team_won") else None,
        details=json.loads(msg.details_json) if msg.details_json else {},
    )


class GrpcMatchExecutor:
    """`workers.executor.MatchExecutor` for matches with hosted and/or remote seats."""

    def __init__(
        self,
        referee_addr: str | None = None,
        admin_token: str | None = None,
        *,
        sandbox: BotSandbox | None = None,
        unsafe_no_sandbox: bool = False,
    ) -> None:
        """`sandbox`: where hosted bots run (default: `workers.sandbox.Sandbox`, made and checked
        at the first hosted match). `unsafe_no_sandbox`: run them as plain processes instead;
        an operator's explicit choice (``arena worker --unsafe-no-sandbox``), logged for every
        seat and recorded in the replay."""
        #: None: read $ARENA_REFEREE_ADDR / $ARENA_ADMIN_TOKEN at each use
        self._referee_addr = referee_addr
        self._admin_token = admin_token
        self._sandbox_given = sandbox
        self.unsafe_no_sandbox = unsafe_no_sandbox
        self._lock = threading.Lock()
        #: (pid, address) -> channel: created lazily, so a forked child never uses the parent's
        self._channels: dict[tuple[int, str], grpc.Channel] = {}
        #: (the referees asked, when, bot id -> the referee holding its stream)
        self._lobby: tuple[tuple[str, ...], float, dict[int, str]] | None = None
        #: referee -> when ListBots last failed there (skipped for REFEREE_DOWN_S)
        self._down: dict[str, float] = {}

    @property
    def referee_addr(self) -> str | None:
        """The long-lived referee remote bots connect to, if there is one."""
        return self._referee_addr or ",".join(settings.current().referee_addrs) or None

    @property
    def admin_token(self) -> str | None:
        """The admin token of that referee: given, else the file $ARENA_ADMIN_TOKEN_FILE (a
        Docker secret), else $ARENA_ADMIN_TOKEN."""
        if self._admin_token:
            return self._admin_token
        path = settings.current().admin_token_file
        if path:
            from referee.server.auth import read_admin_token

            return read_admin_token(path)  # CredentialError says what is wrong with the file
        return settings.current().admin_token

    # --- the matchmaker's question -------------------------------------------------------

    def can_seat(self, command: BotCommand, bot_id: int | None = None) -> bool:
        """Hosted: always. Remote: only while bot `bot_id` is connected to the referee."""
        if command.kind != "remote":
            return True
        return bot_id is not None and bot_id in self.connected_bots()

    @property
    def referee_addrs(self) -> tuple[str, ...]:
        """The long-lived referees: $ARENA_REFEREE_ADDR is one HOST:PORT or several,
        comma-separated (one per host; remote bots hold a stream to any one of them)."""
        raw = self.referee_addr
        return tuple(a.strip() for a in raw.split(",") if a.strip()) if raw else ()

    def connected_bots(self) -> frozenset[int]:
        """Ids of the bots connected to any referee of $ARENA_REFEREE_ADDR (none if unreachable)."""
        return frozenset(self.placements())

    def referee_of(self, bot_id: int) -> str | None:
        """The referee holding remote bot `bot_id`'s stream, or None if it is connected nowhere.
        The matchmaker seats remote bots together only when they share a referee."""
        return self.placements().get(bot_id)

    def placements(self) -> dict[int, str]:
        """bot id -> the referee holding its stream, over every referee (cached `LOBBY_CACHE_S`);
        a bot listed by two (a stream the dead one has not noticed yet) counts at the first."""
        addresses = self.referee_addrs
        if not addresses:
            return {}
        with self._lock:
            now = time.monotonic()
            cached = self._lobby
            if cached is not None and cached[0] == addresses and now - cached[1] < LOBBY_CACHE_S:
                return cached[2]
            found: dict[int, str] = {}
            for address in addresses:
                # a referee that just failed to answer is skipped a while: a lost host must not
                # cost every matchmaker pass the full RPC timeout
                if now - self._down.get(address, -REFEREE_DOWN_S) < REFEREE_DOWN_S:
                    continue
                ids = self._list_bots(address)
                if ids is None:
                    self._down[address] = now
                    continue
                self._down.pop(address, None)
                for bot_id in ids:
                    found.setdefault(bot_id, address)
            self._lobby = (addresses, now, found)
            return found

    def _list_bots(self, address: str) -> frozenset[int] | None:
        """The bots connected to the referee at `address`; None if it cannot be reached."""
        key = (os.getpid(), address)
        opened = self._channels.get(key)
        if opened is None:
            # created here, lazily: after a fork the parent's channel is never used
            opened = self._channels[key] = channel(address, referee_tls(), options=[])
        call = opened.unary_unary(
            "/arena.v1.AdminService/ListBots",
            request_serializer=admin_pb2.ListBotsRequest.SerializeToString,
            response_deserializer=admin_pb2.ListBotsResponse.FromString,
        )
        auth = bearer(self.admin_token) if self.admin_token else ()
        try:
            listing = call(admin_pb2.ListBotsRequest(), metadata=auth, timeout=5)
        except grpc.RpcError as exc:
            log.warning("cannot list the connected bots at %s: %s", address, exc)
            return None
        return frozenset(int(b.bot_id) for b in listing.bots)

    def place(self, spec: LadderMatchSpec) -> str:
        """The referee a match with remote seats is created on: the one holding its remote bots'
        streams (the one holding most of them if they are split, which the matchmaker avoids);
        the first referee if none of them is connected (its seats then wait `connect_ms` and
        are forfeited, like any bot that never comes)."""
        addresses = self.referee_addrs
        if not addresses:
            raise ExecutorUnavailable(
                f"match {spec.match_id} has a remote bot: set ${ENV_REFEREE_ADDR} to the referee(s) "
                "they connect to (`arena serve referee --db URL`)"
            )
        held = Counter(
            where for s in spec.seats
            if s.command.kind == "remote" and (where := self.referee_of(s.bot_id)) is not None
        )
        return held.most_common(1)[0][0] if held else addresses[0]

    # --- playing ---------------------------------------------------------------------------

    def _sandbox(self) -> BotSandbox | None:
        """The sandbox for hosted seats; None only when the operator said --unsafe-no-sandbox.
        Raises ExecutorUnavailable (the match fails as ``unavailable``) where it can't run."""
        if self.unsafe_no_sandbox:
            return None
        if self._sandbox_given is None:
            from workers.sandbox import Sandbox, SandboxUnavailable

            made = Sandbox()
            try:
                made.check()
            except SandboxUnavailable as exc:
                raise ExecutorUnavailable(
                    f"hosted bots run only in the sandbox, and it cannot run here: {exc} "
                    "(an operator may start the worker with --unsafe-no-sandbox)"
                ) from exc
            self._sandbox_given = made
        return self._sandbox_given

    def execute(self, spec: LadderMatchSpec, stop: StopSignal) -> Execution:
        """Play `spec` over gRPC; raises MatchAborted when `stop` says so."""
        reason = stop.stop_reason()
        if reason is not None:
            raise MatchAborted(reason)
        return asyncio.run(self._execute(spec, stop))

    async def _execute(self, spec: LadderMatchSpec, stop: StopSignal) -> Execution:
        """Set up where the match is played, then play it; the venue is torn down whatever
        happens (its phases: :meth:`_open_venue`, :func:`_play_match`, :func:`_close_venue`)."""
        remote = any(s.command.kind == "remote" for s in spec.seats)
        hosted = any(s.command.kind == "hosted" for s in spec.seats)
        sandbox = self._sandbox() if hosted else None
        venue = await self._open_venue(spec, remote, sandbox)
        try:
            execution = await _play_match(spec, stop, venue)
        except grpc.aio.AioRpcError as exc:
            # the long-lived referee went away (its host was lost): not the match's fault, and
            # its remote bots reconnect elsewhere; the sweeper requeues it (workers.lease)
            if remote and exc.code() in _REFEREE_LOST:
                raise HandBack(f"referee {venue.address} lost: {exc.code().name}: {exc.details()}") from exc
            raise
        finally:
            await _close_venue(venue)
        if remote:  # the placement, kept with the match: which referee played its remote seats
            for record in execution.replay["seats"]:
                if record.get("kind") == "remote":
                    record["referee"] = venue.address
        return execution

    async def _open_venue(self, spec: LadderMatchSpec, remote: bool, sandbox: Any) -> _Venue:
        """Set-up: the referee the match is played on (the long-lived one for a remote seat,
        else one started here), the socket sandboxed bots reach it by, the log folder."""
        # sandboxed bots have no network: they reach the referee through a Unix socket in a
        # folder of this match (the local referee listens on it; for the long-lived referee a
        # proxy forwards it)
        socket_dir = Path(tempfile.mkdtemp(prefix="arena-referee-")) if sandbox else None
        socket_path = socket_dir / "referee.sock" if socket_dir is not None else None
        local: RunningReferee | None = None
        proxy: asyncio.Server | None = None
        if remote:
            address = self.place(spec)
            admin_token = self.admin_token
            if socket_path is not None:
                # sandboxed bots speak plaintext on the local socket; the proxy adds the TLS
                proxy = await unix_to_tcp_proxy(socket_path, address, referee_tls())
        else:
            admin_token = secrets.token_urlsafe(16)
            local = await start(
                "127.0.0.1",
                0,
                admin_token=admin_token,
                unix_socket=str(socket_path) if socket_path is not None else None,
            )
            address = local.address
        log_root = settings.current().bot_log_dir
        logs = (
            Path(log_root) / f"match-{spec.match_id}"
            if log_root
            else Path(tempfile.mkdtemp(prefix=f"arena-match-{spec.match_id}-"))
        )
        return _Venue(
            address=address, admin_token=admin_token, remote=remote, sandbox=sandbox,
            socket_dir=socket_dir, socket_path=socket_path, local=local, proxy=proxy,
            logs=logs, keep_logs=bool(log_root),
        )


@dataclass
class _Venue:
    """Where one match is played, and everything :func:`_close_venue` tears down."""

    address: str
    admin_token: str | None
    remote: bool
    sandbox: Any
    socket_dir: Path | None
    socket_path: Path | None
    local: RunningReferee | None
    proxy: asyncio.Server | None
    #: the hosted seats' logs (kept only under $ARENA_BOT_LOG_DIR)
    logs: Path
    keep_logs: bool
    #: what :func:`_launch_seats` started
    procs: list[BotProcess] = field(default_factory=list)
    runs: list[BotRun] = field(default_factory=list)
    watchers: list[asyncio.Task[None]] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    @property
    def tls(self) -> Tls | None:
        return referee_tls() if self.remote else None


def _create_request(spec: LadderMatchSpec) -> Any:
    """The CreateMatch request of `spec` (unique per attempt: a requeued match is created afresh)."""
    tc = spec.time_control
    return admin_pb2.CreateMatchRequest(
        game=spec.game,
        engine_version=spec.engine_version,
        seats=[
            admin_pb2.SeatSpec(
                name=s.bot_name[:64], bot_id=s.bot_id if s.command.kind == "remote" else 0
            )
            for s in spec.seats
        ],
        seed=spec.seed,
        config_json=canonical_json(dict(spec.config)),
        time_control=TimeControl(
            decision_ms=tc.decision_ms,
            bank_ms=tc.bank_ms,
            max_strikes=tc.max_strikes,
            cpu_decision_ms=tc.cpu_decision_ms,
            cpu_bank_ms=tc.cpu_bank_ms,
        ).to_proto(),
        match_id=f"ladder-{spec.match_id}-{secrets.token_hex(4)}",
    )


async def _play_match(spec: LadderMatchSpec, stop: StopSignal, venue: _Venue) -> Execution:
    """Create the match on the venue's referee, launch its seats, follow it to its end, then
    collect what the bots left (their exits, logs and sandbox figures)."""
    tls = venue.tls
    keepalive = _REFEREE_KEEPALIVE if venue.remote else None
    async with aio_channel(venue.address, tls, options=keepalive) as opened:
        admin = admin_calls(opened)
        auth = bearer(venue.admin_token) if venue.admin_token else ()
        created = await admin["CreateMatch"](_create_request(spec), metadata=auth, timeout=RPC_TIMEOUT_S)
        match_id = created.match_id
        session = venue.local.referee.get(match_id) if venue.local is not None else None
        if session is not None:
            session.processes_watched = True
        await _launch_seats(spec, venue, created.seat_tokens, session, tls)
        events: list[admin_pb2.MatchEvent] = []
        status, replay_bytes = await _follow(
            admin, auth, match_id, stop, events, live_feed(spec.match_id)
        )
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*venue.watchers), EXIT_WAIT_S)
    seat_logs = {run.seat: read_log(run.log_path) for run in venue.runs}
    for run in venue.runs:
        if run.exit_code not in (0, None):
            log.warning(
                "match %s seat %d (%s) exited with %s:\n%s",
                spec.match_id,
                run.seat,
                run.command,
                run.exit_code,
                run.log_tail(),
            )
    sandbox_figures = {run.seat: _sandbox_figures(run) for run in venue.runs}
    return _execution(spec, status, replay_bytes, events, seat_logs, sandbox_figures)


async def _launch_seats(
    spec: LadderMatchSpec, venue: _Venue, seat_tokens: Sequence[str], session: Any, tls: Tls | None
) -> None:
    """Launch: each hosted seat's bot process (sandboxed unless the worker is unsafe) and each
    built-in seat's in-process client thread; remote seats are already connected."""
    sandbox = venue.sandbox
    if any(seat.command.kind == "hosted" for seat in spec.seats):
        venue.logs.mkdir(parents=True, exist_ok=True)
    for seat, token in zip(spec.seats, seat_tokens, strict=True):
        if seat.command.kind == "hosted":
            if sandbox is None:
                log.warning(
                    "UNSANDBOXED: match %s seat %d runs %r without the sandbox "
                    "(--unsafe-no-sandbox)", spec.match_id, seat.seat, seat.command.raw,
                )
            proc, run, watcher = await launch_bot(
                seat.seat,
                seat.command.raw,
                venue.address,
                token,
                venue.logs / f"seat{seat.seat}.log",
                # unsandboxed bots reach the long-lived referee directly, so they
                # need its TLS; sandboxed ones go through the proxy, which adds it
                base_env={**bot_environment(), **_sdk_tls_env(tls if sandbox is None else None)},
                on_exit=(
                    (lambda run: session.process_exited(run.seat, run.exit_code or 0))
                    if session is not None
                    else None
                ),
                sandbox=sandbox,
                files_dir=Path(seat.files_dir) if seat.files_dir else None,
                referee_socket=venue.socket_path,
            )
            if session is not None and sandbox is not None:
                session.set_cpu_meter(seat.seat, proc.cpu_seconds)
            venue.procs.append(proc)
            venue.runs.append(run)
            venue.watchers.append(watcher)
        elif seat.command.kind == "builtin":
            local_bot = make_bot(spec.game, seat.command.builtin, spec.seed * 31 + seat.seat)
            client = _BuiltinClient(local_bot, seat.command.think_ms / 1000)
            thread = threading.Thread(
                target=_play_builtin,
                args=(client, venue.address, token, tls),
                name=f"builtin-{spec.match_id}-{seat.seat}",
                daemon=True,
            )
            thread.start()
            venue.threads.append(thread)


def _publish(feed: LiveFeed, event: admin_pb2.MatchEvent) -> None:
    """Hand a referee event to the match's live feed: its public part only (an action's seat,
    text and reason; a forfeit), never its index (ladder/live.py)."""
    which = event.WhichOneof("event")
    if which == "action":
        feed.action(event.action.seat, event.action.text, event.action.reason)
    elif which == "forfeit":
        feed.forfeit(event.forfeit.seat, event.forfeit.reason)


async def _follow(
    admin: Any,
    auth: Any,
    match_id: str,
    stop: StopSignal,
    events: list[admin_pb2.MatchEvent],
    feed: LiveFeed | None = None,
) -> tuple[Any, bytes]:
    """Wait: follow the match's events to its end (status, replay bytes), cancelling it on the
    referee and raising MatchAborted as soon as `stop` says so. Each event also goes to the
    match's live `feed`, if it has one."""

    def on_event(event: admin_pb2.MatchEvent) -> None:
        events.append(event)
        if feed is not None:
            _publish(feed, event)

    follow = asyncio.create_task(follow_match(admin, auth, match_id, on_event))
    try:
        while not follow.done():
            await asyncio.wait({follow}, timeout=POLL_S)
            reason = stop.stop_reason()
            if reason is not None and not follow.done():
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await admin["CancelMatch"](
                        admin_pb2.CancelMatchRequest(match_id=match_id, reason=reason),
                        metadata=auth,
                        timeout=5,
                    )
                raise MatchAborted(reason)
        status, replay_bytes, _ = follow.result()
        return status, replay_bytes
    finally:
        if not follow.done():
            follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await follow


async def _close_venue(venue: _Venue) -> None:
    """Clean-up: the bots, the local referee or the proxy, the socket folder, the built-in
    threads (up to EXIT_WAIT_S together), the logs unless kept."""
    await stop_bots(venue.procs, venue.watchers)
    if venue.local is not None:
        await venue.local.stop(grace=0.2)
    if venue.proxy is not None:
        venue.proxy.close()
        await venue.proxy.wait_closed()
    if venue.socket_dir is not None:
        shutil.rmtree(venue.socket_dir, ignore_errors=True)
    deadline = time.monotonic() + EXIT_WAIT_S
    for thread in venue.threads:
        await asyncio.to_thread(thread.join, max(0.0, deadline - time.monotonic()))
    if not venue.keep_logs:
        shutil.rmtree(venue.logs, ignore_errors=True)

def _sandbox_figures(run: BotRun) -> dict[str, Any]:
    """What the sandbox measured of a hosted seat (kept in the replay's seat record)."""
    proc = run.process
    if not run.sandbox or proc is None:
        return {"kind": "none", "unsafe_no_sandbox": True}
    figures: dict[str, Any] = {"kind": run.sandbox}
    cpu = proc.cpu_seconds()
    if cpu is not None:
        figures["cpu_ms"] = round(cpu * 1000)
    for name in ("memory_peak_bytes", "output_bytes", "output_truncated"):
        value = getattr(proc, name, None)
        value = value() if callable(value) else value
        if value is not None:
            figures[name] = value
    # read as the bot exited, else now (a bot still running at the end: its wall clock, or an
    # OOM-killed child)
    reason = run.killed_for or killed_for(proc, run.exit_code)
    if reason:
        figures["killed_for"] = reason
    return figures


def read_log(path: Path, limit: int = LOG_LIMIT_BYTES) -> tuple[bytes, bool]:
    """A hosted seat's captured output: (its last `limit` bytes, whether it was cut)."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - limit))
            return f.read(limit), size > limit
    except OSError:
        return b"", False


def _execution(
    spec: LadderMatchSpec,
    status: admin_pb2.MatchStatus,
    replay_bytes: bytes,
    events: Sequence[admin_pb2.MatchEvent],
    logs: Mapping[int, tuple[bytes, bool]] | None = None,
    sandboxes: Mapping[int, dict[str, Any]] | None = None,
) -> Execution:
    if not status.HasField("result"):
        raise RuntimeError(f"match {status.match_id} ended without a result ({status.ended_by})")
    replay = loads(replay_bytes)
    # name the ladder's bots in the replay (as the in-process executor does)
    replay["seats"] = [
        {
            **recorded,
            # what the bot's hello said it is, kept beside the ladder's names
            **({"client_name": recorded["bot_name"]} if "bot_name" in recorded else {}),
            "bot_id": s.bot_id,
            "bot_name": s.bot_name,
            "bot_version_id": s.version_id,
            "version": s.version,
            "kind": s.command.kind,
            # hosted seats: how the bot was run (the match page shows an unsandboxed seat)
            **({"sandbox": (sandboxes or {}).get(s.seat, {})} if s.command.kind == "hosted" else {}),
        }
        for recorded, s in zip(replay["seats"], spec.seats, strict=True)
    ]
    forfeits = tuple((e.forfeit.seat, e.forfeit.reason) for e in events if e.WhichOneof("event") == "forfeit")
    reason = "finished"
    if forfeits:
        reason = "forfeit: " + "; ".join(f"seat {seat} {why}" for seat, why in forfeits)
    return Execution(
        result=_result(status.result),
        replay=replay,
        reason=reason,
        decisions=status.decisions,
        decision_seconds=tuple(
            e.action.millis / 1000
            for e in events
            if e.WhichOneof("event") == "action" and not e.action.reason
        ),
        timeouts=sum(
            1
            for e in events
            # a missed wall deadline or an exhausted CPU allowance (PROTOCOL.md, "CPU time")
            if e.WhichOneof("event") == "strike" and e.strike.reason in ("timeout", "cpu_time")
        ),
        forfeits=tuple((seat, forfeit_kind(why)) for seat, why in forfeits),
        logs=dict(logs or {}),
    )


def create_executor() -> GrpcMatchExecutor:
    """The factory `workers.executor` loads (``$ARENA_REFEREE_EXECUTOR``'s default).

    ``$ARENA_UNSAFE_NO_SANDBOX=1`` (what ``arena worker --unsafe-no-sandbox`` sets) runs hosted
    bots without the sandbox."""
    unsafe = settings.current().unsafe_no_sandbox
    if unsafe:
        log.warning("UNSAFE: hosted bots run WITHOUT the sandbox (%s=1)", ENV_UNSAFE_NO_SANDBOX)
    return GrpcMatchExecutor(unsafe_no_sandbox=unsafe)


def _sdk_tls_env(tls: Tls | None) -> dict[str, str]:
    """ARENA_TLS / ARENA_CA for an SDK bot that connects to a TLS referee (else nothing)."""
    if tls is None or not tls.enabled:
        return {}
    return {TLS_ENV: "1", **({TLS_CA_ENV: str(tls.ca)} if tls.ca is not None else {})}


async def unix_to_tcp_proxy(socket_path: Path, address: str, tls: Tls | None = None) -> asyncio.Server:
    """Listen on `socket_path` and forward every connection to the referee at HOST:PORT.

    Sandboxed bots have no network; in a match on the long-lived referee (one with a remote bot)
    this is their way to it. It forwards bytes to that one address and nothing else. With `tls`
    the upstream connection is TLS (checked against `tls.ca`, ALPN h2): the bot speaks
    plaintext gRPC on the socket, which never leaves this host.
    """
    host, _, port = address.rpartition(":")
    context: ssl.SSLContext | None = None
    if tls is not None and tls.enabled:
        context = ssl.create_default_context(cafile=str(tls.ca) if tls.ca is not None else None)
        context.set_alpn_protocols(["h2"])

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            # a TLS connection closes with a close_notify exchange, which a peer may never
            # answer: give it a moment, then drop the connection
            try:
                await asyncio.wait_for(writer.wait_closed(), PROXY_CLOSE_S)
            except (TimeoutError, ConnectionError, OSError, ssl.SSLError):
                writer.transport.abort()

    async def connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(host.strip("[]"), int(port))
        except OSError:
            writer.close()
            return
        if context is not None:
            try:  # TLS on the open connection, so a failed handshake still closes it
                await up_writer.start_tls(context, server_hostname=host.strip("[]"))
            except (OSError, ssl.SSLError):
                up_writer.close()
                writer.close()
                return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_unix_server(connect, path=str(socket_path))
    socket_path.chmod(0o666)
    return server
