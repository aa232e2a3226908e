"""A PostgreSQL restart in the middle of a competition: it finishes, every game counted once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from ladder.competitions import create_competition, parse_entry
from ladder.db import create_engine
from ladder.schema import competition_games, matches
from tests.databases import PrivatePostgres
from tests.workers.conftest import Broker, WorkerFarm
from workers.celery_app import CeleryDispatcher, make_app
from workers.tournament import CompetitionRun, run_competition

from .test_real_stack import audit_competition

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres()
    try:
        server.create()
        yield server
    finally:
        server.destroy()


def test_database_restart_mid_competition(
    private_pg: PrivatePostgres, broker: Broker, tmp_path: Path
) -> None:
    env = {
        "BROKER_URL": broker.url,
        "DATABASE_URL": private_pg.url,
        "ARENA_QUEUE": broker.queue,
        "ARENA_LEASE_SECONDS": "10",
    }
    logs = tmp_path / "logs"
    logs.mkdir()
    farm = WorkerFarm(env, broker.queue, logs)
    engine = create_engine(private_pg.url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    field = [parse_entry("clank", n) for n in ("greedy", "random", "random")]
    competition_id = create_competition(engine, game="clank", players=2, fmt="round-robin", field=field,
                                        sets=6, seed=11)
    outcome: list[CompetitionRun | BaseException] = []
    try:
        farm.start(2)

        def runner() -> None:
            try:
                outcome.append(run_competition(engine, competition_id, dispatcher, timeout=150,
                                               sweep_seconds=0.5, stale_seconds=5.0))
            except BaseException as exc:  # reported below
                outcome.append(exc)

        thread = threading.Thread(target=runner, daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, ("no progress", outcome, farm.log_text()[-2000:])
            with engine.connect() as conn:
                done = conn.execute(
                    sa.select(sa.func.count()).select_from(competition_games)
                    .join(matches, matches.c.id == competition_games.c.match_id)
                    .where(matches.c.status == "done")
                ).scalar_one()
            if done >= 3:
                break
            time.sleep(0.05)
        private_pg.stop("fast")
        time.sleep(3)
        private_pg.start()
        thread.join(timeout=150)
        assert not thread.is_alive() and outcome, ("still running", farm.log_text()[-2000:])
        run = outcome[0]
        assert isinstance(run, CompetitionRun), (run, farm.log_text()[-2000:])
        assert done < 36 and (run.done, run.failed) == (36, 0)
        audit_competition(engine, competition_id)
    finally:
        farm.stop_all()
        dispatcher.close()
        engine.dispose()
