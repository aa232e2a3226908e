"""Project documents rendered as pages: ``/ratings`` is ``ladder/RATINGS.md``.

Every interval the pages show links here, so a reader can see what it is without the source
tree. Markdown is rendered by markdown-it-py (CommonMark plus tables) with raw HTML off: the file
is ours, but nothing in it is passed through as markup. Each heading gets the id GitHub gives it,
so ``/ratings#who-is-ranked`` and the same anchor on GitHub point at the same section.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Final

from markdown_it import MarkdownIt
from markupsafe import Markup

__all__ = ["RATINGS_MD", "heading_slug", "ratings_html"]

#: the document /ratings renders (shipped in the package: *.md is package data)
RATINGS_MD: Final = Path(__file__).resolve().parents[1] / "RATINGS.md"


def heading_slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def render_markdown(text: str) -> Markup:
    """`text` (CommonMark with tables, raw HTML escaped) as HTML, headings with ids."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            slug = heading_slug(tokens[i + 1].content)
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            token.attrSet("id", slug if n == 0 else f"{slug}-{n}")
    return Markup(md.renderer.render(tokens, md.options, {}))


@cache
def ratings_html() -> Markup:
    """ladder/RATINGS.md as HTML (read once per process)."""
    return render_markdown(RATINGS_MD.read_text(encoding="utf-8"))
