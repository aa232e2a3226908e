"""Benchmark of the hosted-bot sandbox (`make bench`; figures, not pass/fail).

Every figure is measured with its reference in the same run, interleaved (sandboxed, plain,
plain, sandboxed, ...), so the noise of this shared machine falls on both sides alike; the table
prints the ratio and the difference beside the goal.

1. Start-up. N launches of a sandbox whose command prints one line and exits: the time from
   ``Sandbox.launch()`` to the first output byte reaching the host, and to the sandbox being
   torn down (the bot exited, ``kill()`` returned: cgroup removed, uid released). Reference:
   the same command as a plain subprocess (``asyncio.create_subprocess_shell``, its own
   process group, killed the way the launcher kills unsandboxed bots). Twice: ``echo`` (the
   sandbox's own cost) and ``python3 -c 'import arena_bot'`` (what a real Python bot pays;
   the reference runs the same interpreter with the same SDK importable). For ``echo`` also
   bubblewrap alone (its namespaces and a read-only /usr, none of our layers), to show how much
   of the start-up is the tool's and how much ours (cgroup, own uid, rlimits, seccomp, mounts).
2. Per-decision overhead. The example random bot (``bots/python/examples/random_bot.py`` as
   ``main.py`` in a folder) plays 2-player Clank! matches through
   ``referee.server.launcher.run_match``, sandboxed and not, same seeds. Each decision is timed
   as the referee waits for it (``MatchSession._ask``: request sent -> answer ruled on) at
   microsecond resolution; the replay's ``ms`` is the same span in whole milliseconds. The
   sandboxed bot talks gRPC over the Unix socket mounted into its sandbox, the plain one over
   TCP on 127.0.0.1 (each as it runs for real).
3. Memory per bot, during those matches: the bot cgroup's peak (``memory_peak_bytes()``; it
   also counts page cache and kernel memory charged to the group), the bot's own processes' peak
   RSS (VmHWM) inside and outside the sandbox, and what the sandbox itself adds: the RSS of its
   two bubblewrap processes (the outer one and the namespace's pid 1), read from /proc while
   the match runs.

Usage: python -m bench.sandbox [--launches N] [--import-launches N] [--matches N]
                                       [--quick] [--json]
(defaults 100 echo launches, 20 Python ones: a Python start costs ~10 times an echo's, and the
whole run should stay within about two minutes).
Needs root for the cgroup and the sandbox's own uid (it runs without either, and says so).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from referee.replay import loads
from referee.server.bot_check import percentile
from referee.server.launcher import BotProcess, run_match
from referee.server.session import MatchSession
from workers.sandbox.runtime import BotRuntime
from workers.sandbox.sandbox import Sandbox, SandboxedBot, sandbox_status

REPO: Final = Path(__file__).resolve().parents[1]
EXAMPLE_BOT: Final = REPO / "bots" / "python" / "examples" / "random_bot.py"
#: the interpreter a sandboxed Python bot gets; the reference runs the very same one
PYTHON: Final = "/usr/bin/python3"
ECHO: Final = "echo ready"
IMPORT_SDK: Final = f"{PYTHON} -c 'import arena_bot; print(\"ready\")'"
BOT: Final = f"{PYTHON} main.py"
GAME: Final = "clank"
#: bubblewrap alone, as its manual's minimal example: namespaces and a read-only /usr, none of
#: our layers (cgroup, own uid, rlimits, seccomp, the SDK mounts): where the start-up time goes
BARE_BWRAP: Final = (
    "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
    "--proc", "/proc", "--dev", "/dev", "--",
)  # fmt: skip
#: launches of each kind before measuring (cold caches, first cgroup, first uid lock file)
WARMUP: Final = 3
#: how often the memory sampler reads /proc during a match
SAMPLE_S: Final = 0.2

# Goals (ours): a start must stay small beside the seconds a match's connect window allows; a
# decision's overhead small beside a bot's thinking; the sandbox's own processes small beside
# a bot's memory limit (SandboxLimits.memory_bytes).
GOAL_START_ADDED_P99_MS: Final = 100.0
GOAL_DECISION_ADDED_P50_US: Final = 500.0
GOAL_DECISION_ADDED_P99_US: Final = 2000.0
GOAL_SANDBOX_RSS_MIB: Final = 16.0

MIB: Final = 1024 * 1024


# --- start-up ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Launch:
    """One timed launch, seconds from launch()."""

    #: launch() returned (the sandbox: cgroup, uid, seccomp filter made; the first exec done)
    returned_s: float
    first_byte_s: float
    done_s: float


async def sandboxed_launch(
    sandbox: Sandbox,
    command: str,
    work: Path,
    bot_dir: Path,
    socket: Path,
    meter_reads: list[float] | None = None,
) -> Launch:
    """Launch `command` in a sandbox; time its first output byte and its teardown.

    The sandbox copies the bot's output into its log file; here the log is a FIFO read by this
    event loop, so the first byte is seen the moment the sandbox passes it on.
    """
    fifo = work / f"launch-{time.monotonic_ns()}.log"
    os.mkfifo(fifo, 0o600)
    # opened before the sandbox opens it for writing: its open() then never blocks
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    first: asyncio.Future[float] = loop.create_future()

    def readable() -> None:
        try:
            data = os.read(fd, 64 * 1024)
        except BlockingIOError:
            return
        if data and not first.done():
            first.set_result(time.perf_counter())
        if not data:  # the writer closed (a FIFO no writer ever opened does not wake us)
            loop.remove_reader(fd)

    loop.add_reader(fd, readable)
    try:
        started = time.perf_counter()
        bot = await sandbox.launch(
            command, files_dir=bot_dir, referee_socket=socket, env={}, log_path=fifo, name="bench"
        )
        returned_at = time.perf_counter()
        try:
            try:
                first_at = await asyncio.wait_for(first, 30)
            except TimeoutError:
                raise RuntimeError(f"sandboxed {command!r} printed nothing (exit {bot.returncode})") from None
            await bot.wait()
            if meter_reads is not None:
                meter_reads.append(_meter_read_s(bot))
        finally:
            await bot.kill()
        done_at = time.perf_counter()
    finally:
        loop.remove_reader(fd)
        os.close(fd)
        fifo.unlink()
    return Launch(returned_at - started, first_at - started, done_at - started)


def _meter_read_s(bot: SandboxedBot, reads: int = 20) -> float:
    """Seconds per reading of the bot's CPU meter (the ladder reads it around every decision)."""
    started = time.perf_counter()
    for _ in range(reads):
        bot.cpu_seconds()
    return (time.perf_counter() - started) / reads


async def plain_launch(command: str, cwd: Path, env: Mapping[str, str]) -> Launch:
    """The reference: `command` as a plain shell subprocess in its own process group, ended as
    the launcher ends an unsandboxed bot (killpg, reap)."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        cwd=cwd,
        env=dict(env),
    )
    returned_at = time.perf_counter()
    assert proc.stdout is not None
    try:
        if not await asyncio.wait_for(proc.stdout.read(1), 30):
            raise RuntimeError(f"plain {command!r} printed nothing (exit {await proc.wait()})")
        first_at = time.perf_counter()
        await proc.stdout.read()  # to the end, as the sandbox's log reader does
        await proc.wait()
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
    return Launch(returned_at - started, first_at - started, time.perf_counter() - started)


def reference_runtime(runtime: BotRuntime, farm: Path) -> dict[str, str]:
    """Outside the sandbox, the same SDK layout: a folder of symlinks standing for /opt/arena,
    and the sandbox runtime's environment pointed at it."""
    prefix = "/opt/arena"
    for mount in runtime.mounts:
        if mount.target.startswith(prefix + "/"):
            link = farm / mount.target[len(prefix) + 1 :]
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(mount.source)
    for target, link_name in runtime.symlinks:
        if link_name.startswith(prefix + "/"):
            link = farm / link_name[len(prefix) + 1 :]
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(target)
    env = {key: value.replace(prefix, str(farm)) for key, value in runtime.env.items()}
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", **env}


# --- per-decision timing ----------------------------------------------------------------------


class DecisionClock:
    """Times every decision the way the referee waits for it (`MatchSession._ask`: the request
    sent, then the answer received and ruled on), at perf_counter resolution; the replay keeps
    the same span in whole milliseconds, too coarse for an overhead below one."""

    def __init__(self) -> None:
        self.into: list[float] | None = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Wrap the referee's `_ask` for the duration (this benchmark's process only)."""
        original = MatchSession._ask
        clock = self

        async def timed(session: MatchSession, seat: Any, decision: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(session, seat, decision)
            finally:
                if clock.into is not None:
                    clock.into.append(time.perf_counter() - started)

        setattr(MatchSession, "_ask", timed)  # noqa: B010 - mypy refuses assigning a method
        try:
            yield
        finally:
            setattr(MatchSession, "_ask", original)  # noqa: B010


# --- memory -----------------------------------------------------------------------------------


@dataclass
class Sampled:
    """The largest figures seen for one process image (pid and name: an exec starts another)."""

    pid: int
    name: str
    #: the benchmark's child this process descends from: one per bot
    top: int
    hwm_kib: int = 0
    rss_kib: int = 0
    anon_kib: int = 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        with contextlib.suppress(OSError, ValueError):
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
    return found


def _status(pid: int) -> dict[str, str] | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _kib(value: str | None) -> int:
    return int(value.split()[0]) if value else 0


class TreeSampler:
    """Reads /proc for every descendant of this process, every `SAMPLE_S`, while a match runs."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, str], Sampled] = {}

    def sample(self) -> None:
        """One pass over the process tree."""
        for top in _children(os.getpid()):
            stack = [top]
            while stack:
                pid = stack.pop()
                status = _status(pid)
                if status is None:
                    continue
                name = status.get("Name", "?")
                entry = self.seen.setdefault((pid, name), Sampled(pid, name, top))
                entry.hwm_kib = max(entry.hwm_kib, _kib(status.get("VmHWM")))
                entry.rss_kib = max(entry.rss_kib, _kib(status.get("VmRSS")))
                entry.anon_kib = max(entry.anon_kib, _kib(status.get("RssAnon")))
                stack += _children(pid)

    async def run(self, stop: asyncio.Event) -> None:
        """Sample until `stop` is set."""
        while not stop.is_set():
            self.sample()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), SAMPLE_S)

    def per_bot(self) -> list[dict[str, int]]:
        """For each bot: its own processes' peak RSS, and the sandbox processes' RSS (KiB)."""
        bots: dict[int, dict[str, int]] = {}
        for entry in self.seen.values():
            if entry.hwm_kib == 0:
                continue  # seen only in passing (a kernel thread, an exec in progress)
            bot = bots.setdefault(
                entry.top, {"bot_hwm_kib": 0, "bot_anon_kib": 0, "bwrap_rss_kib": 0, "bwrap_anon_kib": 0}
            )
            if entry.name == "bwrap":
                bot["bwrap_rss_kib"] += entry.rss_kib
                bot["bwrap_anon_kib"] += entry.anon_kib
            elif entry.name.startswith("python"):
                bot["bot_hwm_kib"] += entry.hwm_kib
                bot["bot_anon_kib"] += entry.anon_kib
        return list(bots.values())


class MeteredSandbox:
    """A `Sandbox` for `run_match` that keeps each bot's cgroup memory peak (read just before
    the sandbox is torn down, which removes the cgroup)."""

    kind = "bubblewrap"

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.peaks: list[int] = []

    async def launch(
        self,
        command: str,
        *,
        files_dir: Path | None,
        referee_socket: Path,
        env: Mapping[str, str],
        log_path: Path,
        name: str = "bot",
    ) -> BotProcess:
        """`Sandbox.launch`, metered."""
        bot = await self.sandbox.launch(
            command, files_dir=files_dir, referee_socket=referee_socket, env=env, log_path=log_path, name=name
        )
        return _MeteredBot(bot, self.peaks)


@dataclass
class _MeteredBot:
    bot: SandboxedBot
    peaks: list[int]
    _read: bool = field(default=False)

    @property
    def pid(self) -> int:
        return self.bot.pid

    @property
    def returncode(self) -> int | None:
        return self.bot.returncode

    async def wait(self) -> int:
        return await self.bot.wait()

    def cpu_seconds(self) -> float | None:
        return self.bot.cpu_seconds()

    async def kill(self) -> None:
        if not self._read:
            self._read = True
            peak = self.bot.memory_peak_bytes()
            if peak is not None:
                self.peaks.append(peak)
        await self.bot.kill()


# --- the run ----------------------------------------------------------------------------------


def facts() -> dict[str, Any]:
    """What this machine gives the sandbox."""
    status = sandbox_status()
    bwrap = str(status["bwrap"] or "")
    version = ""
    if bwrap:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            version = subprocess.run(
                [bwrap, "--version"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
    return {
        "cgroup": status["cgroup"],
        "own_uid": status["own_uid"],
        "cores": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
        "bwrap": version or "absent",
        "kernel": platform.release(),
        "python_inside": PYTHON,
    }


def _stats(values: Sequence[float], unit: float) -> dict[str, float]:
    scaled = [v * unit for v in values]
    return {
        "n": len(scaled),
        "p50": round(statistics.median(scaled), 3) if scaled else 0.0,
        "p99": round(percentile(scaled, 99), 3),
    }


async def _startup(
    sandbox: Sandbox,
    work: Path,
    bot_dir: Path,
    socket: Path,
    env: Mapping[str, str],
    counts: Mapping[str, int],
) -> dict[str, Any]:
    kinds = {"echo": ECHO, "import": IMPORT_SDK}
    sides = {"echo": ("sandboxed", "plain", "bare_bwrap"), "import": ("sandboxed", "plain")}
    timings: dict[str, dict[str, list[Launch]]] = {k: {side: [] for side in sides[k]} for k in kinds}
    meter_reads: list[float] = []
    bare = shlex.join([shutil.which("bwrap") or "bwrap", *BARE_BWRAP, "/bin/sh", "-c", ECHO])
    for i in range(WARMUP + max(counts.values())):
        for kind, command in kinds.items():
            if i >= WARMUP + counts[kind]:
                continue
            # rotate which side goes first, so none always runs on a just-warmed cache
            order = sides[kind][i % len(sides[kind]) :] + sides[kind][: i % len(sides[kind])]
            for side in order:
                if side == "sandboxed":
                    reads = meter_reads if kind == "echo" and i >= WARMUP else None
                    launch = await sandboxed_launch(sandbox, command, work, bot_dir, socket, reads)
                elif side == "bare_bwrap":
                    launch = await plain_launch(bare, bot_dir, env)
                else:
                    launch = await plain_launch(command, bot_dir, env)
                if i >= WARMUP:
                    timings[kind][side].append(launch)
    report: dict[str, Any] = {}
    for kind, runs_by_side in timings.items():
        report[kind] = {
            side: {
                "returned_ms": _stats([t.returned_s for t in runs], 1000),
                "first_byte_ms": _stats([t.first_byte_s for t in runs], 1000),
                "torn_down_ms": _stats([t.done_s for t in runs], 1000),
            }
            for side, runs in runs_by_side.items()
        }
    report["cpu_meter_read_us"] = round(statistics.median(meter_reads) * 1e6, 1) if meter_reads else None
    return report


def _check_finished(launched: Any, side: str) -> None:
    status = launched.status
    bad = [s for s in status.seats if s.forfeited]
    if status.ended_by != "game_over" or bad:
        tails = "\n".join(b.log_tail(5) for b in launched.bots)
        reasons = [s.forfeit_reason for s in bad]
        raise RuntimeError(f"{side} match ended by {status.ended_by!r}, forfeits {reasons}:\n{tails}")


async def _matches(
    sandbox: Sandbox, work: Path, bot_dir: Path, plain_env: Mapping[str, str], matches: int
) -> dict[str, Any]:
    metered = MeteredSandbox(sandbox)
    clock = DecisionClock()
    # unsandboxed, run_match gives the bot this process's environment: the SDK's path is set on
    # the command line instead, to the same layout the sandbox mounts
    plain_prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in plain_env.items() if k.startswith("PYTHON"))
    commands = {"sandboxed": BOT, "plain": f"{plain_prefix} {BOT}"}
    decisions: dict[str, list[float]] = {"sandboxed": [], "plain": []}
    replay_ms: dict[str, list[int]] = {"sandboxed": [], "plain": []}
    memory: dict[str, list[dict[str, int]]] = {"sandboxed": [], "plain": []}
    with clock.installed():
        for i in range(matches):
            for side in ("sandboxed", "plain") if i % 2 == 0 else ("plain", "sandboxed"):
                sampler = TreeSampler()
                stop = asyncio.Event()
                sampling = asyncio.create_task(sampler.run(stop))
                clock.into = decisions[side]
                try:
                    launched = await run_match(
                        GAME,
                        [commands[side]] * 2,
                        seed=i + 1,
                        sandbox=metered if side == "sandboxed" else None,
                        files_dir=bot_dir,
                        log_dir=work / f"logs-{i}-{side}",
                    )
                finally:
                    clock.into = None
                    stop.set()
                    await sampling
                _check_finished(launched, side)
                replay = loads(launched.replay)
                replay_ms[side] += [
                    int(s["ms"]) for s in replay["steps"] if "ms" in s and not s.get("reason")
                ]
                memory[side] += sampler.per_bot()
    report: dict[str, Any] = {
        "matches_per_side": matches,
        "decision_us": {side: _stats(values, 1e6) for side, values in decisions.items()},
        "replay_ms_mean": {
            side: round(statistics.fmean(values), 3) if values else 0.0 for side, values in replay_ms.items()
        },
    }
    report["memory_mib"] = {
        side: {
            "bot_peak_rss": _median_mib([b["bot_hwm_kib"] * 1024 for b in bots]),
            "bot_anon": _median_mib([b["bot_anon_kib"] * 1024 for b in bots]),
            "bwrap_rss": _median_mib([b["bwrap_rss_kib"] * 1024 for b in bots]),
            "bwrap_anon": _median_mib([b["bwrap_anon_kib"] * 1024 for b in bots]),
            "bots": len(bots),
        }
        for side, bots in memory.items()
    }
    report["memory_mib"]["sandboxed"]["cgroup_peak"] = _median_mib(metered.peaks)
    report["memory_mib"]["sandboxed"]["cgroup_peak_max"] = round(max(metered.peaks, default=0) / MIB, 1)
    return report


def _median_mib(values: Sequence[int]) -> float:
    return round(statistics.median(values) / MIB, 1) if values else 0.0


async def bench(launches: int, import_launches: int, matches: int) -> dict[str, Any]:
    """Run everything; the report as a dict (`render` prints it)."""
    sandbox = Sandbox()
    sandbox.check()
    report: dict[str, Any] = {"facts": facts()}
    work = Path(tempfile.mkdtemp(prefix="arena-sandbox-bench-"))
    try:
        work.chmod(0o755)  # the sandbox's own uid mounts the bot's folder and the socket from here
        bot_dir = work / "bot"
        bot_dir.mkdir(mode=0o755)
        bot_dir.chmod(0o755)
        shutil.copyfile(EXAMPLE_BOT, bot_dir / "main.py")
        (bot_dir / "main.py").chmod(0o644)
        socket = work / "referee.sock"  # start-up runs need no referee: any file will do
        socket.touch(0o644)
        plain_env = reference_runtime(sandbox.runtime, work / "opt-arena")
        started = time.perf_counter()
        counts = {"echo": launches, "import": import_launches}
        report["startup"] = await _startup(sandbox, work, bot_dir, socket, plain_env, counts)
        report["startup_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        report["decisions"] = await _matches(sandbox, work, bot_dir, plain_env, matches)
        report["matches_s"] = round(time.perf_counter() - started, 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


WIDTH: Final = 36


def _row(
    label: str, sandboxed: float, plain: float | None, unit: str, goal: str = "", met: bool | None = None
) -> str:
    if plain is None:
        compared = f"{'-':>10} {unit:<3} {'':>7} {'':>9} {'':<3}"
    else:
        ratio = f"{sandboxed / plain:6.2f}x" if plain else f"{'-':>7}"
        compared = f"{plain:10.2f} {unit:<3} {ratio} {sandboxed - plain:+9.2f} {unit:<3}"
    verdict = "" if met is None else ("ok" if met else "MISSED")
    return f"    {label:<{WIDTH}} {sandboxed:10.2f} {compared} {goal} {verdict}".rstrip()


def render(report: dict[str, Any]) -> str:
    """The report as the table `make bench` prints."""
    f = report["facts"]
    lines = [
        f"sandbox bench: cgroup v{f['cgroup']}" if f["cgroup"] else "sandbox bench: no cgroup (rlimits only)",
    ]
    lines[0] += (
        f", own uid {'yes' if f['own_uid'] else 'no (not root)'}, {f['cores']} cores"
        f" (load {f['load_1min']}), {f['bwrap']}, kernel {f['kernel']}"
    )
    lines.append(
        f"    {'':<{WIDTH}} {'sandboxed':>10} {'plain':>10} {'':<3} {'ratio':>7} {'diff':>9} {'':<3} goal"
    )
    startup = report["startup"]
    lines.append(f"start-up from launch(), interleaved ({report['startup_s']} s):")
    titles = {
        "echo": f"`{ECHO}` (the sandbox alone)",
        "import": f"`{IMPORT_SDK}` (what a Python bot pays)",
    }
    for kind, title in titles.items():
        sides = startup[kind]
        lines.append(f"  {title}, {sides['sandboxed']['first_byte_ms']['n']} launches a side")
        for what, label in (
            ("returned_ms", "launch() returned"),
            ("first_byte_ms", "first output byte"),
            ("torn_down_ms", "exited and torn down"),
        ):
            for q in ("p50", "p99"):
                sb, pl = sides["sandboxed"][what][q], sides["plain"][what][q]
                goal, met = "", None
                if kind == "echo" and what == "first_byte_ms" and q == "p99":
                    goal, met = (
                        f"adds <= {GOAL_START_ADDED_P99_MS:.0f} ms",
                        sb - pl <= GOAL_START_ADDED_P99_MS,
                    )
                lines.append(_row(f"{label} {q}", sb, pl, "ms", goal, met))
        if "bare_bwrap" in sides:
            for q in ("p50", "p99"):
                bare, pl = sides["bare_bwrap"]["first_byte_ms"][q], sides["plain"]["first_byte_ms"][q]
                lines.append(_row(f"bare bwrap: first output byte {q}", bare, pl, "ms"))
    if startup.get("cpu_meter_read_us") is not None:
        lines.append(f"  one read of the bot cgroup's CPU meter: {startup['cpu_meter_read_us']} us")
    d = report["decisions"]
    sb_us, pl_us = d["decision_us"]["sandboxed"], d["decision_us"]["plain"]
    lines.append(
        f"per decision, example random bot, {d['matches_per_side']} Clank! 2p matches a side, interleaved "
        f"({sb_us['n']} / {pl_us['n']} decisions, {report['matches_s']} s):"
    )
    for q, goal_us in (("p50", GOAL_DECISION_ADDED_P50_US), ("p99", GOAL_DECISION_ADDED_P99_US)):
        added = sb_us[q] - pl_us[q]
        lines.append(
            _row(
                f"referee's round trip {q}",
                sb_us[q],
                pl_us[q],
                "us",
                f"adds <= {goal_us:.0f} us",
                added <= goal_us,
            )
        )
    rm = d["replay_ms_mean"]
    lines.append(_row("replay's whole-ms figure, mean", rm["sandboxed"], rm["plain"], "ms"))
    ms, mp = d["memory_mib"]["sandboxed"], d["memory_mib"]["plain"]
    lines.append(f"memory per bot over a match, median of {ms['bots']} / {mp['bots']} bots:")
    lines.append(_row("bot's python3 peak RSS (VmHWM)", ms["bot_peak_rss"], mp["bot_peak_rss"], "MiB"))
    lines.append(_row("bot's python3 private (RssAnon)", ms["bot_anon"], mp["bot_anon"], "MiB"))
    lines.append(_row("bot cgroup's peak (charged memory)", ms["cgroup_peak"], None, "MiB"))
    lines.append(
        _row(
            "sandbox's own: 2 bwrap, RSS",
            ms["bwrap_rss"],
            None,
            "MiB",
            f"<= {GOAL_SANDBOX_RSS_MIB:.0f} MiB",
            ms["bwrap_rss"] <= GOAL_SANDBOX_RSS_MIB,
        )
    )
    lines.append(_row("sandbox's own: 2 bwrap, private", ms["bwrap_anon"], None, "MiB"))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench.sandbox`."""
    parser = argparse.ArgumentParser(description="benchmark the hosted-bot sandbox")
    parser.add_argument("--launches", type=int, default=100, help="echo launches a side (default 100)")
    parser.add_argument("--import-launches", type=int, default=20, help="Python launches a side (default 20)")
    parser.add_argument("--matches", type=int, default=5, help="matches a side (default 5)")
    parser.add_argument("--quick", action="store_true", help="20 echo and 5 Python launches, 1 match a side")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args(argv)
    counts = (20, 5, 1) if args.quick else (args.launches, args.import_launches, args.matches)
    report = asyncio.run(bench(*counts))
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
