"""The shell blocks of the documents a reader follows, and which test runs each one.

Docs are tests: every command block a reader is told to run in `DOCUMENTS` is run by a test as
it is printed, or says in the Markdown why it cannot be. The mark is an HTML comment on the
last non-blank line before the block's fence (a comment, so it is in the file and not in the
rendered page):

* ``<!-- walkthrough: NAME -->``: the test `RUN_BY[(document, NAME)]` runs the block, found by
  that name with `walkthrough_blocks` (so a changed block is run as changed);
* ``<!-- not run: REASON -->``: it cannot run here (a public address, the reader's own values,
  the test suite itself), and REASON says why and, where there is one, which test runs the same
  commands.

A shell block is a fenced block whose info string is ``sh``, ``bash``, ``shell``, ``console``
or empty. `tests/test_doc_blocks.py` fails on a block with neither mark, on a name that no test
runs, and on a test that does not exist or does not name its block.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]



def _markdown_documents() -> tuple[str, ...]:
    """Every Markdown file of the repository (paths from its root), but installed packages':
    a document added anywhere is held to the rule without being listed."""
    found = (path.relative_to(REPO).as_posix() for path in REPO.rglob("*.md"))
    skipped = ("node_modules/", ".venv/", ".git/", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/")
    return tuple(sorted(p for p in found if not any(part in f"{p}" for part in skipped)))


#: the documents whose shell blocks are all run or marked: every Markdown file
DOCUMENTS = _markdown_documents()

#: info strings of a shell block (the empty one: a bare fence, as COMPETITIONS.md's synopsis)
SHELL_INFO = frozenset({"", "sh", "bash", "shell", "console"})

_SUBMISSION = ("tests/workers/test_submission.py::"
               "test_the_readme_walkthrough_runs_from_an_empty_database_to_a_first_rated_match")
_KITS = "tests/test_doc_blocks.py::test_the_python_kit_readme_runs_as_written"
_JS_KIT = "tests/test_doc_blocks.py::test_the_javascript_kit_readme_runs_as_written"
_COMPETITIONS = "tests/test_doc_blocks.py::test_competitions_md_runs_as_written"
_LAB = "tests/test_lab_md.py::test_lab_md_runs_as_written"

#: (document, walkthrough name) -> the test (or the fixture) that runs that block, as pytest names it
RUN_BY: dict[tuple[str, str], str] = {
    ("README.md", "operator"): _SUBMISSION,
    ("README.md", "operator-api"): _SUBMISSION,
    ("README.md", "user"): _SUBMISSION,
    ("README.md", "wait"): _SUBMISSION,
    ("bots/javascript/README.md", "submit"): _SUBMISSION,
    ("bots/python/README.md", "try-it"): _KITS,
    # the fixture of the kits' and COMPETITIONS.md's tests
    ("bots/javascript/README.md", "install"): "tests/test_doc_blocks.py::reader",
    ("bots/javascript/README.md", "local-match"): _JS_KIT,
    ("bots/javascript/README.md", "pathfinder"): _JS_KIT,
    ("bots/javascript/README.md", "sandbox-match"): _JS_KIT,
    ("workers/COMPETITIONS.md", "try-it"): _COMPETITIONS,
    ("bots/python/LAB.md", "train"): _LAB,
    ("bots/python/LAB.md", "match"): _LAB,
    ("workers/SANDBOX.md", "under-limits"): "tests/test_doc_blocks.py::test_sandbox_md_runs_as_written",
    ("ladder/RATINGS.md", "upgrade"):
        "tests/workers/test_engine_upgrade.py::test_the_upgrade_command_in_ratings_md_runs_as_printed",
    ("ladder/RATINGS.md", "divisions"):
        "tests/ladder/test_divisions.py::test_the_division_commands_in_ratings_md_run_as_printed",
    ("ladder/RATINGS.md", "seasons"):
        "tests/ladder/test_seasons.py::test_the_season_commands_in_ratings_md_run_as_printed",
    ("tests/golden/README.md", "new-version"):
        "tests/test_golden.py::test_make_golden_writes_a_new_versions_set_and_never_rewrites_one",
}

_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^`\s]*)")
_MARK = re.compile(r"^\s*<!--\s*(walkthrough|not run):\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its info string, its text and its mark."""

    document: str
    line: int  # the opening fence's line, 1-based
    info: str
    text: str
    mark: str | None  # "walkthrough", "not run" or None
    value: str  # the walkthrough's name or the reason ("" without a mark)

    @property
    def is_shell(self) -> bool:
        """Whether the block holds commands for a shell."""
        return self.info in SHELL_INFO

    @property
    def where(self) -> str:
        """``document:line``, as a reader finds it."""
        return f"{self.document}:{self.line}"


def blocks(document: str, text: str | None = None) -> list[Block]:
    """Every fenced block of `document` (a path from the repository's root), in order, with the
    mark on the last non-blank line before its fence. `text` replaces the file's content."""
    lines = (REPO / document).read_text(encoding="utf-8").splitlines() if text is None else text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening.group(2)
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        mark = _MARK.match(before)
        found.append(Block(
            document=document, line=i + 1, info=opening.group(3).lower(),
            text="".join(line + "\n" for line in lines[i + 1:end]),
            mark=mark.group(1) if mark else None, value=mark.group(2) if mark else "",
        ))
        i = end + 1
    return found


def shell_blocks(document: str, text: str | None = None) -> list[Block]:
    """The shell blocks of `document` (see `blocks`)."""
    return [block for block in blocks(document, text) if block.is_shell]


def walkthrough_blocks(document: str) -> dict[str, str]:
    """The blocks of `document` marked ``walkthrough: NAME``, as NAME -> script, in order."""
    return {b.value: b.text for b in shell_blocks(document) if b.mark == "walkthrough"}


def unaccounted(texts: dict[str, str] | None = None) -> list[str]:
    """One line for every shell block that is neither run by a test nor marked, for every
    walkthrough name no test runs and for every registered name no document has. `texts`
    (document -> its text) replaces reading `DOCUMENTS`."""
    if texts is None:
        texts = {document: (REPO / document).read_text(encoding="utf-8") for document in DOCUMENTS}
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for document, text in texts.items():
        for block in shell_blocks(document, text):
            if block.mark is None:
                problems.append(f"{block.where}: a shell block with no mark: put <!-- walkthrough: NAME --> "
                                "before it and run it in a test (tests/doc_blocks.py, RUN_BY), or "
                                "<!-- not run: REASON -->")
            elif not block.value:
                problems.append(f"{block.where}: its mark '{block.mark}:' says nothing after the colon")
            elif block.mark == "walkthrough":
                key = (document, block.value)
                if key in seen:
                    problems.append(f"{block.where}: walkthrough name {block.value!r} is used twice")
                seen.add(key)
                if key not in RUN_BY:
                    problems.append(f"{block.where}: walkthrough {block.value!r} is run by no test (RUN_BY)")
    for key, test in RUN_BY.items():
        if key[0] in texts and key not in seen:
            problems.append(f"RUN_BY names {key[0]} walkthrough {key[1]!r}, which the document does not have")
        problems += _test_problems(key, test)
    return problems


def _test_problems(key: tuple[str, str], test: str) -> list[str]:
    """Whether the test `test` (``path::function``) exists and names the block it runs."""
    path, _, function = test.partition("::")
    source = (REPO / path).read_text(encoding="utf-8") if (REPO / path).is_file() else ""
    body = re.search(rf"^def {re.escape(function)}\(.*?(?=^[A-Za-z_@]|\Z)", source, re.S | re.M)
    if body is None:
        return [f"RUN_BY: {test} (for {key[0]} walkthrough {key[1]!r}) does not exist"]
    if f'"{key[1]}"' not in body.group(0) or f'"{key[0]}"' not in body.group(0):
        return [f"RUN_BY: {test} does not name {key[0]!r} and walkthrough {key[1]!r}"]
    return []


def checkout(dest: Path) -> Path:
    """A clean checkout of the working tree in `dest`: the files git tracks, as they are now
    (uncommitted edits included), nothing untracked or ignored (no .venv, no node_modules)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():  # a file deleted but not yet committed is not in the checkout
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest
