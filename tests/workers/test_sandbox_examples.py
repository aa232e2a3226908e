"""The SDK examples run where hosted bots run: `arena match --sandbox`, with nothing of this
repository mounted but the SDK (`arena_bot`). Before issue 14 the greedy and coop examples
imported the referee's engines and content and could not start there."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import REPO
from .test_sandbox_attacks import reachable_dir

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ARENA = Path(sys.executable).parent / "arena"
EXAMPLES = REPO / "bots" / "python" / "examples"


@pytest.fixture
def folder() -> Iterator[Path]:
    """A bot folder the sandbox's user can read."""
    path = reachable_dir("arena-examples-test-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize(
    ("game", "example", "name", "seats"),
    [("clank", "greedy_clank_bot.py", "greedy", 2), ("alien", "alien_coop_bot.py", "coop", 2)],
)
def test_an_sdk_example_plays_a_whole_match_in_the_sandbox(
    folder: Path, game: str, example: str, name: str, seats: int
) -> None:
    shutil.copy(EXAMPLES / example, folder / "main.py")
    (folder / "main.py").chmod(0o644)
    out = subprocess.run(
        [str(ARENA), "match", game, "--sandbox", "--seed", "3", *["--bot", "python main.py"] * seats],
        cwd=folder, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "game_over" in out.stdout, out.stdout
    assert out.stdout.count(f"calls itself '{name}'") == seats, out.stdout
    assert out.stdout.count(", 0 strikes") == seats and "forfeit" not in out.stdout, out.stdout
