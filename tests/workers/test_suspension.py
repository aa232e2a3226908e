"""A version that keeps forfeiting its rated matches is suspended from matchmaking
(``ladder.suspension``): its queued matches go, its bot plays its last good version, and its
owner reads why (``GET /api/bots/{id}``, ``arena bot status``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from cli.client import _status_lines
from ladder import queries
from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import bot_versions, matches, results
from ladder.suspension import forfeited_seats, suspend_forfeiting_versions, verdicts
from referee.core.game import Result
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.match_execution import run_match
from workers.matchmaker import fill_queues

from .conftest import BUGGY_BOT_FILES, RANDOM_BOT_FILES, attach_files


def test_forfeits_are_read_per_seat_from_the_result_reason() -> None:
    assert forfeited_seats("finished") == {}
    assert forfeited_seats("forfeit: seat 1 crashed: exit code 1; seat 3 never connected") == {
        1: "crashed: exit code 1",
        3: "never connected",
    }
    # 3 of the last 5 (newest first) suspend; 2 of 5, or 3 only further back, do not
    bad, good = "forfeit: seat 0 crashed: exit code 3", "finished"
    history = [(10, [7, 1], bad), (9, [1, 7], good), (8, [7, 1], bad), (7, [7, 1], bad), (6, [1, 7], good)]
    (verdict,) = verdicts(history)
    assert verdict.version_id == 7 and verdict.games == 5 and [m for m, _ in verdict.forfeits] == [10, 8, 7]
    assert "forfeited 3 of its last 5 rated matches (match 10: crashed: exit code 3;" in verdict.reason()
    assert verdicts([*history[:2], (8, [7, 1], good), *history[3:]]) == []
    older = [(20 - i, [7, 1], good) for i in range(5)] + history
    assert verdicts(older) == []


def _result(forfeit_seat: int | None) -> tuple[Result, str]:
    if forfeit_seat is None:
        return Result(scores=(1, 0), places=(1, 2), outcomes=("escaped", "knocked_out")), "finished"
    places = (2, 1) if forfeit_seat == 0 else (1, 2)
    return (
        Result(scores=(0, 0), places=places, outcomes=("knocked_out", "knocked_out")),
        f"forfeit: seat {forfeit_seat} crashed: exit code 1",
    )


def test_a_version_forfeiting_3_of_5_is_suspended_and_its_bot_falls_back(engine: Engine) -> None:
    """Recorded results: version 2 of a bot forfeits 3 of its 5 rated matches. The matchmaker's
    pass suspends it (the reason names the matches), removes its queued match, and seats the
    bot's version 1 from then on; the profile shows the reason on version 2 only."""
    ladder = create_ladder(engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30_000, max_strikes=3)
    other = register_bot(engine, "steady", "tests", game="clank")
    steady = add_bot_version(engine, other.bot_id, "1", "builtin:greedy")
    bot = register_bot(engine, "dodger", "tests", game="clank")
    good = add_bot_version(engine, bot.bot_id, "1", "builtin:random")
    bad = add_bot_version(engine, bot.bot_id, "2", "builtin:random")
    for b in (other.bot_id, bot.bot_id):
        join_ladder(engine, ladder, b)
    played = []
    for i, forfeits in enumerate((True, False, True, False, True)):
        seats = [bad, steady] if i % 2 == 0 else [steady, bad]
        match_id = enqueue_match(engine, ladder, seats, seed=i)
        result, reason = _result(seats.index(bad) if forfeits else None)
        record_result(engine, match_id, result, b"{}", reason)
        played.append(match_id)
    queued = enqueue_match(engine, ladder, [bad, steady], seed=99)
    made = fill_queues(engine, lambda _m: None, target_depth=2, rng=random.Random(5))
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(bot_versions.c.suspended_at, bot_versions.c.suspension).where(bot_versions.c.id == bad)
        ).one()
        queue = [list(map(int, s)) for s in conn.execute(
            sa.select(matches.c.seats).where(matches.c.status == "queued")
        ).scalars()]  # fmt: skip
        seatings = [list(map(int, s)) for s in conn.execute(
            sa.select(matches.c.seats).where(matches.c.id.in_(made))
        ).scalars()]  # fmt: skip
        profile = queries.bot_info(conn, bot.bot_id)
    assert row.suspended_at is not None
    assert row.suspension.startswith("suspended from matchmaking: it forfeited 3 of its last 5 rated matches")
    assert f"match {played[4]}: crashed: exit code 1" in row.suspension
    # its queued match is gone (no more of its forfeits are played); only the new ones wait
    assert len(queue) == 2 and all(bad not in s for s in queue), (queued, queue)
    assert len(seatings) == 2 and all(good in s and bad not in s for s in seatings), seatings
    assert profile is not None
    shown = {v["id"]: v["suspension"] for v in profile["versions"]}
    assert shown[good] is None and shown[bad] == row.suspension
    # arena bot status prints it under the version (from the same profile the API sends)
    lines = _status_lines(dict(profile), [])
    at = next(i for i, line in enumerate(lines) if line.startswith(f"  2            id {bad} "))
    assert lines[at + 1] == f"      {row.suspension}"
    # once suspended, always: a later pass changes nothing
    assert suspend_forfeiting_versions(engine) == []


@pytest.fixture
def _grpc_executor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_REFEREE_ADDR", raising=False)
    monkeypatch.setenv("ARENA_BOT_LOG_DIR", str(tmp_path / "bot-logs"))
    reset_referee_executor()
    yield
    reset_referee_executor()


@pytest.mark.usefixtures("_grpc_executor")
def test_a_bot_that_crashes_every_rated_game_is_suspended_and_its_good_version_plays(
    sqlite_url: str, tmp_path: Path
) -> None:
    """The attacker got a crashing version past qualification (it is marked passed here): the
    real matchmaker seats it, the gRPC executor plays it in the sandbox, it crashes each game.
    After its third forfeit the matchmaker's next pass suspends it, and the bot's previous
    version (an upload of the SDK's random bot) plays the next match, which finishes clean."""
    from ladder.db import create_engine

    engine = create_engine(sqlite_url)
    try:
        ladder = create_ladder(
            engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30_000, max_strikes=3
        )
        other = register_bot(engine, "steady", "tests", game="clank")
        add_bot_version(engine, other.bot_id, "1", "builtin:greedy")
        bot = register_bot(engine, "dodger", "tests", game="clank")
        good = add_bot_version(engine, bot.bot_id, "1", "python main.py")
        attach_files(engine, good, RANDOM_BOT_FILES)
        bad = add_bot_version(engine, bot.bot_id, "2", "python main.py --mode crash")
        attach_files(engine, bad, BUGGY_BOT_FILES)
        for b in (other.bot_id, bot.bot_id):
            join_ladder(engine, ladder, b)
        rng = random.Random(2)
        crashed = 0
        for _ in range(3):
            (match_id,) = fill_queues(engine, lambda _m: None, target_depth=1, rng=rng)
            assert run_match(sqlite_url, match_id, "w1").status == "recorded"
            with engine.connect() as conn:
                seats = conn.execute(sa.select(matches.c.seats).where(matches.c.id == match_id)).scalar_one()
                reason = conn.execute(
                    sa.select(results.c.reason).where(results.c.match_id == match_id)
                ).scalar_one()
            assert bad in seats and "crashed: exit code 3" in reason, reason
            crashed += 1
        (match_id,) = fill_queues(engine, lambda _m: None, target_depth=1, rng=rng)
        with engine.connect() as conn:
            seats = conn.execute(sa.select(matches.c.seats).where(matches.c.id == match_id)).scalar_one()
            suspension = conn.execute(
                sa.select(bot_versions.c.suspension).where(bot_versions.c.id == bad)
            ).scalar_one()
        assert crashed == 3 and suspension is not None and "forfeited 3 of its last 3" in suspension
        assert good in seats and bad not in seats
        assert run_match(sqlite_url, match_id, "w1").status == "recorded"
        with engine.connect() as conn:
            reason = conn.execute(
                sa.select(results.c.reason).where(results.c.match_id == match_id)
            ).scalar_one()
        assert reason == "finished"
    finally:
        engine.dispose()
