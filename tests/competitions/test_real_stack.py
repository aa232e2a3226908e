"""Competitions end to end on the real stack: PostgreSQL, Redis, Celery worker processes.

Round robin, Swiss and knockout are played by two Celery workers and their standings audited
against the recorded games; a competition whose runner and one worker are SIGKILLed mid-way is
resumed and finishes with every game counted exactly once.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.competitions import competition_results, create_competition, parse_entry
from ladder.db import create_engine
from ladder.schema import competition_games, competitions, matches, results
from tests.workers.conftest import Broker, WorkerFarm
from workers.audit import audit_ladder
from workers.celery_app import CeleryDispatcher, make_app
from workers.tournament import run_competition

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ARENA = os.path.join(os.path.dirname(sys.executable), "arena")


def _field(*names: str) -> list[Any]:
    return [parse_entry("clank", n) for n in names]


def audit_competition(engine: Engine, competition_id: int) -> dict[str, Any]:
    """Check a finished competition against the raw recorded games; return its results."""
    with engine.connect() as conn:
        comp = conn.execute(sa.select(competitions).where(competitions.c.id == competition_id)).one()
        rows = conn.execute(
            sa.select(competition_games, matches.c.status, results.c.places)
            .join(matches, matches.c.id == competition_games.c.match_id)
            .outerjoin(results, results.c.match_id == competition_games.c.match_id)
            .where(competition_games.c.competition_id == competition_id)
        ).all()
        recorded = conn.execute(
            sa.select(sa.func.count()).select_from(results)
            .join(matches, matches.c.id == results.c.match_id)
            .where(matches.c.ladder_id == comp.ladder_id)
        ).scalar_one()
        res = competition_results(conn, competition_id, bootstrap_samples=50)
    assert res is not None
    assert comp.status == "done"
    # every game played and recorded once; no game scheduled twice; nothing else on the ladder
    assert {r.status for r in rows} == {"done"}
    assert len({r.match_id for r in rows}) == len(rows) == recorded
    keys = Counter((r.round, r.table_no, r.set_no, r.rotation) for r in rows)
    assert max(keys.values()) == 1
    # the standings' W/D/L and points, recomputed from the recorded places
    names = res["competition"]["field"]
    tally: defaultdict[int, Counter[str]] = defaultdict(Counter)
    points: defaultdict[int, float] = defaultdict(float)
    for r in rows:
        seats, places = [int(s) for s in r.seats], [int(p) for p in r.places]
        best = min(places)
        for i, entrant in enumerate(seats):
            outcome = "L" if places[i] != best else "W" if places.count(best) == 1 else "D"
            tally[entrant][outcome] += 1
            for j in range(len(seats)):
                if j != i:
                    score = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    points[entrant] += score / (len(seats) - 1)
    by_name = {row["bot"]: row for row in res["standings"]}
    for entrant in names:
        row = by_name[entrant["name"]]
        t = tally[entrant["slot"]]
        assert (row["wins"], row["draws"], row["losses"]) == (t["W"], t["D"], t["L"]), row
        assert row["games"] == sum(t.values())
        assert row["elo_low"] <= row["elo"] <= row["elo_high"]
        if comp.format == "round-robin":
            assert row["score"] == pytest.approx(points[entrant["slot"]])
    assert [row["rank"] for row in res["standings"]] == list(range(1, len(names) + 1))
    # the competition's ladder: every result rated once, Elo replayed equal
    assert audit_ladder(engine, comp.ladder_id) == []
    return res


def test_round_robin_swiss_knockout_on_celery(worker_farm: WorkerFarm, broker: Broker, pg_url: str) -> None:
    worker_farm.start(2)
    engine = create_engine(pg_url)
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    try:
        rr = create_competition(engine, game="clank", players=2, fmt="round-robin",
                                field=_field("greedy", "random", "random"), sets=1, seed=3)
        run_competition(engine, rr, dispatcher, timeout=240)
        res = audit_competition(engine, rr)
        pairs = Counter(frozenset(g["seats"]) for g in res["games"])
        assert set(pairs.values()) == {2} and len(pairs) == 3  # each pair, both seat orders
        assert res["standings"][0]["bot"] == "greedy"

        swiss = create_competition(engine, game="clank", players=2, fmt="swiss",
                                   field=_field("greedy", "random", "greedy", "random", "random"),
                                   rounds=3, seed=4)
        run_competition(engine, swiss, dispatcher, timeout=240)
        res = audit_competition(engine, swiss)
        met = Counter(frozenset(g["seats"]) for g in res["games"] if g["rotation"] == 0)
        assert max(met.values()) == 1  # no rematch: 5 entrants, 3 rounds
        byes = [row["byes"] for row in res["standings"]]
        assert sorted(byes) == [0, 0, 1, 1, 1]  # one bye a round, never twice

        knockout = create_competition(engine, game="clank", players=2, fmt="knockout",
                                      field=_field("greedy", "random", "random", "greedy"), seed=5)
        run_competition(engine, knockout, dispatcher, timeout=240)
        res = audit_competition(engine, knockout)
        top = res["standings"][0]
        assert top["bot"].startswith("greedy") and not top["eliminated"]
        final_round = max(g["round"] for g in res["games"])
        assert final_round == 1 and top["round_reached"] == 2
        assert sum(1 for row in res["standings"] if not row["eliminated"]) == 1
    finally:
        dispatcher.close()
        engine.dispose()


def test_interrupted_competition_counts_every_game_once(
    worker_farm: WorkerFarm, broker: Broker, pg_url: str
) -> None:
    workers = worker_farm.start(2)
    engine = create_engine(pg_url)
    competition_id = create_competition(
        engine, game="clank", players=2, fmt="round-robin",
        field=_field("greedy", "random", "random"), sets=4, seed=9,
    )
    env = {**os.environ, **worker_farm.env}
    runner = subprocess.Popen(
        [ARENA, "tournament", "start", str(competition_id), "--db", pg_url, "--json"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    dispatcher = CeleryDispatcher(make_app(broker.url, broker.queue), broker.queue, broker.url)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                done = conn.execute(
                    sa.select(sa.func.count()).select_from(competition_games)
                    .join(matches, matches.c.id == competition_games.c.match_id)
                    .where(competition_games.c.competition_id == competition_id, matches.c.status == "done")
                ).scalar_one()
            if done >= 4:
                break
            assert runner.poll() is None, runner.stderr.read() if runner.stderr else ""
            time.sleep(0.2)
        else:
            pytest.fail("no progress: " + worker_farm.log_text()[-2000:])
        assert done < 24  # interrupted mid-way
        # the runner and a worker (maybe mid-match) die without a word
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()
        os.killpg(workers[0].pid, signal.SIGKILL)
        workers[0].wait()
        worker_farm.start(1)
        # a new runner resumes it: queued matches re-sent, the dead worker's match swept back
        run = run_competition(engine, competition_id, dispatcher, timeout=240, sweep_seconds=1.0)
        assert run.done == 24 and run.failed == 0
        res = audit_competition(engine, competition_id)
        assert len(res["games"]) == 24
        assert sum(row["games"] for row in res["standings"]) == 48
        pairs = Counter(frozenset(g["seats"]) for g in res["games"])
        assert set(pairs.values()) == {8}
        assert all(len(set(p)) == 2 for p in itertools.chain(pairs))
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
        if runner.stderr is not None:
            runner.stderr.close()
        dispatcher.close()
        engine.dispose()
