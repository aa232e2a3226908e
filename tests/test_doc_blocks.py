"""Docs are tests: every shell block of README.md, the kits' READMEs and workers/COMPETITIONS.md is
run by a test as it is printed, or marked in the Markdown with the reason it cannot be
(`tests/doc_blocks.py`).

The kits' blocks and COMPETITIONS.md's run here, one after the other in one clean checkout of the
working tree (the files git tracks, nothing else), as a reader who goes on in the same folder
would: the JavaScript kit's install block first (its packages, which the Python kit's Alien
match seats a bot from), then each document's blocks. The README's operator walk-through runs in
`tests/workers/test_submission.py` against PostgreSQL, Redis and Celery.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_blocks import (
    DOCUMENTS,
    RUN_BY,
    Block,
    blocks,
    checkout,
    shell_blocks,
    unaccounted,
    walkthrough_blocks,
)

# --- every block is run or marked -------------------------------------------------------------


def test_every_shell_block_is_run_by_a_test_or_marked_with_a_reason() -> None:
    assert unaccounted() == []
    # every Markdown file is read (the README, the kits', the operators' and the games' notes),
    # and the extractor sees blocks of both kinds
    assert {"README.md", "bots/javascript/README.md", "workers/SANDBOX.md",
            "referee/server/PROTOCOL.md", "deploy/k8s/README.md"} <= set(DOCUMENTS)
    assert not any("node_modules" in document for document in DOCUMENTS)
    found = [b for document in DOCUMENTS for b in shell_blocks(document)]
    assert {b.mark for b in found} == {"walkthrough", "not run"}
    assert len(found) == len(RUN_BY) + sum(b.mark == "not run" for b in found)


DOC = """# A document

```sh
arena play clank
```

<!-- not run: a public address -->

```bash
node bot.js --referee referee.example.org:50051
```

<!-- walkthrough: first -->
```sh
echo one
```

```python
print("a program, not commands")
```

<!-- not run: -->
```
arena synopsis [--json]
```
"""


def test_the_extractor_reads_each_block_and_the_mark_before_it() -> None:
    found = blocks("README.md", DOC)
    assert [(b.line, b.info, b.mark, b.value) for b in found] == [
        (3, "sh", None, ""),
        (9, "bash", "not run", "a public address"),  # a blank line between mark and fence is fine
        (14, "sh", "walkthrough", "first"),
        (18, "python", None, ""),
        (23, "", "not run", ""),
    ]
    assert found[2].text == "echo one\n"
    assert [b.line for b in shell_blocks("README.md", DOC)] == [3, 9, 14, 23]  # python is no shell


def test_an_unmarked_block_an_empty_reason_and_an_unknown_name_are_each_reported() -> None:
    problems = unaccounted({"README.md": DOC})
    assert problems[0].startswith("README.md:3: a shell block with no mark")
    assert "README.md:14: walkthrough 'first' is run by no test (RUN_BY)" in problems
    assert "README.md:23: its mark 'not run:' says nothing after the colon" in problems
    # the README's real walk-through names are missing from this document: each is reported
    assert "RUN_BY names README.md walkthrough 'operator', which the document does not have" in problems
    assert not any("bots/python" in p for p in problems)  # only the documents given are read


# --- the kits' READMEs and COMPETITIONS.md, run as written ------------------------------------


def _env(home: Path) -> dict[str, str]:
    """A reader's shell: `arena` and `python` of this virtualenv first on PATH, no server, database
    or broker of the test run's, a configuration folder of its own."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    for name in ("DATABASE_URL", "BROKER_URL", "ARENA_API_KEY", "ARENA_SERVER", "ARENA_QUEUE"):
        env.pop(name, None)
    return env


def run_block(document: str, name: str, cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    """Run `document`'s block ``walkthrough: NAME`` in bash (``-euo pipefail``: a failing command
    fails the block) in `cwd`, assert that it exits 0 and return what it printed."""
    script = walkthrough_blocks(document)[name]
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    out = done.stdout
    assert done.returncode == 0, f"{document} {name!r} exited {done.returncode}:\n$ {script}\n{out[-6000:]}"
    return out


@pytest.fixture(scope="module")
def reader() -> Iterator[tuple[Path, dict[str, str]]]:
    """A clean checkout in a folder other users can read (hosted entrants run in the sandbox under
    their own uids), with the JavaScript kit installed by its README's install block."""
    base = Path(tempfile.mkdtemp(prefix="arena-docs-"))
    try:
        base.chmod(0o755)
        root = checkout(base / "arena")
        env = _env(base)
        out = run_block("bots/javascript/README.md", "install", root, env)
        assert (root / "bots/javascript/node_modules/@grpc/grpc-js").is_dir(), out
        yield root, env
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _bot(document: str, info: str) -> Block:
    """The document's first block in language `info`: the bot it tells the reader to write."""
    return next(b for b in blocks(document) if b.info == info)


@pytest.mark.slow
@pytest.mark.integration
def test_the_python_kit_readme_runs_as_written(reader: tuple[Path, dict[str, str]]) -> None:
    root, env = reader
    # the reader saves the README's bot as my_bot.py, as the block's introduction says
    (root / "my_bot.py").write_text(_bot("bots/python/README.md", "python").text)
    out = run_block("bots/python/README.md", "try-it", root, env)
    assert "replay written to game.replay.json.gz" in out
    assert "seat 2 (random_bot) connected as 'random-js'" in out  # the JavaScript seat played
    assert "[step 1] seat 0 (random_bot) to act" in out  # replay show, as seat 0
    assert "bot check: python my_bot.py" in out and out.rstrip().endswith("PASS")


@pytest.mark.slow
@pytest.mark.integration
def test_the_javascript_kit_readme_runs_as_written(reader: tuple[Path, dict[str, str]]) -> None:
    root, env = reader
    out = run_block("bots/javascript/README.md", "local-match", root, env)
    assert "replay written to game.replay.json.gz" in out and out.rstrip().endswith("PASS")
    out = run_block("bots/javascript/README.md", "pathfinder", root, env)
    assert "seat 0 (pathfinder_bot)" in out and "game_over" in out
    # the README's bot, saved as main.js in a folder of its own, played in the sandbox from there
    folder = root / "my-bot"
    folder.mkdir()
    (folder / "main.js").write_text(_bot("bots/javascript/README.md", "js").text)
    out = run_block("bots/javascript/README.md", "sandbox-match", folder, env)
    assert "seat 0 (main) connected as 'my-bot'" in out and "game_over" in out, out


@pytest.mark.slow
@pytest.mark.integration
def test_sandbox_md_runs_as_written(reader: tuple[Path, dict[str, str]]) -> None:
    root, env = reader
    # the reader's bot folder: the Python kit's README bot saved as main.py
    folder = root / "my-bot"
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text(_bot("bots/python/README.md", "python").text)
    out = run_block("workers/SANDBOX.md", "under-limits", root, env)
    assert "seat 0 (main) connected" in out and "seat 1 (main) connected" in out, out
    assert "game_over" in out, out


@pytest.mark.slow
@pytest.mark.integration
def test_competitions_md_runs_as_written(reader: tuple[Path, dict[str, str]]) -> None:
    root, env = reader
    out = run_block("workers/COMPETITIONS.md", "try-it", root, env)
    assert "my_bot" in out and "competition 1 created" in out
    assert (root / "my-bot" / "standings.csv").read_text().startswith("rank,")
    assert "H1 accepted: greedy is better" in out
