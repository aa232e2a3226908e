"""The standings' rating deviation is stored, not recomputed per view: recording adds each game's
Fisher information to the bot's ``ladder_entries.information`` (``ladder/RATINGS.md``, "Ladder
standings"), and after any sequence of recorded matches that number equals a recomputation from
the recorded history (``workers.audit.replayed_information``): free-for-all with 2 and 4 seats,
a cooperative ladder, a campaign ladder. Migration 0012 fills it the same way for a database
that already has history. SQLite and PostgreSQL (PostgreSQL records through its own statement).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import queries
from ladder.bots import add_bot_version
from ladder.campaigns import create_campaign, rate_campaign, record_game, schedule_game
from ladder.db import create_engine, downgrade, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import ladder_entries
from ladder.skill import Z95, deviation_from_information, free_for_all_information, game_information
from referee.core.game import Result
from referee.games.clank_legacy.campaign import new_campaign
from tests.ladder.conftest import Roster, make_coop_roster, make_roster
from tests.ladder.test_campaign_storage import _after, _seats, _versions
from workers.audit import audit_ladder, replayed_information

REPLAY = b'{"seed": 1, "actions": []}'


def _stored(engine: Engine, ladder_id: int) -> dict[int, float]:
    with engine.connect() as conn:
        return {
            int(b): float(i)
            for b, i in conn.execute(
                sa.select(ladder_entries.c.bot_id, ladder_entries.c.information).where(
                    ladder_entries.c.ladder_id == ladder_id
                )
            )
        }


def _replayed(engine: Engine, ladder_id: int) -> dict[int, float]:
    with engine.connect() as conn:
        return replayed_information(conn, ladder_id)


def _agrees(engine: Engine, ladder_id: int) -> dict[int, float]:
    """Stored equals replayed for every bot, and the standings' intervals are built from it."""
    stored, replayed = _stored(engine, ladder_id), _replayed(engine, ladder_id)
    assert stored == pytest.approx({b: replayed.get(b, 0.0) for b in stored}, abs=1e-12)
    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    for row in page["standings"]:
        half = Z95 * deviation_from_information(replayed.get(row["bot_id"], 0.0))
        # every figure on the page is rounded to 0.1
        assert row["rating_high"] == pytest.approx(row["rating"] + half, abs=0.11)
        assert row["rating_low"] == pytest.approx(row["rating"] - half, abs=0.11)
    return stored


def _play(engine: Engine, roster: Roster, seats: list[int], places: tuple[int, ...], seed: int) -> None:
    versions = [roster.version_ids[s] for s in seats]
    match_id = enqueue_match(engine, roster.ladder_id, versions, seed=seed)
    n = len(seats)
    record_result(engine, match_id, Result((0,) * n, places, ("escaped",) * n), REPLAY, "finished")


def test_two_player_matches_accumulate_at_the_ratings_played(engine: Engine, roster: Roster) -> None:
    b = roster.bot_ids
    _play(engine, roster, [0, 1], (1, 2), 1)
    # the first game is between equals (1500, 1500): 0.25 each, nobody else anything
    assert _agrees(engine, roster.ladder_id) == {b[0]: 0.25, b[1]: 0.25, b[2]: 0.0, b[3]: 0.0}
    _play(engine, roster, [0, 1], (1, 2), 2)
    # now 1520 against 1480: less than an even game's worth, at those ratings, not today's
    after = _agrees(engine, roster.ladder_id)
    assert after[b[0]] == pytest.approx(0.25 + game_information(1520.0, 1480.0))
    for seed, (seats, places) in enumerate(
        [([2, 0], (1, 2)), ([1, 3], (1, 1)), ([3, 2], (2, 1)), ([0, 3], (1, 2)), ([1, 2], (2, 1))], start=3
    ):
        _play(engine, roster, seats, places, seed)
    _agrees(engine, roster.ladder_id)
    # a retried recording adds nothing (the match is done)
    before = _stored(engine, roster.ladder_id)
    versions = [roster.version_ids[0], roster.version_ids[1]]
    match_id = enqueue_match(engine, roster.ladder_id, versions, seed=99)
    result = Result((0, 0), (2, 1), ("escaped", "escaped"))
    record_result(engine, match_id, result, REPLAY, "finished")
    once = _stored(engine, roster.ladder_id)
    assert record_result(engine, match_id, result, REPLAY, "finished").already_recorded
    assert _stored(engine, roster.ladder_id) == once != before
    assert audit_ladder(engine, roster.ladder_id) == []


def test_four_player_matches_count_each_pair_a_third(engine: Engine) -> None:
    roster = make_roster(engine, players=4, bots=5, name="clank-4p")
    b = roster.bot_ids
    _play(engine, roster, [0, 1, 2, 3], (1, 2, 3, 4), 1)
    # three equal opponents, each pair worth 1/3 of a game: 3 x 1/3 x 0.25
    assert _agrees(engine, roster.ladder_id)[b[0]] == pytest.approx(0.25)
    _play(engine, roster, [4, 3, 2, 1], (2, 2, 1, 4), 2)
    _play(engine, roster, [1, 4, 0, 2], (1, 3, 2, 4), 3)
    # one bot in two seats (a second version of bot 0): its own two seats count nothing
    second = add_bot_version(engine, b[0], "2.0", "python bot0.py")
    seats = [roster.version_ids[0], second, roster.version_ids[1], roster.version_ids[2]]
    match_id = enqueue_match(engine, roster.ladder_id, seats, seed=4)
    record_result(engine, match_id, Result((0,) * 4, (1, 2, 3, 4), ("escaped",) * 4), REPLAY, "finished")
    _agrees(engine, roster.ladder_id)
    assert audit_ladder(engine, roster.ladder_id) == []


def test_a_bot_in_two_seats_counts_its_pairs_with_others_only() -> None:
    """Bot 1 holds two of four equal seats: 4 pairs against the others, a third of a game each;
    bots 2 and 3 have 3 pairs each; the pair of bot 1's own seats counts for nobody."""
    assert free_for_all_information([1, 1, 2, 3], [1500.0] * 4) == pytest.approx(
        {1: 4 / 3 * 0.25, 2: 0.25, 3: 0.25}
    )
    assert free_for_all_information([7], [1500.0]) == {7: 0.0}


def test_cooperative_games_count_against_the_scenario_then(engine: Engine) -> None:
    roster = make_coop_roster(engine, players=2, bots=3)
    b = roster.bot_ids
    for seed, (seats, won) in enumerate([([0, 1], True), ([1, 2], False), ([0, 2], True), ([2, 0], True)]):
        match_id = enqueue_match(engine, roster.ladder_id, [roster.version_ids[s] for s in seats], seed=seed)
        result = Result((0, 0), (1, 1), ("survived",) * 2, team_won=won)
        record_result(engine, match_id, result, REPLAY, "finished")
        if seed == 0:  # fresh team against a fresh scenario: one even game each
            assert _stored(engine, roster.ladder_id) == {b[0]: 0.25, b[1]: 0.25, b[2]: 0.0}
    stored = _agrees(engine, roster.ladder_id)
    assert all(0 < stored[x] < 0.75 for x in b)
    assert audit_ladder(engine, roster.ladder_id) == []


def _campaign_ladder(engine: Engine) -> tuple[int, list[int], list[int]]:
    ladder = create_ladder(
        engine, "legacy-3p", "clank_legacy", 3, decision_ms=1000, bank_ms=1000, max_strikes=3,
        kind="campaign",
    )  # fmt: skip
    versions = _versions(engine, 3)
    with engine.connect() as conn:
        bot_ids = [
            int(conn.execute(sa.text("SELECT bot_id FROM bot_versions WHERE id = :v"), {"v": v}).scalar_one())
            for v in versions
        ]
    for bot_id in bot_ids:
        join_ladder(engine, ladder, bot_id)
    return ladder, versions, bot_ids


def _run_campaign(
    engine: Engine, ladder: int, versions: list[int], seed: int, scores: tuple[int, ...]
) -> None:
    state = new_campaign(3)
    cid = create_campaign(
        engine, players=3, seats=_seats(versions), seed=seed, games=1, state=state.to_json(),
        decision_ms=1000, bank_ms=1000, max_strikes=3, rating_ladder_id=ladder,
    )  # fmt: skip
    schedule_game(engine, cid)
    after = _after(state, scores)
    record_game(
        engine, cid, state.game_index, after.to_json(), scores=list(scores), outcomes=[""] * 3, over=False
    )
    rate_campaign(engine, cid)
    rate_campaign(engine, cid)  # rated once however often asked


def test_a_rated_campaign_counts_as_one_game_of_its_bots(engine: Engine) -> None:
    ladder, versions, bots = _campaign_ladder(engine)
    _run_campaign(engine, ladder, versions, 1, (30, 20, 10))
    # one 3-player game among equals: two pairs of half a game each, 0.25 in all
    assert _agrees(engine, ladder) == pytest.approx(dict.fromkeys(bots, 0.25))
    _run_campaign(engine, ladder, versions, 2, (5, 40, 20))
    _run_campaign(engine, ladder, list(reversed(versions)), 3, (8, 8, 1))
    stored = _agrees(engine, ladder)
    assert all(0.25 < stored[x] < 0.75 for x in bots)


def test_the_audit_reports_a_stored_information_that_is_not_the_historys(
    engine: Engine, roster: Roster
) -> None:
    _play(engine, roster, [0, 1], (1, 2), 1)
    with engine.begin() as conn:
        conn.execute(
            sa.update(ladder_entries)
            .where(ladder_entries.c.bot_id == roster.bot_ids[1])
            .values(information=ladder_entries.c.information + 1)
        )
    problems = audit_ladder(engine, roster.ladder_id)
    assert len(problems) == 1
    assert f"bot {roster.bot_ids[1]}: stored information 1.250000000" in problems[0]


def test_migration_0012_fills_the_information_from_existing_history(db_url: str, tmp_path: Path) -> None:
    """A database at 0011 with free-for-all, cooperative and campaign history: after the upgrade
    every entry holds what recording would have accumulated (and the audit agrees)."""
    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        ffa = make_roster(engine, players=4, bots=5, name="clank-4p")
        for seed, (seats, places) in enumerate(
            [([0, 1, 2, 3], (1, 2, 3, 4)), ([4, 3, 2, 1], (2, 2, 1, 4)), ([1, 4, 0, 2], (1, 3, 2, 4))]
        ):
            _play(engine, ffa, seats, places, seed)
        coop = make_coop_roster(engine, players=2, bots=3)
        for seed, (seats, won) in enumerate([([0, 1], True), ([1, 2], False), ([0, 2], True)]):
            match_id = enqueue_match(engine, coop.ladder_id, [coop.version_ids[s] for s in seats], seed=seed)
            result = Result((0, 0), (1, 1), ("survived",) * 2, team_won=won)
            record_result(engine, match_id, result, REPLAY, "finished")
        campaign, versions, _ = _campaign_ladder(engine)
        _run_campaign(engine, campaign, versions, 1, (30, 20, 10))
        _run_campaign(engine, campaign, versions, 2, (5, 40, 20))
        ladder_ids = (ffa.ladder_id, coop.ladder_id, campaign)
        recorded = {ladder: _stored(engine, ladder) for ladder in ladder_ids}
        assert all(any(v > 0 for v in values.values()) for values in recorded.values())
    finally:
        engine.dispose()
    downgrade(db_url, "0011")  # the previous head: no column, the history stays
    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        for ladder in ladder_ids:
            assert _stored(engine, ladder) == pytest.approx(recorded[ladder], abs=1e-12)
            assert _stored(engine, ladder) == pytest.approx(
                {b: _replayed(engine, ladder).get(b, 0.0) for b in recorded[ladder]}, abs=1e-12
            )
        assert audit_ladder(engine, ffa.ladder_id) == []
        assert audit_ladder(engine, coop.ladder_id) == []
    finally:
        engine.dispose()
