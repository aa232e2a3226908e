"""`arena serve referee --processes N`: N referee processes on one host, supervised.

One referee process runs its matches on one event loop, so it uses one core. To use N cores the
parent starts N children, each a whole `arena serve referee` on its own port (``PORT + 1 + i``)
and its own metrics port (``METRICS + i``), all also on ``PORT`` (SO_REUSEPORT: remote bots'
connections spread over them), and supervises them; it serves nothing itself. A match lives in
one process: it is created on one child and its seats connect there. Placement is the workers'
existing rule for several referees (``ARENA_REFEREE_ADDR`` lists every own port, comma-separated,
as the parent prints it). The decision and its alternatives are in PROCESSES.md beside this file.

Supervision: a child that exits while the parent runs is restarted on the same port (its matches
are lost with it; a worker hands such a match back to be played again). A child that exits
`MAX_RESTARTS` times within `RESTART_WINDOW_S`, or cannot start at all, stops everything and the
parent exits 1 with one ``error:`` line. SIGTERM or SIGINT to the parent stops every child
(SIGTERM, then SIGKILL after `STOP_GRACE_S`) and the parent exits 0. Children run in their own
session (a terminal's Ctrl-C reaches only the parent, which stops them in order) and stop by
themselves if the parent disappears (``--supervisor-pid``).

Restarts, for Prometheus: the parent serves no metrics, so each child exports its own slot's
count. The parent starts every child with ``ARENA_REFEREE_PROCESS`` (its index ``i``) and
``ARENA_REFEREE_RESTARTS`` (how many times the parent has restarted slot ``i`` so far: 0 at the
first start, then 1, 2, ...) in its environment (never its command line), and the child serves
them as the gauge ``arena_referee_process_restarts{process="i"}`` on ``METRICS+i``, the port
already scraped. The count lives in the parent, so it survives the child's restarts and the
series stays one per slot; it goes back to 0 only when the parent itself restarts (the
container). When the current process started is the standard ``process_start_time_seconds`` of
the same target. A referee that is not a supervised child exports no such series.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Final, TextIO

__all__ = [
    "MAX_RESTARTS",
    "PROCESS_ENV",
    "RESTARTS_ENV",
    "RESTART_WINDOW_S",
    "STARTUP_TIMEOUT_S",
    "STOP_GRACE_S",
    "Child",
    "Supervisor",
    "supervised",
]

#: exits of one child within RESTART_WINDOW_S that make the parent give up
MAX_RESTARTS: Final = 3
RESTART_WINDOW_S: Final = 60.0
#: how long a child may take to print its `listening on` line
STARTUP_TIMEOUT_S: Final = 60.0
#: how long children get to stop after SIGTERM before they are killed
STOP_GRACE_S: Final = 10.0
#: how often the parent looks at its children
POLL_S: Final = 0.2
LISTENING: Final = "referee listening on "
#: a child's environment: its index, and how many times the parent restarted that index
PROCESS_ENV: Final = "ARENA_REFEREE_PROCESS"
RESTARTS_ENV: Final = "ARENA_REFEREE_RESTARTS"


def supervised(environ: Mapping[str, str] | None = None) -> tuple[int, int] | None:
    """(index, restarts) a supervisor started this process with (`environ`: default this
    process's environment); None when it is not a supervised child. ValueError, naming the
    variable, for a value that is not a count."""
    from referee.settings import Settings, current

    parsed = current() if environ is None else Settings.from_env(environ)
    if parsed.referee_process is None:
        return None
    return parsed.referee_process, parsed.referee_restarts


@dataclass
class Child:
    """One referee process of the group."""

    index: int
    #: its port (0 until a child started on port 0 has bound one; then kept across restarts)
    port: int
    #: its metrics port (0: none)
    metrics_port: int
    proc: subprocess.Popen[str] | None = None
    address: str = ""
    #: when it exited unexpectedly, within the restart window
    exits: list[float] = field(default_factory=list)
    #: how many times it was restarted since the parent started (passed on: RESTARTS_ENV)
    restarts: int = 0


class StartFailed(Exception):
    """A child did not reach its `listening on` line."""


class Supervisor:
    """Starts, watches and stops the children.

    `argv_for(port, metrics_port)` is the child's command line after the interpreter (an
    `arena serve referee` with the parent's options, the supervisor pid added here).
    """

    def __init__(
        self,
        argv_for: Callable[[int, int], Sequence[str]],
        ports: Sequence[int],
        metrics_ports: Sequence[int],
        *,
        out: TextIO | None = None,
        err: TextIO | None = None,
        shared: str = "",
    ) -> None:
        self.argv_for = argv_for
        self.children = [Child(i, p, m) for i, (p, m) in enumerate(zip(ports, metrics_ports, strict=True))]
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.stopping = False
        #: HOST:PORT every child also serves (SO_REUSEPORT), for the operator's line
        self.shared = shared
        self._lock = threading.Lock()
        #: (process, its `listening on` line), or (process, None) once its stdout closed: every
        #: child's, so a start waits on all of them at once
        self._started: queue.Queue[tuple[subprocess.Popen[str], str | None]] = queue.Queue()

    # --- one child ------------------------------------------------------------------------

    def _spawn(self, child: Child) -> None:
        import os

        argv = [
            sys.executable,
            *self.argv_for(child.port, child.metrics_port),
            "--supervisor-pid",
            str(os.getpid()),
        ]
        # stderr is the parent's (its log lines and any start-up error reach the operator as
        # they are); stdout is read for the `listening on` line, then passed on
        # its slot and restart count, which it exports (arena_referee_process_restarts)
        env = {**os.environ, PROCESS_ENV: str(child.index), RESTARTS_ENV: str(child.restarts)}
        child.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True, env=env
        )
        threading.Thread(
            target=self._pump, args=(child.proc,), name=f"referee-{child.index}-out", daemon=True
        ).start()

    def _pump(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        listening = False
        try:
            with proc.stdout:
                for line in proc.stdout:
                    if not listening and line.startswith(LISTENING):
                        listening = True
                        self._started.put((proc, line))
                        continue
                    with self._lock:  # anything else it prints is the operator's
                        self.out.write(line)
                        self.out.flush()
        finally:
            self._started.put((proc, None))

    def _await_listening(self, children: Sequence[Child]) -> None:
        """Wait until each of `children` (just spawned) printed its `listening on` line.

        All at once: the first child that exits before it listens fails the start then, with its
        status (its error is on stderr), whichever child is still starting; StartFailed too when
        STARTUP_TIMEOUT_S passes (those not listening yet are killed)."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        waiting: dict[subprocess.Popen[str], Child] = {}
        for child in children:
            assert child.proc is not None
            waiting[child.proc] = child
        while waiting:
            try:
                proc, line = self._started.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                for late_proc in waiting:
                    late_proc.kill()
                late = ", ".join(str(c.index) for c in waiting.values())
                raise StartFailed(
                    f"referee process{'es' if len(waiting) > 1 else ''} {late} did not start within "
                    f"{STARTUP_TIMEOUT_S:.0f} s"
                ) from None
            if proc not in waiting:  # a process that listened already, or one replaced by a restart
                continue
            starting = waiting.pop(proc)
            if line is None:
                code = proc.wait()
                raise StartFailed(
                    f"referee process {starting.index} (port {starting.port}) exited with status {code} "
                    "before it listened (its error is above)"
                )
            starting.address = line[len(LISTENING):].strip()
            if starting.port == 0:  # keep the port it chose: a restart comes back where clients look
                starting.port = int(starting.address.rsplit(":", 1)[1])

    def _say(self, text: str) -> None:
        with self._lock:
            self.err.write(text + "\n")
            self.err.flush()

    # --- the group ------------------------------------------------------------------------

    def start(self) -> None:
        """Start every child and wait until each listens; StartFailed (the others stopped) if
        one cannot."""
        for child in self.children:
            self._spawn(child)
        try:
            self._await_listening(self.children)
        except StartFailed:
            self.stop()
            raise
        with self._lock:
            # the first line is the same as one referee's: every HOST:PORT, ARENA_REFEREE_ADDR's form
            self.out.write(LISTENING + ",".join(c.address for c in self.children) + "\n")
            if self.shared:
                self.out.write(
                    f"  every process on {self.shared} too (remote bots: each connection goes to one)\n"
                )
            for child in self.children:
                assert child.proc is not None
                metrics = f", metrics on port {child.metrics_port}" if child.metrics_port else ""
                self.out.write(f"  process {child.index} (pid {child.proc.pid}): {child.address}{metrics}\n")
            self.out.flush()

    def check(self) -> None:
        """Restart each child that exited; StartFailed when one exits too often or cannot restart."""
        for child in self.children:
            assert child.proc is not None
            code = child.proc.poll()
            if code is None or self.stopping:
                continue
            now = time.monotonic()
            child.exits = [t for t in child.exits if now - t < RESTART_WINDOW_S] + [now]
            if len(child.exits) > MAX_RESTARTS:
                raise StartFailed(
                    f"referee process {child.index} (port {child.port}) exited {len(child.exits)} times "
                    f"in {RESTART_WINDOW_S:.0f} s (last status {code})"
                )
            self._say(
                f"referee process {child.index} (pid {child.proc.pid}, {child.address}) exited with "
                f"status {code}; restarting it (the matches it held are lost; workers hand theirs back)"
            )
            child.restarts += 1
            self._spawn(child)
            self._await_listening([child])
            self._say(
                f"referee process {child.index} (pid {child.proc.pid}) listening on {child.address} again"
            )

    def stop(self) -> list[int]:
        """SIGTERM every child, SIGKILL those still running after STOP_GRACE_S; the pids killed."""
        self.stopping = True
        running = [c.proc for c in self.children if c.proc is not None and c.proc.poll() is None]
        for proc in running:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        killed: list[int] = []
        for proc in running:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                killed.append(proc.pid)
        return killed

    def run(self) -> int:
        """Start, supervise until SIGTERM/SIGINT, stop; the exit status (0, or 1 after a failure)."""
        requested: list[int] = []

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            requested.append(signum)

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            try:
                self.start()
                while not requested:
                    time.sleep(POLL_S)
                    if not requested:
                        self.check()
            except StartFailed as exc:
                self.stop()
                self._say(f"error: {exc}; stopped every referee process")
                return 1
            killed = self.stop()
            if killed:
                self._say(f"referee processes {killed} did not stop within {STOP_GRACE_S:.0f} s: killed")
            return 0
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
