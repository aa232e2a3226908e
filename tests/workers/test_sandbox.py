"""The sandbox itself (workers/sandbox) and `arena match --sandbox`: each limit with a bot that
goes for it, launched the way the ladder launches hosted bots (`Sandbox.launch`).

The ladder path (a real worker, attackers among real matches) is in test_sandbox_attacks.py.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import matches
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.match_execution import run_match
from workers.sandbox import Sandbox, SandboxedBot, SandboxLimits, SandboxUnavailable

from .conftest import REPO, make_ladder
from .test_sandbox_attacks import (
    BOTS,
    PYTHON_FILES,
    bot_log,
    check_lines,
    processes_of_uids,
    reachable_dir,
    replay_of,
    result_of,
)

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ARENA = Path(sys.executable).parent / "arena"


@pytest.fixture
def folder() -> Iterator[Path]:
    """A bot folder the sandbox's user can read, holding a referee socket path and a log dir."""
    path = reachable_dir("arena-sandbox-test-")
    (path / "sock").mkdir(mode=0o755)
    (path / "sock" / "referee.sock").touch()  # nothing listens: these bots never call the referee
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def start(folder: Path, command: str, **limits: int) -> SandboxedBot:
    """Start `command` in a sandbox with `limits`, the way the ladder starts a hosted bot."""
    limits.setdefault("wall_seconds", 20)  # a broken limit fails its test instead of hanging it
    return await Sandbox(SandboxLimits(**limits)).launch(
        command,
        files_dir=folder,
        referee_socket=folder / "sock" / "referee.sock",
        env={},
        log_path=folder / "logs" / "bot.log",
    )


async def until_ended(bot: SandboxedBot) -> float:
    """Wait for the bot's main process to end; how long that took."""
    started = time.monotonic()
    await asyncio.wait_for(bot.wait(), 30)
    return time.monotonic() - started


async def end(bot: SandboxedBot) -> None:
    """Kill the sandbox (a broken kill fails the test rather than hanging it)."""
    await asyncio.wait_for(bot.kill(), 10)


def uid_processes(uid: int) -> list[str]:
    """The live processes of one sandbox's host uid."""
    return processes_of_uids(uid, uid + 1)


def own_uid(bot: SandboxedBot) -> int:
    """The bot's own host uid (the tests run as root: every sandbox has one)."""
    assert bot.uid is not None
    return bot.uid.uid


#: a main process that double-forks a daemon (setsid, SIGTERM/SIGHUP ignored), then ends after 1 s
DAEMON = (
    "import os, signal, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "        signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
    "        time.sleep(300)\n"
    "    os._exit(0)\n"
    "os.wait()\n"
    "time.sleep(1)\n"
)


#: DAEMON whose main process ends once the test has seen its daemon (the file `go` appears), not
#: after a fixed second: on a loaded machine a second could pass before the test looked
DAEMON_UNTIL_GO = DAEMON.replace(
    "time.sleep(1)\n", "import pathlib\nwhile not pathlib.Path('go').exists(): time.sleep(0.02)\n"
)


def test_a_daemon_dies_with_the_bot_that_started_it(folder: Path) -> None:
    assert DAEMON_UNTIL_GO != DAEMON
    (folder / "daemon.py").write_text(DAEMON_UNTIL_GO)
    (folder / "daemon.py").chmod(0o644)

    async def scenario() -> None:
        bot = await start(folder, "python3 daemon.py")
        uid = own_uid(bot)
        try:
            deadline = time.monotonic() + 10
            # while the bot lives, its daemon is there to see (two python3 processes of its uid)
            while sum(p.endswith(" python3") for p in uid_processes(uid)) < 2:
                assert time.monotonic() < deadline and bot.returncode is None, uid_processes(uid)
                await asyncio.sleep(0.02)
            (folder / "go").write_text("")
            await until_ended(bot)
            assert bot.returncode == 0
            # the main process left: the whole sandbox goes with it, daemon included, with no kill
            # from us. The kernel ends the namespace's processes once its first one exits, which
            # takes a moment (a clean clone's run once saw bwrap and the daemon still listed just
            # after the main process ended): look again until a deadline. A surviving daemon
            # sleeps 300 s, so it is still listed then.
            deadline = time.monotonic() + 5
            while (left := uid_processes(uid)) != []:
                assert time.monotonic() < deadline, left
                await asyncio.sleep(0.02)
        finally:
            await end(bot)
        assert uid_processes(uid) == []

    asyncio.run(scenario())


def test_kill_ends_every_process_of_a_running_sandbox_within_a_second(folder: Path) -> None:
    (folder / "daemon.py").write_text(DAEMON.replace("time.sleep(1)", "time.sleep(300)"))
    (folder / "daemon.py").chmod(0o644)

    async def scenario() -> None:
        bot = await start(folder, "python3 daemon.py & setsid sleep 300 & sleep 300")
        uid = own_uid(bot)
        deadline = time.monotonic() + 10
        while sum(p.endswith((" python3", " sleep")) for p in uid_processes(uid)) < 4:
            assert time.monotonic() < deadline, uid_processes(uid)
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await end(bot)
        took = time.monotonic() - started
        assert uid_processes(uid) == []
        assert took <= 1 + 1.0  # the one second, plus one

    asyncio.run(scenario())


def test_wall_time_ends_a_sleeping_bot_and_its_children(folder: Path) -> None:
    async def scenario() -> None:
        bot = await start(folder, "sleep 30 & setsid sleep 30 & sleep 30", wall_seconds=1)
        uid = own_uid(bot)
        lived = await until_ended(bot)
        await end(bot)  # the match ends at once: the wall clock's own kill must be complete too
        assert bot.killed_for == "wall time (1 s)"
        assert lived <= 1 + 1.0
        assert uid_processes(uid) == []
        assert bot.cgroup is not None and not any(d.exists() for d in bot.cgroup.dirs.values())

    asyncio.run(scenario())


def test_cpu_time_is_cut_at_its_limit(folder: Path) -> None:
    async def scenario() -> None:
        bot = await start(folder, 'python3 -c "while True: pass"', cpu_seconds=1)
        await until_ended(bot)
        cpu = bot.cpu_seconds()
        await end(bot)
        # SIGXCPU at 1 s of CPU (SIGKILL at 2 s), reported by the shell as 128 + the signal
        assert bot.returncode in (128 + 24, 128 + 9), bot.returncode
        assert cpu is not None and 0.9 <= cpu <= 1 + 1.0

    asyncio.run(scenario())


#: four processes spinning for one second of wall time each, at once
SPINNERS = (
    "import os, time\n"
    "for _ in range(4):\n"
    "    if os.fork() == 0:\n"
    "        end = time.monotonic() + 1.0\n"
    "        while time.monotonic() < end:\n"
    "            pass\n"
    "        os._exit(0)\n"
    "for _ in range(4):\n"
    "    os.wait()\n"
)


def test_a_bot_gets_its_cpu_cores_however_many_processes_it_spins(folder: Path) -> None:
    (folder / "spin.py").write_text(SPINNERS)
    (folder / "spin.py").chmod(0o644)

    async def scenario() -> None:
        bot = await start(folder, "python3 spin.py", cpu_cores=1)
        try:
            assert bot.cgroup is not None
            quota = bot.cgroup.dirs["cpu"]
            if bot.cgroup.version == 2:
                assert (quota / "cpu.max").read_text().split() == ["100000", "100000"]
            else:
                assert (quota / "cpu.cfs_quota_us").read_text().strip() == "100000"
            lived = await until_ended(bot)
            cpu = bot.cpu_seconds()
        finally:
            await end(bot)
        # four busy processes, one core's worth of CPU time (plus the scheduler's slack)
        assert cpu is not None and cpu <= lived * 1 + 0.3, (cpu, lived)

    asyncio.run(scenario())


def test_output_is_counted_in_full_and_kept_up_to_its_cap(folder: Path) -> None:
    async def scenario() -> SandboxedBot:
        bot = await start(
            folder, "python3 -c \"import sys; sys.stdout.write('x' * 3_000_000)\"", output_kb=16
        )
        await until_ended(bot)
        await end(bot)
        return bot

    bot = asyncio.run(scenario())
    assert bot.output_bytes == 3_000_000 and bot.output_truncated
    log = (folder / "logs" / "bot.log").read_bytes()
    assert log.startswith(b"x" * 16 * 1024) and len(log) < 16 * 1024 + 200
    assert b"[arena: output cut at 16384 bytes; 3000000 bytes written in all]" in log


def test_the_seccomp_filter_denies_tracing_namespaces_and_keyrings(folder: Path) -> None:
    probe = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('ptrace', libc.ptrace(0, 0, 0, 0), ctypes.get_errno())\n"  # PTRACE_TRACEME
        "print('unshare', libc.unshare(0x04000000), ctypes.get_errno())\n"  # CLONE_NEWUTS
        "print('keyctl', libc.syscall(250, 0, 0, 0, 0), ctypes.get_errno())\n"  # keyctl(2)
    )
    (folder / "probe.py").write_text(probe)
    (folder / "probe.py").chmod(0o644)

    async def scenario() -> None:
        bot = await start(folder, "python3 probe.py")
        await until_ended(bot)
        await end(bot)

    asyncio.run(scenario())
    lines = (folder / "logs" / "bot.log").read_text().split("\n")
    assert {"ptrace -1 1", "unshare -1 1", "keyctl -1 1"} <= set(lines), lines


def test_only_arena_variables_reach_a_bot(folder: Path) -> None:
    with pytest.raises(ValueError, match="DATABASE_URL"):
        asyncio.run(
            Sandbox().launch(
                "true",
                files_dir=folder,
                referee_socket=folder / "sock" / "referee.sock",
                env={"ARENA_TOKEN": "t", "DATABASE_URL": "postgresql://secret"},
                log_path=folder / "logs" / "bot.log",
            )
        )


def test_limits_come_from_the_environment() -> None:
    limits = SandboxLimits.from_env({"ARENA_SANDBOX_MEMORY_MB": "256", "ARENA_SANDBOX_PIDS": ""})
    assert limits.memory_bytes == 256 * 1024 * 1024 and limits.pids == SandboxLimits().pids
    with pytest.raises(ValueError, match="ARENA_SANDBOX_SCRATCH_MB"):
        SandboxLimits.from_env({"ARENA_SANDBOX_SCRATCH_MB": "lots"})
    with pytest.raises(ValueError, match="output_kb"):
        SandboxLimits(output_kb=0)


def test_arena_match_sandbox_plays_a_python_and_a_javascript_bot(folder: Path) -> None:
    for source in (BOTS / "python_bot" / "main.py", BOTS / "js_bot" / "main.js"):
        shutil.copy(source, folder / source.name)
        (folder / source.name).chmod(0o644)
    out = subprocess.run(
        [str(ARENA), "match", "clank", "--sandbox", "--seed", "3",
         "--bot", "python main.py", "--bot", "node main.js"],
        cwd=folder, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "game_over" in out.stdout and "calls itself 'well-behaved-python'" in out.stdout, out.stdout
    assert "calls itself 'well-behaved-js'" in out.stdout, out.stdout
    assert out.stdout.count(", 0 strikes") == 2 and "forfeit" not in out.stdout, out.stdout



#: a bot that plays two decisions, then goes for one limit on its third (LIMIT: memory or cpu;
#: the SDK takes the command line, the sandbox empties the environment: the file says which)
LIMIT_BOT = """
from arena_bot import Bot, run

LIMIT = "{limit}"


class Greedy(Bot):
    name = "limit-" + LIMIT
    asked = 0

    def act(self, observation, legal_actions):
        self.asked += 1
        if self.asked == 3:
            hoard = []
            while True:
                if LIMIT == "memory":
                    hoard.append(bytearray(8 << 20))
        return 0


raise SystemExit(run(Greedy()))
"""


def test_arena_match_sandbox_says_which_limit_killed_a_bot(folder: Path) -> None:
    """A bot killed by the memory limit or its CPU seconds is not only "crashed: exit code 137 /
    152": `arena match --sandbox` names the limit and its value, as the operator set it."""
    env = {**os.environ, "ARENA_SANDBOX_MEMORY_MB": "96", "ARENA_SANDBOX_CPU_SECONDS": "2"}
    said = {}
    for limit in ("memory", "cpu"):
        (folder / f"{limit}.py").write_text(LIMIT_BOT.replace("{limit}", limit))
        (folder / f"{limit}.py").chmod(0o644)
        out = subprocess.run(
            [str(ARENA), "match", "clank", "--sandbox", "--decision-ms", "30000",
             "--bot", f"python {limit}.py", "--bot", "builtin:greedy"],
            cwd=folder, capture_output=True, text=True, timeout=150, env=env,
        )  # fmt: skip
        assert out.returncode == 0, out.stdout + out.stderr
        said[limit] = next(line for line in out.stdout.splitlines() if line.startswith("  seat 0 "))
    assert said["memory"].endswith(
        "forfeited: crashed: exit code 137; killed at its sandbox's memory limit of 96 MB "
        "(workers/SANDBOX.md, Limits)"
    ), said
    assert said["cpu"].endswith(
        "forfeited: crashed: exit code 152; killed at its sandbox's CPU seconds limit of 2 s "
        "(workers/SANDBOX.md, Limits)"
    ), said



def test_arena_match_sandbox_in_a_folder_other_users_cannot_read_is_one_error_line(folder: Path) -> None:
    """The sandbox's own uid lists the current folder (root mounts it, so the folders above it
    may be private: test_sandbox_staging): a private folder itself (0700) is refused before the
    match with the folder and the fix named, not a traceback from the first bot's launch."""
    assert os.geteuid() == 0, "the sandbox tests run as root (each bot gets a uid of its own)"
    private = folder / "private"
    private.mkdir(mode=0o700)
    shutil.copy(BOTS / "js_bot" / "main.js", private / "main.js")
    out = subprocess.run(
        [str(ARENA), "match", "clank", "--sandbox", "--bot", "node main.js", "--bot", "builtin:greedy"],
        cwd=private, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stdout == "" and out.stderr.count("\n") == 1, out.stdout + out.stderr
    said = "error: the sandbox cannot run here: its bots run as another user"
    assert out.stderr.startswith(said), out.stderr
    assert f"{private} is not readable by other users (mode 700)" in out.stderr
    assert "chmod o+rx" in out.stderr


# --- hosted bots without the sandbox: only on the operator's explicit word ----------------------


@pytest.fixture
def unsandboxed_ladder(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A queued match of two uploaded well-behaved Python bots, on SQLite; the executor fresh."""
    files_root = reachable_dir("arena-unsafe-files-")
    monkeypatch.setenv("ARENA_BOT_FILES_DIR", str(files_root))
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_UNSAFE_NO_SANDBOX", raising=False)
    reset_referee_executor()
    engine = create_engine(sqlite_url)
    ladder = make_ladder(engine, ["python main.py", "python main.py"], files=[PYTHON_FILES, PYTHON_FILES])
    try:
        yield enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=7)
    finally:
        engine.dispose()
        reset_referee_executor()
        shutil.rmtree(files_root, ignore_errors=True)


def test_without_a_working_sandbox_a_hosted_match_fails_rather_than_run_unsandboxed(
    sqlite_url: str, unsandboxed_ladder: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Sandbox) -> None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")

    monkeypatch.setattr(Sandbox, "check", broken)
    run = run_match(sqlite_url, unsandboxed_ladder, "w1")
    assert run.status == "failed" and "--unsafe-no-sandbox" in run.detail, run
    engine = create_engine(sqlite_url)
    try:
        with engine.connect() as conn:
            status = conn.execute(
                sa.select(matches.c.status).where(matches.c.id == unsandboxed_ladder)
            ).scalar_one()
        assert status == "failed"  # nothing was played
    finally:
        engine.dispose()


def test_the_unsafe_flag_runs_hosted_bots_unsandboxed_and_the_replay_says_so(
    sqlite_url: str, unsandboxed_ladder: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_UNSAFE_NO_SANDBOX", "1")
    # outside the sandbox a bot finds the SDK and Python where the operator's machine has them
    monkeypatch.setenv("PYTHONPATH", str(REPO / "bots" / "python"))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{Path('/usr/bin')}:/bin")
    reset_referee_executor()
    run = run_match(sqlite_url, unsandboxed_ladder, "w1")
    assert run.status == "recorded", run
    engine = create_engine(sqlite_url)
    try:
        assert result_of(engine, unsandboxed_ladder).reason == "finished"
        seats = replay_of(engine, unsandboxed_ladder)["seats"]
        assert [s["sandbox"] for s in seats] == [{"kind": "none", "unsafe_no_sandbox": True}] * 2
        assert {"check": "read own files", "ok": True} in check_lines(bot_log(engine, unsandboxed_ladder, 0))
    finally:
        engine.dispose()


@pytest.mark.integration
def test_empty_groups_of_dead_workers_are_removed_and_live_ones_kept() -> None:
    from workers.sandbox.cgroups import CGROUP_ROOT, GROUP_PARENT, cgroup_version, remove_stale_groups

    assert cgroup_version() is not None, "this test needs writable cgroups (root)"
    dead = subprocess.Popen(["true"])
    dead.wait()
    parents = (
        [CGROUP_ROOT / GROUP_PARENT]
        if cgroup_version() == 2
        else [CGROUP_ROOT / c / GROUP_PARENT for c in ("memory", "pids", "cpuacct")]
    )
    stale = [p / f"seat0-{dead.pid}-deadbeef" for p in parents]
    live = [p / f"seat0-{os.getpid()}-cafef00d" for p in parents]
    for group in (*stale, *live):
        group.mkdir(parents=True)
    try:
        assert remove_stale_groups() >= len(stale)
        assert not any(g.exists() for g in stale)
        assert all(g.exists() for g in live)
    finally:
        for group in (*stale, *live):
            if group.exists():
                group.rmdir()


#: connects to the Unix socket argv[1]; prints "connected" or the errno it was refused with
_CONNECT = (
    "import socket, sys\n"
    "s = socket.socket(socket.AF_UNIX)\n"
    "try:\n    s.connect(sys.argv[1])\nexcept OSError as exc:\n    print(exc.errno)\n"
    "else:\n    print('connected')\n"
)


def test_no_other_local_user_connects_to_the_referees_socket(folder: Path) -> None:
    """The referee's Unix socket lives in a folder of the worker's alone (mode 0700): root binds
    it into each sandbox's private mount namespace (as it binds the bot's files), so no uid but
    the worker's needs to search that folder. While a sandboxed match runs, a process of another
    local user (nobody) and one of a sandbox uid (another bot's, on the host) are refused
    (EACCES); the bot itself still plays the match through it."""
    import errno
    import stat

    from workers.sandbox.uids import UID_BASE, UID_COUNT

    assert os.geteuid() == 0, "the sandbox tests run as root (each bot gets a uid of its own)"
    shutil.copy(BOTS / "python_bot" / "main.py", folder / "main.py")
    temp = folder / "tmp"
    temp.mkdir(mode=0o755)  # where the match's socket folder is made ($TMPDIR)
    match = subprocess.Popen(
        # the bot waits before it connects: the socket is probed while the match runs
        [str(ARENA), "match", "clank", "--sandbox", "--bot", "sleep 3; python main.py",
         "--bot", "builtin:greedy"],
        cwd=folder, env={**os.environ, "TMPDIR": str(temp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (found := list(temp.glob("arena-referee-*/referee.sock"))) and time.monotonic() < deadline:
            time.sleep(0.02)
        (sock,) = found
        assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700 and sock.parent.stat().st_uid == 0
        for uid in (65534, UID_BASE + UID_COUNT - 1):
            probe = subprocess.run(
                ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "/usr/bin/python3", "-c",
                 _CONNECT, str(sock)],
                capture_output=True, text=True, timeout=30,
            )  # fmt: skip
            assert probe.stdout.strip() == str(errno.EACCES), (uid, probe.stdout, probe.stderr)
        assert match.poll() is None, "the probes ran after the match"
        out, err = match.communicate(timeout=150)
    finally:
        if match.poll() is None:
            match.kill()
            match.wait(10)
    assert match.returncode == 0, out + err
    assert "seat 0 (" in out and "forfeited" not in out, out
