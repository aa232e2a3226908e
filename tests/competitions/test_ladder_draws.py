"""Ladder standings: a shared first place is a draw (not a win), ratings carry a 95% interval."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from ladder import queries
from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from workers.audit import audit_ladder


@dataclass(frozen=True)
class _Result:
    places: tuple[int, ...]
    scores: tuple[int, ...]
    outcomes: tuple[str, ...]


def _ladder(engine: Engine, players: int, n: int) -> tuple[int, list[int]]:
    ladder_id = create_ladder(
        engine, f"l{players}", "clank", players, decision_ms=1000, bank_ms=0, max_strikes=3
    )
    versions = []
    for i in range(n):
        bot_id = register_bot(engine, f"b{players}-{i}", "me").bot_id
        versions.append(add_bot_version(engine, bot_id, "1", "builtin:random"))
    return ladder_id, versions


def _play(engine: Engine, ladder_id: int, seats: list[int], places: tuple[int, ...]) -> None:
    match_id = enqueue_match(engine, ladder_id, seats, seed=1)
    n = len(places)
    record_result(engine, match_id, _Result(places, (0,) * n, ("escaped",) * n), b"{}", "finished")


def test_a_zero_zero_draw_is_no_win(engine: Engine) -> None:
    ladder_id, (a, b) = _ladder(engine, 2, 2)
    _play(engine, ladder_id, [a, b], (1, 1))
    _play(engine, ladder_id, [b, a], (1, 2))
    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    rows = {r["bot_name"]: r for r in page["standings"]}
    assert (rows["b2-0"]["wins"], rows["b2-0"]["draws"], rows["b2-0"]["games"]) == (0, 1, 2)
    assert (rows["b2-1"]["wins"], rows["b2-1"]["draws"], rows["b2-1"]["games"]) == (1, 1, 2)
    # the audit replays the same rule: books clean
    assert audit_ladder(engine, ladder_id) == []


def test_shared_first_of_three_and_an_unshared_one(engine: Engine) -> None:
    ladder_id, (a, b, c) = _ladder(engine, 3, 3)
    _play(engine, ladder_id, [a, b, c], (1, 1, 3))  # a and b share first: a draw each
    _play(engine, ladder_id, [a, b, c], (2, 2, 1))  # c wins alone; a and b share second
    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    got = {r["bot_name"]: (r["wins"], r["draws"]) for r in page["standings"]}
    assert got == {"b3-0": (0, 1), "b3-1": (0, 1), "b3-2": (1, 0)}
    assert audit_ladder(engine, ladder_id) == []


def test_ratings_come_with_an_interval_that_narrows(engine: Engine) -> None:
    ladder_id, (a, b, _) = _ladder(engine, 2, 3)
    with engine.connect() as conn:
        newcomer_id = queries.bot_id_by_name(conn, "b2-2")
    assert newcomer_id is not None
    join_ladder(engine, ladder_id, newcomer_id)
    for _ in range(12):
        _play(engine, ladder_id, [a, b], (1, 2))
    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    rows = {r["bot_name"]: r for r in page["standings"]}
    top, newcomer = rows["b2-0"], rows["b2-2"]
    assert top["rank"] == 1 and top["rating_low"] < top["rating"] < top["rating_high"]
    width = top["rating_high"] - top["rating_low"]
    fresh = newcomer["rating_high"] - newcomer["rating_low"]
    assert fresh > width  # no games: the widest interval (±1.96 x 347)
    assert round(fresh / 2 / 1.96) == 347
    los = top["los_next"]
    assert los is not None and 0.5 < los <= 1.0
    assert page["standings"][-1]["los_next"] is None


@dataclass(frozen=True)
class _TeamResult(_Result):
    team_won: bool


def test_coop_ladder_ratings_have_an_interval(engine: Engine) -> None:
    ladder_id = create_ladder(
        engine, "team", "alien", 2, decision_ms=1000, bank_ms=0, max_strikes=3, kind="coop"
    )
    versions = []
    for i in range(2):
        bot_id = register_bot(engine, f"team{i}", "me").bot_id
        versions.append(add_bot_version(engine, bot_id, "1", "builtin:coop"))
    for k in range(6):
        match_id = enqueue_match(engine, ladder_id, versions, seed=k)
        result = _TeamResult((1, 1), (0, 0), ("escaped", "escaped"), team_won=k % 2 == 0)
        record_result(engine, match_id, result, b"{}", "finished")
    with engine.connect() as conn:
        page = queries.standings(conn, ladder_id)
    assert page is not None
    for row in page["standings"]:
        width = row["rating_high"] - row["rating_low"]
        assert row["games"] == 6 and 0 < width < 2 * 1.96 * 347  # six games against the scenario
        assert (row["wins"], row["draws"]) == (3, 0)  # team wins; no draws on a team ladder
    assert audit_ladder(engine, ladder_id) == []
