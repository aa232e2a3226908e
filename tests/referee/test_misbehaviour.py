"""One test per misbehaviour the referee rules on (PROTOCOL.md, "Misbehaviour"), each with a bot
written to misbehave that way. Every match must finish, its replay must re-simulate, and the
replay must say what happened and why.

Only the tests about timeouts use a tight clock (TIMEOUT_CLOCK), and there the bot sleeps a
second past its whole allowance; the others use the generous CLOCK. Nothing asserts durations.
Flooding is in test_flood.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.replay import verify

from .conftest import BOTS, RANDOM_BOT, TIMEOUT_CLOCK, buggy, play, python_bot, timeout_clock

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _finished(played):
    replay = played.replay
    assert replay["ended_by"] == "game_over"
    verify(replay)
    return replay


def test_timeout_plays_the_default_action_and_strikes(tmp_path: Path) -> None:
    played = play([buggy("slow-once"), RANDOM_BOT], tmp_path, clock=TIMEOUT_CLOCK)
    replay = _finished(played)
    first = next(s for s in replay["steps"] if s.get("seat") == 0)
    assert first["reason"] == "timeout"
    seat = replay["seats"][0]
    assert seat["strikes"] == 1 and "forfeit" not in seat
    assert [i["kind"] for i in seat["incidents"]] == ["timeout"]
    log = played.log(0)
    assert "notice TIMEOUT" in log
    assert "notice LATE" in log  # its answer came after the ruling: ignored, no second strike


def test_late_answer_is_ignored_without_a_strike(tmp_path: Path) -> None:
    played = play([buggy("late"), RANDOM_BOT], tmp_path, clock=TIMEOUT_CLOCK)
    replay = _finished(played)
    assert replay["seats"][0]["strikes"] == 1  # the timeout only
    assert "notice LATE FAILED_PRECONDITION" in played.log(0)


def test_too_many_strikes_forfeit_the_seat(tmp_path: Path) -> None:
    played = play([buggy("slow"), RANDOM_BOT], tmp_path, clock=TIMEOUT_CLOCK)
    replay = _finished(played)
    forfeits = [s for s in replay["steps"] if "forfeit" in s]
    assert forfeits == [{"forfeit": 0, "reason": "strikes: 3 of 3", "digest": forfeits[0]["digest"]}]
    assert replay["result"]["outcomes"][0] == "forfeited"
    assert replay["result"]["scores"][0] == 0
    assert "stream status RESOURCE_EXHAUSTED" in played.log(0)


def test_crash_forfeits_with_the_exit_code(tmp_path: Path) -> None:
    played = play([buggy("crash"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    assert replay["seats"][0]["forfeit"] == "crashed: exit code 3"
    assert replay["seats"][0]["exit_code"] == 3
    assert replay["result"]["outcomes"][0] == "forfeited"


def test_disconnect_forfeits(tmp_path: Path) -> None:
    played = play([buggy("disconnect"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    assert replay["seats"][0]["forfeit"].startswith("disconnected")
    assert replay["result"]["outcomes"][0] == "forfeited"


def test_unknown_decision_id_is_rejected_with_a_strike(tmp_path: Path) -> None:
    played = play([buggy("unknown-id"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    seat = replay["seats"][0]
    assert seat["strikes"] == 1
    assert seat["incidents"][0]["kind"] == "unknown_decision"
    assert "notice REJECTED FAILED_PRECONDITION" in played.log(0)


def test_out_of_range_index_is_rejected_with_a_strike(tmp_path: Path) -> None:
    played = play([buggy("out-of-range"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    seat = replay["seats"][0]
    assert seat["strikes"] == 1
    assert seat["incidents"][0]["kind"] == "index_out_of_range"
    assert "notice REJECTED INVALID_ARGUMENT" in played.log(0)


def test_bad_token_is_unauthenticated(tmp_path: Path) -> None:
    played = play([buggy("bad-token"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    assert "extra stream status UNAUTHENTICATED unknown seat token" in played.log(0)
    assert replay["seats"][0]["forfeit"] == "crashed: exit code 1"


def test_reused_token_is_unauthenticated(tmp_path: Path) -> None:
    played = play([buggy("reuse-token"), RANDOM_BOT], tmp_path)
    _finished(played)
    assert "extra stream status UNAUTHENTICATED seat token already used" in played.log(0)


def test_second_connection_for_a_seat_is_refused(tmp_path: Path) -> None:
    played = play([buggy("second-connection"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    assert "extra stream status FAILED_PRECONDITION" in played.log(0)
    assert "already has a connected bot" in played.log(0)
    assert "forfeit" not in replay["seats"][0]  # the first connection plays on


def test_first_message_not_a_hello_is_invalid_argument(tmp_path: Path) -> None:
    played = play([buggy("no-hello"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    assert "stream status INVALID_ARGUMENT the first message must be a hello" in played.log(0)
    assert "forfeit" in replay["seats"][0]


def test_both_seats_misbehaving_still_finish(tmp_path: Path) -> None:
    played = play([buggy("slow"), buggy("crash")], tmp_path, clock=timeout_clock(1))
    replay = _finished(played)
    assert replay["result"]["outcomes"] == ["forfeited", "forfeited"]


def test_oversize_answer_mid_game_forfeits_as_message_too_large(tmp_path: Path) -> None:
    played = play([buggy("oversize"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    reason = replay["seats"][0]["forfeit"]
    assert reason.startswith("message too large: ") and "(the limit is 65536)" in reason, reason
    assert next(s for s in replay["steps"] if "forfeit" in s)["reason"] == reason
    assert played.launched.status.seats[0].forfeit_reason == reason
    log = played.log(0)
    assert "sending an oversize answer" in log
    assert "stream status RESOURCE_EXHAUSTED seat 0 forfeited: message too large" in log
    # it was asked 3 decisions and answered the first 2
    assert len([s for s in replay["steps"] if s.get("seat") == 0]) == 2


def test_sdk_cuts_a_long_note_to_256_characters(tmp_path: Path) -> None:
    """The SDK bot sets a 40,000-character (80 kB) note on every answer: sent whole it would be
    refused as too large; the SDK cuts it, so the bot plays the game and its notes are kept."""
    played = play([python_bot(BOTS / "long_note_bot.py"), RANDOM_BOT], tmp_path)
    replay = _finished(played)
    seat = replay["seats"][0]
    assert "forfeit" not in seat and seat["strikes"] == 0
    notes = [s.get("note") for s in replay["steps"] if s.get("seat") == 0]
    assert notes and all(n == "é" * 256 for n in notes)
    assert [b.exit_code for b in played.launched.bots] == [0, 0]
