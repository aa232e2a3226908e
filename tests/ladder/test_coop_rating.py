"""Cooperative ratings: the formulas, scenario keys, recording on team ladders, the migration."""

from __future__ import annotations

import itertools
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from ladder import coop_rating
from ladder.bots import add_bot_version
from ladder.coop_rating import Scenario, coop_deltas, scenario_from_config, scenario_k_factor
from ladder.db import alembic_config, create_engine, downgrade, upgrade
from ladder.errors import InvalidInput
from ladder.ladders import create_ladder
from ladder.match_queue import enqueue_match
from ladder.rating_policy import DEFAULT_POLICY
from ladder.recording import record_result
from ladder.scenarios import match_scenario
from ladder.schema import (
    ladder_entries,
    ladders,
    matches,
    metadata,
    rating_history,
    results,
    scenario_rating_history,
    scenarios,
)
from referee.core.game import Result
from referee.games.alien.engine import AlienGame

from .conftest import Roster, make_coop_roster

REPLAY = b'{"engine": "alien", "actions": []}'
CALDER_2P = "location=calder_station;objectives=distress_call,purge_vents,burn_nest;players=2"


def _won(players: int = 2) -> Result:
    return Result((players,) * players, (1,) * players, ("survived",) * players, team_won=True)


def _lost(players: int = 2) -> Result:
    return Result((0,) * players, (1,) * players, ("dead",) * players, team_won=False)


# --- the formulas, by hand ------------------------------------------------------------------


def test_worked_example_win_by_hand() -> None:
    # RATINGS.md: bots 1500 and 1600 (both provisional, K 40) beat a 1450 scenario (K 32).
    # T = 1550; E = 1 / (1 + 10^(-100/400)) = 1 / 1.562341 = 0.640065; S - E = 0.359935
    d = coop_deltas([1500.0, 1600.0], [40.0, 40.0], 1450.0, 32.0, team_won=True)
    assert d.team_strength == 1550.0
    assert d.expected == pytest.approx(0.640065, abs=1e-6)
    assert d.members == pytest.approx((14.3974, 14.3974), abs=1e-4)  # 40 * 0.359935
    assert d.scenario == pytest.approx(-11.5179, abs=1e-4)  # -32 * 0.359935
    e = 1 / (1 + 10 ** ((1450 - 1550) / 400))
    assert d.members == (40 * (1 - e), 40 * (1 - e)) and d.scenario == -32 * (1 - e)


def test_worked_example_loss_by_hand() -> None:
    # the same team loses: S - E = -0.640065
    d = coop_deltas([1500.0, 1600.0], [40.0, 40.0], 1450.0, 32.0, team_won=False)
    assert d.members == pytest.approx((-25.6026, -25.6026), abs=1e-4)  # 40 * -0.640065
    assert d.scenario == pytest.approx(20.4821, abs=1e-4)  # 32 * 0.640065
    # an established member (K 20) and an established scenario (K 16) move half as far
    d = coop_deltas([1500.0, 1600.0], [40.0, 20.0], 1450.0, 16.0, team_won=False)
    assert d.members == pytest.approx((-25.6026, -12.8013), abs=1e-4)
    assert d.scenario == pytest.approx(10.2410, abs=1e-4)


def test_even_game_and_team_strength_is_the_mean() -> None:
    d = coop_deltas([1500.0, 1500.0, 1500.0], [40.0] * 3, 1500.0, 32.0, team_won=False)
    assert (d.expected, d.members, d.scenario) == (0.5, (-20.0, -20.0, -20.0), 16.0)
    assert coop_rating.team_strength([1400.0, 1500.0, 1900.0]) == 1600.0
    with pytest.raises(ValueError):
        coop_rating.team_strength([])
    with pytest.raises(ValueError):
        coop_deltas([1500.0], [40.0, 40.0], 1500.0, 32.0, team_won=True)


def test_k_factors() -> None:
    assert [scenario_k_factor(g) for g in (0, 29, 30, 500)] == [32.0, 32.0, 16.0, 16.0]
    assert coop_rating.INITIAL_SCENARIO_RATING == 1500.0
    # bots use the free-for-all K
    assert (DEFAULT_POLICY.k_factor(19), DEFAULT_POLICY.k_factor(20)) == (40.0, 20.0)


# --- scenario keys --------------------------------------------------------------------------


def test_scenario_key_is_canonical_and_stable() -> None:
    default = match_scenario("alien", 2, None)
    assert default.scenario.key == CALDER_2P
    assert default.description == (
        "Drift Station Calder: Answer the Distress Call, Purge the Ventilation, Burn the Nest; 2 players"
    )
    # the game's own default config, any key order, roles and characters: the same scenario
    same = [
        AlienGame.default_config(2),
        {"roles": ["x", "y"], "players": 2},
        {"players": 2, "location": "calder_station"},
        {"objectives": ["distress_call", "purge_vents", "burn_nest"], "characters": ["a"]},
    ]
    assert {match_scenario("alien", 2, c).scenario.key for c in same} == {CALDER_2P}
    assert match_scenario("alien", 3, None).scenario.key == CALDER_2P.replace("players=2", "players=3")
    other = match_scenario("alien", 2, {"objectives": ["burn_nest", "purge_vents", "distress_call"]})
    assert other.scenario.key != CALDER_2P  # objective order is part of the scenario


def test_scenario_from_config_rejects_bad_fields() -> None:
    defaults = Scenario("calder_station", ("a", "b"), 2)
    bad_configs: list[dict[str, Any]] = [
        {"location": 3},
        {"location": "has;separator"},
        {"objectives": "a,b"},
        {"objectives": []},
        {"objectives": ["a", 1]},
        {"players": 0},
        {"players": True},
    ]
    for bad in bad_configs:
        with pytest.raises(ValueError):
            scenario_from_config(bad, defaults)
    with pytest.raises(InvalidInput):
        match_scenario("alien", 2, {"players": 3})  # not this ladder's table size
    with pytest.raises(InvalidInput):
        match_scenario("clank", 2, None)  # not cooperative


# --- team ladders ---------------------------------------------------------------------------


def test_create_team_ladders(engine: Engine) -> None:
    def make(name: str, game: str, players: int, kind: str) -> int:
        return create_ladder(
            engine, name, game, players, decision_ms=100, bank_ms=0, max_strikes=0, kind=kind
        )

    ladder_id = make("alien-4p", "alien", 4, "coop")
    with engine.connect() as conn:
        assert conn.execute(sa.select(ladders.c.kind).where(ladders.c.id == ladder_id)).scalar() == "coop"
    for args in (
        ("a", "clank", 2, "coop"),  # clank is not cooperative
        ("b", "alien", 2, "ffa"),  # alien is
        ("c", "alien", 1, "coop"),  # no solo ladders
        ("d", "alien", 6, "coop"),  # alien seats 1 to 5
        ("e", "alien", 2, "league"),
    ):
        with pytest.raises(InvalidInput):
            make(*args)
    with pytest.raises(IntegrityError), engine.begin() as conn:  # the database checks kind too
        conn.execute(sa.update(ladders).values(kind="league"))


def _entry(engine: Engine, ladder_id: int, bot_id: int) -> Any:
    with engine.connect() as conn:
        return conn.execute(
            sa.select(ladder_entries.c.rating, ladder_entries.c.games, ladder_entries.c.wins).where(
                ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot_id
            )
        ).one()


def _scenario(engine: Engine, ladder_id: int, key: str = CALDER_2P) -> Any:
    with engine.connect() as conn:
        return conn.execute(
            sa.select(scenarios).where(scenarios.c.ladder_id == ladder_id, scenarios.c.key == key)
        ).one()


def test_records_the_worked_example(engine: Engine) -> None:
    roster = make_coop_roster(engine)
    bot0, bot1 = roster.bot_ids[:2]
    now = datetime.now(UTC)
    with engine.begin() as conn:  # bot1 at 1600, the scenario at 1450 (both still provisional)
        conn.execute(
            sa.update(ladder_entries)
            .where(ladder_entries.c.ladder_id == roster.ladder_id, ladder_entries.c.bot_id == bot1)
            .values(rating=1600.0)
        )
        conn.execute(
            sa.insert(scenarios).values(
                ladder_id=roster.ladder_id, key=CALDER_2P, description="Calder, 2 players",
                rating=1450.0, games=0, wins=0, created_at=now, updated_at=now,
            )
        )
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)

    rec = record_result(engine, match_id, _won(), REPLAY, "finished")

    assert not rec.already_recorded and rec.scenario is not None
    assert [(c.bot_id, c.before) for c in rec.changes] == [(bot0, 1500.0), (bot1, 1600.0)]
    assert [c.delta for c in rec.changes] == pytest.approx([14.3974, 14.3974], abs=1e-4)
    assert (rec.scenario.key, rec.scenario.team_won, rec.scenario.team_strength) == (CALDER_2P, True, 1550.0)
    assert rec.scenario.before == 1450.0
    assert rec.scenario.expected == pytest.approx(0.640065, abs=1e-6)
    assert rec.scenario.after == pytest.approx(1438.4821, abs=1e-4)
    e0, e1 = _entry(engine, roster.ladder_id, bot0), _entry(engine, roster.ladder_id, bot1)
    assert (e0.rating, e0.games, e0.wins) == (pytest.approx(1514.3974, abs=1e-4), 1, 1)
    assert (e1.rating, e1.games, e1.wins) == (pytest.approx(1614.3974, abs=1e-4), 1, 1)
    scen = _scenario(engine, roster.ladder_id)
    assert (scen.rating, scen.games, scen.wins) == (pytest.approx(1438.4821, abs=1e-4), 1, 1)
    with engine.connect() as conn:
        history = conn.execute(
            sa.select(rating_history.c.bot_id, rating_history.c.after).order_by(rating_history.c.bot_id)
        ).all()
        assert [(b, round(a, 4)) for b, a in history] == [(bot0, 1514.3974), (bot1, 1614.3974)]
        sh = conn.execute(sa.select(scenario_rating_history)).one()
        assert (sh.match_id, sh.scenario_id, sh.before) == (match_id, scen.id, 1450.0)
        assert sh.after == scen.rating and sh.delta == pytest.approx(-11.5179, abs=1e-4)
        res = conn.execute(sa.select(results).where(results.c.match_id == match_id)).one()
        assert (res.team_won, res.places) == (True, [1, 1])


def test_loss_creates_the_scenario_at_1500(engine: Engine) -> None:
    roster = make_coop_roster(engine, players=3, bots=3, name="alien-3p")
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids, seed=2)
    rec = record_result(engine, match_id, _lost(3), REPLAY, "finished")
    # all 1500: E = 0.5, bots 40 * -0.5 = -20 each, the scenario +32 * 0.5 = +16
    assert [c.delta for c in rec.changes] == [-20.0, -20.0, -20.0]
    assert rec.scenario is not None and (rec.scenario.before, rec.scenario.after) == (1500.0, 1516.0)
    key = CALDER_2P.replace("players=2", "players=3")
    scen = _scenario(engine, roster.ladder_id, key)
    assert (scen.rating, scen.games, scen.wins) == (1516.0, 1, 0)
    assert scen.description.endswith("; 3 players")
    assert [tuple(_entry(engine, roster.ladder_id, b)) for b in roster.bot_ids] == [(1480.0, 1, 0)] * 3


def test_recording_twice_changes_nothing(engine: Engine) -> None:
    roster = make_coop_roster(engine)
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    first = record_result(engine, match_id, _won(), REPLAY, "finished")
    snapshot = (
        [tuple(_entry(engine, roster.ladder_id, b)) for b in roster.bot_ids],
        tuple(_scenario(engine, roster.ladder_id)),
    )
    # a retried task, even with the opposite outcome, changes nothing
    second = record_result(engine, match_id, _lost(), b"other", "retry")
    assert not first.already_recorded and first.scenario is not None
    assert second.already_recorded and second.changes == () and second.scenario is None
    assert snapshot == (
        [tuple(_entry(engine, roster.ladder_id, b)) for b in roster.bot_ids],
        tuple(_scenario(engine, roster.ladder_id)),
    )
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(scenario_rating_history)).scalar() == 1
        assert conn.execute(sa.select(sa.func.count()).select_from(rating_history)).scalar() == 2


def test_needs_team_won_and_writes_nothing_without(engine: Engine) -> None:
    roster = make_coop_roster(engine)
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    with pytest.raises(InvalidInput, match="team_won"):
        record_result(engine, match_id, Result((0, 0), (1, 1), ("a", "b")), REPLAY, "finished")
    with engine.connect() as conn:
        assert conn.execute(sa.select(matches.c.status)).scalar_one() == "queued"
        assert conn.execute(sa.select(sa.func.count()).select_from(scenarios)).scalar() == 0


def test_match_config_picks_the_scenario(engine: Engine) -> None:
    roster = make_coop_roster(engine)
    v = roster.version_ids
    reversed_order = {"players": 2, "objectives": ["burn_nest", "purge_vents", "distress_call"]}
    m1 = enqueue_match(engine, roster.ladder_id, v[:2], seed=1, config=AlienGame.default_config(2))
    m2 = enqueue_match(engine, roster.ladder_id, v[2:4], seed=2, config=reversed_order)
    with pytest.raises(InvalidInput):  # refused when queued, not when the result comes in
        enqueue_match(engine, roster.ladder_id, v[:2], seed=3, config={"players": 3})
    with engine.connect() as conn:
        assert conn.execute(sa.select(matches.c.config).where(matches.c.id == m2)).scalar() == reversed_order
    record_result(engine, m1, _won(), REPLAY, "finished")
    record_result(engine, m2, _won(), REPLAY, "finished")
    with engine.connect() as conn:
        keys = conn.execute(sa.select(scenarios.c.key, scenarios.c.games).order_by(scenarios.c.id)).all()
    assert [tuple(k) for k in keys] == [
        (CALDER_2P, 1),
        ("location=calder_station;objectives=burn_nest,purge_vents,distress_call;players=2", 1),
    ]


def test_one_bot_in_two_seats_changes_once(engine: Engine) -> None:
    roster = make_coop_roster(engine)
    bot0 = roster.bot_ids[0]
    v2 = add_bot_version(engine, bot0, "2.0")
    match_id = enqueue_match(engine, roster.ladder_id, [roster.version_ids[0], v2], seed=5)
    rec = record_result(engine, match_id, _won(), REPLAY, "finished")
    assert [(c.bot_id, c.delta) for c in rec.changes] == [(bot0, 20.0)]  # 40 * (1 - 0.5), once
    assert tuple(_entry(engine, roster.ladder_id, bot0)) == (1520.0, 1, 1)


def test_concurrent_coop_results_lose_no_update(engine: Engine) -> None:
    # 16 two-bot matches over 6 bots against one scenario (created by the first to get there),
    # recorded by 8 threads at once: every change must start where the previous one ended.
    roster = make_coop_roster(engine, bots=6)
    rng = random.Random(7)
    teams = [rng.sample(range(6), 2) for _ in range(16)]
    outcomes = [rng.random() < 0.5 for _ in teams]
    match_ids = [
        enqueue_match(engine, roster.ladder_id, [roster.version_ids[a], roster.version_ids[b]], i)
        for i, (a, b) in enumerate(teams)
    ]
    start = threading.Barrier(8)

    def writer(worker: int) -> int:
        start.wait()
        done = 0
        for i in range(worker, len(match_ids), 8):
            rec = record_result(
                engine, match_ids[i], _won() if outcomes[i] else _lost(), REPLAY, "finished"
            )
            done += not rec.already_recorded
        return done

    with ThreadPoolExecutor(8) as pool:
        assert sum(pool.map(writer, range(8))) == len(match_ids)

    scen = _scenario(engine, roster.ladder_id)
    assert (scen.games, scen.wins) == (16, sum(outcomes))
    with engine.connect() as conn:
        rows = conn.execute(sa.select(scenario_rating_history)).all()
        assert len(rows) == 16
        # walk the chain from 1500: each row starts from the rating the previous one left
        by_before = {r.before: r for r in rows}
        assert len(by_before) == 16
        rating = coop_rating.INITIAL_SCENARIO_RATING
        for _ in rows:
            step = by_before[rating]
            assert step.after == pytest.approx(step.before + step.delta, abs=1e-9)
            rating = step.after
        assert scen.rating == rating
        for bot_id in roster.bot_ids:
            chain = conn.execute(
                sa.select(rating_history.c.before, rating_history.c.after)
                .where(rating_history.c.bot_id == bot_id)
                .order_by(rating_history.c.id)
            ).all()
            entry = _entry(engine, roster.ladder_id, bot_id)
            assert entry.games == len(chain)
            if chain:
                assert chain[0].before == DEFAULT_POLICY.initial_rating
                assert all(n.before == p.after for p, n in itertools.pairwise(chain))
                assert entry.rating == chain[-1].after
        assert set(conn.execute(sa.select(matches.c.status)).scalars()) == {"done"}


# --- the migration --------------------------------------------------------------------------


def _columns(url: str, table: str) -> set[str]:
    engine = create_engine(url)
    try:
        return {c["name"] for c in sa.inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def test_migration_0002_down_and_up_keeps_ffa_ladders(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        ladder_id = create_ladder(engine, "old", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    finally:
        engine.dispose()
    downgrade(db_url, "0001")
    assert "kind" not in _columns(db_url, "ladders") and "config" not in _columns(db_url, "matches")
    assert "team_won" not in _columns(db_url, "results")
    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            kind = conn.execute(sa.select(ladders.c.kind).where(ladders.c.id == ladder_id)).scalar()
            assert kind == "ffa"
            ctx = MigrationContext.configure(conn)
            head = ScriptDirectory.from_config(alembic_config(db_url)).get_current_head()
            assert ctx.get_current_revision() == head
            assert compare_metadata(ctx, metadata) == []
    finally:
        engine.dispose()


def test_ffa_ladders_record_as_before(engine: Engine, roster: Roster) -> None:
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    rec = record_result(engine, match_id, Result((1, 0), (1, 2), ("a", "b")), REPLAY, "finished")
    assert rec.scenario is None and [c.delta for c in rec.changes] == [20.0, -20.0]
    with engine.connect() as conn:
        assert conn.execute(sa.select(results.c.team_won)).scalar_one() is None
        # no config is SQL NULL (the game's default), not JSON null
        assert conn.execute(sa.select(sa.func.count()).where(matches.c.config.is_(None))).scalar() == 1
        assert conn.execute(sa.select(sa.func.count()).select_from(scenarios)).scalar() == 0
