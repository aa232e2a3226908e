"""Every ``ARENA_*`` environment variable of the platform: its meaning, its default, who reads it.

This is the one list (tests/test_settings.py fails on an ``ARENA_`` name in referee/, ladder/ or
workers/ that is not declared here), and the platform reads them through :func:`get`. It sits in
the referee, the lowest layer, so that every component can import it. The SDKs under ``bots/``
are not platform code: they know only the wire contract and read their few variables
(``ARENA_REFEREE``, ``ARENA_TOKEN``, ``ARENA_BOT_TOKEN``, ``ARENA_TLS``, ``ARENA_CA``) themselves;
they are declared here as what the platform *sets* for a bot.

``ARENA_REFEREE`` and ``ARENA_REFEREE_ADDR`` are two different things:

* ``ARENA_REFEREE`` is given **to a bot**: the address of the referee its seat waits on (a
  HOST:PORT or ``unix:PATH``), set by the launcher or the sandbox for each match, read by the
  SDKs (referee/server/PROTOCOL.md). The platform never reads it for itself.
* ``ARENA_REFEREE_ADDR`` configures **a worker**: the long-lived referees (HOST:PORT, comma
  separated) where remote bots wait in the lobby; matches with a remote seat are played there.

A variable set to the empty string counts as unset (a compose file's ``X: ""`` means "the
default").

The values are parsed in one place, :class:`Settings`: every ``ARENA_*`` variable the platform
reads, plus ``DATABASE_URL``, ``BROKER_URL`` and ``PROMETHEUS_MULTIPROC_DIR``, typed and checked
together. The `arena` command parses them before it does anything else (a bad value is one
``error:`` line naming the variable, exit 2); every module then reads :func:`current` instead of
the environment, and whether the platform runs distributed (Celery) or local is
:attr:`Settings.distributed`, decided here alone. Why :func:`current` memoizes on the
environment rather than freezing one object: see settings.md next to this file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, TypeVar

__all__ = [
    "OTHER_VARIABLES", "PREFIXES", "SANDBOX_LIMITS", "VARIABLES", "Settings", "SettingsError",
    "Variable", "current", "get", "is_declared",
]


@dataclass(frozen=True, slots=True)
class Variable:
    """One ``ARENA_*`` variable."""

    name: str
    #: what it means, for whoever sets it
    meaning: str
    #: the value when it is unset or empty (None: no value, the feature is off or absent)
    default: str | None = None
    #: who reads it: a component (referee, ladder, workers), "bot" (set by the platform for a
    #: bot's SDK), "client" (`arena login` and the commands after it) or "bench" / "tests"
    read_by: str = "workers"


_SANDBOX_LIMITS: Final = (
    ("MEMORY_MB", "512", "memory of all the bot's processes together, MiB (cgroup)"),
    ("PIDS", "64", "processes and threads of the bot together (cgroup, RLIMIT_NPROC)"),
    ("OPEN_FILES", "256", "open file descriptors per process (RLIMIT_NOFILE)"),
    ("FILE_SIZE_MB", "16", "the largest file a bot may write, MiB (RLIMIT_FSIZE)"),
    ("SCRATCH_MB", "64", "size of the bot's private writable /scratch, MiB (tmpfs)"),
    ("OUTPUT_KB", "1024", "stdout + stderr kept in the owner's log, KiB"),
    ("CPU_SECONDS", "600", "CPU seconds for the whole match (RLIMIT_CPU)"),
    ("WALL_SECONDS", "3600", "wall seconds the sandbox may live"),
    ("CPU_CORES", "1", "cores the bot's processes may keep busy at once (cgroup CPU quota)"),
)

#: the sandbox limits' field names (``memory_mb``, ...), in order, with their defaults
SANDBOX_LIMITS: Final[Mapping[str, int]] = {f.lower(): int(d) for f, d, _ in _SANDBOX_LIMITS}

_DECLARED: Final = (
    # --- the referee --------------------------------------------------------------------------
    Variable("ARENA_ADMIN_TOKEN", "the referee's admin credential (admin calls need it); a worker "
             "uses it to call its long-lived referees", None, "referee, workers"),
    Variable("ARENA_ADMIN_TOKEN_FILE", "a file whose first line is the admin token (a Docker "
             "secret); wins over ARENA_ADMIN_TOKEN", None, "referee, workers"),
    Variable("ARENA_REFEREE_PROCESS", "set by `serve referee --processes N` for each child: its "
             "index (exported as the label process of arena_referee_process_restarts)", None, "referee"),
    Variable("ARENA_REFEREE_RESTARTS", "set by `serve referee --processes N` for each child: how "
             "many times it restarted that index (arena_referee_process_restarts)", "0", "referee"),
    # --- what the platform sets for a bot (read by the SDKs, never by the platform) -----------
    Variable("ARENA_REFEREE", "given to a bot: the referee its seat waits on (HOST:PORT, several "
             "comma-separated, or unix:PATH)", None, "bot"),
    Variable("ARENA_TOKEN", "given to a bot: its one-time seat token", None, "bot"),
    Variable("ARENA_BOT_TOKEN", "a remote bot's token (`arena bot remote` prints it)", None, "bot"),
    Variable("ARENA_TLS", "given to a bot: 1 = the referee serves TLS", None, "bot"),
    Variable("ARENA_CA", "given to a bot: a CA file to trust for the referee's TLS", None, "bot"),
    Variable("ARENA_SCRATCH", "given to a sandboxed bot: its private writable folder", None, "bot"),
    Variable("ARENA_PROTO_DIR", "given to a sandboxed bot: the arena.v1 .proto files", None, "bot"),
    # --- the workers ---------------------------------------------------------------------------
    Variable("ARENA_QUEUE", "the Celery queue matches are sent to and `arena worker` consumes",
             "arena"),
    Variable("ARENA_LEASE_SECONDS", "a running match's lease: unrenewed this long, it is "
             "requeued", "30"),
    Variable("ARENA_PLATFORM_FAULTS", "platform faults (expired leases: dead workers, lost "
             "leases, long database outages) that park a match for an operator; it is played "
             "again after each one before that (workers/README.md, Platform faults)", "10",
             read_by="ladder"),
    Variable("ARENA_BEAT_SECONDS", "seconds between two passes of `arena beat` (sweeper, "
             "matchmaker, competitions, campaign ladders)", "5"),
    Variable("ARENA_QUEUE_DEPTH", "matches the matchmaker keeps queued per ladder", "8"),
    Variable("ARENA_CAMPAIGNS_PER_LADDER", "campaigns `arena beat` keeps running on each campaign "
             "ladder (each has one game queued or in play at a time); 0 starts none", "4"),
    Variable("ARENA_CAMPAIGN_GAMES", "games of each campaign `arena beat` starts on a campaign "
             "ladder (the Book may end one sooner)", "10"),
    Variable("ARENA_DUPLICATE_SETS", "1 = the matchmaker plans each pairing as a duplicate set "
             "(the seed played once per seat rotation)"),
    Variable("ARENA_QUALIFICATION_GAMES", "games a new version plays to qualify (hosted: in the "
             "sandbox; remote: once its bot is connected)", "2"),
    Variable("ARENA_METRICS_PORT", "the port a worker serves its merged Prometheus metrics on "
             "(`arena worker --metrics-port` sets it)"),
    Variable("ARENA_REFEREE_EXECUTOR", "module:function of the match executor factory",
             "workers.grpc_executor:create_executor"),
    Variable("ARENA_REFEREE_ADDR", "a worker's long-lived referees (HOST:PORT, comma-separated), "
             "where remote bots wait; not the same as ARENA_REFEREE (see above)"),
    Variable("ARENA_REFEREE_CA", "a CA file: the worker reaches ARENA_REFEREE_ADDR over TLS "
             "trusting it"),
    Variable("ARENA_REFEREE_TLS", "1 = reach ARENA_REFEREE_ADDR over TLS with the system's roots"),
    Variable("ARENA_BOT_LOG_DIR", "where hosted bots' output is kept (match-<id>/seat<N>.log); "
             "unset: a temporary folder"),
    Variable("ARENA_BOT_FILES_DIR", "where uploaded bot archives are unpacked (<sha256>/); unset: "
             "bots/ in ARENA_SANDBOX_STAGE_DIR"),
    Variable("ARENA_SANDBOX_STAGE_DIR", "where the sandbox stages the SDKs, the JavaScript kit and the "
             "protos it mounts (workers/sandbox/staging.py); unset: /var/lib/arena-sandbox as root, "
             "else <temp dir>/arena-sandbox-<uid>"),
    Variable("ARENA_UNSAFE_NO_SANDBOX", "1 = hosted bots run as plain processes (only `arena "
             "worker --unsafe-no-sandbox` sets it)"),
    Variable("ARENA_SANDBOX_UID_BASE", "the first uid of the sandboxed bots' uid range", "620000"),
    Variable("ARENA_SANDBOX_UID_COUNT", "how many uids the sandbox range holds", "10000"),
    Variable("ARENA_SANDBOX_LOCK_DIR", "where the sandbox keeps its uid locks",
             "/run/arena-sandbox/uids"),
    *(Variable(f"ARENA_SANDBOX_{field}", f"sandbox limit: {meaning}", default)
      for field, default, meaning in _SANDBOX_LIMITS),
    # --- the ladder ----------------------------------------------------------------------------
    Variable("ARENA_OPEN_SIGNUP", "1 = anyone may create an account through the API", None, "ladder"),
    Variable("ARENA_API_CONCURRENT_UPLOADS", "uploads one `arena serve api` process receives "
             "and checks at once; one more is answered 503 with Retry-After", "4", "ladder"),
    Variable("ARENA_RESERVED_BOT_PREFIXES", "bot name prefixes (comma-separated, compared "
             "ignoring case) no account may register, beyond the platform's own (reference-, "
             "builtin-) and the built-in bots' names; `arena audit` lists bots holding one", None,
             "ladder"),
    Variable("ARENA_PUBLIC_REFEREE", "the long-lived referee's address as remote bots reach it "
             "(HOST:PORT), which the API gives bot authors (`GET /api/referee`, `arena bot "
             "remote`); unset: the API says the operator has not published one", None, "ladder"),
    Variable("ARENA_PUBLIC_REFEREE_TLS", "whether ARENA_PUBLIC_REFEREE serves TLS: 1 (a bot "
             "connects with --tls) or 0 (plaintext, a referee started --insecure)", "1", "ladder"),
    Variable("ARENA_SEARCH_MS", "the built-in search bot's (builtin:ismcts) wall-clock search per "
             "decision, in rated and qualification games alike (a seat's timing must not tell "
             "the two apart); tests turn it down", "250", "referee"),
    Variable("ARENA_LIVE_DELAY_DECISIONS", "a live match's spectators see a step once this many "
             "later decisions were played (and ARENA_LIVE_DELAY_SECONDS passed); 0: no decision "
             "delay (ladder/live.py)", "2", "ladder"),
    Variable("ARENA_LIVE_DELAY_SECONDS", "a live match's spectators see a step once this many "
             "seconds passed since it was played (and ARENA_LIVE_DELAY_DECISIONS later decisions); "
             "0: no time delay", "5", "ladder"),
    Variable("ARENA_LIVE_SUBSCRIBERS", "live-match streams (GET /api/matches/{id}/live) one API "
             "process serves at once; one more is answered 503 with Retry-After", "100", "ladder"),
    Variable("ARENA_LIVE_DIR", "the embedded mode's live-match folder (no Redis broker: workers "
             "append each running match's public record to a file there, the API reads it); "
             "unset: <SQLite file>.live, or a folder under the temporary folder", None,
             "ladder, workers"),
    # --- the client commands (`arena login`, `arena bot ...`) ------------------------------------
    Variable("ARENA_API_KEY", "the API key the client commands use (over the stored one)", None,
             "client"),
    Variable("ARENA_SERVER", "the API's URL the client commands use (over the stored one)", None,
             "client"),
    # --- benches and tests ----------------------------------------------------------------------
    Variable("ARENA_TEST_POSTGRES", "the PostgreSQL server tests and benches create their "
             "databases on", "postgresql://postgres@127.0.0.1:5432/postgres", "bench, tests"),
    Variable("ARENA_TEST_REDIS", "the Redis server tests use (a worker keeps it from its bots' "
             "environment)", "redis://127.0.0.1:6379", "tests"),
    Variable("ARENA_BENCH_POSTGRES", "the PostgreSQL server the workers' bench uses",
             "postgresql://postgres@127.0.0.1:5432/postgres", "bench"),
)

#: every variable, by name
VARIABLES: Final[Mapping[str, Variable]] = {v.name: v for v in _DECLARED}

#: name prefixes that stand for a family of declared variables (``ARENA_SANDBOX_<LIMIT>``), and
#: the namespace itself (a sandboxed bot gets only ``ARENA_*`` variables)
PREFIXES: Final = ("ARENA_", "ARENA_SANDBOX_")


def is_declared(name: str) -> bool:
    """True for a declared variable, or a declared prefix (a name ending in ``_``)."""
    return name in VARIABLES or name in PREFIXES


def get(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The value of the declared variable `name` in `environ` (default: this process's
    environment); its default when unset or empty. Raises KeyError for an undeclared name, so
    a misspelt variable fails where it is read instead of being silently unset."""
    variable = VARIABLES[name]
    value = (os.environ if environ is None else environ).get(name)
    return value if value else variable.default


#: the variables outside the ``ARENA_`` namespace the platform reads (the standard names of the
#: tools under it): name -> meaning
OTHER_VARIABLES: Final[Mapping[str, str]] = {
    "DATABASE_URL": "the ladder database (ladder/db.py; unset: a command's embedded SQLite file)",
    "BROKER_URL": "the Celery broker; set, the platform runs distributed (matches go to "
    "`arena worker` processes), unset it plays them in local processes",
    "PROMETHEUS_MULTIPROC_DIR": "prometheus_client's multiprocess folder (`arena demo` and "
    "`arena worker` make one when it is unset)",
}

#: every name :class:`Settings` reads (its memo key in :func:`current`)
_READ: Final = (*VARIABLES, *OTHER_VARIABLES)


class SettingsError(ValueError):
    """A variable holds a value its reader cannot use; the message is one line naming it."""

    def __init__(self, name: str, value: str, expected: str) -> None:
        super().__init__(f"${name} must be {expected}, not {value!r}")
        self.name = name


_T = TypeVar("_T")


def _whole(minimum: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        if not raw.strip().isdigit() or int(raw) < minimum:
            raise ValueError(f"a whole number of at least {minimum}")
        return int(raw)

    return parse


def _seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError("a number of seconds above 0")
    return value


def _flag(raw: str) -> bool:
    if raw.strip() not in ("0", "1"):
        raise ValueError("1 (on) or 0 (off)")
    return raw.strip() == "1"


def _port(raw: str) -> int:
    if not raw.strip().isdigit() or not 1 <= int(raw) <= 65535:
        raise ValueError("a port number (1-65535)")
    return int(raw)


def _host_port(raw: str) -> str:
    host, sep, port = raw.strip().rpartition(":")
    if (
        not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535
        or any(c.isspace() or c in "/,@" or not c.isprintable() for c in host)
    ):
        raise ValueError("one HOST:PORT")
    return raw.strip()


def _host_ports(raw: str) -> tuple[str, ...]:
    try:
        found = tuple(_host_port(a) for a in raw.split(",") if a.strip())
    except ValueError:
        found = ()
    if not found:
        raise ValueError("HOST:PORT, or several comma-separated")
    return found


def _non_negative_seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value >= 0 or value == float("inf"):
        raise ValueError("a number of seconds, 0 or more")
    return value


def _target(raw: str) -> str:
    module, sep, function = raw.strip().partition(":")
    if not sep or not module or not function.isidentifier():
        raise ValueError("module:function")
    return raw.strip()


def _text(raw: str) -> str:
    return raw


@dataclass(frozen=True, slots=True)
class Settings:
    """Every variable the platform reads, parsed and checked (:meth:`from_env`). The defaults
    are the declared ones (:data:`VARIABLES`); ``None`` is "unset: the feature is off/absent"."""

    # --- the referee
    admin_token: str | None
    admin_token_file: str | None
    referee_process: int | None
    referee_restarts: int
    # --- the workers
    queue: str
    lease_seconds: float
    platform_faults: int
    beat_seconds: float
    queue_depth: int
    campaigns_per_ladder: int
    campaign_games: int
    duplicate_sets: bool
    qualification_games: int
    metrics_port: int | None
    referee_executor: str
    referee_addrs: tuple[str, ...]
    referee_ca: str | None
    referee_tls: bool
    bot_log_dir: str | None
    bot_files_dir: str | None
    sandbox_stage_dir: str | None
    unsafe_no_sandbox: bool
    sandbox_uid_base: int
    sandbox_uid_count: int
    sandbox_lock_dir: str
    #: ``ARENA_SANDBOX_<FIELD>``: field name (``memory_mb``) -> limit
    sandbox_limits: Mapping[str, int]
    # --- the ladder
    open_signup: bool
    api_concurrent_uploads: int
    reserved_bot_prefixes: tuple[str, ...]
    public_referee: str | None
    public_referee_tls: bool
    search_ms: int
    live_delay_decisions: int
    live_delay_seconds: float
    live_subscribers: int
    live_dir: str | None
    # --- the client commands
    api_key: str | None
    server: str | None
    # --- benches and tests
    test_postgres: str
    test_redis: str
    bench_postgres: str
    # --- the standard names
    database_url: str | None
    broker_url: str | None
    prometheus_multiproc_dir: str | None

    @property
    def distributed(self) -> bool:
        """True when matches go to Celery workers (``BROKER_URL`` is set), False when the
        platform plays them in local processes: the one place this is decided."""
        return self.broker_url is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings in `environ` (default: this process's environment). Raises
        :class:`SettingsError` for the first variable whose value is unusable."""
        env = os.environ if environ is None else environ

        def value(name: str, parse: Callable[[str], _T]) -> _T | None:
            raw = get(name, env)
            if raw is None:
                return None
            try:
                return parse(raw)
            except ValueError as exc:
                raise SettingsError(name, raw, str(exc)) from None

        def required(name: str, parse: Callable[[str], _T]) -> _T:
            parsed = value(name, parse)
            assert parsed is not None, f"{name} is declared without a default"
            return parsed

        def other(name: str) -> str | None:
            return env.get(name) or None

        limits = {
            field: required(f"ARENA_SANDBOX_{field.upper()}", _whole(1)) for field in SANDBOX_LIMITS
        }
        prefixes = value("ARENA_RESERVED_BOT_PREFIXES", lambda r: r.split(",")) or []
        return cls(
            admin_token=(value("ARENA_ADMIN_TOKEN", _text) or "").strip() or None,
            admin_token_file=value("ARENA_ADMIN_TOKEN_FILE", _text),
            referee_process=value("ARENA_REFEREE_PROCESS", _whole(0)),
            referee_restarts=required("ARENA_REFEREE_RESTARTS", _whole(0)),
            queue=required("ARENA_QUEUE", _text),
            lease_seconds=required("ARENA_LEASE_SECONDS", _seconds),
            platform_faults=required("ARENA_PLATFORM_FAULTS", _whole(1)),
            beat_seconds=required("ARENA_BEAT_SECONDS", _seconds),
            queue_depth=required("ARENA_QUEUE_DEPTH", _whole(0)),
            campaigns_per_ladder=required("ARENA_CAMPAIGNS_PER_LADDER", _whole(0)),
            campaign_games=required("ARENA_CAMPAIGN_GAMES", _whole(1)),
            duplicate_sets=value("ARENA_DUPLICATE_SETS", _flag) or False,
            qualification_games=required("ARENA_QUALIFICATION_GAMES", _whole(1)),
            metrics_port=value("ARENA_METRICS_PORT", _port),
            referee_executor=required("ARENA_REFEREE_EXECUTOR", _target),
            referee_addrs=value("ARENA_REFEREE_ADDR", _host_ports) or (),
            referee_ca=value("ARENA_REFEREE_CA", _text),
            referee_tls=value("ARENA_REFEREE_TLS", _flag) or False,
            bot_log_dir=value("ARENA_BOT_LOG_DIR", _text),
            bot_files_dir=value("ARENA_BOT_FILES_DIR", _text),
            sandbox_stage_dir=value("ARENA_SANDBOX_STAGE_DIR", _text),
            unsafe_no_sandbox=value("ARENA_UNSAFE_NO_SANDBOX", _flag) or False,
            sandbox_uid_base=required("ARENA_SANDBOX_UID_BASE", _whole(1)),
            sandbox_uid_count=required("ARENA_SANDBOX_UID_COUNT", _whole(1)),
            sandbox_lock_dir=required("ARENA_SANDBOX_LOCK_DIR", _text),
            sandbox_limits=limits,
            open_signup=value("ARENA_OPEN_SIGNUP", _flag) or False,
            api_concurrent_uploads=required("ARENA_API_CONCURRENT_UPLOADS", _whole(1)),
            reserved_bot_prefixes=tuple(p.strip().lower() for p in prefixes if p.strip()),
            public_referee=value("ARENA_PUBLIC_REFEREE", _host_port),
            public_referee_tls=required("ARENA_PUBLIC_REFEREE_TLS", _flag),
            search_ms=required("ARENA_SEARCH_MS", _whole(1)),
            live_delay_decisions=required("ARENA_LIVE_DELAY_DECISIONS", _whole(0)),
            live_delay_seconds=required("ARENA_LIVE_DELAY_SECONDS", _non_negative_seconds),
            live_subscribers=required("ARENA_LIVE_SUBSCRIBERS", _whole(1)),
            live_dir=value("ARENA_LIVE_DIR", _text),
            api_key=value("ARENA_API_KEY", _text),
            server=value("ARENA_SERVER", _text),
            test_postgres=required("ARENA_TEST_POSTGRES", _text),
            test_redis=required("ARENA_TEST_REDIS", _text),
            bench_postgres=required("ARENA_BENCH_POSTGRES", _text),
            database_url=other("DATABASE_URL"),
            broker_url=other("BROKER_URL"),
            prometheus_multiproc_dir=other("PROMETHEUS_MULTIPROC_DIR"),
        )


_memo: tuple[tuple[str | None, ...], Settings] | None = None


def current() -> Settings:
    """This process's settings: parsed once (the `arena` command does it at start-up) and
    parsed again only if the environment changed since (settings.md says why). Raises
    :class:`SettingsError` for an unusable value."""
    global _memo
    key = tuple(os.environ.get(name) for name in _READ)
    memo = _memo
    if memo is None or memo[0] != key:
        memo = _memo = (key, Settings.from_env())
    return memo[1]
