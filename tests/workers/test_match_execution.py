"""run_match, the sweeper and the matchmaker against SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import queries
from ladder.match_queue import claim_match, enqueue_match
from ladder.schema import matches, rating_history
from referee.replay import loads, verify
from workers import metrics
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.match_execution import MatchRun, run_match
from workers.matchmaker import fill_queues
from workers.sweeper import sweep

from .conftest import assert_ladder_consistent, make_ladder


def _status(engine: Engine, match_id: int) -> tuple[str, int, str | None]:
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(matches.c.status, matches.c.attempts, matches.c.error).where(matches.c.id == match_id)
        ).one()
    return row.status, row.attempts, row.error


def test_a_match_is_played_recorded_and_verifiable(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=7)
    before = metrics.MATCHES_FINISHED.labels(game="clank", outcome="finished")._value.get()
    run = run_match(db_url, match_id, "w1")
    assert run.status == "recorded" and run.detail == "finished"
    assert metrics.MATCHES_FINISHED.labels(game="clank", outcome="finished")._value.get() == before + 1
    with engine.connect() as conn:
        info = queries.match_info(conn, match_id)
        data, _sha = queries.replay_data(conn, match_id) or (b"", "")
    assert info is not None and info["status"] == "done" and info["result"] is not None
    assert len(info["rating_changes"]) == 2
    import gzip

    replay = loads(gzip.decompress(data))  # the download is a replay file `arena replay verify` reads
    assert [s["bot_version_id"] for s in replay["seats"]] == list(ladder.version_ids)
    report = verify(replay)
    assert report.result is not None and list(report.result.places) == info["result"]["places"]
    assert_ladder_consistent(engine, ladder.ladder_id, [match_id])


def test_a_rerun_changes_nothing(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=3)
    assert run_match(db_url, match_id, "w1").status == "recorded"
    with engine.connect() as conn:
        standings = queries.standings(conn, ladder.ladder_id)
    assert run_match(db_url, match_id, "w1").status == "already_recorded"
    assert run_match(db_url, match_id, "w2").status == "already_recorded"
    with engine.connect() as conn:
        assert queries.standings(conn, ladder.ladder_id) == standings
        assert conn.execute(sa.select(sa.func.count()).select_from(rating_history)).scalar_one() == 2


def test_concurrent_runs_of_one_match_play_it_once(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:random", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    runs: list[MatchRun] = []
    threads = [
        threading.Thread(target=lambda i=i: runs.append(run_match(db_url, match_id, f"w{i}")))
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status for r in runs).count("recorded") == 1
    assert_ladder_consistent(engine, ladder.ladder_id, [match_id])


def test_hosted_bots_without_the_referee_fail_the_match_cleanly(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a worker where the gRPC referee's executor cannot be imported
    monkeypatch.setenv(REFEREE_EXECUTOR_ENV, "arena_no_such_module:create_executor")
    reset_referee_executor()
    ladder = make_ladder(engine, ["builtin:random", "python my_bot.py"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    run = run_match(db_url, match_id, "w1")
    assert run.status == "failed" and run.detail.startswith("unavailable")
    status, _attempts, error = _status(engine, match_id)
    assert status == "failed" and error is not None and "gRPC referee" in error


def test_an_unknown_builtin_bot_fails_the_match(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:random", "builtin:nonesuch"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    assert run_match(db_url, match_id, "w1").status == "failed"
    assert _status(engine, match_id)[0] == "failed"


def test_a_match_past_its_time_limit_is_stopped(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:random?think_ms=20", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    run = run_match(db_url, match_id, "w1", max_seconds=0.3)
    assert run.status == "failed" and "time_limit" in run.detail
    assert _status(engine, match_id)[0] == "failed"


def test_a_worker_that_loses_its_lease_stops(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:random?think_ms=5", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    result: list[MatchRun] = []
    t = threading.Thread(target=lambda: result.append(run_match(db_url, match_id, "slow", lease=0.6)))
    t.start()
    # the sweeper sees the lease as expired (as if "slow" had died) and requeues the match
    deadline = datetime.now(UTC) + timedelta(seconds=5)
    while _status(engine, match_id)[0] != "running":
        assert datetime.now(UTC) < deadline
    requeued = sweep(engine, lambda _id: None, now=datetime.now(UTC) + timedelta(seconds=60))
    assert requeued.requeued == (match_id,)
    assert claim_match(engine, match_id, "other", 60)
    t.join(timeout=30)
    assert result and result[0].status == "lease_lost"
    assert _status(engine, match_id)[0] == "running"  # still "other"'s to play


def test_sweeper_requeues_and_redispatches_a_dead_workers_match(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:greedy"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=9)
    assert claim_match(engine, match_id, "dead-worker", lease_seconds=0.01)
    dispatched: list[int] = []
    later = datetime.now(UTC) + timedelta(seconds=1)
    assert sweep(engine, dispatched.append, now=later).requeued == (match_id,)
    assert dispatched == [match_id]
    assert run_match(db_url, match_id, "w2").status == "recorded"
    assert _status(engine, match_id)[:2] == ("done", 1)
    assert_ladder_consistent(engine, ladder.ladder_id, [match_id])


def test_matchmaker_fills_queues_to_depth_and_dispatches(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:greedy"] * 3 + ["builtin:random"] * 3)
    make_ladder(engine, ["builtin:random", "remote"], name="remote-only")
    dispatched: list[int] = []
    created = fill_queues(engine, dispatched.append, target_depth=5)
    # the ladder whose remote bot is not connected (no referee here at all) gets none
    assert created == dispatched and len(created) == 5
    assert fill_queues(engine, dispatched.append, target_depth=5) == []
    assert len(fill_queues(engine, dispatched.append, target_depth=9, limit=2)) == 2
    with engine.connect() as conn:
        rows = conn.execute(sa.select(matches.c.ladder_id, matches.c.seats, matches.c.status)).all()
    assert {r.ladder_id for r in rows} == {ladder.ladder_id}
    assert all(r.status == "queued" and len(set(r.seats)) == 2 for r in rows)
    for match_id in created:
        assert run_match(db_url, match_id, "w").status == "recorded"


def test_the_audit_catches_a_lost_or_double_update(db_url: str, engine: Engine) -> None:
    from ladder.schema import ladder_entries
    from workers.audit import audit_ladder

    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
    for seed in (1, 2):
        run_match(db_url, enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=seed), "w")
    assert audit_ladder(engine, ladder.ladder_id) == []
    with engine.begin() as conn:
        conn.execute(sa.update(ladder_entries).where(ladder_entries.c.bot_id == ladder.bot_ids[0])
                     .values(games=ladder_entries.c.games + 1))
    assert any(f"bot {ladder.bot_ids[0]}" in p for p in audit_ladder(engine, ladder.ladder_id))


# --- database outages ---------------------------------------------------------------------------


def _closed_port_url() -> str:
    """A PostgreSQL URL nothing listens on: every connection is refused."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"postgresql://postgres@127.0.0.1:{port}/arena"


def test_run_match_raises_before_the_claim_when_the_database_is_unreachable() -> None:
    from ladder.db import is_outage

    with pytest.raises(sa.exc.OperationalError) as raised:
        run_match(_closed_port_url(), 1, "w1")
    assert is_outage(raised.value)  # the Celery task retries exactly these


def _flaky_record(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[int]:
    """Make recording fail `failures` times with a connection error (then work); the calls."""
    import workers.match_execution as me

    real = me.record_result
    calls: list[int] = []

    def flaky(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) <= failures:
            raise sa.exc.OperationalError("INSERT ...", {}, Exception("connection refused"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(me, "record_result", flaky)
    return calls


def test_a_finished_match_is_recorded_once_the_database_is_back(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    calls = _flaky_record(monkeypatch, failures=2)
    run = run_match(db_url, match_id, "w1")
    assert run.status == "recorded" and len(calls) == 3  # retried, not played again
    assert _status(engine, match_id) == ("done", 0, None)
    assert_ladder_consistent(engine, ladder.ladder_id, [match_id])


def test_a_claimed_match_outlasting_the_retries_is_left_to_its_lease(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=5)
    _flaky_record(monkeypatch, failures=1000)
    with pytest.raises(sa.exc.OperationalError):
        run_match(db_url, match_id, "w1", db_retry_seconds=0.5)
    # still running under w1's lease: the sweeper requeues it when the lease runs out
    assert _status(engine, match_id)[0] == "running"
    sweep(engine, lambda _m: None, now=datetime.now(UTC) + timedelta(hours=1))
    monkeypatch.undo()
    assert run_match(db_url, match_id, "w2").status == "recorded"
    assert _status(engine, match_id)[:2] == ("done", 1)
    assert run_match(db_url, match_id, "w1").status == "already_recorded"
    assert_ladder_consistent(engine, ladder.ladder_id, [match_id])


def test_play_season_gives_up_on_a_database_that_stays_away() -> None:
    from ladder.db import create_engine
    from workers.season import SeasonDatabaseUnavailable, play_season

    class NoDispatch:
        def dispatch(self, match_id: int) -> None:
            raise AssertionError("nothing can be dispatched")

        ensure_dispatched = dispatch

        def pump(self) -> None:
            pass

    notes: list[str] = []
    engine = create_engine(_closed_port_url())
    started = datetime.now(UTC)
    try:
        with pytest.raises(SeasonDatabaseUnavailable) as raised:
            play_season(engine, NoDispatch(), [1], 4, db_outage_seconds=1.0, notify=notes.append)
    finally:
        engine.dispose()
    assert datetime.now(UTC) - started < timedelta(seconds=10)
    assert len(notes) == 1 and notes[0].startswith("database unreachable (OperationalError")
    message = str(raised.value)
    assert message.startswith("the database has been unreachable for 1 s") and "0/4" in message
    assert "\n" not in message
