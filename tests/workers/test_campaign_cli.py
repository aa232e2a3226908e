"""`arena campaign run|resume`: a whole Clank! Legacy campaign through the ladder's match
function, stored, deterministic, resumable after a killed process, each game's replay
verifiable from the campaign state it embeds."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from cli.main import main
from ladder.bots import add_bot_version, register_bot
from ladder.campaigns import campaign_row
from ladder.db import create_engine, upgrade
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import campaign_ratings, ladder_entries, matches, replays
from referee.games.clank_legacy.campaign import CampaignState
from referee.replay import loads, verify, verify_file

from .conftest import Broker, WorkerFarm

ARENA = [sys.executable, "-m", "referee.cli"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json_run(
    capsys: pytest.CaptureFixture[str],
    db: str,
    *extra: str,
    games: int = 10,
    bots: str = "random,random,random,random",
) -> dict[str, Any]:
    code, out, err = _run(
        capsys, "campaign", "run", "--players", "4", "--bots", bots,
        "--games", str(games), "--seed", "1", "--db", db, "--json", *extra,
    )  # fmt: skip
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_run_plays_a_ten_game_campaign_and_stores_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path}/a.db"
    data = _json_run(capsys, db)
    games = data["games"]
    assert [g["index"] for g in games] == list(range(1, 11)) and data["status"] == "finished"
    # the Book's prologues in order, each game's state chained to the next
    assert [g["prologue"] for g in games][:3] == [101, 102, 103]
    for before, after in itertools.pairwise(games):
        assert after["state_before"] == before["state_after"]
    assert data["totals"] == [sum(g["scores"][s] for g in games) for s in range(4)]
    assert len({g["seed"] for g in games}) == 10
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            row = campaign_row(conn, data["campaign"])
            state = CampaignState.from_json(row.state)
            assert row.state_digest == state.digest() == data["state_digest"] == games[-1]["state_after"]
            assert len(state.reports) == 10 and row.next_index == 11
            assert [r.scores for r in state.reports] == [tuple(g["scores"]) for g in games]
            statuses = conn.execute(sa.select(matches.c.status).where(matches.c.ladder_id == row.ladder_id))
            assert sorted(statuses.scalars()) == ["done"] * 10
    finally:
        engine.dispose()
    # same seed, another database: the same campaign, bit for bit
    again = _json_run(capsys, f"sqlite:///{tmp_path}/b.db")
    assert again["state_digest"] == data["state_digest"]
    assert [g["state_after"] for g in again["games"]] == [g["state_after"] for g in games]


def test_text_output_has_a_table_per_game_and_the_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(
        capsys, "campaign", "run", "--players", "2", "--bots", "random,random", "--names", "Ada,Bo",
        "--games", "2", "--seed", "5", "--db", f"sqlite:///{tmp_path}/t.db",
    )  # fmt: skip
    assert code == 0, err
    assert "campaign 1 stored (resume with: arena campaign resume 1" in err
    lines = out.splitlines()
    assert lines[0].startswith("game 1: prologue 101 (side_a)")
    assert "seat" in lines[1] and "checkmarks" in lines[1]
    assert "Ada" in lines[2] and "Bo" in lines[3]
    assert any(line.startswith("game 2: prologue 102") for line in lines)
    assert any(line.startswith("campaign 1: finished, 2 games") for line in lines)
    assert sum(" MVP" in line for line in lines) == 2


def test_refusals_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path}/e.db"
    for argv, words in (
        (["run", "--players", "3", "--bots", "random,random"], "3 players need 3 bots"),
        (["run", "--players", "2", "--bots", "random,builtin:nobody"], "no built-in bot 'nobody'"),
        (["run", "--players", "2", "--bots", "random,python bot.py"], "a campaign seat is a built-in bot"),
        (["run", "--players", "2", "--bots", "random,random", "--names", "A"], "1 names for 2 players"),
        (["resume", "42"], "no campaign 42"),
    ):
        code, _out, err = _run(capsys, "campaign", *argv, "--db", db)
        assert code == 2 and err.startswith("error: ") and words in err and err.count("\n") == 1, err


def test_a_killed_campaign_resumes_to_the_uninterrupted_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = _json_run(capsys, f"sqlite:///{tmp_path}/ref.db", games=6)
    db = f"sqlite:///{tmp_path}/killed.db"
    env = {**os.environ, "ARENA_LEASE_SECONDS": "2"}
    proc = subprocess.Popen(
        [*ARENA, "campaign", "run", "--players", "4", "--bots", "random,random,random,random",
         "--games", "6", "--seed", "1", "--db", db],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("game 2:"):
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(timeout=60)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            row = campaign_row(conn, 1)
            assert row.status == "running" and 3 <= row.next_index <= 6
    finally:
        engine.dispose()
    out = subprocess.run(
        [*ARENA, "campaign", "resume", "1", "--db", db, "--json"],
        capture_output=True, text=True, env=env, timeout=300, check=True,
    ).stdout  # fmt: skip
    resumed = json.loads(out)
    assert resumed["status"] == "finished" and len(resumed["games"]) == 6
    assert resumed["state_digest"] == reference["state_digest"]
    assert [g["scores"] for g in resumed["games"]] == [g["scores"] for g in reference["games"]]
    # resuming a finished campaign plays nothing and changes nothing
    code, out2, _ = _run(capsys, "campaign", "resume", "1", "--db", db, "--json")
    assert code == 0 and json.loads(out2)["state_digest"] == reference["state_digest"]


def test_each_replay_verifies_from_the_campaign_state_it_embeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path}/r.db"
    data = _json_run(capsys, db, games=4)
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            stored = {
                int(m): bytes(d) for m, d in conn.execute(sa.select(replays.c.match_id, replays.c.data))
            }
    finally:
        engine.dispose()
    for game in data["games"]:
        raw = gzip.decompress(stored[game["match_id"]])
        doc = loads(raw)
        embedded = CampaignState.from_json(doc["config"]["campaign"])
        assert embedded.digest() == game["state_before"]
        assert doc["result"]["details"]["campaign_after"] == game["state_after"]
        path = tmp_path / f"game{game['index']}.json.gz"
        path.write_bytes(gzip.compress(raw))
        assert verify_file(path).result is not None
    # a later game re-simulated from another campaign state is not the recorded game
    doc = loads(gzip.decompress(stored[data["games"][3]["match_id"]]))
    doc["config"]["campaign"] = loads(gzip.decompress(stored[data["games"][0]["match_id"]]))["config"][
        "campaign"
    ]
    with pytest.raises(ValueError):
        verify(doc)
    code = main(["replay", "verify", str(tmp_path / "game4.json.gz")])
    assert code == 0


def test_a_campaign_on_a_campaign_ladder_is_rated_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path}/l.db"
    upgrade(db)
    engine = create_engine(db)
    try:
        ladder = create_ladder(
            engine,
            "legacy-4p",
            "clank_legacy",
            4,
            decision_ms=1000,
            bank_ms=1000,
            max_strikes=3,
            kind="campaign",
        )
        versions = []
        for i in range(4):
            reg = register_bot(engine, f"legacy{i}", "me")
            versions.append(add_bot_version(engine, reg.bot_id, "1", "builtin:random"))
            join_ladder(engine, ladder, reg.bot_id)  # a campaign rated there seats its bots
        bots = ",".join(f"version:{v}" for v in versions)
        data = _json_run(capsys, db, "--ladder", str(ladder), games=3, bots=bots)
        assert data["status"] == "finished"
        code, _out, _err = _run(capsys, "campaign", "resume", str(data["campaign"]), "--db", db)
        assert code == 0
        with engine.connect() as conn:
            games = (
                conn.execute(sa.select(ladder_entries.c.games).where(ladder_entries.c.ladder_id == ladder))
                .scalars()
                .all()
            )
            assert sorted(games) == [1, 1, 1, 1]
            deltas = conn.execute(sa.select(campaign_ratings.c.delta)).scalars().all()
            assert len(deltas) == 4 and sum(deltas) == pytest.approx(0.0)
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.integration
def test_on_celery_the_games_run_on_the_workers(worker_farm: WorkerFarm, broker: Broker, pg_url: str) -> None:
    """With BROKER_URL set every game goes to the Celery workers of the queue (PostgreSQL)."""
    worker_farm.start(1)
    env = {**os.environ, **worker_farm.env}
    env.pop("PROMETHEUS_MULTIPROC_DIR")  # only the workers count into the farm's metrics
    out = subprocess.run(
        [*ARENA, "campaign", "run", "--players", "3", "--bots", "random,random,random",
         "--games", "3", "--seed", "9", "--db", pg_url, "--json"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr + worker_farm.log_text()
    data = json.loads(out.stdout)
    assert data["status"] == "finished" and len(data["games"]) == 3
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=worker_farm.env["PROMETHEUS_MULTIPROC_DIR"])  # type: ignore[no-untyped-call]
    finished = sum(
        s.value for m in registry.collect() for s in m.samples if s.name == "arena_matches_finished_total"
    )
    assert finished == 3


def test_resume_replays_a_game_whose_player_died_mid_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game left running under a dead worker's lease is requeued once the lease runs out and
    played again from scratch (same seed): the campaign ends as an uninterrupted one."""
    from cli.campaign import _seats_for
    from ladder.campaigns import create_campaign, schedule_game
    from ladder.match_queue import claim_match
    from referee.games.clank_legacy.campaign import new_campaign

    reference = _json_run(capsys, f"sqlite:///{tmp_path}/ref.db", games=2, bots="random,random,random,random")
    db = f"sqlite:///{tmp_path}/dead.db"
    upgrade(db)
    engine = create_engine(db)
    try:
        names = ["Wren Ashdown", "Tobble Quill", "Marga Vell", "Osric Fenn"]
        cid = create_campaign(
            engine, players=4, seats=_seats_for(engine, "clank_legacy", ["random"] * 4, names),
            seed=1, games=2,
            state=new_campaign(4).to_json(),
        )  # fmt: skip
        game = schedule_game(engine, cid)
        assert game is not None
        assert claim_match(engine, game.match_id, "ghost:1", 0.3)  # a worker that will never finish
    finally:
        engine.dispose()
    code, out, err = _run(capsys, "campaign", "resume", str(cid), "--db", db, "--json", "--timeout", "30")
    assert code == 0, err
    data = json.loads(out)
    assert data["state_digest"] == reference["state_digest"] and len(data["games"]) == 2
