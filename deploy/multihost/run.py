"""The multi-host drill (see the package's docstring): hosts, services, the season, the figures."""

from __future__ import annotations

import contextlib
import glob
import io
import os
import pwd
import re
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

import grpc
import psycopg
import sqlalchemy as sa
from sqlalchemy import Engine

__all__ = ["HOST_NAMES", "PREFIX", "MultihostReport", "cleanup_stale", "report_json", "run_multihost"]

REPO: Final = Path(__file__).resolve().parents[2]
#: every namespace is named arena-mh-<pid of the run>-<host>; links amh<pid>...
PREFIX: Final = "arena-mh-"
LINK_PREFIX: Final = "amh"
HOST_NAMES: Final = ("db", "w1", "w2")
QUEUE: Final = "arena-mh"
PG_PORT: Final = 5432
REDIS_PORT: Final = 6379
REFEREE_PORT: Final = 50051
API_PORT: Final = 8443
#: the drill's lease and beat: a dead host's matches are requeued within LEASE_S + BEAT_S
LEASE_S: Final = 8
BEAT_S: Final = 2
#: pool processes per worker host
CONCURRENCY: Final = 2
#: queued matches the matchmaker keeps (both hosts' pool processes, plus slack)
QUEUE_DEPTH: Final = 6
EXAMPLE_BOT: Final = REPO / "bots" / "python" / "examples" / "random_bot.py"

_T = TypeVar("_T")


def _log(text: str) -> None:
    print(f"[multihost] {text}", file=sys.stderr, flush=True)


def _run(*args: str, check: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def _alive(pid: int) -> bool:
    """True while process `pid` exists and is not a zombie (dead, waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _netns_pids(ns: str) -> list[int]:
    out = _run("ip", "netns", "pids", ns, check=False).stdout
    return [int(p) for p in out.split()]


def kill_namespace_processes(ns: str, sig: int = signal.SIGKILL) -> int:
    """Send `sig` to every process in network namespace `ns` until none is left (SIGKILL);
    the number of processes signalled."""
    signalled: set[int] = set()
    for _ in range(50):
        pids = _netns_pids(ns)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
            signalled.add(pid)
        if sig != signal.SIGKILL:
            break
        time.sleep(0.1)
    return len(signalled)


def cleanup_stale() -> list[str]:
    """Remove the namespaces and links of earlier runs whose process is gone; their names."""
    removed = []
    for line in _run("ip", "netns", "list", check=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        found = re.match(rf"^{PREFIX}(\d+)-", name)
        if found and not _alive(int(found.group(1))):
            kill_namespace_processes(name)
            _run("ip", "netns", "del", name, check=False)
            removed.append(name)
    for line in _run("ip", "-o", "link", "show", check=False).stdout.splitlines():
        parts = line.split(":")
        if len(parts) < 2:
            continue
        name = parts[1].strip().split("@")[0]
        found = re.match(rf"^{LINK_PREFIX}(\d+)[a-z]", name)
        if found and not _alive(int(found.group(1))):
            _run("ip", "link", "del", name, check=False)
            removed.append(name)
    return removed


@dataclass(frozen=True)
class Host:
    """One network namespace on the bridge."""

    name: str
    ns: str
    addr: str
    veth: str

    @property
    def label(self) -> str:
        """Its hostname (lease owners are hostname:pid)."""
        return f"{PREFIX}{self.name}"


class Network:
    """A bridge and one namespace per host, named after this process (several runs coexist)."""

    def __init__(self, tag: int) -> None:
        self.tag = tag
        self.subnet = f"10.213.{tag % 200 + 20}"
        self.bridge = f"{LINK_PREFIX}{tag}br"
        self.hosts = {
            name: Host(name, f"{PREFIX}{tag}-{name}", f"{self.subnet}.{i + 2}", f"{LINK_PREFIX}{tag}h{i}")
            for i, name in enumerate(HOST_NAMES)
        }

    def up(self) -> None:
        """Create the bridge and the hosts (idempotent per name: fails if they exist)."""
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        _run("ip", "addr", "add", f"{self.subnet}.1/24", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")
        for host in self.hosts.values():
            peer = f"{host.veth}p"
            _run("ip", "netns", "add", host.ns)
            _run("ip", "link", "add", host.veth, "type", "veth", "peer", "name", peer)
            _run("ip", "link", "set", peer, "netns", host.ns)
            _run("ip", "link", "set", host.veth, "master", self.bridge, "up")
            _run("ip", "-n", host.ns, "addr", "add", f"{host.addr}/24", "dev", peer)
            _run("ip", "-n", host.ns, "link", "set", peer, "up")
            _run("ip", "-n", host.ns, "link", "set", "lo", "up")

    def down(self) -> None:
        """Kill every process of every host, delete the namespaces and the links."""
        for host in self.hosts.values():
            kill_namespace_processes(host.ns)
            _run("ip", "netns", "del", host.ns, check=False)
            _run("ip", "link", "del", host.veth, check=False)
        _run("ip", "link", "del", self.bridge, check=False)


@dataclass
class MultihostReport:
    """The figures of one run (printed as one JSON line)."""

    matches_scheduled: int = 0
    recorded: int = 0
    recorded_twice: int = 0
    failed: int = 0
    #: why the failed matches failed (the error's first words), with how many
    failed_reasons: dict[str, int] = field(default_factory=dict)
    #: parked after too many platform faults (ladder.match_queue): for an operator, not lost
    parked: int = 0
    lost: int = 0
    redispatched: int = 0
    redispatched_after_kill: int = 0
    handed_back: int = 0
    recorded_per_host: dict[str, int] = field(default_factory=dict)
    remote_matches_per_referee_host: dict[str, int] = field(default_factory=dict)
    matches_per_min_one_host: float = 0.0
    matches_per_min_two_hosts: float = 0.0
    two_host_speedup: float = 0.0
    killed_host: str = "w2"
    processes_killed: int = 0
    recovery_seconds: float | None = None
    remote_bots_reconnected: int = 0
    api_status: int = 0
    audit: str = ""
    seconds: float = 0.0


_TRIGGER = """
CREATE TABLE mh_transitions (
    match_id integer, old text, new text, old_owner text, new_owner text, attempts integer,
    at timestamptz);
CREATE FUNCTION mh_log_transition() RETURNS trigger AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO mh_transitions VALUES (NEW.id, OLD.status, NEW.status, OLD.lease_owner,
            NEW.lease_owner, NEW.attempts, clock_timestamp());
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER mh_transitions AFTER UPDATE ON matches
    FOR EACH ROW EXECUTE FUNCTION mh_log_transition();
"""


def _wait(check: Callable[[], _T], what: str, timeout: float, every: float = 0.5) -> _T:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


class Drill:
    """Builds the hosts and services, runs the season, tears everything down."""

    def __init__(self, matches: int, phase_seconds: float, root: Path) -> None:
        self.matches = matches
        self.phase_seconds = phase_seconds
        self.root = root
        self.net = Network(os.getpid())
        self.db = self.net.hosts["db"]
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.db_password = secrets.token_urlsafe(18)
        self.redis_password = secrets.token_urlsafe(18)
        self.admin_token = secrets.token_urlsafe(24)
        self.engine: Engine | None = None
        self.bot_tokens: dict[str, tuple[int, str]] = {}
        self.ladder_id = 0

    # --- plumbing ----------------------------------------------------------------------------

    @property
    def db_url(self) -> str:
        """The database URL the processes get (the password comes from $PGPASSWORD)."""
        return f"postgresql+psycopg://arena@{self.db.addr}:{PG_PORT}/arena"

    @property
    def referees(self) -> list[str]:
        """Each worker host's referee address."""
        return [f"{self.net.hosts[h].addr}:{REFEREE_PORT}" for h in ("w1", "w2")]

    def base_env(self) -> dict[str, str]:
        """What every process gets (nothing of the caller's environment but the locale)."""
        venv_bin = REPO / ".venv" / "bin"
        return {
            "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.root),
            "PYTHONPATH": str(REPO),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "TMPDIR": str(self.root / "tmp"),
        }

    def service_env(self) -> dict[str, str]:
        """The platform processes' environment: database, broker, referees, secrets as files."""
        return {
            **self.base_env(),
            "DATABASE_URL": self.db_url,
            "PGPASSWORD": self.db_password,
            "BROKER_URL": f"redis://:{self.redis_password}@{self.db.addr}:{REDIS_PORT}/0",
            "ARENA_QUEUE": QUEUE,
            "ARENA_LEASE_SECONDS": str(LEASE_S),
            "ARENA_BEAT_SECONDS": str(BEAT_S),
            "ARENA_QUEUE_DEPTH": str(QUEUE_DEPTH),
            "ARENA_REFEREE_ADDR": ",".join(self.referees),
            "ARENA_REFEREE_CA": str(self.root / "certs" / "ca.pem"),
            "ARENA_ADMIN_TOKEN_FILE": str(self.root / "secrets" / "admin-token"),
        }

    def spawn(self, host: Host, name: str, argv: Sequence[str], env: dict[str, str],
              *, own_hostname: bool = True) -> subprocess.Popen[bytes]:
        """Start `argv` inside `host` (with its own hostname), output to <root>/logs/."""
        cmd = ["ip", "netns", "exec", host.ns]
        if own_hostname:
            cmd += ["unshare", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"', host.label]
        log_path = self.root / "logs" / f"{host.name}-{name}.log"
        with log_path.open("ab") as out:
            proc = subprocess.Popen(
                [*cmd, *argv], env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, cwd=REPO,
            )
        self.procs[f"{host.name}/{name}"] = proc
        return proc

    def log_tail(self, pattern: str = "*", lines: int = 15) -> str:
        """The last lines of the matching logs (for an error message)."""
        out = []
        for path in sorted((self.root / "logs").glob(f"{pattern}.log")):
            text = path.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {path.name}\n" + "\n".join(text))
        return "\n".join(out)

    def stop(self, key: str, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        """Stop one process (its whole session) and wait for it."""
        proc = self.procs.pop(key, None)
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    # --- the db host -------------------------------------------------------------------------

    def start_postgres(self) -> None:
        found = [d for d in glob.glob("/usr/lib/postgresql/*/bin") if os.access(f"{d}/pg_ctl", os.X_OK)]
        if not found:
            raise RuntimeError("the PostgreSQL server binaries (/usr/lib/postgresql/*/bin) are missing")
        pg_bin = Path(max(found, key=lambda d: int(re.sub(r"\D", "", Path(d).parent.name) or 0)))
        pg_dir = self.root / "pg"
        pg_dir.mkdir()
        as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            pw = pwd.getpwnam("postgres")
            os.chown(pg_dir, pw.pw_uid, pw.pw_gid)
            as_user = ["runuser", "-u", "postgres", "--"]
        _run(*as_user, str(pg_bin / "initdb"), "-D", str(pg_dir / "data"), "-U", "postgres", "-A", "trust",
             "--no-sync", "-E", "UTF8", timeout=120)
        with (pg_dir / "data" / "pg_hba.conf").open("a") as hba:
            # from the bridge: password only (the local socket stays trust, for this run's setup)
            hba.write(f"host all arena {self.net.subnet}.0/24 scram-sha-256\n")
        options = (
            f"-p {PG_PORT} -c listen_addresses={self.db.addr} -k {pg_dir} -c max_connections=300 "
            "-c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        )
        _run("ip", "netns", "exec", self.db.ns, *as_user, str(pg_bin / "pg_ctl"), "-D", str(pg_dir / "data"),
             "-l", str(pg_dir / "server.log"), "-o", options, "-w", "-t", "60", "start", timeout=90)
        self.pg_stop = [*as_user, str(pg_bin / "pg_ctl"), "-D", str(pg_dir / "data"), "-m", "immediate",
                        "-w", "stop"]
        with psycopg.connect(host=str(pg_dir), port=PG_PORT, user="postgres", dbname="postgres",
                             autocommit=True) as admin:
            admin.execute(
                psycopg.sql.SQL("CREATE ROLE arena LOGIN PASSWORD {}").format(
                    psycopg.sql.Literal(self.db_password)
                )
            )
            admin.execute("CREATE DATABASE arena OWNER arena")

    def start_redis(self) -> None:
        redis_dir = self.root / "redis"
        redis_dir.mkdir()
        conf = redis_dir / "redis.conf"
        conf.write_text(
            f"bind {self.db.addr}\nport {REDIS_PORT}\nrequirepass {self.redis_password}\n"
            f'save ""\nappendonly no\ndir {redis_dir}\n'
        )
        conf.chmod(0o600)
        self.spawn(self.db, "redis", ["redis-server", str(conf)], self.base_env(), own_hostname=False)
        import redis

        client = redis.Redis(host=self.db.addr, port=REDIS_PORT, password=self.redis_password)
        try:
            _wait(lambda: _ping(client), "Redis on the db host", 30, 0.2)
        finally:
            client.close()

    def make_certs(self) -> None:
        certs = self.root / "certs"
        certs.mkdir()
        ca_key, ca = certs / "ca.key", certs / "ca.pem"
        _run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=Arena multihost CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", str(ca_key), "-out", str(ca))
        ext = certs / "server.ext"
        names = ",".join(f"IP:{h.addr}" for h in self.net.hosts.values())
        ext.write_text(f"subjectAltName={names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        _run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=arena-multihost",
             "-keyout", str(certs / "server.key"), "-out", str(certs / "server.csr"))
        _run("openssl", "x509", "-req", "-in", str(certs / "server.csr"), "-CA", str(ca), "-CAkey",
             str(ca_key), "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out",
             str(certs / "server.pem"))
        (certs / "server.key").chmod(0o644)  # the referees run as root; no one else is on the box's run dir
        secrets_dir = self.root / "secrets"
        secrets_dir.mkdir(mode=0o700)
        token = secrets_dir / "admin-token"
        token.write_text(self.admin_token + "\n")
        token.chmod(0o600)

    def setup_ladder(self) -> None:
        from ladder.archives import validate_archive
        from ladder.bots import REMOTE, add_bot_version, register_bot
        from ladder.db import create_engine, upgrade
        from ladder.ladders import create_ladder, join_ladder
        from ladder.schema import bot_versions

        url = f"postgresql+psycopg://arena:{self.db_password}@{self.db.addr}:{PG_PORT}/arena"
        upgrade(url)
        engine = self.engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text(_TRIGGER))
        self.ladder_id = create_ladder(engine, "mh-clank", "clank", 2, decision_ms=1000, bank_ms=30000,
                                       max_strikes=3)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            tar.add(EXAMPLE_BOT, arcname="main.py")
        archive = validate_archive(buffer.getvalue())

        def bot(name: str, command: str) -> tuple[int, str]:
            reg = register_bot(engine, name, "multihost")
            version = add_bot_version(engine, reg.bot_id, "1", command)
            if command == "python main.py":
                with engine.begin() as conn:
                    conn.execute(
                        sa.update(bot_versions).where(bot_versions.c.id == version).values(
                            archive=archive.tar_gz, archive_sha256=archive.sha256,
                            archive_files=archive.files, archive_bytes=archive.bytes,
                        )
                    )
            join_ladder(engine, self.ladder_id, reg.bot_id)
            return reg.bot_id, reg.token

        for i in range(4):
            bot(f"hosted{i}", "python main.py")
        for host in ("w1", "w2"):
            for i in range(2):
                name = f"remote-{host}-{i}"
                self.bot_tokens[name] = bot(name, REMOTE)
        bot("builtin-random", "builtin:random")
        bot("builtin-greedy", "builtin:greedy")

    # --- the worker hosts --------------------------------------------------------------------

    def start_referee(self, host: Host) -> None:
        certs = self.root / "certs"
        env = {k: v for k, v in self.service_env().items() if k != "DATABASE_URL"}
        self.spawn(host, "referee", [
            str(REPO / ".venv" / "bin" / "python"), "-m", "referee.cli", "serve", "referee",
            "--host", host.addr, "--port", str(REFEREE_PORT), "--db", self.db_url,
            "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
            "--auth-limit-exempt", f"{self.net.subnet}.0/24",
        ], env)

    def start_remote_bots(self, host: Host) -> None:
        mine = self.referees[0] if host.name == "w1" else self.referees[1]
        other = self.referees[1] if host.name == "w1" else self.referees[0]
        for i in range(2):
            name = f"remote-{host.name}-{i}"
            # bot 0 holds its stream to its own host's referee, bot 1 to the other host's: when
            # a host dies, the surviving host's bot 1 on it must reconnect to its own referee
            order = [mine, other] if i == 0 else [other, mine]
            env = {
                **self.base_env(),
                "ARENA_REFEREE": ",".join(order),
                "ARENA_BOT_TOKEN": self.bot_tokens[name][1],
                "ARENA_CA": str(self.root / "certs" / "ca.pem"),
            }
            self.spawn(host, name, [str(REPO / ".venv" / "bin" / "python"), str(EXAMPLE_BOT)], env)

    def start_worker(self, host: Host) -> None:
        env = {**self.service_env(), "ARENA_BOT_FILES_DIR": str(self.root / host.name / "bot-files"),
               "ARENA_BOT_LOG_DIR": str(self.root / host.name / "bot-logs")}
        self.spawn(host, "worker", [
            str(REPO / ".venv" / "bin" / "python"), "-m", "referee.cli", "worker",
            "--concurrency", str(CONCURRENCY), "--name", f"mh-{host.name}", "--loglevel", "INFO",
            "--unsafe-no-sandbox",
        ], env)

    def start_beat(self, depth: int) -> None:
        env = {**self.service_env(), "ARENA_QUEUE_DEPTH": str(depth)}
        self.spawn(self.db, f"beat-depth{depth}", [
            str(REPO / ".venv" / "bin" / "python"), "-m", "referee.cli", "beat", "--loglevel", "INFO",
        ], env)

    def start_api(self) -> None:
        certs = self.root / "certs"
        self.spawn(self.db, "api", [
            str(REPO / ".venv" / "bin" / "python"), "-m", "referee.cli", "serve", "api",
            "--host", self.db.addr, "--port", str(API_PORT), "--log-level", "warning",
            "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
        ], self.service_env())

    # --- watching ----------------------------------------------------------------------------

    def lobby(self, address: str) -> set[int] | None:
        """Bot ids connected to the referee at `address` (None if it does not answer)."""
        from arena_bot._proto.arena.v1 import admin_pb2
        from arena_bot.wire import Tls, bearer, channel

        with channel(address, Tls(True, self.root / "certs" / "ca.pem"), options=[]) as opened:
            call = opened.unary_unary(
                "/arena.v1.AdminService/ListBots",
                request_serializer=admin_pb2.ListBotsRequest.SerializeToString,
                response_deserializer=admin_pb2.ListBotsResponse.FromString,
            )
            try:
                listing = call(admin_pb2.ListBotsRequest(), metadata=bearer(self.admin_token), timeout=5)
            except grpc.RpcError:
                return None
        return {int(b.bot_id) for b in listing.bots}

    def scalar(self, query: str, **params: Any) -> Any:
        assert self.engine is not None
        with self.engine.connect() as conn:
            return conn.execute(sa.text(query), params).scalar()

    def db_now(self) -> Any:
        return self.scalar("SELECT clock_timestamp()")

    def done_between(self, start: Any, end: Any) -> int:
        return int(self.scalar(
            "SELECT count(*) FROM mh_transitions WHERE new = 'done' AND at > :a AND at <= :b", a=start, b=end,
        ))

    def throughput(self) -> float:
        """Matches recorded per minute over the next phase_seconds."""
        start = self.db_now()
        time.sleep(self.phase_seconds)
        end = self.db_now()
        return round(self.done_between(start, end) * 60.0 / float((end - start).total_seconds()), 1)

    # --- the run -----------------------------------------------------------------------------

    def run(self) -> MultihostReport:
        began = time.monotonic()
        report = MultihostReport()
        for sub in ("logs", "tmp", "w1", "w2"):
            (self.root / sub).mkdir(exist_ok=True)
        self.root.chmod(0o755)  # the postgres user reaches its folder through it
        self.net.up()
        hosts = ", ".join(f"{h.name}={h.addr}" for h in self.net.hosts.values())
        _log(f"hosts on {self.net.subnet}.0/24: {hosts}")
        self.start_postgres()
        self.start_redis()
        self.make_certs()
        self.setup_ladder()
        for name in ("w1", "w2"):
            self.start_referee(self.net.hosts[name])
        _wait(lambda: all(self.lobby(a) is not None for a in self.referees), "both referees", 60)
        for name in ("w1", "w2"):
            self.start_remote_bots(self.net.hosts[name])
        remote_ids = {bot_id for bot_id, _ in self.bot_tokens.values()}
        _wait(lambda: remote_ids <= self.connected(), "the remote bots in the referees' lobbies", 60)
        self.start_api()
        report.api_status = _wait(self.api_status, "the API on the db host", 60)
        self.start_beat(QUEUE_DEPTH)
        self.start_worker(self.net.hosts["w1"])
        _log("one worker host: warming up")
        _wait(lambda: self.count("done") >= 2, "the first matches on w1", 120)
        report.matches_per_min_one_host = self.throughput()
        _log(f"one worker host: {report.matches_per_min_one_host} matches/min; starting w2's worker")
        self.start_worker(self.net.hosts["w2"])
        _wait(lambda: self.recorded_by("w2") >= 1, "the first match recorded on w2", 120)
        report.matches_per_min_two_hosts = self.throughput()
        if report.matches_per_min_one_host:
            report.two_host_speedup = round(
                report.matches_per_min_two_hosts / report.matches_per_min_one_host, 2
            )
        _log(f"two worker hosts: {report.matches_per_min_two_hosts} matches/min; killing w2 mid-match")
        survivors = {self.bot_tokens[f"remote-w1-{i}"][0] for i in range(2)}
        on_w2 = survivors & (self.lobby(self.referees[1]) or set())  # remote-w1-1 lists w2 first
        kill_at, report.processes_killed = self.kill_mid_match(self.net.hosts["w2"])
        _wait(lambda: survivors <= (self.lobby(self.referees[0]) or set()),
              "w1's remote bots on w1's referee", 60)
        report.remote_bots_reconnected = len(on_w2)
        _wait(lambda: self.count() >= self.matches, f"{self.matches} matches scheduled", 900, 1.0)
        self.stop(f"db/beat-depth{QUEUE_DEPTH}")
        self.start_beat(0)  # the sweeper goes on; the matchmaker schedules nothing more
        _log("season scheduled; waiting for every match to end")
        _wait(lambda: self.count("queued") + self.count("running") == 0, "every match to end", 600, 1.0)
        self.figures(report, kill_at)
        report.seconds = round(time.monotonic() - began, 1)
        return report

    def api_status(self) -> int:
        context = ssl.create_default_context(cafile=str(self.root / "certs" / "ca.pem"))
        try:
            url = f"https://{self.db.addr}:{API_PORT}/"
            with urllib.request.urlopen(url, context=context, timeout=5) as answer:
                return int(answer.status)
        except OSError:
            return 0

    def connected(self) -> set[int]:
        found: set[int] = set()
        for address in self.referees:
            found |= self.lobby(address) or set()
        return found

    def count(self, status: str | None = None) -> int:
        if status is None:
            return int(self.scalar("SELECT count(*) FROM matches"))
        return int(self.scalar("SELECT count(*) FROM matches WHERE status = :s", s=status))

    def recorded_by(self, host: str) -> int:
        return int(self.scalar(
            "SELECT count(*) FROM mh_transitions WHERE new = 'done' AND old_owner LIKE :h",
            h=f"{PREFIX}{host}:%",
        ))

    def kill_mid_match(self, host: Host) -> tuple[Any, int]:
        """SIGKILL every process of `host` while it holds a running match: freeze the host,
        check the database, kill (or thaw and try again)."""
        owner = f"{host.label}:%"
        for _ in range(120):
            kill_namespace_processes(host.ns, signal.SIGSTOP)
            # frozen: what the database says it runs now, it can never finish
            running = int(self.scalar(
                "SELECT count(*) FROM matches WHERE status = 'running' AND lease_owner LIKE :o", o=owner,
            ))
            if running:
                killed = kill_namespace_processes(host.ns)
                at = self.db_now()
                for key in [k for k in self.procs if k.startswith(f"{host.name}/")]:
                    self.procs.pop(key).wait(10)
                _log(f"killed {killed} processes of {host.name} holding {running} running matches")
                return at, killed
            kill_namespace_processes(host.ns, signal.SIGCONT)
            time.sleep(0.25)
        raise RuntimeError(f"{host.name} never held a running match")

    def figures(self, report: MultihostReport, kill_at: Any) -> None:
        from workers.audit import audit_ladder

        assert self.engine is not None
        report.matches_scheduled = self.count()
        report.recorded = self.count("done")
        report.failed = self.count("failed")
        report.parked = self.count("parked")
        report.lost = report.matches_scheduled - report.recorded - report.failed - report.parked
        report.recorded_twice = int(self.scalar(
            "SELECT count(*) FROM (SELECT match_id FROM results GROUP BY match_id HAVING count(*) > 1) t"
        ))
        requeued = "SELECT DISTINCT match_id FROM mh_transitions WHERE old = 'running' AND new = 'queued'"
        report.redispatched = int(self.scalar(f"SELECT count(*) FROM ({requeued}) t"))
        report.redispatched_after_kill = int(self.scalar(
            f"SELECT count(*) FROM ({requeued} AND at >= :k) t", k=kill_at,
        ))
        report.handed_back = int(self.scalar(
            "SELECT count(*) FROM mh_transitions WHERE old = 'running' AND new = 'queued' AND at >= :k "
            "AND old_owner LIKE :w1", k=kill_at, w1=f"{PREFIX}w1:%",
        ))
        last = self.scalar(
            "SELECT max(at) FROM mh_transitions WHERE new = 'done' "
            f"AND match_id IN ({requeued} AND at >= :k)",
            k=kill_at,
        )
        report.recovery_seconds = round((last - kill_at).total_seconds(), 1) if last is not None else None
        with self.engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT split_part(old_owner, ':', 1) AS host, count(*) FROM mh_transitions "
                "WHERE new = 'done' GROUP BY 1 ORDER BY 1"
            )).all()
            reasons = conn.execute(sa.text(
                "SELECT left(coalesce(error, ''), 80), count(*) FROM matches "
                "WHERE status = 'failed' GROUP BY 1"
            )).all()
        report.failed_reasons = {str(r): int(n) for r, n in reasons}
        report.recorded_per_host = {str(h).removeprefix(PREFIX): int(n) for h, n in rows}
        report.remote_matches_per_referee_host = self.remote_placements()
        problems = audit_ladder(self.engine, self.ladder_id)
        report.audit = "ok" if not problems else "; ".join(problems[:5])

    def remote_placements(self) -> dict[str, int]:
        """Remote matches per referee host, from the placement kept in each replay."""
        import gzip
        import json

        from ladder.schema import replays

        assert self.engine is not None
        by_addr = {f"{h.addr}:{REFEREE_PORT}": h.name for h in self.net.hosts.values()}
        counts: dict[str, int] = {}
        with self.engine.connect() as conn:
            for (data,) in conn.execute(sa.select(replays.c.data)):
                replay = json.loads(gzip.decompress(data))
                places = {s.get("referee") for s in replay.get("seats", ()) if s.get("referee")}
                for place in places:
                    key = by_addr.get(place, place)
                    counts[key] = counts.get(key, 0) + 1
        return counts

    def teardown(self) -> None:
        for key in list(self.procs):
            self.stop(key, signal.SIGKILL, 5)
        if self.engine is not None:
            self.engine.dispose()
        pg_stop = getattr(self, "pg_stop", None)
        if pg_stop is not None:
            subprocess.run(["ip", "netns", "exec", self.db.ns, *pg_stop], capture_output=True, timeout=60,
                           check=False)
        self.net.down()


def _ping(client: Any) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False


@contextlib.contextmanager
def _run_dir(keep: bool) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="arena-mh-"))
    try:
        yield root
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def run_multihost(matches: int = 100, phase_seconds: float = 30.0, *, keep: bool = False) -> MultihostReport:
    """Build the hosts, play the season with a host killed, tear everything down; the figures.

    Needs root (network namespaces). `keep`: leave the run folder (logs) in /tmp."""
    if os.geteuid() != 0:
        raise RuntimeError("the multi-host drill makes network namespaces: run it as root")
    removed = cleanup_stale()
    if removed:
        _log(f"removed leftovers of earlier runs: {', '.join(removed)}")
    with _run_dir(keep) as root:
        drill = Drill(matches, phase_seconds, root)
        try:
            return drill.run()
        except BaseException:
            _log("the run failed; the logs' last lines:\n" + drill.log_tail())
            raise
        finally:
            drill.teardown()
            if keep:
                _log(f"logs kept in {root / 'logs'}")


def report_json(report: MultihostReport) -> dict[str, Any]:
    """The report as the JSON object `make multihost` prints."""
    return asdict(report)
