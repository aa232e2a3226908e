"""`make multihost`, smaller: three network-namespace hosts, a season with hosted, remote and
built-in bots, one worker host killed mid-match; nothing lost, nothing counted twice, the books
audit clean, and every namespace and process is gone afterwards (also when the run fails).

Needs root (network namespaces), as `make multihost` does; it fails, never skips, without it.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from deploy.multihost import run as multihost

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def _leftovers() -> list[str]:
    tag = str(os.getpid())
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return [line for line in (names + links).splitlines()
            if f"{multihost.PREFIX}{tag}-" in line or f"{multihost.LINK_PREFIX}{tag}" in line]


@pytest.fixture(autouse=True)
def _root() -> None:
    if os.geteuid() != 0:
        pytest.fail("the multi-host drill makes network namespaces: run the suite as root", pytrace=False)


def test_a_season_across_three_hosts_survives_losing_one() -> None:
    report = multihost.run_multihost(matches=20, phase_seconds=8.0)
    assert report.lost == 0 and report.recorded_twice == 0, report
    assert report.audit == "ok", report.audit
    assert report.recorded + report.failed == report.matches_scheduled >= 20
    assert report.failed == 0, report  # a re-dispatched match is played again, not given up
    # w2 was killed holding a running match: its lease ran out and the sweeper re-dispatched it
    assert report.processes_killed > 0 and report.redispatched_after_kill >= 1, report
    assert report.recovery_seconds is not None
    assert report.recorded_per_host.get("w1", 0) > 0 and report.recorded_per_host.get("w2", 0) > 0
    assert set(report.remote_matches_per_referee_host) == {"w1", "w2"}, report
    assert report.api_status == 200
    assert report.matches_per_min_one_host > 0 and report.matches_per_min_two_hosts > 0
    assert not _leftovers()


def test_a_failed_run_leaves_no_namespace_and_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    def broken_redis(self: multihost.Drill) -> None:
        started.extend(multihost._netns_pids(self.db.ns))  # PostgreSQL is up on the db host
        raise RuntimeError("redis would not start")

    monkeypatch.setattr(multihost.Drill, "start_redis", broken_redis)
    with pytest.raises(RuntimeError, match="redis would not start"):
        multihost.run_multihost(matches=1, phase_seconds=1.0)
    assert started, "PostgreSQL was not running in the db host"
    assert not _leftovers()
    deadline = time.monotonic() + 10  # SIGKILLed: gone as soon as the kernel has torn them down
    while [pid for pid in started if multihost._alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in started if multihost._alive(pid)]
