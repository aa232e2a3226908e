"""Every relative link in the repository's Markdown files reaches a file of the repository.

A clone has only what is committed: a link to a file that is missing, or that sits outside the
repository (such as the project's shared folder beside it), is a dead link for every user. Web
links (a scheme such as ``https:``) and links to an anchor of the same page are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: folders that are no part of the repository's documents (tools' caches, installed packages)
SKIPPED = {".git", ".venv", "node_modules", ".pytest_cache", ".mypy_cache", ".ruff_cache", "__pycache__"}

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
#: an inline link or image, [text](target "title"), and a reference definition, [id]: target
_INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root: Path) -> list[Path]:
    """The Markdown files under `root`, without the folders in SKIPPED or ``*.egg-info``."""
    return sorted(
        path
        for path in root.rglob("*.md")
        if not any(part in SKIPPED or part.endswith(".egg-info") for part in path.relative_to(root).parts)
    )


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every link in Markdown `text`, code blocks and spans left out."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = _CODE_SPAN.sub("", line)
        found += [(number, m.group(1)) for m in _INLINE.finditer(line)]
        found += [(number, m.group(1)) for m in _REFERENCE.finditer(line)]
    return found


def dead_links(root: Path) -> list[str]:
    """``file:line links X which ...`` for every relative link under `root` that reaches no file
    of `root`."""
    dead: list[str] = []
    for path in markdown_files(root):
        for number, target in links(path.read_text(encoding="utf-8")):
            if _SCHEME.match(target) or target.startswith("#"):
                continue
            relative = target.split("#", 1)[0].split("?", 1)[0]
            base = root if relative.startswith("/") else path.parent
            resolved = (base / relative.lstrip("/")).resolve()
            where = f"{path.relative_to(root)}:{number} links {target}"
            if not resolved.is_relative_to(root.resolve()):
                dead.append(f"{where} which is outside the repository")
            elif not resolved.exists():
                dead.append(f"{where} which does not exist")
    return dead


def test_every_relative_markdown_link_reaches_a_file_of_the_repository() -> None:
    dead = dead_links(REPO)
    assert not dead, "\n".join(dead)


def test_the_check_finds_a_missing_file_and_a_file_outside(tmp_path: Path) -> None:
    """The checker itself: a missing file and a file beside the repository are reported, a
    web link, an anchor, a link in code and a link that resolves are not."""
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (tmp_path / "shared.md").write_text("outside\n")
    (repo / "docs" / "rules.md").write_text("# rules\n")
    (repo / "README.md").write_text(
        "See [rules](docs/rules.md#setup), [web](https://example.org/x.md), [top](#arena).\n"
        "Dead: [gone](docs/gone.md) and [beside](../shared.md).\n"
        "`[in code](nowhere.md)`\n"
        "```\n[in a block](nowhere.md)\n```\n"
        "[ref]: docs/missing.md\n"
    )
    assert dead_links(repo) == [
        "README.md:2 links docs/gone.md which does not exist",
        "README.md:2 links ../shared.md which is outside the repository",
        "README.md:7 links docs/missing.md which does not exist",
    ]
