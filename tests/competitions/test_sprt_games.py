"""`arena sprt` on real games: built-in bots in process, a hosted command in the sandbox."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from ladder.competitions import parse_entry
from ladder.db import create_engine
from ladder.schema import replays
from workers.tournament import Inline, run_sprt

ARENA = Path(sys.executable).parent / "arena"
REPO = Path(__file__).resolve().parents[2]
PYTHON_BOT = REPO / "tests" / "workers" / "sandbox_bots" / "python_bot" / "main.py"


def _sprt(url: str, candidate: str, baseline: str, **kw: float) -> dict[str, Any]:
    engine = create_engine(url)
    try:
        result = run_sprt(
            engine, "clank", parse_entry("clank", candidate), parse_entry("clank", baseline), Inline(url),
            **kw,  # type: ignore[arg-type]
        )
    finally:
        engine.dispose()
    return result.as_dict()


def test_greedy_beats_random_h1_in_bounded_games(sqlite_url: str) -> None:
    out = _sprt(sqlite_url, "greedy", "random", elo0=0, elo1=20)
    assert out["verdict"] == "H1", out
    assert isinstance(out["games"], int) and out["games"] <= 60 and out["games"] % 2 == 0
    assert out["llr"] >= out["bounds"][1]
    assert out["wins"] > out["losses"]


def test_random_against_itself_h0_in_bounded_games(sqlite_url: str) -> None:
    out = _sprt(sqlite_url, "random", "random", elo0=0, elo1=100)
    assert out["verdict"] == "H0", out
    assert isinstance(out["games"], int) and out["games"] <= 200
    assert out["llr"] <= out["bounds"][0]


def test_game_limit_is_inconclusive(sqlite_url: str) -> None:
    out = _sprt(sqlite_url, "greedy", "greedy", elo0=0, elo1=20, max_games=6)
    assert out["verdict"] == "inconclusive" and out["games"] == 6, out


def test_cli_json(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(ARENA), "sprt", "--game", "clank", "--candidate", "greedy", "--baseline", "random",
         "--elo0", "0", "--elo1", "200", "--workers", "0", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["verdict"] == "H1" and out["candidate"] == "greedy" and out["baseline"] == "random"
    assert sum(out["pentanomial"]) * 2 == out["games"] == out["wins"] + out["draws"] + out["losses"]
    assert out["elo_interval"][0] > 0  # greedy is better, and the interval says so
    bad = subprocess.run(
        [str(ARENA), "sprt", "--game", "clank", "--candidate", "greedy", "--baseline", "random",
         "--elo0", "20", "--elo1", "0", "--workers", "0"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("error:"), bad.stderr


@pytest.fixture
def bot_folder() -> Iterator[Path]:
    """A folder the sandbox's user can read, holding a hosted Python bot."""
    path = Path(tempfile.mkdtemp(prefix="arena-sprt-bot-"))
    path.chmod(0o755)
    shutil.copy(PYTHON_BOT, path / "main.py")
    (path / "main.py").chmod(0o644)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_hosted_command_runs_in_the_sandbox_with_the_current_folder(bot_folder: Path) -> None:
    files_root = Path(tempfile.mkdtemp(prefix="arena-sprt-files-"))
    files_root.chmod(0o755)
    db = bot_folder.parent / f"{bot_folder.name}.db"
    try:
        proc = subprocess.run(
            [str(ARENA), "sprt", "--game", "clank", "--candidate", "python main.py", "--baseline", "random",
             "--max-games", "2", "--workers", "0", "--json", "--db", f"sqlite:///{db}"],
            cwd=bot_folder, capture_output=True, text=True, timeout=300,
            env={"PATH": "/usr/bin:/bin", "ARENA_BOT_FILES_DIR": str(files_root), "HOME": str(bot_folder)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["games"] == 2 and out["failed_pairs"] == 0, out
        engine = create_engine(f"sqlite:///{db}")
        try:
            with engine.connect() as conn:
                data = conn.execute(sa.select(replays.c.data)).scalars().all()
            stored = [json.loads(gzip.decompress(d)) for d in data]
        finally:
            engine.dispose()
        assert len(stored) == 2
        for replay in stored:
            hosted = [s for s in replay["seats"] if "sandbox" in s]
            assert len(hosted) == 1 and hosted[0]["sandbox"]["kind"] not in ("none", None), hosted
            assert not hosted[0].get("forfeit"), hosted
    finally:
        shutil.rmtree(files_root, ignore_errors=True)
        db.unlink(missing_ok=True)
