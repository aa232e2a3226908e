"""What a bot printed, in one line: the line that says why it ended.

Shared by `arena match` (a seat that ended before playing), the competitions' report of an
entrant that never played and qualification's report: each names the bot's own error line
("ModuleNotFoundError: No module named 'x'", "python: can't open file ..."), not only a log.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["error_line"]

#: the last line of Node.js's report of an uncaught error
_NODE_BANNER: Final = re.compile(r"Node\.js v\d[\d.]*")
#: a JavaScript stack frame ("at f (file.js:3:14)", "at file.js:3:14", "at new Promise (<anonymous>)")
_JS_FRAME: Final = re.compile(r"at \S.*(:\d+:\d+\)?|\))")
#: the note the sandbox adds to a log it cut (workers/SANDBOX.md, output_kb): not the bot's words
_CUT_NOTE: Final = re.compile(r"\[arena: output cut .*\]")


def error_line(text: str) -> str:
    """The line that says why a bot ended: its last line, or for a JavaScript error the error's
    own line rather than the stack frames and the Node.js version printed after it. At most 200
    characters; "" for a bot that printed nothing."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    while len(lines) > 1 and _CUT_NOTE.fullmatch(lines[-1]):
        lines.pop()
    if len(lines) > 1 and _NODE_BANNER.fullmatch(lines[-1]):
        # Node.js's report: where (file:line, the source line, a caret under it), the error, its
        # stack and properties, the banner; the error is the line after the caret
        lines.pop()
        carets = [n for n, line in enumerate(lines) if set(line) == {"^"}]
        if carets and carets[-1] + 1 < len(lines):
            return lines[carets[-1] + 1][:200]
    while len(lines) > 1 and _JS_FRAME.fullmatch(lines[-1]):
        lines.pop()
    return lines[-1][:200] if lines else ""
