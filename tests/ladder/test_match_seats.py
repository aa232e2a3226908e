"""``match_seats`` holds each match's seats as rows (migration 0014, issue 29): every path that
creates a match writes them with it (ladder queue, competition round, campaign game), the bot's
matches are read through them, and the migration fills them for matches recorded before it.
SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import formats, queries
from ladder.campaigns import create_campaign, schedule_game
from ladder.competitions import create_competition, parse_entry, schedule_round
from ladder.db import create_engine, downgrade, upgrade
from ladder.ladders import create_ladder
from ladder.match_queue import enqueue_match
from ladder.schema import match_seats, matches
from referee.games.clank_legacy.campaign import new_campaign
from tests.ladder.conftest import make_roster
from tests.ladder.test_campaign_storage import _seats
from tests.ladder.test_information import _campaign_ladder


def _rows(engine: Engine) -> set[tuple[int, int, int]]:
    with engine.connect() as conn:
        return {(int(m), int(s), int(v)) for m, s, v in conn.execute(sa.select(match_seats))}


def _from_json(engine: Engine) -> set[tuple[int, int, int]]:
    """What ``matches.seats`` says the rows must be."""
    with engine.connect() as conn:
        return {
            (int(m), seat, int(v))
            for m, seats in conn.execute(sa.select(matches.c.id, matches.c.seats))
            for seat, v in enumerate(seats)
        }


def _every_kind_of_match(engine: Engine) -> tuple[int, list[int]]:
    """Ladder matches (2 and 4 seats), a competition round and a campaign game; the 4-seat
    roster's ladder and its versions."""
    four = make_roster(engine, players=4, bots=5, name="clank-4p")
    two = create_ladder(engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
    enqueue_match(engine, two, [four.version_ids[1], four.version_ids[2]], seed=1)
    enqueue_match(engine, two, [four.version_ids[3], four.version_ids[1]], seed=2)
    for seed, seats in enumerate([[0, 1, 2, 3], [4, 3, 2, 1]]):
        enqueue_match(engine, four.ladder_id, [four.version_ids[s] for s in seats], seed=seed)
    field = [parse_entry("clank", name) for name in ("greedy", "random")]
    cid = create_competition(engine, game="clank", players=2, fmt="round-robin", field=field, seed=3)
    plan = formats.next_round("round-robin", 2, 2, [], sets=1)
    assert plan
    assert schedule_round(engine, cid, plan)
    ladder, versions, _ = _campaign_ladder(engine)
    campaign = create_campaign(
        engine, players=3, seats=_seats(versions), seed=5, games=1, state=new_campaign(3).to_json(),
        decision_ms=1000, bank_ms=1000, max_strikes=3, rating_ladder_id=ladder,
    )  # fmt: skip
    schedule_game(engine, campaign)
    return four.ladder_id, list(four.version_ids)


def test_every_path_that_creates_a_match_writes_its_seats(engine: Engine) -> None:
    _every_kind_of_match(engine)
    expected = _from_json(engine)
    # ladder 2p (2 x 2), ladder 4p (2 x 4), competition (at least one 2-seat game), campaign (3)
    assert len(expected) >= 4 + 8 + 2 + 3
    assert _rows(engine) == expected


def test_a_bots_matches_are_found_through_its_seats(engine: Engine) -> None:
    _, versions = _every_kind_of_match(engine)
    with engine.connect() as conn:
        query = sa.text("SELECT bot_id FROM bot_versions WHERE id = :v")
        bot_of = {v: int(conn.execute(query, {"v": v}).scalar_one()) for v in versions}
        # version 4 sat only in the second 4-seat match; version 0 only in the first
        for version, seat_lists in ((versions[4], [[4, 3, 2, 1]]), (versions[0], [[0, 1, 2, 3]])):
            found = queries.bot_matches(conn, bot_of[version])
            assert found is not None
            assert [[s["bot_version_id"] for s in m["seats"]] for m in found] == [
                [versions[s] for s in seats] for seats in seat_lists
            ]


def test_migration_0014_fills_the_seats_of_matches_recorded_before_it(db_url: str) -> None:
    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        _every_kind_of_match(engine)
        expected = _from_json(engine)
    finally:
        engine.dispose()
    downgrade(db_url, "0013")  # the previous head: no table, the matches stay
    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        assert _rows(engine) == expected
    finally:
        engine.dispose()
