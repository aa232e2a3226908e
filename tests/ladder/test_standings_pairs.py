"""Standings' rating intervals come from the ladder's head-to-head pairs, which a process keeps
between requests (`ladder.queries._PairWeights`): what it keeps must always equal a fresh count."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import queries
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import matches
from referee.core.game import Result

from .conftest import Roster

REPLAY = b'{"seed": 1, "actions": []}'


def _intervals(engine: Engine, ladder_id: int, *, fresh: bool) -> dict[int, tuple[float, float]]:
    if fresh:
        queries._PAIR_WEIGHTS.clear()
    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    return {s["bot_id"]: (s["rating_low"], s["rating_high"]) for s in page["standings"]}


def _play(engine: Engine, roster: Roster, a: int, b: int, seed: int) -> int:
    versions = [roster.version_ids[a], roster.version_ids[b]]
    match_id = enqueue_match(engine, roster.ladder_id, versions, seed=seed)
    record_result(engine, match_id, Result((30, 10), (1, 2), ("escaped", "dead")), REPLAY, "finished")
    return match_id


def test_kept_pairs_follow_new_results_and_a_reset(engine: Engine, roster: Roster) -> None:
    _play(engine, roster, 0, 1, 1)
    first = _intervals(engine, roster.ladder_id, fresh=True)
    # a second process-lifetime request after more results: the kept pairs grow with them
    later = _play(engine, roster, 0, 2, 2)
    _play(engine, roster, 1, 2, 3)
    kept = _intervals(engine, roster.ladder_id, fresh=False)
    assert kept != first
    assert kept == _intervals(engine, roster.ladder_id, fresh=True)
    # a match it counted is gone (a reset database): it starts over rather than keep stale pairs
    _intervals(engine, roster.ladder_id, fresh=False)
    with engine.begin() as conn:
        conn.execute(sa.delete(matches).where(matches.c.id == later))
    kept = _intervals(engine, roster.ladder_id, fresh=False)
    assert kept == _intervals(engine, roster.ladder_id, fresh=True)
