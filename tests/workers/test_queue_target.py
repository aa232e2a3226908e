"""No worker starves: the matchmaker keeps at least one queued match per running one (issue 14).

A running match is a busy worker process; with a fixed depth below the number of worker
processes, the workers past the depth found nothing queued when they finished.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.match_queue import claim_match, enqueue_match
from ladder.schema import matches
from workers.matchmaker import fill_queues, load_ladder_views, queue_target

from .conftest import make_ladder


def test_queue_target_is_the_depth_raised_to_the_running_matches() -> None:
    assert queue_target(8, 0) == 8
    assert queue_target(8, 5) == 8
    assert queue_target(2, 5) == 5
    # depth 0 drains the queue: nothing new, however busy the workers are
    assert queue_target(0, 5) == 0


def _count(engine: Engine, status: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count()).select_from(matches).where(matches.c.status == status)
            ).scalar_one()
        )


def test_more_running_matches_than_the_depth_keep_as_many_queued(engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"] * 4)
    # six worker processes each took a match; the depth is two
    for n in range(6):
        pair = [ladder.version_ids[n], ladder.version_ids[(n + 1) % 8]]
        match_id = enqueue_match(engine, ladder.ladder_id, pair, seed=n)
        assert claim_match(engine, match_id, f"worker-{n}", 60)
    assert (_count(engine, "running"), _count(engine, "queued")) == (6, 0)
    [view] = load_ladder_views(engine, [ladder.ladder_id])
    assert (view.running, view.queued) == (6, 0)

    created = fill_queues(engine, lambda _m: None, target_depth=2)

    # one next match waiting for each of the six busy workers, not two
    assert len(created) == 6 and _count(engine, "queued") == 6
    assert fill_queues(engine, lambda _m: None, target_depth=2) == []
    assert fill_queues(engine, lambda _m: None, target_depth=0) == []
