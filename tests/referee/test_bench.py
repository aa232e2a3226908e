"""The referee's capacity bench (`make bench-referee`) in quick mode: what it measures and how it
reports, never how fast anything is (timings stay out of asserting tests).

One quick run, on referees that hold at most 3 matches: with 4 matches on one referee process the
fourth is refused, and the bench counts and prints the refusals by status code instead of
swallowing them; with two processes (`--processes 2`, matches placed round-robin) all 4 fit.
Each seat has its own connection (counted from the kernel's socket table), and a server that
fails to start is reported with its exit status and stderr. Every capacity level stands beside a
same-run bare echo reference (its CPU per message and memory, as ratios) and the length of a match
in decisions.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import referee_server as bench
from referee.games import game_class
from referee.server.server import start

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable, "-m", "bench.referee_server", "--quick", "--json",
            "--levels", "4", "--processes", "1,2", "--max-matches", "3",
        ],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_round_trip_is_measured_beside_the_bare_echo(report: dict[str, Any]) -> None:
    rt = report["round_trip"]
    assert rt["referee"]["n"] > 0 and rt["bare_echo"]["n"] == rt["referee"]["n"]  # the same sizes
    assert rt["request_bytes_median"] > 0 and rt["echo_kib_per_stream"] > 0


def test_refused_matches_are_counted_not_swallowed(report: dict[str, Any]) -> None:
    one, two = report["capacity"]
    assert (one["processes"], two["processes"]) == (1, 2)
    (row_one,) = one["levels"]
    (row_two,) = two["levels"]
    assert row_one["failures"].get("RESOURCE_EXHAUSTED", 0) > 0, row_one
    assert one["max_matches_p99_within_5ms"] == 0  # a level with failures never counts
    assert row_two["failures"] == {}, row_two  # 2 processes x 3 matches hold all 4
    for row in (row_one, row_two):
        assert row["n"] > 0 and row["decisions_per_s"] > 0
        assert row["referee_cpu_us_per_decision"] > 0 and row["bot_processes"] == 1
    text = "\n".join(bench.render(report))
    assert "FAILURES:" in text and "RESOURCE_EXHAUSTED" in text
    for goal in ("goal <= 1.5x", "goal <= 100:", "goal >= 250 per core", "processes: 2 vs 1"):
        assert goal in text, goal


def test_capacity_levels_stand_beside_a_same_run_echo(report: dict[str, Any]) -> None:
    assert report["round_trip"]["decisions_per_match"] > 0  # its bots answer at once: matches end
    for cap in report["capacity"]:
        (row,) = cap["levels"]
        echo = row["echo"]
        assert (echo["pairs"], echo["connections"]) == (4, 8)  # N pairs of streams for N matches
        assert echo["n"] > 0 and echo["messages_per_s"] > 0 and echo["client_processes"] == 1
        assert echo["cpu_us_per_message"] > 0 and echo["failures"] == {}, echo
        assert row["cpu_vs_echo"] > 0 and row["kib_vs_echo_pair"] > 0
        for key in ("decisions_per_match", "matches_created_in_window", "matches_finished_in_window"):
            assert key in row, key
    # paced to the referee's rate at that level (measured with the first process count)
    first = report["capacity"][0]["levels"][0]
    assert first["echo"]["interval_ms"] == pytest.approx(4 / first["decisions_per_s"] * 1000, rel=0.01)
    # measured once per level size, shared by the process counts
    assert report["capacity"][0]["levels"][0]["echo"] == report["capacity"][1]["levels"][0]["echo"]
    text = "\n".join(bench.render(report))
    assert "referee CPU per decision = " in text and "x the bare echo's" in text
    assert "two bare echo streams'" in text and "decisions per finished match" in text


def test_the_referees_own_work_is_measured_and_split_from_the_transport(report: dict[str, Any]) -> None:
    work = report["game_work"]
    assert work["in_flight"] == 1 and work["decisions"] == 2_000 and work["us_per_decision"] > 0
    assert work["matches_finished"] >= 1  # one at a time: matches end and are replaced
    for cap in report["capacity"]:
        (row,) = cap["levels"]
        rest = row["rest_us_per_decision"]
        own = row["referee_cpu_us_per_decision"] - row["echo"]["cpu_us_per_message"] - rest
        assert own == pytest.approx(row["game_work_us_per_decision"], abs=0.2)  # the parts add up
    text = "\n".join(bench.render(report))
    assert "the referee's own work per decision, no transport" in text
    assert "of it: the bare echo's transport" in text and "4 matches in flight) + the rest" in text


def _match_length(seed: int) -> int:
    """Decisions of seed's 2-seat Clank! match on the bare engine, answered as the bench's bots."""
    cls = game_class("clank")
    game = cls.new_game(cls.default_config(2), seed)
    decisions = 0
    while not game.is_over():
        d = game.decision()
        assert d is not None
        game.apply_index((d.id * 7) % len(d.actions))
        decisions += 1
    return decisions


def test_the_own_work_plays_each_match_to_its_end_through_the_session() -> None:
    first, second = _match_length(5), _match_length(6)
    # one in flight: seed 5 to its end, then seed 6 replaces it and takes one decision
    work = bench.game_work(1, first + 1, first_seed=5)
    assert (work["matches_made"], work["matches_finished"], work["decisions"]) == (2, 1, first + 1)
    work = bench.game_work(1, first + second, first_seed=5)
    assert (work["matches_made"], work["matches_finished"]) == (2, 2)


def test_the_own_work_interleaves_the_matches_in_flight() -> None:
    # three in flight, one decision each in turn: none ends within 30 decisions
    work = bench.game_work(3, 30)
    assert (work["matches_made"], work["matches_finished"], work["decisions"]) == (3, 0, 30)
    assert work["in_flight_decisions"] == [10, 10, 10]


def test_memory_per_added_match_leaves_out_the_one_time_growth() -> None:
    # a process that grows 5,000 KiB once, then 100 KiB per match (the echo: 2,000 once, 80 per pair)
    rows = [
        {
            "matches": n,
            "kib_per_match": (5000 + 100 * n) / n,
            "echo": {"pairs": n, "kib_per_pair": (2000 + 80 * n) / n},
        }
        for n in (25, 100, 300)
    ]
    slopes = bench._memory_slopes(rows)
    assert slopes["kib_per_added_match"] == pytest.approx(100, abs=0.1)
    assert slopes["echo_kib_per_added_pair"] == pytest.approx(80, abs=0.1)
    assert slopes["slope_levels"] == [25, 300]
    assert rows[0]["kib_per_match"] == 300  # what the smallest level alone reads
    assert bench._memory_slopes(rows[:1])["kib_per_added_match"] is None


def _established(port: int) -> int:
    """Established TCP connections whose local port is `port` (the server's side of each)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                count += 1
    return count


def test_every_seat_has_its_own_connection() -> None:
    async def scenario() -> int:
        token = secrets.token_urlsafe(16)
        running = await start(admin_token=token)
        farm = bench._Farm([running.address], token, think_s=0.05)
        try:
            tasks = await farm.start(3, 0)
            connections = 0
            for _ in range(100):  # until every seat is connected and the matches play
                await asyncio.sleep(0.1)
                connections = _established(running.port)
                if farm.decisions >= 6 and connections >= 7:
                    break
            await farm.finish(tasks)
        finally:
            await running.stop(grace=0.2)
        assert not farm.failures, farm.failures
        return connections

    # 3 matches x 2 seats, plus the admin channel
    assert asyncio.run(scenario()) == 7


def test_a_server_that_fails_to_start_shows_its_stderr() -> None:
    with pytest.raises(RuntimeError) as failed:
        bench.spawn(
            ["-c", "import sys; sys.stderr.write('port taken: boom\\n'); sys.exit(3)"], r"listening on (\S+)"
        )
    assert "exit status 3" in str(failed.value) and "port taken: boom" in str(failed.value)
