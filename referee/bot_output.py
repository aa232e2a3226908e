"""What a bot printed, in one line: the line that says why it ended.

Shared by `arena match` (a seat that ended before playing), the competitions' report of an
entrant that never played and qualification's report: each names the bot's own error line
("ModuleNotFoundError: No module named 'x'", "python: can't open file ..."), not only a log.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Final

__all__ = ["JS_KIT", "error_line", "js_kit_hint", "js_kit_install_command", "js_kit_missing"]

#: this checkout's JavaScript kit: `arena replay rerun` and unsandboxed matches load
#: ``require('arena_bot')`` and its gRPC packages from here (referee.rerun.sdk_env)
JS_KIT: Final = Path(__file__).resolve().parents[1] / "bots" / "javascript"
#: Node.js's words for a package it could not load
_NOT_FOUND: Final = re.compile(r"Cannot find module '([^']+)'")

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


def js_kit_missing(kit: Path = JS_KIT) -> list[str]:
    """The packages the kit's ``package.json`` depends on that its ``node_modules`` lacks (all of
    them before ``npm ci``); [] when the kit is installed or has no ``package.json``."""
    try:
        wanted = json.loads((kit / "package.json").read_text(encoding="utf-8")).get("dependencies") or {}
    except (OSError, ValueError, AttributeError):
        return []
    return sorted(name for name in wanted if not (kit / "node_modules" / name).is_dir())


def js_kit_install_command(kit: Path = JS_KIT) -> str:
    """The shell command that installs the kit's packages (what ``make js`` does), pasteable from
    any folder: a subshell, so the user's shell stays where it is (the bot's folder, where the
    rerun line they are following runs)."""
    return f"(cd {shlex.quote(str(kit))} && npm ci)"


def js_kit_hint(output: str, kit: Path = JS_KIT) -> str:
    """What to do when a bot's `output` says Node.js cannot find one of the kit's own packages
    (``Cannot find module '@grpc/grpc-js'``: the kit's ``npm ci`` was never run in this checkout);
    "" otherwise, and when the package is installed (the bot then looks elsewhere)."""
    found = _NOT_FOUND.search(output)
    if found is None or found.group(1) not in js_kit_missing(kit):
        return ""
    return (
        f"the JavaScript kit's packages are not installed here (no {kit / 'node_modules'}); "
        f"install them (make js does the same): {js_kit_install_command(kit)}"
    )
