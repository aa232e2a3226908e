"""A cooperative (Alien) team ladder run by the worker's match function, on SQLite and PostgreSQL:
each match rates the team against its scenario, and the books replay exactly."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.schema import scenario_rating_history, scenarios
from workers.audit import audit_ladder
from workers.match_execution import run_match


def test_coop_season_rates_teams_against_scenarios_and_audits_clean(db_url: str, engine: Engine) -> None:
    ladder_id = create_ladder(
        engine, "alien-2p", "alien", 2, decision_ms=1000, bank_ms=30000, max_strikes=3, kind="coop"
    )
    versions = []
    for i, command in enumerate(["builtin:coop", "builtin:coop", "builtin:random"]):
        reg = register_bot(engine, f"alien-b{i}", "tests")
        versions.append(add_bot_version(engine, reg.bot_id, "1", command))
        join_ladder(engine, ladder_id, reg.bot_id)
    lineups = [(0, 1), (1, 2), (2, 0), (0, 1), (1, 0), (0, 2)]
    match_ids = [
        enqueue_match(engine, ladder_id, [versions[a], versions[b]], seed=40 + i)
        for i, (a, b) in enumerate(lineups)
    ]
    for match_id in match_ids:
        assert run_match(db_url, match_id, "w1").status == "recorded"
    with engine.connect() as conn:
        scenario = conn.execute(sa.select(scenarios).where(scenarios.c.ladder_id == ladder_id)).one()
        history = conn.execute(sa.select(sa.func.count()).select_from(scenario_rating_history)).scalar_one()
    assert scenario.games == len(match_ids) and history == len(match_ids)
    assert scenario.rating != 1500.0  # the scenario moved like an opponent
    assert audit_ladder(engine, ladder_id) == []
    # the audit really replays the cooperative formulas: a tampered rating is caught
    with engine.begin() as conn:
        conn.execute(sa.update(scenarios).where(scenarios.c.id == scenario.id).values(rating=1500.0))
        conn.execute(
            sa.update(scenario_rating_history)
            .where(scenario_rating_history.c.match_id == match_ids[-1])
            .values(before=1234.0)
        )
    assert any("scenario" in p for p in audit_ladder(engine, ladder_id))
