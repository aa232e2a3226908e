"""Every module path a reader or a tool is told to run exists: ``python -m X`` in the Makefile,
the deployment files, the CI script and every Markdown file, ``$(PY) some/file.py`` in the
Makefile, and pyproject's console scripts. (The benches, the CLI and the HTTP client moved
between packages in one session, 9213450 and 568eb65; a path left behind fails here, not in a
reader's shell.)"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the repository's own top-level modules: `python -m` of anything else (pip, pytest, venv) is a
#: tool's, not ours to check
OURS = {"referee", "workers", "ladder", "bench", "cli", "deploy", "arena_bot", "tests", "proto"}
_DASH_M = re.compile(r"python3?\s+-m\s+([A-Za-z_][\w.]*)|\$\(PY\)\s+-m\s+([A-Za-z_][\w.]*)")
_MAKE_SCRIPT = re.compile(r"\$\((?:PY|VENV)\)(?:/bin/python)?\s+([\w./-]+\.py)\b")


def _tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=REPO, capture_output=True, text=True, check=True)
    return [REPO / line for line in out.stdout.split()]


def modules_named(text: str) -> set[str]:
    """The modules of ours a text tells someone to run with ``python -m``."""
    names = {a or b for a, b in _DASH_M.findall(text)}
    return {n.rstrip(".") for n in names if n.split(".")[0] in OURS}


def _sources() -> list[Path]:
    files = [REPO / "Makefile", REPO / ".ci" / "run", REPO / "tests" / "run_suite.sh"]
    files += _tracked("deploy/*", "*.md")
    return [f for f in files if f.is_file() and "_pb2" not in f.name]


def _named() -> list[tuple[str, str]]:
    out = set()
    for f in _sources():
        for module in modules_named(f.read_text(encoding="utf-8", errors="replace")):
            out.add((module, str(f.relative_to(REPO))))
    return sorted(out)


def test_the_scan_finds_the_makefiles_benches_and_refuses_a_missing_module() -> None:
    # the scan itself: what the Makefile runs today, and a moved module caught
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert {"bench.engines", "bench.workers", "deploy.checks"} <= modules_named(makefile)
    text = "run `python -m workers.bench --quick` and $(PY) -m pip install"
    assert modules_named(text) == {"workers.bench"}
    assert importlib.util.find_spec("workers.bench") is None  # moved to bench.workers (9213450)


@pytest.mark.parametrize(("module", "where"), _named())
def test_every_module_run_with_python_dash_m_exists(module: str, where: str) -> None:
    spec = importlib.util.find_spec(module)
    assert spec is not None, f"{where} runs `python -m {module}`, which does not exist"
    if spec.submodule_search_locations is not None:  # a package runs its __main__
        assert importlib.util.find_spec(f"{module}.__main__") is not None, (
            f"{where} runs `python -m {module}`, a package without __main__"
        )


def test_every_script_the_makefile_runs_exists() -> None:
    scripts = _MAKE_SCRIPT.findall((REPO / "Makefile").read_text(encoding="utf-8"))
    assert "proto/generate.py" in scripts
    assert [s for s in scripts if not (REPO / s).is_file()] == []


def test_every_console_script_names_a_callable() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts  # arena
    for name, target in scripts.items():
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), f"{name} = {target}"
