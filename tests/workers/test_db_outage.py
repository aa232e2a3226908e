"""A PostgreSQL restart mid-season: every match still ends recorded once, in seconds.

The database is a private server started by the test (``tests.databases.PrivatePostgres``); it is
stopped while Celery workers have matches running and queued, and started again a few seconds
later. Before the retries, match tasks failed for good during the outage and their matches sat
queued until the 10-minute dispatch marker ran out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from ladder.db import create_engine
from ladder.schema import matches
from tests.databases import PrivatePostgres
from workers.celery_app import CeleryDispatcher, make_app
from workers.season import SeasonSummary, play_season

from .conftest import Broker, WorkerFarm, assert_ladder_consistent, make_ladder

pytestmark = [pytest.mark.slow, pytest.mark.integration]

OUTAGE_S = 5.0
MATCHES = 8


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres()
    try:
        server.create()
        yield server
    finally:
        server.destroy()


def _statuses(engine: sa.Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            status: int(n)
            for status, n in conn.execute(
                sa.select(matches.c.status, sa.func.count()).group_by(matches.c.status)
            )
        }


def test_a_postgres_restart_mid_season_loses_nothing_and_counts_nothing_twice(
    private_pg: PrivatePostgres, broker: Broker, tmp_path: Path
) -> None:
    logs = tmp_path / "worker-logs"
    logs.mkdir()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    env = {
        "BROKER_URL": broker.url,
        "DATABASE_URL": private_pg.url,
        "ARENA_QUEUE": broker.queue,
        "ARENA_LEASE_SECONDS": "10",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
    }
    farm = WorkerFarm(env, broker.queue, logs)
    engine = create_engine(private_pg.url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    notes: list[str] = []
    outcome: list[SeasonSummary | BaseException] = []
    try:
        # random bots thinking 4 ms a decision: a match lasts a few seconds
        ladder = make_ladder(engine, ["builtin:random?think_ms=4"] * 4)
        farm.start(2)

        def season() -> None:
            try:
                outcome.append(
                    play_season(
                        engine, dispatcher, [ladder.ladder_id], MATCHES, target_depth=3,
                        sweep_seconds=0.5, stale_seconds=5.0, timeout=100,
                        db_outage_seconds=40, notify=notes.append,
                    )
                )
            except BaseException as exc:  # reported by the assertions below
                outcome.append(exc)

        runner = threading.Thread(target=season, daemon=True)
        runner.start()
        deadline = time.monotonic() + 40
        while True:  # matches in flight: some running, some queued behind them
            assert time.monotonic() < deadline, ("no match started", outcome, farm.log_text())
            counts = _statuses(engine)
            if counts.get("running", 0) >= 1 and counts.get("queued", 0) >= 1:
                break
            time.sleep(0.05)
        time.sleep(0.5)  # well inside the running matches

        private_pg.stop("fast")  # clients are disconnected, as in a restart
        stopped = time.monotonic()
        # an idle worker joins during the outage: it takes a queued match's task, cannot claim
        # the match, and the task is retried (the two busy workers wait to record their results)
        farm.start(1)
        deadline = stopped + 30
        while "retry 1/" not in farm.log_text():
            assert time.monotonic() < deadline, ("no task retried", farm.log_text())
            time.sleep(0.1)
        time.sleep(max(0.0, stopped + OUTAGE_S - time.monotonic()))
        private_pg.start()
        restarted = time.monotonic()

        runner.join(timeout=90)
        assert not runner.is_alive(), ("season still running", notes, farm.log_text())
        recovered_in = time.monotonic() - restarted
        assert outcome and isinstance(outcome[0], SeasonSummary), (outcome, notes, farm.log_text())
        summary = outcome[0]
        assert (summary.done, summary.failed) == (MATCHES, 0), farm.log_text()
        # bounded: the old behaviour left matches stranded for the 10-minute marker
        assert recovered_in < 60, recovered_in
        # the season said what happened, on its notify channel (stderr by default)
        assert any(n.startswith("database unreachable") for n in notes), notes
        assert any(n.startswith("database reachable again") for n in notes), notes
        # the workers saw the outage and retried instead of failing the tasks
        worker_log = farm.log_text()
        assert "the database is unreachable (OperationalError); retry 1/" in worker_log, worker_log
        assert "Traceback" not in worker_log, worker_log

        # every match recorded exactly once, the books right; none replayed more than once
        assert_ladder_consistent(engine, ladder.ladder_id, summary.match_ids)
        with engine.connect() as conn:
            attempts = conn.execute(
                sa.select(matches.c.id, matches.c.attempts).where(matches.c.id.in_(summary.match_ids))
            ).all()
            stray = conn.execute(
                sa.select(sa.func.count()).select_from(matches).where(matches.c.id.not_in(summary.match_ids))
            ).scalar_one()
        assert all(a <= 1 for _, a in attempts), attempts
        assert stray == 0  # the season tracked every match it created, outage or not
    finally:
        dispatcher.close()
        farm.stop_all()
        engine.dispose()
