"""The committed Python stubs are exactly what `make proto` generates from proto/."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

from .conftest import REPO

COMMITTED = REPO / "bots" / "python" / "arena_bot" / "_proto"


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_stubs_are_fresh(tmp_path: Path) -> None:
    out = tmp_path / "_proto"
    subprocess.run([sys.executable, str(REPO / "proto" / "generate.py"), "--out", str(out)], check=True)
    assert _files(out) == _files(COMMITTED), "stub files differ: run `make proto`"
    stale = [
        name for name in sorted(_files(out)) if not filecmp.cmp(out / name, COMMITTED / name, shallow=False)
    ]
    assert not stale, f"stale generated stubs (run `make proto`): {stale}"


def test_stubs_use_relative_imports() -> None:
    for path in (p for p in COMMITTED.rglob("*.py*") if p.suffix in (".py", ".pyi")):
        assert "from arena.v1 import" not in path.read_text(), path
