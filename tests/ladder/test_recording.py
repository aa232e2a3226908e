"""Recording results: ratings, history, replay, idempotency, concurrent writers."""

from __future__ import annotations

import gzip
import hashlib
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot
from ladder.errors import InvalidInput, NotFound
from ladder.match_queue import claim_match, enqueue_match
from ladder.rating_policy import DEFAULT_POLICY
from ladder.recording import record_result
from ladder.schema import ladder_entries, matches, rating_history, replays, results
from referee.core.game import Result

from .conftest import Roster, make_roster

REPLAY = b'{"engine": "clank", "actions": [1, 2, 3]}' * 20


def _entry(engine: Engine, ladder_id: int, bot_id: int) -> Any:
    with engine.connect() as conn:
        return conn.execute(
            sa.select(ladder_entries.c.rating, ladder_entries.c.games, ladder_entries.c.wins).where(
                ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot_id
            )
        ).one()


def test_records_result_replay_and_ratings(engine: Engine, roster: Roster) -> None:
    v0, v1 = roster.version_ids[:2]
    match_id = enqueue_match(engine, roster.ladder_id, [v0, v1], seed=7)
    assert claim_match(engine, match_id, "w1", 60)
    result = Result(scores=(40, 25), places=(1, 2), outcomes=("escaped", "knocked_out"))

    rec = record_result(engine, match_id, result, REPLAY, "finished")

    assert not rec.already_recorded
    bot0, bot1 = roster.bot_ids[:2]
    assert [(c.bot_id, c.before, c.after) for c in rec.changes] == [
        (bot0, 1500.0, 1520.0),
        (bot1, 1500.0, 1480.0),
    ]
    assert tuple(_entry(engine, roster.ladder_id, bot0)) == (1520.0, 1, 1)
    assert tuple(_entry(engine, roster.ladder_id, bot1)) == (1480.0, 1, 0)
    with engine.connect() as conn:
        m = conn.execute(sa.select(matches).where(matches.c.id == match_id)).one()
        assert m.status == "done" and m.finished_at is not None and m.lease_owner is None
        r = conn.execute(sa.select(results).where(results.c.match_id == match_id)).one()
        assert (r.places, r.scores, r.outcomes, r.reason) == (
            [1, 2],
            [40, 25],
            ["escaped", "knocked_out"],
            "finished",
        )
        rep = conn.execute(sa.select(replays).where(replays.c.match_id == match_id)).one()
        assert gzip.decompress(rep.data) == REPLAY
        assert len(rep.data) < len(REPLAY)
        assert rep.sha256 == hashlib.sha256(REPLAY).hexdigest()
        history = conn.execute(
            sa.select(rating_history.c.bot_id, rating_history.c.delta).order_by(
                rating_history.c.bot_id
            )
        ).all()
        assert [tuple(h) for h in history] == [(bot0, 20.0), (bot1, -20.0)]


def test_bots_not_on_the_ladder_are_put_on_it_at_the_initial_rating(engine: Engine) -> None:
    # two bots, never joined: recording inserts both entries (one multi-row insert) and rates them
    roster = make_roster(engine, bots=0)
    versions = []
    bot_ids = []
    for i in range(2):
        reg = register_bot(engine, f"late{i}", "owner")
        bot_ids.append(reg.bot_id)
        versions.append(add_bot_version(engine, reg.bot_id, "1.0", "python late.py"))
    match_id = enqueue_match(engine, roster.ladder_id, versions, seed=3)

    rec = record_result(engine, match_id, Result((0, 0), (2, 1), ("a", "b")), REPLAY, "finished")

    assert [(c.bot_id, c.before, c.after) for c in rec.changes] == [
        (bot_ids[0], 1500.0, 1480.0),
        (bot_ids[1], 1500.0, 1520.0),
    ]
    assert tuple(_entry(engine, roster.ladder_id, bot_ids[0])) == (1480.0, 1, 0)
    assert tuple(_entry(engine, roster.ladder_id, bot_ids[1])) == (1520.0, 1, 1)


def test_recording_twice_changes_nothing(engine: Engine, roster: Roster) -> None:
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    result = Result(scores=(1, 2), places=(2, 1), outcomes=("a", "b"))
    first = record_result(engine, match_id, result, REPLAY, "finished")
    before = [tuple(_entry(engine, roster.ladder_id, b)) for b in roster.bot_ids]

    # a retried task, even with a different result, counts nothing again
    other = Result(scores=(9, 0), places=(1, 2), outcomes=("x", "y"))
    second = record_result(engine, match_id, other, b"other", "retry")

    assert not first.already_recorded
    assert second.already_recorded and second.changes == ()
    assert [tuple(_entry(engine, roster.ladder_id, b)) for b in roster.bot_ids] == before
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(rating_history)).scalar() == 2
        assert conn.execute(sa.select(results.c.reason)).scalar_one() == "finished"


def test_three_player_shared_place_uses_pairwise_elo(engine: Engine) -> None:
    roster = make_roster(engine, players=3, bots=3, name="clank-3p")
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids, seed=3)
    result = Result(scores=(10, 30, 10), places=(2, 1, 2), outcomes=("a", "b", "c"))
    rec = record_result(engine, match_id, result, REPLAY, "finished")
    # all 1500: winner +K/2 * 2 * 0.5 = +20; the two sharing 2nd lose 10 each (draw between them)
    assert [round(c.delta, 9) for c in rec.changes] == [-10.0, 20.0, -10.0]
    assert [_entry(engine, roster.ladder_id, b).wins for b in roster.bot_ids] == [0, 1, 0]


def test_two_versions_of_one_bot_count_one_game(engine: Engine, roster: Roster) -> None:
    bot0 = roster.bot_ids[0]
    v2 = add_bot_version(engine, bot0, "2.0")
    match_id = enqueue_match(engine, roster.ladder_id, [roster.version_ids[0], v2], seed=5)
    rec = record_result(engine, match_id, Result((1, 0), (1, 2), ("a", "b")), REPLAY, "finished")
    assert [(c.bot_id, c.delta) for c in rec.changes] == [(bot0, 0.0)]
    assert tuple(_entry(engine, roster.ladder_id, bot0)) == (1500.0, 1, 1)


def test_rejects_result_of_wrong_shape_and_unknown_match(engine: Engine, roster: Roster) -> None:
    match_id = enqueue_match(engine, roster.ladder_id, roster.version_ids[:2], seed=1)
    with pytest.raises(InvalidInput):
        record_result(engine, match_id, Result((1,), (1,), ("a",)), REPLAY, "finished")
    with pytest.raises(InvalidInput):
        record_result(engine, match_id, Result((1, 1), (1, 3), ("a", "b")), REPLAY, "finished")
    with pytest.raises(NotFound):
        record_result(engine, 999, Result((1, 1), (1, 2), ("a", "b")), REPLAY, "finished")
    with engine.connect() as conn:  # nothing half-written
        assert conn.execute(sa.select(matches.c.status)).scalar_one() == "queued"
        assert conn.execute(sa.select(sa.func.count()).select_from(results)).scalar() == 0


def test_concurrent_writers_lose_no_rating_update(engine: Engine, roster: Roster) -> None:
    # 24 two-player matches over 4 bots (each pair 4 times), recorded by 8 threads at once.
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)] * 4
    match_ids = [
        enqueue_match(engine, roster.ladder_id, [roster.version_ids[a], roster.version_ids[b]], i)
        for i, (a, b) in enumerate(pairs)
    ]
    start = threading.Barrier(8)

    def writer(worker: int) -> int:
        start.wait()
        done = 0
        for i in range(worker, len(match_ids), 8):
            places = (1, 2) if i % 3 else (2, 1)
            rec = record_result(
                engine, match_ids[i], Result((0, 0), places, ("a", "b")), REPLAY, "finished"
            )
            done += not rec.already_recorded
        return done

    with ThreadPoolExecutor(8) as pool:
        recorded = sum(pool.map(writer, range(8)))

    assert recorded == len(match_ids)
    games = {b: 0 for b in roster.bot_ids}
    for a, b in pairs:
        games[roster.bot_ids[a]] += 1
        games[roster.bot_ids[b]] += 1
    for bot_id in roster.bot_ids:
        entry = _entry(engine, roster.ladder_id, bot_id)
        assert entry.games == games[bot_id]
        with engine.connect() as conn:
            chain = conn.execute(
                sa.select(rating_history.c.before, rating_history.c.after)
                .where(rating_history.c.bot_id == bot_id)
                .order_by(rating_history.c.id)
            ).all()
        # every change starts from the rating the previous one left: no update was lost
        assert len(chain) == games[bot_id]
        assert chain[0].before == DEFAULT_POLICY.initial_rating
        for prev, nxt in itertools.pairwise(chain):
            assert nxt.before == pytest.approx(prev.after, abs=1e-9)
        assert entry.rating == pytest.approx(chain[-1].after, abs=1e-9)
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.sum(ladder_entries.c.games))).scalar() == 48
        # everyone is provisional (12 games each), so equal K: ratings are conserved
        total = conn.execute(sa.select(sa.func.sum(ladder_entries.c.rating))).scalar()
        assert total == pytest.approx(4 * DEFAULT_POLICY.initial_rating, abs=1e-6)
        assert set(conn.execute(sa.select(matches.c.status)).scalars()) == {"done"}
