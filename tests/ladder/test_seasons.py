"""Seasons on PostgreSQL (ladder/RATINGS.md, "Seasons"): a season closed and archived (its
standings kept exactly as the ladder showed them, the ratings shrunk toward the mean as
documented, the games counted from zero, the archive on the API and its page); closing again
with no game, or an unknown ladder, is one error that changes nothing; the next season's games
rate from the shrunk ratings with the provisional K and the audit replays it all."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder import queries
from ladder.api import create_app
from ladder.db import create_engine
from ladder.errors import InvalidInput, NotFound
from ladder.ladders import upgrade_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import bot_versions, ladder_entries, ladder_periods
from ladder.seasons import SEASON_CARRY, close_season, season_page, seasons
from referee.cli import main as cli_main
from referee.core.game import Result
from referee.games import game_spec
from tests.doc_blocks import walkthrough_blocks
from workers.audit import audit_ladder

from .conftest import Roster, make_roster

REPLAY = b'{"seed": 1, "actions": []}'
#: (seat a, seat b, places): bot0 strongest, a draw, an upset
GAMES = ((0, 1, (1, 2)), (0, 2, (1, 2)), (1, 2, (1, 1)), (3, 0, (1, 2)), (0, 3, (1, 2)), (2, 3, (2, 1)))


def _play(engine: Engine, roster: Roster, games: Any = GAMES, seed: int = 0) -> list[int]:
    v = roster.version_ids
    played = []
    for i, (a, b, places) in enumerate(games):
        match_id = enqueue_match(engine, roster.ladder_id, [v[a], v[b]], seed=seed + i)
        record_result(engine, match_id, Result((1, 1), places, ("x", "y")), REPLAY, "finished")
        played.append(match_id)
    return played


def _entries(engine: Engine, ladder_id: int) -> dict[int, tuple[float, int, int, int]]:
    with engine.connect() as conn:
        return {
            r.bot_id: (r.rating, r.games, r.wins, r.draws)
            for r in conn.execute(sa.select(ladder_entries).where(ladder_entries.c.ladder_id == ladder_id))
        }


@pytest.fixture
def pg_engine(pg_url: str) -> Any:
    eng = create_engine(pg_url)
    try:
        yield eng
    finally:
        eng.dispose()


def test_a_season_closed_and_archived_on_postgresql(pg_engine: Engine) -> None:
    engine = pg_engine
    roster = make_roster(engine)
    with engine.begin() as conn:  # qualified bots: ranked whatever their games count
        conn.execute(sa.update(bot_versions).values(qualification="passed"))
    _play(engine, roster)
    before = _entries(engine, roster.ladder_id)
    with engine.connect() as conn:
        shown = queries.standings(conn, roster.ladder_id)
    assert shown is not None and len(shown["standings"]) == 4

    done = close_season(engine, roster.ladder_id)

    mean = sum(r for r, *_ in before.values()) / 4
    assert (done.season, done.bots, done.carry, done.engine_version) == (1, 4, 0.75, "clank-2")
    assert done.mean == pytest.approx(mean, abs=1e-9)
    # rating' = mean + 0.75 (rating - mean); games, wins and draws from 0
    after = _entries(engine, roster.ladder_id)
    for bot, (rating, *_) in before.items():
        assert after[bot][0] == pytest.approx(mean + SEASON_CARRY * (rating - mean), abs=1e-9)
        assert after[bot][1:] == (0, 0, 0)
    assert max(r for r, *_ in before.values()) - mean > 10  # the shrink moved something

    # the archive: the standings exactly as the ladder showed them, every bot at full precision
    keep = (
        "rank",
        "bot_id",
        "bot_name",
        "rating",
        "games",
        "wins",
        "draws",
        "rating_low",
        "rating_high",
        "los_next",
    )
    with engine.connect() as conn:
        page = season_page(conn, roster.ladder_id, 1)
        period = conn.execute(sa.select(ladder_periods)).one()
        listed = seasons(conn, roster.ladder_id)
    assert page is not None
    assert page["standings"] == [{k: row[k] for k in keep} for row in shown["standings"]]
    assert {
        b["bot_id"]: (b["rating"], b["games"], b["wins"], b["draws"]) for b in period.standings["bots"]
    } == before
    assert (period.closed_by, period.carry) == ("season", 0.75)
    assert listed is not None and [(s["number"], s["current"], s["closed_by"]) for s in listed] == [
        (1, False, "season"),
        (2, True, None),
    ]
    assert listed[1]["started_at"] == listed[0]["ended_at"]

    # closing again with no game in the season: one error, nothing changed; an unknown ladder too
    with pytest.raises(
        InvalidInput, match=r"^ladder clank-2p: season 2 has no rated game yet, nothing to close$"
    ):
        close_season(engine, roster.ladder_id)
    with pytest.raises(NotFound, match=r"^no ladder 999$"):
        close_season(engine, 999)
    assert _entries(engine, roster.ladder_id) == after
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(ladder_periods)).scalar_one() == 1

    # the API and the pages show it
    with TestClient(create_app(engine)) as client:
        api = client.get(f"/api/ladders/{roster.ladder_id}/seasons")
        assert api.status_code == 200 and api.json() == listed
        one = client.get(f"/api/ladders/{roster.ladder_id}/seasons/1")
        assert one.status_code == 200 and one.json()["standings"] == page["standings"]
        for missing in (f"{roster.ladder_id}/seasons/2", f"{roster.ladder_id}/seasons/0", "999/seasons/1"):
            assert client.get(f"/api/ladders/{missing}").status_code == 404
        assert client.get("/api/ladders/999/seasons").json() == {"error": "no ladder 999", "status": 404}
        html = client.get(f"/ladders/{roster.ladder_id}/seasons/1")
        assert html.status_code == 200
        for row in shown["standings"]:
            assert f'<a href="/bots/{row["bot_id"]}">{row["bot_name"]}</a>' in html.text
            assert f"{row['rating']:.1f}" in html.text
        assert "Engine version <b>clank-2</b>" in html.text
        assert f"{mean:.1f} + 0.75 \u00d7 (rating \u2212 {mean:.1f})" in html.text
        ladder = client.get(f"/ladders/{roster.ladder_id}").text
        assert f'href="/ladders/{roster.ladder_id}/seasons/1"' in ladder and "Season <b>2</b>" in ladder
        assert client.get(f"/ladders/{roster.ladder_id}/seasons/2").status_code == 404
        assert client.get(f"/ladders/{roster.ladder_id}/seasons/x").status_code == 404

    # season 2: a game rates from the shrunk ratings with the provisional K again (40: +-20 for
    # equals, so the winner gains K x (1 - E) from its shrunk rating)
    _play(engine, roster, ((1, 0, (1, 2)),), seed=100)
    recorded = _entries(engine, roster.ladder_id)
    b0, b1 = roster.bot_ids[0], roster.bot_ids[1]
    expected = 1 / (1 + 10 ** ((after[b0][0] - after[b1][0]) / 400))
    assert recorded[b1][0] == pytest.approx(after[b1][0] + 40 * (1 - expected), abs=1e-9)
    assert recorded[b1][1:] == (1, 1, 0)
    assert audit_ladder(engine, roster.ladder_id) == []

    # the audit replays the shrink: a season carried at another factor is caught
    with engine.begin() as conn:
        conn.execute(sa.update(ladder_periods).values(carry=0.5))
    assert any("stored rating" in p for p in audit_ladder(engine, roster.ladder_id))


def test_a_season_closed_after_an_upgrade_numbers_on_and_audits(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade closes a season too (ratings carried whole); a season close after it is
    season 2, shrinks, and the audit replays both; the old-style archive (no table) still shows."""
    engine = pg_engine
    roster = make_roster(engine)
    with engine.begin() as conn:
        conn.execute(sa.update(bot_versions).values(qualification="passed"))
        conn.execute(sa.text("UPDATE ladders SET engine_version = 'clank-1'"))
    _play(engine, roster)
    carried = _entries(engine, roster.ladder_id)
    assert "clank-1" in game_spec("clank").versions()
    upgrade_ladder(engine, roster.ladder_id, "clank-2")
    assert {b: r for b, (r, *_) in _entries(engine, roster.ladder_id).items()} == {
        b: r for b, (r, *_) in carried.items()
    }
    _play(engine, roster, seed=50)
    second = close_season(engine, roster.ladder_id)
    assert (second.season, second.engine_version) == (2, "clank-2")
    _play(engine, roster, GAMES[:2], seed=80)
    assert audit_ladder(engine, roster.ladder_id) == []
    with engine.connect() as conn:
        listed = seasons(conn, roster.ladder_id)
        # an archive written before migration 0013 held only "bots": ranked by rating, named now
        conn.execute(
            sa.update(ladder_periods)
            .where(ladder_periods.c.id == 1)
            .values(
                standings={
                    "bots": [
                        {"bot_id": b, "rating": r, "games": g, "wins": w, "draws": d}
                        for b, (r, g, w, d) in sorted(carried.items(), key=lambda x: -x[1][0])
                    ]
                }
            )
        )
        old = season_page(conn, roster.ladder_id, 1)
        conn.commit()
    assert listed is not None
    assert [(s["number"], s["engine_version"], s["closed_by"], s["carry"]) for s in listed] == [
        (1, "clank-1", "upgrade", 1.0),
        (2, "clank-2", "season", 0.75),
        (3, "clank-2", None, None),
    ]
    assert old is not None and [s["rating"] for s in old["standings"]] == sorted(
        (round(r, 1) for r, *_ in carried.values()), reverse=True
    )
    assert old["standings"][0]["rating_low"] is None
    with TestClient(create_app(engine)) as client:
        page = client.get(f"/ladders/{roster.ladder_id}/seasons/1")
        assert page.status_code == 200 and "the ratings went on as they were" in page.text
        assert "ranked by rating" in page.text


def _arena(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`arena ARGS` in this process (the `arena` root's own entry point; a process each would
    cost seconds of imports): its exit status, stdout and stderr."""
    capsys.readouterr()
    code = cli_main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_season_commands_in_ratings_md_run_as_printed(
    pg_engine: Engine, pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena ladder season close clank-2p` and `... list clank-2p` (RATINGS.md); closing again,
    or an unknown ladder, is one error line and changes nothing."""
    monkeypatch.setenv("DATABASE_URL", pg_url)
    close_cmd, list_cmd = walkthrough_blocks("ladder/RATINGS.md")["seasons"].splitlines()
    assert (close_cmd, list_cmd) == (
        "arena ladder season close clank-2p",
        "arena ladder season list clank-2p",
    )
    roster = make_roster(pg_engine)
    with pg_engine.begin() as conn:
        conn.execute(
            sa.update(ladder_entries)
            .where(ladder_entries.c.bot_id == roster.bot_ids[0])
            .values(rating=1700.0, games=12, wins=9)
        )
        conn.execute(
            sa.update(ladder_entries)
            .where(ladder_entries.c.bot_id == roster.bot_ids[1])
            .values(rating=1300.0, games=12, wins=3)
        )
    code, out, err = _arena(close_cmd.split()[1:], capsys)
    assert code == 0, err
    assert out == (
        f"ladder clank-2p (id {roster.ladder_id}): season 1 (clank-2) closed, its standings archived; "
        "4 bots start season 2 at 1500.0 + 0.75 x (rating - 1500.0), games counted from 0 "
        "(ladder/RATINGS.md, Seasons)\n"
    )
    ratings = {b: r for b, (r, *_) in _entries(pg_engine, roster.ladder_id).items()}
    assert ratings == {
        roster.bot_ids[0]: 1650.0,
        roster.bot_ids[1]: 1350.0,
        roster.bot_ids[2]: 1500.0,
        roster.bot_ids[3]: 1500.0,
    }
    code, out, err = _arena(list_cmd.split()[1:], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("season   1  clank-2 ")
    assert lines[0].endswith("4 bots, closed, ratings carried x 0.75 toward 1500.0")
    assert lines[1].startswith("season   2  clank-2 ")
    assert lines[1].endswith(" now               4 bots, current")
    # closing again, or a ladder that is not there: one line, status 1, nothing changed
    assert _arena(close_cmd.split()[1:], capsys) == (
        1,
        "",
        "error: ladder clank-2p: season 2 has no rated game yet, nothing to close\n",
    )
    assert _arena(["ladder", "season", "close", "nope"], capsys) == (
        1,
        "",
        "error: no ladder 'nope' (give its name or id: arena ladder list)\n",
    )
    assert {b: r for b, (r, *_) in _entries(pg_engine, roster.ladder_id).items()} == ratings
    with pg_engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(ladder_periods)).scalar_one() == 1
