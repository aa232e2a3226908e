"""Flooding and not reading (PROTOCOL.md, "Flooding"): a bot that sends message after message,
with or without reading its stream, is forfeited and cut off; every per-seat structure the
referee keeps for it stays bounded; the match finishes with a replay that says why; and the same
referee serves the next match normally.

The bots are real processes (tests/referee/bots/buggy_bot.py); the referee runs in this process
(ThreadedReferee), so the tests can look at what the session still holds once the match is over.
Nothing here measures time or memory: the bounds are asserted on the structures themselves.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from arena_bot._proto.arena.v1 import admin_pb2

from referee.replay import verify
from referee.server.config import ServerLimits
from referee.server.lobby import RemoteIdentity
from referee.server.session import MatchSession

from .conftest import RANDOM_BOT, PlayedOn, ThreadedReferee, buggy, play_on, start_bot

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LIMITS = ServerLimits()
FLOOD_REASON = f"flood: more than {LIMITS.max_bad_messages} messages that were not answers"


def _session_holds(ref: ThreadedReferee, match_id: str) -> list[dict[str, Any]]:
    """What the finished session still holds per seat (read on the referee's own loop)."""

    async def look() -> list[dict[str, Any]]:
        session: MatchSession | None = ref.running.referee.get(match_id)
        assert session is not None and session.finished
        return [
            {
                "outbox": len(s.outbox),
                "inbox": s.inbox.qsize(),
                "incidents": len(s.record["incidents"]),
                "bad_messages": s.bad_messages,
                "late_expected": len(s.late_expected),
            }
            for s in session.seats
        ]

    return ref.call(look())


def _assert_bounded(ref: ThreadedReferee, played: PlayedOn) -> None:
    for held in _session_holds(ref, played.match_id):
        assert held["outbox"] == 0 and held["inbox"] == 0 and held["late_expected"] == 0, held
        assert held["incidents"] <= LIMITS.max_incidents, held


def _assert_serves_a_normal_match(ref: ThreadedReferee, tmp_path: Path) -> None:
    normal = play_on(ref, [RANDOM_BOT, RANDOM_BOT], tmp_path / "after", seed=4)
    verify(normal.replay)
    assert normal.replay["ended_by"] == "game_over"
    assert all("forfeit" not in s and s["strikes"] == 0 for s in normal.replay["seats"])
    assert [b.proc.returncode for b in normal.bots] == [0, 0]


@pytest.fixture
def ref() -> Iterator[ThreadedReferee]:
    referee = ThreadedReferee()
    try:
        yield referee
    finally:
        referee.close()


def test_a_flood_while_playing_forfeits_the_seat_and_caps_its_incidents(
    ref: ThreadedReferee, tmp_path: Path
) -> None:
    played = play_on(ref, [buggy("flood"), RANDOM_BOT], tmp_path)
    replay = played.replay
    verify(replay)
    assert replay["ended_by"] == "game_over"
    seat = replay["seats"][0]
    assert seat["forfeit"].startswith(FLOOD_REASON), seat["forfeit"]
    assert played.status.seats[0].forfeit_reason == seat["forfeit"]
    assert [s["reason"] for s in replay["steps"] if "forfeit" in s] == [seat["forfeit"]]
    assert replay["result"]["outcomes"][0] == "forfeited"
    # 101 bad messages: the first 50 incidents are kept, the rest counted
    incidents = seat["incidents"]
    assert len(incidents) == LIMITS.max_incidents
    assert {i["kind"] for i in incidents} == {"bad_message"}
    assert len(incidents) + seat["incidents_omitted"] >= LIMITS.max_bad_messages + 1
    assert "forfeit" not in replay["seats"][1]
    log = played.log(0)
    assert "notice REJECTED INVALID_ARGUMENT" in log  # the first ones were answered with notices
    assert "stream status RESOURCE_EXHAUSTED seat 0 forfeited: flood: " in log
    assert played.bots[0].proc.returncode == 0  # it saw the end of its stream and exited
    _assert_bounded(ref, played)
    assert _session_holds(ref, played.match_id)[0]["bad_messages"] == LIMITS.max_bad_messages + 1
    _assert_serves_a_normal_match(ref, tmp_path)


def test_a_flood_without_reading_is_cut_off_and_nothing_piles_up(
    ref: ThreadedReferee, tmp_path: Path
) -> None:
    played = play_on(ref, [buggy("flood-no-read"), RANDOM_BOT], tmp_path)
    replay = played.replay
    verify(replay)
    assert replay["ended_by"] == "game_over"
    seat = replay["seats"][0]
    assert seat["forfeit"].startswith(FLOOD_REASON), seat["forfeit"]
    assert len(seat["incidents"]) == LIMITS.max_incidents
    # it never read a message, yet learns why its stream ended
    assert "stream status RESOURCE_EXHAUSTED seat 0 forfeited: flood: " in played.log(0)
    _assert_bounded(ref, played)
    _assert_serves_a_normal_match(ref, tmp_path)


def test_a_bot_that_does_not_read_is_forfeited_when_its_outbox_is_full(tmp_path: Path) -> None:
    """With no budget for bad messages in the way, a bot that floods without reading fills the
    transport's buffers, then the seat's outbox: "not reading"."""
    ref = ThreadedReferee(ServerLimits(max_bad_messages=10_000_000, max_outbox=64))
    try:
        played = play_on(ref, [buggy("flood-no-read"), RANDOM_BOT], tmp_path)
        replay = played.replay
        verify(replay)
        assert replay["ended_by"] == "game_over"
        seat = replay["seats"][0]
        assert seat["forfeit"] == "not reading: more than 64 messages waiting to be written to its stream"
        # every bad message before that had its notice queued: 50 incidents kept, the rest counted
        assert len(seat["incidents"]) == LIMITS.max_incidents
        assert len(seat["incidents"]) + seat["incidents_omitted"] > 64
        assert "stream status RESOURCE_EXHAUSTED seat 0 forfeited: not reading" in played.log(0)
        _assert_bounded(ref, played)
        _assert_serves_a_normal_match(ref, tmp_path)
    finally:
        ref.close()


def _wait_for(check: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_remote_bots_that_flood_are_cut_off_in_the_lobby_and_in_a_game(tmp_path: Path) -> None:
    tokens = {
        "arena_idle": RemoteIdentity(7, "idle-flooder"),
        "arena_game": RemoteIdentity(8, "game-flooder"),
    }
    ref = ThreadedReferee(authenticator=tokens.get)

    def in_lobby() -> list[int]:
        listing = ref.admin("ListBots", admin_pb2.ListBotsRequest(), admin_pb2.ListBotsResponse)
        return [b.bot_id for b in listing.bots]

    try:
        # between games: nothing is asked, so all of it is ignored, and past the budget the
        # stream ends with RESOURCE_EXHAUSTED (no unbounded queue of notices for a bot not reading)
        idle = start_bot(ref, buggy("flood-no-read"), "arena_idle", tmp_path / "idle.log")
        assert idle.stop(wait=60) == 0
        assert (
            f"stream status RESOURCE_EXHAUSTED flood: more than {LIMITS.max_bad_messages} messages "
            "between two games" in idle.log()
        )
        assert 7 not in in_lobby()

        # in a game: the seat-token rulings, and the stream is cut as well
        flooder = start_bot(ref, buggy("flood"), "arena_game", tmp_path / "game.log")
        _wait_for(lambda: 8 in in_lobby(), "the remote bot in the lobby")
        played = play_on(ref, ["", RANDOM_BOT], tmp_path, bound=(8, 0))
        verify(played.replay)
        assert played.replay["ended_by"] == "game_over"
        assert played.replay["seats"][0]["forfeit"].startswith(FLOOD_REASON)
        assert len(played.replay["seats"][0]["incidents"]) == LIMITS.max_incidents
        assert flooder.stop(wait=60) == 0
        assert "stream status RESOURCE_EXHAUSTED seat 0 forfeited: flood: " in flooder.log()
        assert 8 not in in_lobby()
        _assert_bounded(ref, played)
        _assert_serves_a_normal_match(ref, tmp_path)
    finally:
        ref.close()
