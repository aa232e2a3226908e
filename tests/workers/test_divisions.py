"""Divisions on PostgreSQL (ladder/RATINGS.md, "Divisions"): in a test season of real matches
between built-in bots, the matchmaker pairs within a division and its overlap, promotes a bot
at the first pass after its interval's low end passed its division's boss and never moves it
down; the season's close carries the divisions over; the ladder page, the standings JSON and
the bot's profile show them."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from cli.client import add_divisions
from ladder.api import create_app
from ladder.db import create_engine
from ladder.divisions import divisions_of, may_meet, parse_divisions
from ladder.errors import InvalidInput
from ladder.ladders import ladder_policy
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import bot_versions, ladder_entries, ladder_periods, matches
from ladder.seasons import close_season
from ladder.skill import deviation_from_information
from referee.core.game import Result
from workers.match_execution import run_match
from workers.matchmaker import fill_queues

from .conftest import assert_ladder_consistent, make_ladder

#: passes of the matchmaker (one match each) before the test gives up on a promotion
MAX_PASSES = 40


@pytest.fixture
def pg_engine(pg_url: str) -> Iterator[Engine]:
    eng = create_engine(pg_url)
    try:
        yield eng
    finally:
        eng.dispose()


def _entries(engine: Engine, ladder_id: int) -> dict[int, sa.Row[tuple[int, int, float, float, int]]]:
    with engine.connect() as conn:
        return {
            r.bot_id: r
            for r in conn.execute(
                sa.select(
                    ladder_entries.c.bot_id,
                    ladder_entries.c.division,
                    ladder_entries.c.rating,
                    ladder_entries.c.information,
                    ladder_entries.c.games,
                ).where(ladder_entries.c.ladder_id == ladder_id)
            )
        }


def test_a_bot_is_promoted_past_its_boss_in_real_matches_and_never_demoted(
    pg_url: str, pg_engine: Engine
) -> None:
    engine = pg_engine
    # b0 plays greedy, b1 random: the bottom division's boss plays random, the top one's greedy
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"], name="clank-leagues")
    challenger, other = ladder.bot_ids
    add_divisions(engine, ladder.ladder_id, "clank", parse_divisions("Wood:random,Bronze:greedy", "clank"))
    with engine.connect() as conn:
        wood, bronze = divisions_of(conn, ladder.ladder_id)
        policy = ladder_policy(conn, ladder.ladder_id)
    assert (wood["name"], bronze["name"]) == ("Wood", "Bronze")
    reference = {wood["boss_bot_id"]: True, bronze["boss_bot_id"]: True, challenger: False, other: False}
    start = _entries(engine, ladder.ladder_id)
    assert {b: e.division for b, e in start.items()} == {
        challenger: 0,
        other: 0,
        wood["boss_bot_id"]: 0,
        bronze["boss_bot_id"]: 1,
    }

    with engine.connect() as conn:
        bot_of = dict(conn.execute(sa.select(bot_versions.c.id, bot_versions.c.bot_id)).all())
    played: list[int] = []
    promoted_at = None
    for n in range(MAX_PASSES):
        before = _entries(engine, ladder.ladder_id)
        # the rule as RATINGS.md writes it: rating - z x deviation > the boss's rating
        low = before[challenger].rating - policy.z * deviation_from_information(
            before[challenger].information, prior_games=policy.prior_games
        )
        passed = low > before[wood["boss_bot_id"]].rating
        created = fill_queues(
            engine, lambda _m: None, target_depth=1, ladder_ids=[ladder.ladder_id], rng=random.Random(n)
        )
        now = _entries(engine, ladder.ladder_id)  # what this pass planned with
        # promoted at the first pass after it passed the boss, not before
        assert now[challenger].division == (1 if passed or promoted_at is not None else 0), n
        if now[challenger].division == 1 and promoted_at is None:
            promoted_at = n
        reach = may_meet(
            {b: e.division for b, e in now.items()}, {b: e.rating for b, e in now.items()}, reference
        )
        for match_id in created:
            with engine.connect() as conn:
                seats = conn.execute(sa.select(matches.c.seats).where(matches.c.id == match_id)).scalar_one()
            a, b = (bot_of[v] for v in seats)
            assert b in reach[a], (n, a, b, {x: e.division for x, e in now.items()})
            assert run_match(pg_url, match_id, "w").status == "recorded"
            played.append(match_id)
        if promoted_at is not None and n >= promoted_at + 3:
            break
    assert promoted_at is not None, (
        f"not promoted after {MAX_PASSES} matches: {_entries(engine, ladder.ladder_id)}"
    )
    assert_ladder_consistent(engine, ladder.ladder_id, played)

    # never moved down in the season: results that sink it below the bottom boss change nothing
    versions = dict(zip(ladder.bot_ids, ladder.version_ids, strict=True))
    for i in range(12):
        match_id = enqueue_match(
            engine, ladder.ladder_id, [versions[challenger], versions[other]], seed=900 + i
        )
        record_result(
            engine, match_id, Result((0, 1), (2, 1), ("x", "y")), b'{"seed": 1, "actions": []}', "finished"
        )
    sunk = _entries(engine, ladder.ladder_id)
    assert sunk[challenger].rating < sunk[wood["boss_bot_id"]].rating
    fill_queues(engine, lambda _m: None, target_depth=1, ladder_ids=[ladder.ladder_id], rng=random.Random(1))
    assert _entries(engine, ladder.ladder_id)[challenger].division == 1

    # the page, the standings JSON and the bot's profile show the divisions
    with TestClient(create_app(engine)) as client:
        standings = client.get(f"/api/ladders/{ladder.ladder_id}/standings").json()
        profile = client.get(f"/api/bots/{challenger}").json()
        html = client.get(f"/ladders/{ladder.ladder_id}").text
    assert [d["name"] for d in standings["divisions"]] == ["Wood", "Bronze"]
    rows = {s["bot_id"]: s for s in standings["standings"]}
    assert {b: (rows[b]["division"], rows[b]["boss"]) for b in rows} == {
        challenger: ("Bronze", False),
        other: ("Wood", False),
        wood["boss_bot_id"]: ("Wood", True),
        bronze["boss_bot_id"]: ("Bronze", True),
    }
    assert [s["division"] for s in standings["standings"]][:2] == ["Bronze", "Bronze"]  # the top first
    entry = profile["ladders"][0]
    assert (entry["division"], entry["division_position"], entry["divisions"]) == ("Bronze", 1, 2)
    assert entry["boss_name"] == "reference-clank-boss2-greedy"
    assert entry["to_boss"] == pytest.approx(entry["boss_rating"] - entry["rating_low"], abs=0.051)
    assert "id=divisions" in html and '<tr class=division data-division="Bronze">' in html
    assert f'<tr data-bot="{bronze["boss_bot_id"]}" class=boss data-division="Bronze">' in html

    # a new season carries each bot's division over (and the archive says where each was)
    close_season(engine, ladder.ladder_id)
    assert {b: e.division for b, e in _entries(engine, ladder.ladder_id).items()} == {
        b: e.division for b, e in sunk.items()
    }
    with engine.connect() as conn:
        archived = conn.execute(sa.select(ladder_periods.c.standings)).scalar_one()
    assert {e["bot_id"]: e["division"] for e in archived["bots"]} == {b: e.division for b, e in sunk.items()}

    # set once: a second set of divisions is refused in one line, nothing changed
    with pytest.raises(
        InvalidInput, match=r"^ladder clank-leagues has its divisions already \(they are set once\)$"
    ):
        add_divisions(engine, ladder.ladder_id, "clank", parse_divisions("A,B", "clank"))


def test_a_new_version_qualifies_against_the_bottom_divisions_reference_bots(pg_engine: Engine) -> None:
    """On a ladder with divisions a candidate plays the reference bots of the bottom division,
    where its bot starts (its boss and the --reference-bots ones), never a higher boss."""
    from cli.client import add_reference_bots
    from workers.qualification import _tables

    engine = pg_engine
    ladder = make_ladder(engine, ["builtin:random"], name="clank-quals")
    add_reference_bots(engine, ladder.ladder_id, "clank", 2, ("random",))
    add_divisions(engine, ladder.ladder_id, "clank", parse_divisions("Wood:random,Gold:greedy", "clank"))
    (table,) = _tables(engine, ladder.bot_ids[0], "clank")
    assert sorted(s.bot_name for s in table.references) == [
        "reference-clank-boss1-random",
        "reference-clank-random",
    ]
