"""The ladder's matchmaker can plan duplicate sets ($ARENA_DUPLICATE_SETS=1)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import matches
from workers.matchmaker import DUPLICATE_SETS_ENV, fill_queues


def _ladder(engine: Engine, players: int) -> int:
    ladder_id = create_ladder(engine, "dup", "clank", players, decision_ms=1000, bank_ms=0, max_strikes=3)
    for i in range(players):
        bot_id = register_bot(engine, f"dup{i}", "me").bot_id
        add_bot_version(engine, bot_id, "1", "builtin:random")
        join_ladder(engine, ladder_id, bot_id)
    return ladder_id


@pytest.mark.parametrize("players", [2, 3])
def test_duplicate_sets_rotate_the_seats_of_one_seed(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, players: int
) -> None:
    ladder_id = _ladder(engine, players)
    monkeypatch.setenv(DUPLICATE_SETS_ENV, "1")
    sent: list[int] = []
    created = fill_queues(engine, sent.append, target_depth=1, ladder_ids=[ladder_id])
    assert created == sent and len(created) == players
    with engine.connect() as conn:
        rows = conn.execute(sa.select(matches.c.seed, matches.c.seats).order_by(matches.c.id)).all()
    assert len({r.seed for r in rows}) == 1
    first = list(rows[0].seats)
    assert [list(r.seats) for r in rows] == [first[k:] + first[:k] for k in range(players)]


def test_without_it_one_game_per_pairing(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    ladder_id = _ladder(engine, 2)
    monkeypatch.delenv(DUPLICATE_SETS_ENV, raising=False)
    assert len(fill_queues(engine, lambda _m: None, target_depth=1, ladder_ids=[ladder_id])) == 1
