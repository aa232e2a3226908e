"""The CPU clock (PROTOCOL.md, "CPU time"): real bot processes in real cgroups, a real referee.

Each metered bot runs in a cgroup v1 cpuacct group made for the test (the sandbox makes one per
bot the same way); the referee reads it through `cpu_clock.cgroup_cpu_meter`. The wall clock is
always generous here, so any ruling it makes instead of the CPU clock fails the test. The other
seat is an unmetered random bot: it is on the wall clock only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_bot._proto.arena.v1 import admin_pb2, common_pb2
from prometheus_client import REGISTRY

from cli.main import _sandbox as _load_sandbox  # the sandbox `arena match --sandbox` gets
from referee.replay import loads
from referee.replay_view import render
from referee.server.commands import _time_args, _time_control
from referee.server.config import DEFAULT_BANK_MS, TimeControl
from referee.server.cpu_clock import cgroup_cpu_meter, cgroup_cpu_seconds
from referee.server.launcher import run_match
from referee.server.session import CPU_TIME

from .conftest import BOTS, RANDOM_BOT, PlayedOn, ThreadedReferee, python_bot, start_bot

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
CPU = Path("/sys/fs/cgroup/cpu")
UNIFIED = Path("/sys/fs/cgroup/unified")
CPU_BOT = BOTS / "cpu_bot.py"


def cpu_bot(mode: str, *args: str) -> str:
    """The CPU-using bot in `mode` (tests/referee/bots/cpu_bot.py)."""
    return python_bot(CPU_BOT, "--mode", mode, *args)


class Cgroup:
    """A cgroup directory made for one test; `close` kills what is left in it and removes it."""

    def __init__(self, root: Path) -> None:
        self.path = root / f"arena-cputest-{secrets.token_hex(4)}"
        self.path.mkdir()

    def run(self, command: str) -> str:
        """`command` as a shell line that enters this cgroup before it runs anything."""
        return f"echo $$ > {self.path / 'cgroup.procs'} && exec {command}"

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError):
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        return []

    def close(self) -> None:
        deadline = time.monotonic() + 10
        while pids := self.pids():
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            assert time.monotonic() < deadline, f"{self.path} keeps {pids}"
            time.sleep(0.02)
        while True:
            try:
                self.path.rmdir()
                return
            except OSError:
                assert time.monotonic() < deadline, f"{self.path} cannot be removed"
                time.sleep(0.02)


@pytest.fixture
def cgroups() -> Iterator[list[Cgroup]]:
    """Cgroups made by the test (append to the list), cleaned up after it."""
    made: list[Cgroup] = []
    try:
        yield made
    finally:
        for group in reversed(made):
            group.close()


@pytest.fixture(scope="module")
def ref() -> Iterator[ThreadedReferee]:
    referee = ThreadedReferee()
    try:
        yield referee
    finally:
        referee.close()


def play_metered(
    ref: ThreadedReferee,
    commands: Sequence[str],
    tmp_path: Path,
    clock: TimeControl,
    metered: Mapping[int, Cgroup],
    *,
    seed: int = 1,
) -> tuple[PlayedOn, list[admin_pb2.MatchEvent]]:
    """Play one Clank! match on `ref`; seat i in `metered` runs inside its cgroup, measured by
    the referee's CPU meter on it (set before the bot starts, as a launcher does)."""
    made = ref.admin(
        "CreateMatch",
        admin_pb2.CreateMatchRequest(
            game="clank",
            seats=[admin_pb2.SeatSpec(name=f"seat{i}") for i in range(len(commands))],
            seed=seed,
            time_control=clock.to_proto(),
        ),
        admin_pb2.CreateMatchResponse,
    )
    session = ref.running.referee.get(made.match_id)
    assert session is not None

    async def set_meters() -> None:
        for seat, group in metered.items():
            session.set_cpu_meter(seat, cgroup_cpu_meter(group.path))

    ref.call(set_meters())
    bots = [
        start_bot(
            ref,
            metered[i].run(command) if i in metered else command,
            token,
            tmp_path / made.match_id / f"seat{i}.log",
        )
        for i, (command, token) in enumerate(zip(commands, made.seat_tokens, strict=True))
    ]
    try:
        ref.wait_until_over(made.match_id)
    finally:
        for bot in bots:
            bot.stop()
    request = admin_pb2.GetMatchRequest(match_id=made.match_id)
    status = ref.admin("GetMatch", request, admin_pb2.MatchStatus)
    replay = loads(ref.admin("GetReplay", request, admin_pb2.Replay).data)
    return PlayedOn(made.match_id, status, replay, bots), list(session.events)


def steps_of(replay: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The seat's action steps, in order."""
    return [s for s in replay["steps"] if s.get("seat") == seat and "action" in s]


def told(log: str) -> list[tuple[int, int, int]]:
    """(decision, cpu_deadline_ms, cpu_bank_ms) the bot was told in each DecisionRequest."""
    return [
        (int(n), int(deadline), int(bank))
        for n, deadline, bank in re.findall(
            r"^decision (\d+) cpu_deadline_ms (\d+) cpu_bank_ms (\d+)", log, re.M
        )
    ]


def metric(name: str, **labels: str) -> float:
    """A sample of the referee's metrics for Clank! (the referee runs in this process)."""
    return REGISTRY.get_sample_value(name, {"game": "clank", **labels}) or 0.0


# --- the meter ----------------------------------------------------------------------------------


@pytest.mark.parametrize("root", [CPUACCT, UNIFIED], ids=["v1-cpuacct", "v2"])
def test_cgroup_meter_counts_every_process_of_the_group(root: Path, cgroups: list[Cgroup]) -> None:
    group = Cgroup(root)
    cgroups.append(group)
    meter = cgroup_cpu_meter(group.path)
    before = meter()
    assert before is not None
    # a parent that only waits, and a child it forks that uses 0.3 s of CPU: the group pays
    burner = (
        "import os,time\n"
        "if os.fork()==0:\n e=time.process_time()+0.3\n while time.process_time()<e: pass\n"
        "else: os.wait()"
    )
    subprocess.run(group.run(f"{sys.executable} -c '{burner}'"), shell=True, check=True)
    after = meter()
    assert after is not None and after - before >= 0.3
    assert cgroup_cpu_seconds(group.path) == pytest.approx(after, abs=0.05)  # nothing runs there now
    group.close()
    cgroups.remove(group)
    assert meter() is None  # the group is gone: the referee falls back to the wall clock


# --- the time control ---------------------------------------------------------------------------


def test_bank_zero_means_no_bank_and_unset_means_the_default() -> None:
    assert TimeControl.from_proto(common_pb2.TimeControl(decision_ms=500)).bank_ms == DEFAULT_BANK_MS
    assert TimeControl.from_proto(common_pb2.TimeControl(decision_ms=500, bank_ms=0)).bank_ms == 0
    # a client built before `bank_ms` was optional never puts a 0 on the wire: the default
    old_client = common_pb2.TimeControl.FromString(bytes([0x08, 0xF4, 0x03]))  # decision_ms=500 only
    assert TimeControl.from_proto(old_client).bank_ms == DEFAULT_BANK_MS
    no_bank = TimeControl(decision_ms=500, bank_ms=0, cpu_decision_ms=200, cpu_bank_ms=700)
    assert (
        TimeControl.from_proto(common_pb2.TimeControl.FromString(no_bank.to_proto().SerializeToString()))
        == no_bank
    )
    assert TimeControl().cpu_clock is False and "cpu_decision_ms" not in TimeControl().to_json()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cpu_bank_ms": 1000}, "cpu_bank_ms needs cpu_decision_ms"),
        ({"cpu_decision_ms": -1}, "cpu_decision_ms must be in 0..600000"),
        ({"cpu_decision_ms": 600_001}, "cpu_decision_ms must be in 0..600000"),
        ({"cpu_decision_ms": 10, "cpu_bank_ms": 3_600_001}, "cpu_bank_ms must be in 0..3600000"),
    ],
)
def test_cpu_fields_out_of_range_are_refused(
    fields: dict[str, int], message: str, ref: ThreadedReferee
) -> None:
    with pytest.raises(ValueError, match=message):
        TimeControl(**fields)
    with pytest.raises(grpc.RpcError) as refused:
        ref.admin(
            "CreateMatch",
            admin_pb2.CreateMatchRequest(
                game="clank",
                seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")],
                time_control=common_pb2.TimeControl(**fields),
            ),
            admin_pb2.CreateMatchResponse,
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in (refused.value.details() or "")


def test_arena_match_time_flags() -> None:
    parser = argparse.ArgumentParser()
    _time_args(parser)
    given = parser.parse_args(["--bank-ms", "0", "--cpu-decision-ms", "300", "--cpu-bank-ms", "2000"])
    assert _time_control(given) == TimeControl(bank_ms=0, cpu_decision_ms=300, cpu_bank_ms=2000)
    assert _time_control(parser.parse_args([])) == TimeControl()


# --- matches ------------------------------------------------------------------------------------


def test_a_bot_spinning_on_the_cpu_is_cut_by_the_cpu_clock(
    ref: ThreadedReferee, cgroups: list[Cgroup], tmp_path: Path
) -> None:
    """It never answers on its own: only the CPU clock (200 + 300 ms of CPU) can stop it
    before the 30 s wall clock."""
    clock = TimeControl(
        decision_ms=30_000, bank_ms=0, max_strikes=3, connect_ms=30_000, cpu_decision_ms=200, cpu_bank_ms=300
    )
    cgroups.append(group := Cgroup(CPUACCT))
    cpu_before = metric("arena_referee_cpu_timeouts_total")
    strikes_before = metric("arena_referee_strikes_total", reason=CPU_TIME)
    played, events = play_metered(ref, [cpu_bot("spin"), RANDOM_BOT], tmp_path, clock, {0: group})
    first = steps_of(played.replay, 0)[0]
    assert first["reason"] == CPU_TIME, first
    assert first["cpu_ms"] > 500  # cut once allowance + bank were spent, not before
    seat = played.replay["seats"][0]
    assert seat["strikes"] == 1 and "forfeit" not in seat and seat["cpu_metered"] is True
    assert [i["kind"] for i in seat["incidents"]] == [CPU_TIME]
    assert played.status.result.outcomes[0] != "forfeited"
    # the bot heard it, and was told its CPU clock: then an empty bank
    log = played.log(0)
    assert "notice TIMEOUT RESOURCE_EXHAUSTED out of CPU time" in log
    assert "time_control 200 300 0" in log
    asked = told(log)
    assert asked[0] == (1, 200, 300) and asked[1] == (2, 200, 0)
    # GetMatch: the banks (the explicit wall bank of 0 held), who is measured
    s0, s1 = played.status.seats
    assert (s0.cpu_bank_ms, s0.cpu_metered, s0.bank_ms) == (0, True, 0)
    assert (s1.cpu_metered, s1.bank_ms) == (False, 0)
    assert played.replay["time_control"]["cpu_decision_ms"] == 200
    # the unmetered seat is on the wall clock only: no CPU time recorded, none told
    assert all("cpu_ms" not in s for s in steps_of(played.replay, 1))
    # the event stream and the metrics say "cpu_time"
    strikes = [e.strike for e in events if e.WhichOneof("event") == "strike"]
    assert [(s.seat, s.reason) for s in strikes] == [(0, CPU_TIME)]
    cut = next(e.action for e in events if e.WhichOneof("event") == "action" and e.action.seat == 0)
    assert cut.reason == CPU_TIME and cut.HasField("cpu_ms") and cut.cpu_ms == first["cpu_ms"]
    assert metric("arena_referee_cpu_timeouts_total") == cpu_before + 1
    assert metric("arena_referee_strikes_total", reason=CPU_TIME) == strikes_before + 1


def test_a_bot_spinning_in_a_forked_child_is_charged_for_it(
    ref: ThreadedReferee, cgroups: list[Cgroup], tmp_path: Path
) -> None:
    """The attacker sleeps (no CPU of its own) while a child it forked for each decision spins:
    every process in the cgroup counts, so each decision runs out of CPU time, and three strikes
    forfeit it, all long before the 30 s wall clock."""
    clock = TimeControl(
        decision_ms=30_000, bank_ms=0, max_strikes=3, connect_ms=30_000, cpu_decision_ms=200, cpu_bank_ms=300
    )
    cgroups.append(group := Cgroup(CPUACCT))
    played, _ = play_metered(ref, [cpu_bot("fork-spin"), RANDOM_BOT], tmp_path, clock, {0: group})
    seat = played.replay["seats"][0]
    assert seat["forfeit"] == "strikes: 3 of 3"
    assert [i["kind"] for i in seat["incidents"]] == [CPU_TIME] * 3
    ruled = [s for s in steps_of(played.replay, 0) if s.get("reason") == CPU_TIME]
    assert len(ruled) == 3
    assert ruled[0]["cpu_ms"] > 500 and all(s["cpu_ms"] > 200 for s in ruled[1:])


def test_the_cpu_bank_pays_the_excess_and_sleeping_costs_no_cpu(
    ref: ThreadedReferee, cgroups: list[Cgroup], tmp_path: Path
) -> None:
    """1st decision: 600 ms of CPU on a 100 ms allowance (the bank pays ~500); 2nd: a 1.5 s
    sleep, far past the CPU allowance in wall time, but it uses no CPU: not charged."""
    clock = TimeControl(
        decision_ms=20_000,
        bank_ms=10_000,
        max_strikes=1,
        connect_ms=30_000,
        cpu_decision_ms=100,
        cpu_bank_ms=2000,
    )
    cgroups.append(group := Cgroup(CPUACCT))
    bot = cpu_bot("burn-sleep", "--burn-ms", "600", "--sleep-ms", "1500")
    played, _ = play_metered(ref, [bot, RANDOM_BOT], tmp_path, clock, {0: group})
    seat = played.replay["seats"][0]
    assert seat["strikes"] == 0 and "forfeit" not in seat, seat
    burnt, slept, *rest = steps_of(played.replay, 0)
    assert 600 <= burnt["cpu_ms"] < 2100 and "reason" not in burnt
    assert slept["ms"] >= 1500 and slept["cpu_ms"] < 100 and "reason" not in slept
    # the bank moved by exactly the excess of each decision, and the bot was told so
    excess = [max(0, s["cpu_ms"] - 100) for s in (burnt, slept, *rest)]
    assert played.status.seats[0].cpu_bank_ms == 2000 - sum(excess) <= 2000 - 500
    asked = told(played.log(0))
    assert asked[1] == (2, 100, 2000 - excess[0])
    assert asked[2][2] == asked[1][2]  # the sleep cost nothing
    # the wall clock never needed its bank
    assert played.status.seats[0].bank_ms == 10_000
    # `arena replay show` prints each decision's CPU time beside its wall time
    shown = "\n".join(render(played.replay, 0))
    assert f"({burnt['ms']} ms; {burnt['cpu_ms']} ms CPU)" in shown


def test_the_cpu_clock_does_not_depend_on_how_loaded_the_machine_is(
    ref: ThreadedReferee, cgroups: list[Cgroup], tmp_path: Path
) -> None:
    """A busy neighbour shares the bot's CPU, and that CPU is capped at 10% of one core: the
    bot's 30 ms of work per decision take far more than its 150 ms CPU allowance in wall time
    (a wall clock of 150 ms would strike it every time), yet the CPU clock charges it ~30 ms and
    never strikes it (one strike would forfeit it).

    Deterministic: at 10 ms of CPU per 100 ms period, 30 ms of CPU cannot take less than 200 ms
    of wall time, whatever else the machine does. The bot enters the capped group once the game
    has started (its start-up would take seconds there) and leaves it after 3 decisions.
    """
    cgroups.append(throttle := Cgroup(CPU))
    (throttle.path / "cpu.cfs_period_us").write_text("100000")
    (throttle.path / "cpu.cfs_quota_us").write_text("10000")
    neighbour = subprocess.Popen(throttle.run(f"{sys.executable} -c 'while True: pass'"), shell=True)
    try:
        cgroups.append(group := Cgroup(CPUACCT))
        clock = TimeControl(
            decision_ms=30_000,
            bank_ms=0,
            max_strikes=1,
            connect_ms=30_000,
            cpu_decision_ms=150,
            cpu_bank_ms=0,
        )
        bot = cpu_bot(
            "throttled",
            "--burn-ms",
            "30",
            "--loaded",
            "3",
            "--throttle",
            str(throttle.path),
            "--unthrottle",
            str(CPU),
        )
        played, _ = play_metered(ref, [bot, RANDOM_BOT], tmp_path, clock, {0: group})
    finally:
        neighbour.kill()
        neighbour.wait()
    seat = played.replay["seats"][0]
    assert seat["strikes"] == 0 and "forfeit" not in seat, seat
    loaded = steps_of(played.replay, 0)[:3]
    for step in loaded:
        assert step["ms"] > 150, step  # slowed in wall time past what a 150 ms wall clock allows
        assert 30 <= step["cpu_ms"] < 150, step  # charged its own CPU time only


def test_sandboxed_bots_are_on_the_cpu_clock(tmp_path: Path) -> None:
    """`arena match --sandbox` (the launcher with the ladder's sandbox): the sandbox's cgroup
    is each bot's CPU meter, so the spinning bot is cut on the CPU clock there too."""
    clock = TimeControl(
        decision_ms=30_000, bank_ms=0, max_strikes=3, connect_ms=30_000, cpu_decision_ms=200, cpu_bank_ms=300
    )
    launched = asyncio.run(
        run_match(
            "clank",
            ["python3 cpu_bot.py --mode spin", "python3 cpu_bot.py --mode plain"],
            time_control=clock,
            sandbox=_load_sandbox(),
            files_dir=BOTS,
            log_dir=tmp_path / "logs",
        )
    )
    replay = loads(launched.replay)
    first = steps_of(replay, 0)[0]
    assert first["reason"] == CPU_TIME and first["cpu_ms"] > 500, first
    assert [s.cpu_metered for s in launched.status.seats] == [True, True]
    assert all("cpu_ms" in s for s in steps_of(replay, 1))
    assert replay["seats"][0]["strikes"] == 1 and replay["seats"][1]["strikes"] == 0
