"""`arena bot check` says why a bot failed: it crashed (with its exit code), never connected, or
did not exit after the game; not only how many protocol faults it made.

Each check plays one real game over gRPC against the house random bot, the candidate a real
process (tests/referee/test_match_cli.py runs the command line on a good and a buggy bot).
"""

from __future__ import annotations

import asyncio

from referee.server.bot_check import CheckReport, check_bot
from referee.server.config import TimeControl

from .conftest import CLOCK, RANDOM_BOT, buggy


def _check(command: str, clock: TimeControl = CLOCK) -> CheckReport:
    return asyncio.run(check_bot(command, game="clank", games=1, seed=5, time_control=clock))


def test_a_crash_is_reported_with_its_exit_code() -> None:
    report = _check(buggy("crash"))  # exits with code 3 at its 5th decision
    assert not report.passed
    assert report.reasons() == ["game 1 (seat 0): crashed with exit code 3"]
    lines = report.lines()
    assert lines[-2:] == ["FAIL:", "  game 1 (seat 0): crashed with exit code 3"]


def test_a_bot_that_never_connects_is_reported_as_such() -> None:
    quick = TimeControl(decision_ms=2000, bank_ms=1000, max_strikes=3, connect_ms=1500)
    report = _check("exec sleep 600", quick)
    assert report.reasons() == [
        "game 1 (seat 0): never connected",
        "game 1 (seat 0): did not exit within 5 s after the game (killed)",
    ]
    assert "FAIL:" in report.lines()


def test_a_bot_that_plays_but_does_not_exit_after_the_game_is_reported() -> None:
    report = _check(f"{RANDOM_BOT}; exec sleep 600")  # plays well, then lingers
    assert report.games[0].decisions > 0 and not report.games[0].forfeit and not report.faults
    assert report.reasons() == ["game 1 (seat 0): did not exit within 5 s after the game (killed)"]


def test_a_bot_that_exits_with_an_error_after_the_game_is_reported() -> None:
    report = _check(f"{RANDOM_BOT}; exit 4")
    assert report.reasons() == ["game 1 (seat 0): exited with code 4 after the game"]


def test_protocol_faults_are_named_and_a_clean_bot_passes() -> None:
    bad = _check(buggy("out-of-range"))
    assert bad.reasons() == ["game 1 (seat 0): 1 protocol fault(s): index_out_of_range"]
    good = _check(RANDOM_BOT)
    assert good.passed and good.reasons() == [] and good.lines()[-1] == "PASS"
