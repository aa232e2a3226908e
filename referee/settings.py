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
default"). Values are strings; each reader parses its own (and says which variable was wrong).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = ["PREFIXES", "VARIABLES", "Variable", "get", "is_declared"]


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
