"""A hosted bot written to misbehave: it attacks its sandbox, reports every attempt, then plays.

    python main.py --attacks read,net,write --repo /work/main --db /tmp/arena.db --then play

Each attack writes one JSON line to stderr before the bot goes on:
``{"attack": "read /etc/shadow", "ok": false, "error": "FileNotFoundError: ..."}`` — ``ok`` is
true when the attack got what it wanted (a test expects false everywhere, except for the
controls, which check the attack code itself works: writing into /scratch must succeed).
After the attacks, ``--then`` says what the bot does: ``play`` random legal moves through the
SDK (the match goes on), ``exit`` (leave before connecting), ``hang`` (sleep forever, never
connecting). ``print`` (100 MB to stdout) runs last, since it fills the captured log.

Uses only the standard library and the SDK (``arena_bot``), as a real upload would.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import json
import os
import random
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena_bot import Action, Bot, run

MIB = 1024 * 1024


def report(attack: str, ok: bool | None, **detail: Any) -> None:
    """One JSON line per attempt on stderr (kept in the bot's captured log)."""
    line = {"attack": attack, "ok": ok, "t": round(time.time(), 3), **detail}
    sys.stderr.write(json.dumps(line, default=str) + "\n")
    sys.stderr.flush()


def _err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def attempt(attack: str, action: Callable[[], object], **detail: Any) -> None:
    """Run `action`; it succeeding is the attack succeeding."""
    try:
        got = action()
    except Exception as exc:  # the outcome we hope for, whatever it is: reported, not raised
        report(attack, False, error=_err(exc), errno=getattr(exc, "errno", None), **detail)
    else:
        report(attack, True, got=repr(got)[:200], **detail)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read(200)


def _write(path: str) -> int:
    with open(path, "wb") as f:
        return f.write(b"pwned by a sandboxed bot\n")


# --- the attacks -----------------------------------------------------------------------------


def attack_env(args: argparse.Namespace) -> None:
    """What the bot's own environment holds (the test checks no secret is in it)."""
    report("own environment", False, env=dict(os.environ))


def attack_read(args: argparse.Namespace) -> None:
    """Files of the host the bot must not see."""
    targets = {"/etc/shadow": "/etc/shadow"}
    if args.repo:
        targets["the repository"] = os.path.join(args.repo, "pyproject.toml")
        targets["the repository's workers package"] = os.path.join(args.repo, "workers", "__init__.py")
    if args.db:
        targets["the database file"] = args.db
    for other in args.other:
        targets["another bot's files"] = other
    for what, path in targets.items():
        attempt(f"read {what}", functools.partial(_read, path), path=path)
    # /proc/1/environ and the worker's: every environ in /proc (the worker's pid is unknown to a
    # bot); readable or not, what matters is whether one holds a platform secret
    seen: dict[str, str] = {}
    for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
        try:
            seen[pid] = _read_all(f"/proc/{pid}/environ").replace(b"\0", b" ").decode(errors="replace")
        except OSError as exc:
            seen[pid] = _err(exc)
    markers = ("DATABASE_URL", "BROKER_URL", "ADMIN_TOKEN", "SECRET", "postgresql", "redis://")
    leaked = any(m in text for text in seen.values() for m in markers)
    report("scan /proc/*/environ", leaked, pids=sorted(seen, key=int), environ=seen)


def attack_mountinfo(args: argparse.Namespace) -> None:
    """What /proc/self/mountinfo tells about the host: where each mount comes from, and the
    options of each file system (a tmpfs names the uid that mounted it)."""
    try:
        text = _read_all("/proc/self/mountinfo").decode(errors="replace")
    except OSError as exc:
        report("read /proc/self/mountinfo", False, error=_err(exc))
        return
    report("read /proc/self/mountinfo", None, text=text)


def _read_all(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def attack_net(args: argparse.Namespace) -> None:
    """The database, the broker, anything on the network: TCP and UDP."""
    for host, port in (("127.0.0.1", 5432), ("127.0.0.1", 6379), ("1.1.1.1", 443)):

        def tcp(h: str = host, p: int = port) -> str:
            with socket.create_connection((h, p), timeout=3) as s:
                return f"connected from {s.getsockname()}"

        attempt(f"connect tcp {host}:{port}", tcp)
    # UDP: a send "succeeds" on the sandbox's own loopback whatever happens next; whether it
    # arrived is for the host to say (the test listens on --udp-port), so ok is None here
    for host, port in (("127.0.0.1", args.udp_port), ("8.8.8.8", 53)):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                sent = s.sendto(b"arena-sandbox-escape", (host, port))
        except OSError as exc:
            report(f"send udp {host}:{port}", False, error=_err(exc), errno=exc.errno)
        else:
            report(f"send udp {host}:{port}", None, sent=sent)

    # PostgreSQL's own Unix socket, where a Debian server listens
    def pg_unix() -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect("/var/run/postgresql/.s.PGSQL.5432")
            return "connected"

    attempt("connect unix /var/run/postgresql/.s.PGSQL.5432", pg_unix)
    report("network interfaces", False, dev=_read_all("/proc/net/dev").decode(errors="replace"))


def attack_write(args: argparse.Namespace) -> None:
    """Write everywhere but the scratch dir."""
    targets = [
        "/bot/pwned",
        "/usr/pwned",
        "/etc/pwned",
        "/pwned",
        "/dev/pwned",
        "/run/arena/pwned",
        "/opt/arena/python/arena_bot/pwned.py",
        "/proc/pwned",
    ]
    if args.repo:
        targets.append(os.path.join(args.repo, "workers", "pwned.py"))
    for path in targets:
        attempt(f"write {path}", functools.partial(_write, path), path=path)
    # the control: the scratch dir is writable (so the failures above are not the attack's fault)
    attempt("control: write /scratch/ok", lambda: _write("/scratch/ok"))


def attack_fill_scratch(args: argparse.Namespace) -> None:
    """Write into /scratch until something stops it: one big file, then many files."""
    chunk = b"\1" * MIB
    written, errors = 0, []
    names = []
    for i in range(200):  # at most 200 files of up to 64 MiB: far past any sane limit
        name = f"/scratch/fill{i}"
        names.append(name)
        try:
            with open(name, "wb", buffering=0) as f:
                for _ in range(64):
                    written += f.write(chunk)
        except OSError as exc:
            errors.append(errno.errorcode.get(exc.errno or 0, str(exc.errno)))
            if exc.errno == errno.ENOSPC:
                break
    report("fill /scratch", errors[-1:] != ["ENOSPC"], written_bytes=written, errors=errors[:3] + errors[-1:])
    for name in names:  # free the memory it holds (tmpfs pages count against the memory limit)
        with contextlib.suppress(OSError):
            os.unlink(name)


def attack_fork_bomb(args: argparse.Namespace) -> None:
    """A fork tree of depth 10 (up to 1024 processes) in a process group of its own; count how
    many existed at once, then end it (the bot needs processes left to play)."""
    before = _count_processes()
    leader = os.fork()
    if leader == 0:
        os.setpgid(0, 0)
        failures = 0
        for _ in range(10):  # every process forks in turn: 2**10 if nothing stops it
            try:
                os.fork()
            except OSError:
                failures += 1
        time.sleep(60)
        os._exit(0)
    time.sleep(1.5)  # let the tree grow as far as it can (it takes milliseconds)
    most = _count_processes() - before
    with contextlib.suppress(OSError):
        os.killpg(leader, signal.SIGKILL)
    os.waitpid(leader, 0)
    report("fork bomb", most >= 1024, processes=most)


def _count_processes() -> int:
    return sum(1 for p in os.listdir("/proc") if p.isdigit())


def attack_memory(args: argparse.Namespace) -> None:
    """Allocate (and touch) 2 GiB in a child; count what it got before the kernel stopped it."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        hoard = []
        for mb in range(64, 2048 + 1, 64):
            hoard.append(b"\1" * (64 * MIB))  # bytes filled in: every page is touched
            os.write(write_end, f"{mb}\n".encode())
        os._exit(0)
    os.close(write_end)
    progress = b""
    while chunk := os.read(read_end, 4096):
        progress += chunk
    os.close(read_end)
    _, status = os.waitpid(child, 0)
    got = int(progress.split()[-1]) if progress.split() else 0
    signalled = os.WIFSIGNALED(status)
    report(
        "allocate 2 GiB",
        got >= 2048,
        allocated_mb=got,
        child=f"signal {os.WTERMSIG(status)}" if signalled else f"exit {os.WEXITSTATUS(status)}",
    )


def attack_daemon(args: argparse.Namespace) -> None:
    """Double-fork a daemon (setsid, out of the process group) that outlives this process."""
    first = os.fork()
    if first == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            os.closerange(0, 3)
            while True:  # a daemon that would keep working after the match
                time.sleep(0.5)
        os._exit(0)
    os.waitpid(first, 0)
    report("double-fork a daemon", False, note="the daemon runs; the sandbox must end it")


def attack_print(args: argparse.Namespace) -> None:
    """100 MB to stdout as fast as possible (the log keeps only its cap)."""
    report("print 100 MB", False, note="starting; this line is before the flood")
    out = sys.stdout.buffer
    line = (b"x" * 1023) + b"\n"
    block = line * 1024
    started = time.monotonic()
    for _ in range(100):
        out.write(block)
    out.flush()
    report("print 100 MB done", False, seconds=round(time.monotonic() - started, 3))


ATTACKS: dict[str, Callable[[argparse.Namespace], None]] = {
    "env": attack_env,
    "read": attack_read,
    "mountinfo": attack_mountinfo,
    "net": attack_net,
    "write": attack_write,
    "fill_scratch": attack_fill_scratch,
    "fork_bomb": attack_fork_bomb,
    "memory": attack_memory,
    "daemon": attack_daemon,
    "print": attack_print,
}


def play() -> int:
    """Random legal moves through the SDK, as any hosted bot plays."""

    class Attacker(Bot):
        name = "attacker"
        version = "1"

        def __init__(self) -> None:
            super().__init__()
            self.rnd = random.Random(0)

        def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
            return self.rnd.randrange(len(legal_actions))

    return run(Attacker(), argv=[])  # the referee and token come from ARENA_REFEREE, ARENA_TOKEN


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attacks", default="", help="comma-separated: " + ",".join(ATTACKS))
    parser.add_argument("--repo", default="", help="the repository's path on the host")
    parser.add_argument("--db", default="", help="the database file's path on the host")
    parser.add_argument("--other", action="append", default=[], help="another bot's file on the host")
    parser.add_argument("--udp-port", type=int, default=6379, help="a UDP port the host listens on")
    parser.add_argument("--then", choices=("play", "exit", "hang"), default="play")
    args = parser.parse_args(argv)
    names = [a for a in args.attacks.split(",") if a]
    # the flood last: it fills the captured log
    for name in sorted(names, key=lambda n: n == "print"):
        ATTACKS[name](args)
    report("attacks done", False, then=args.then)
    if args.then == "exit":
        return 0
    if args.then == "hang":
        while True:
            time.sleep(3600)
    return play()


if __name__ == "__main__":
    raise SystemExit(main())
