"""Ladders pin their engine version, and stored matches survive the build's default moving on
(ladder/RATINGS.md, "Engine versions"), on SQLite and PostgreSQL: matches recorded at version N
stay viewable and verifiable from their match pages after a test-only N+1 becomes the default
and the ladder is upgraded to it; the upgrade closes the rating period; a match claimed before
it is recorded unrated; new matches play N+1."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

import referee.games
from ladder.api import create_app
from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine, downgrade, upgrade
from ladder.ladders import create_ladder, join_ladder, upgrade_ladder
from ladder.match_queue import claim_match, enqueue_match
from ladder.recording import record_result
from ladder.schema import ladder_entries, ladder_periods, ladders, matches, rating_history
from referee import replay as rp
from referee.games import game_class, game_spec
from referee.replay import encode
from referee.runner import play_local
from tests.doc_blocks import walkthrough_blocks
from workers.audit import audit_ladder
from workers.match_execution import run_match

from .engine_next import ClankNext

REPO = Path(__file__).resolve().parents[2]


def _default_moves_to_clank_3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register clank-3 as the build's current Clank! rules, clank-2 kept as an older version."""
    spec = game_spec("clank")
    moved = dataclasses.replace(
        spec,
        engine="tests.workers.engine_next:ClankNext",
        older_versions={**spec.older_versions, "clank-2": spec.engine},
    )
    monkeypatch.setitem(referee.games._registry(), "clank", moved)
    assert game_class("clank") is ClankNext and game_spec("clank").versions()[-2:] == ("clank-2", "clank-3")


def _history(engine: Engine, match_id: int) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count())
                .select_from(rating_history)
                .where(rating_history.c.match_id == match_id)
            ).scalar_one()
        )


def test_matches_at_n_stay_viewable_and_verifiable_after_the_default_moves_to_n_plus_1(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder_id = create_ladder(
        engine, "clank-duel", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
    )
    versions = []
    for i, command in enumerate(["builtin:greedy", "builtin:random", "builtin:greedy"]):
        reg = register_bot(engine, f"pin{i}", "tests")
        versions.append(add_bot_version(engine, reg.bot_id, "1", command))
        join_ladder(engine, ladder_id, reg.bot_id)
    old = [
        enqueue_match(engine, ladder_id, [versions[a], versions[b]], seed=60 + a) for a, b in ((0, 1), (1, 2))
    ]
    for match_id in old:
        assert run_match(db_url, match_id, "w1").status == "recorded"
    # a worker claimed this one before the upgrade: it plays clank-2
    late = enqueue_match(engine, ladder_id, [versions[2], versions[0]], seed=62)
    assert claim_match(engine, late, "w2", 60)
    with engine.connect() as conn:
        pinned = dict(conn.execute(sa.select(matches.c.id, matches.c.engine_version)).all())
        before = {r.bot_id: r.rating for r in conn.execute(sa.select(ladder_entries))}
    assert set(pinned.values()) == {"clank-2"}

    _default_moves_to_clank_3(monkeypatch)
    done = upgrade_ladder(engine, ladder_id, "clank-3")
    assert (done.old_version, done.new_version, done.closed_period, done.bots) == ("clank-2", "clank-3", 1, 3)
    with engine.connect() as conn:
        period = conn.execute(sa.select(ladder_periods)).one()
        entries = {r.bot_id: (r.rating, r.games) for r in conn.execute(sa.select(ladder_entries))}
    assert period.engine_version == "clank-2" and {b["games"] for b in period.standings["bots"]} == {1, 2}
    assert entries == {b: (rating, 0) for b, rating in before.items()}  # carried, provisional again

    # the late match, played at clank-2, is kept but moves no rating
    played = play_local("clank", ["greedy", "greedy"], 62, engine_version="clank-2")
    assert played.replay["engine_version"] == "clank-2"
    recording = record_result(engine, late, played.result, encode(played.replay), "finished")
    assert not recording.rated and recording.changes == () and _history(engine, late) == 0

    # a new match plays clank-3 and is rated in the new period
    new = enqueue_match(engine, ladder_id, [versions[0], versions[1]], seed=63)
    assert run_match(db_url, new, "w1").status == "recorded"
    with engine.connect() as conn:
        assert (
            conn.execute(sa.select(matches.c.engine_version).where(matches.c.id == new)).scalar_one()
            == "clank-3"
        )
        assert conn.execute(sa.select(ladders.c.engine_version)).scalar_one() == "clank-3"
    assert _history(engine, new) == 2
    assert audit_ladder(engine, ladder_id) == []

    with TestClient(create_app(engine)) as client:
        for match_id in old:
            page = client.get(f"/matches/{match_id}")
            assert page.status_code == 200, page.text
            assert "Engine version: <b>clank-2</b> (the ladder now plays clank-3)" in page.text
            assert "cannot be read" not in page.text and "Watch the replay" in page.text
            data = client.get(f"/api/matches/{match_id}/replay").content
            doc = rp.loads(data)
            assert doc["engine_version"] == "clank-2" and rp.verify(doc).steps == len(doc["steps"])
            assert client.get(f"/matches/{match_id}/replay").status_code == 200
            last = client.get(f"/matches/{match_id}/replay/frames/{len(doc['steps'])}?seat=0")
            assert last.status_code == 200 and last.json()["step"] == len(doc["steps"])
        assert "this match was not rated" in client.get(f"/matches/{late}").text
        assert "Engine version: <b>clank-3</b>" in client.get(f"/matches/{new}").text
        assert "Engine version: <b>clank-3</b>" in client.get(f"/ladders/{ladder_id}").text
        [listed] = [x for x in client.get("/api/ladders").json() if x["id"] == ladder_id]
        assert listed["engine_version"] == "clank-3"
        assert client.get(f"/api/matches/{old[0]}").json()["engine_version"] == "clank-2"
        assert rp.loads(client.get(f"/api/matches/{new}/replay").content)["engine_version"] == "clank-3"


def _arena(args: list[str], url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=REPO,
    )


def test_the_upgrade_command_in_ratings_md_runs_as_printed(tmp_path: Path) -> None:
    """`arena ladder upgrade clank-2p --engine clank-2` (RATINGS.md) on a ladder still at clank-1;
    the same again, or a version the build lacks, is one error line and changes nothing."""
    [command] = walkthrough_blocks("ladder/RATINGS.md")["upgrade"].splitlines()
    assert command == "arena ladder upgrade clank-2p --engine clank-2"
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    upgrade(url)
    engine = create_engine(url)
    try:
        ladder_id = create_ladder(
            engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
        )
        reg = register_bot(engine, "old-timer", "tests")
        join_ladder(engine, ladder_id, reg.bot_id)
        with engine.begin() as conn:
            conn.execute(sa.update(ladders).values(engine_version="clank-1"))
            conn.execute(sa.update(ladder_entries).values(rating=1612.5, games=31, wins=20))
        done = _arena(command.split()[1:], url)
        assert done.returncode == 0, done.stderr
        assert done.stdout == (
            f"ladder clank-2p (id {ladder_id}): engine clank-1 -> clank-2; rating period 1 (clank-1) closed, "
            "its standings kept; 1 bots carry their ratings into period 2, games counted from 0 "
            "(ladder/RATINGS.md, Engine versions)\n"
        )
        again = _arena(command.split()[1:], url)
        unknown = _arena(["ladder", "upgrade", str(ladder_id), "--engine", "clank-9"], url)
        with engine.connect() as conn:
            entry = conn.execute(sa.select(ladder_entries)).one()
            period = conn.execute(sa.select(ladder_periods)).one()
            version = conn.execute(sa.select(ladders.c.engine_version)).scalar_one()
    finally:
        engine.dispose()
    assert again.returncode == 1 and again.stderr == "error: engine: ladder clank-2p already plays clank-2\n"
    assert unknown.returncode == 1
    assert (
        unknown.stderr == "error: engine: clank has no version 'clank-9'; this build has clank-1, clank-2\n"
    )
    assert (entry.rating, entry.games, entry.wins, version) == (1612.5, 0, 0, "clank-2")
    assert period.standings["bots"] == [
        {"bot_id": reg.bot_id, "name": "old-timer", "rating": 1612.5, "games": 31, "wins": 20, "draws": 0,
         "division": 0}  # the division it was in (ladder/RATINGS.md, "Divisions"): a ladder without, 0
    ]
    assert (period.closed_by, period.carry) == ("upgrade", 1.0)  # an upgrade shrinks nothing


def test_migration_0008_pins_existing_ladders_to_the_current_version(db_url: str) -> None:
    downgrade(db_url, "0007")
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            for name, game in (("c", "clank"), ("a", "alien")):
                conn.execute(
                    sa.text(
                        "INSERT INTO ladders (name, game, players, decision_ms, bank_ms, max_strikes, "
                        "created_at) VALUES (:n, :g, 2, 1000, 0, 3, CURRENT_TIMESTAMP)"
                    ),
                    {"n": name, "g": game},
                )
        upgrade(db_url)
        with engine.connect() as conn:
            pinned = dict(conn.execute(sa.select(ladders.c.game, ladders.c.engine_version)).all())
    finally:
        engine.dispose()
    assert pinned == {
        "clank": game_spec("clank").current_version(),
        "alien": game_spec("alien").current_version(),
    }
