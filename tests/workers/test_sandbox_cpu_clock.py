"""A ladder with the CPU clock on rules a hosted bot on the CPU time its sandbox measured.

The bot runs as the ladder runs every hosted bot (an uploaded version, in the sandbox, through
`run_match`); the referee's CPU meter for its seat is the sandbox's cgroup
(workers/SANDBOX.md, PROTOCOL.md "CPU time").
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import create_engine
from ladder.match_queue import enqueue_match
from ladder.schema import ladders, replays
from referee.replay import loads
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.match_execution import run_match

from .conftest import REPO, make_ladder

CPU_BOT_FILES = {"main.py": REPO / "tests" / "referee" / "bots" / "cpu_bot.py"}


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    eng = create_engine(sqlite_url)
    yield eng
    eng.dispose()


@pytest.fixture(autouse=True)
def _fresh_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_REFEREE_ADDR", raising=False)
    reset_referee_executor()


@pytest.mark.slow
@pytest.mark.integration
def test_a_spinning_hosted_bot_is_cut_on_the_cpu_clock_not_the_wall_clock(
    sqlite_url: str, sqlite_engine: Engine
) -> None:
    ladder = make_ladder(
        sqlite_engine, ["python main.py --mode spin", "builtin:random"], files=[CPU_BOT_FILES]
    )
    with sqlite_engine.begin() as conn:
        # a wall clock far away (20 s): only the CPU clock (0.2 s + 0.3 s bank) can cut the spin
        conn.execute(
            sa.update(ladders)
            .where(ladders.c.id == ladder.ladder_id)
            .values(decision_ms=20_000, bank_ms=0, cpu_decision_ms=200, cpu_bank_ms=300)
        )
    match_id = enqueue_match(sqlite_engine, ladder.ladder_id, ladder.version_ids, seed=3)
    run = run_match(sqlite_url, match_id, "w1")
    assert run.status == "recorded", run
    with sqlite_engine.connect() as conn:
        data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == match_id)).scalar_one()
    seat = loads(gzip.decompress(data))["seats"][0]
    assert seat["sandbox"]["kind"] == "bubblewrap"
    cut = [i for i in seat["incidents"] if i["kind"] == "cpu_time"]
    assert len(cut) == 1, seat["incidents"]
    # measured by the cgroup: at least the allowance plus the bank was spent before the cut
    assert seat["sandbox"]["cpu_ms"] >= 500
    assert seat["strikes"] == 1
