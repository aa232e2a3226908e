"""A competition format is one file: a toy format added to ``ladder/formats/`` and nothing else is
played by `arena tournament run --format <toy>` (the real command, in its own process), and its
pairing, scoring and column reach the standings.

The file is added to a copy of the package, not to the checkout: an overlay of symlinks to every
file of ``ladder/`` (so the code run is the checkout's) plus the toy's module, put first on the
process's ``PYTHONPATH``. The test checks the overlay differs from the checkout by that one file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: the whole format: one round of neighbouring seeds (0-1, 2-3, ...), scored by the pairwise
#: points plus one per seat of the field below it (a seeding bonus), with that bonus as a column
TOY = '''"""Toy: neighbouring seeds meet once; the better seed gets a bonus in the standings."""

from __future__ import annotations

from collections.abc import Sequence

from ladder.formats.base import Column, Format, GameRecord, Options, RankInput, Ranking, TablePlan


class Neighbours(Format):
    name = "toy-neighbours"
    summary = "toy: neighbouring seeds, one round"
    columns = (Column("bonus", "Seed bonus"),)

    def plan(
        self, n: int, players: int, games: Sequence[GameRecord], options: Options
    ) -> list[TablePlan] | None:
        if games:
            return None
        tables = [tuple(range(k, k + players)) for k in range(0, n - players + 1, players)]
        return [TablePlan(0, i, t, options.sets) for i, t in enumerate(tables)]

    def rank(self, data: RankInput) -> Ranking:
        base = super().rank(data)
        bonus = {e: float(data.n - 1 - e) for e in range(data.n)}
        score = {e: base.score[e] + bonus[e] for e in range(data.n)}
        return Ranking(score, {e: (-score[e], float(e)) for e in range(data.n)},
                       {e: {"bonus": bonus[e]} for e in range(data.n)})


FORMAT = Neighbours()
'''


def _overlay(root: Path) -> Path:
    """`root`/ladder: symlinks to the checkout's ladder/, its formats/ a folder of symlinks plus
    the toy's file."""
    ladder = root / "ladder"
    ladder.mkdir(parents=True)
    for entry in (REPO / "ladder").iterdir():
        if entry.name not in ("formats", "__pycache__"):
            (ladder / entry.name).symlink_to(entry)
    formats = ladder / "formats"
    formats.mkdir()
    for entry in (REPO / "ladder" / "formats").iterdir():
        if entry.name != "__pycache__":
            (formats / entry.name).symlink_to(entry)
    (formats / "toy_neighbours.py").write_text(TOY)
    return ladder


def _files(folder: Path) -> set[str]:
    """Every file under `folder` (through symlinked folders), relative to it."""
    return {
        os.path.relpath(os.path.join(here, name), folder)
        for here, dirs, names in os.walk(folder, followlinks=True)
        if "__pycache__" not in Path(here).parts
        for name in names
    }


def test_a_format_added_as_one_file_runs_a_tournament_through_the_cli(tmp_path: Path) -> None:
    """About 10 s: two `arena` processes (the tournament of 4 games, then the checkout's own
    refusing the format), each importing the platform; the subprocess is the point."""
    ladder = _overlay(tmp_path / "overlay")
    # nothing else: the overlay is the checkout's ladder/ and one new file
    assert _files(ladder) - _files(REPO / "ladder") == {"formats/toy_neighbours.py"}
    assert not (REPO / "ladder" / "formats" / "toy_neighbours.py").exists()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "overlay"), str(REPO)])}
    env.pop("DATABASE_URL", None)
    env.pop("BROKER_URL", None)
    db = f"sqlite:///{tmp_path}/toy.db"
    argv = [sys.executable, "-m", "referee.cli", "tournament", "run", "--game", "clank", "--players", "2",
            "--format", "toy-neighbours", "--bots", "greedy,random,random,greedy", "--seed", "4",
            "--workers", "0", "--db", db]  # fmt: skip
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [*argv, "--json-out", str(out)], cwd=tmp_path, env={**env, "COLUMNS": "200"},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["competition"]["format"] == "toy-neighbours"
    # its plan: seeds 0-1 and 2-3 only, each a duplicate set of 2 games
    met = {tuple(sorted(g["seats"])) for g in res["games"]}
    assert met == {("greedy", "random"), ("greedy#2", "random#2")} and len(res["games"]) == 4
    # its scoring and its column: the bonus is 3, 2, 1, 0 by seed and counts in the score
    rows = {r["bot"]: r for r in res["standings"]}
    assert [rows[b]["bonus"] for b in ("greedy", "random", "random#2", "greedy#2")] == [3.0, 2.0, 1.0, 0.0]
    for row in res["standings"]:
        against = next(r["against"] for r in res["crosstable"]["rows"] if r["bot"] == row["bot"])
        points = sum(cell["score"] for cell in against.values())
        assert row["score"] == round(points + row["bonus"], 4)
    # the printed standings have the format's column
    header = next(line for line in proc.stdout.splitlines() if "┃ rank" in line)
    assert header.rstrip(" ┃").endswith("Seed bonus"), header
    # and the checkout's own `arena` does not know the format: the file is all there is to it
    plain = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           env={**env, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert plain.returncode == 2 and "invalid choice: 'toy-neighbours'" in plain.stderr
