"""The files a hosted bot's command names, checked before anything runs.

A hosted bot runs in the sandbox in its own folder, shown to it as ``/bot`` (its uploaded archive,
or for ``arena tournament run`` / ``arena sprt`` the current folder), with the system's files
beside it (``workers/SANDBOX.md``). A command naming a file the bot's folder does not hold -- a
script left out of the archive, an absolute path of the author's machine -- fails only when the
bot starts, as a crash some seconds later ("can't open file"). :func:`missing_file` finds such
a file first, so `arena bot upload`, the upload API and `arena tournament run` refuse the command
in one line that names it.

Which words are files: the program when it holds a ``/`` (``./bot``, ``bin/bot``), and each
later word that is not an option (``-m``, ``--level=3``) and either holds a ``/`` or ends in a
script's suffix (``main.py``, ``dist/main.js``). ``python -m pkg`` names no file; a shell snippet
(``sh -c 'exec ./bot'``, one word with spaces) is not looked into. Leading ``NAME=value``
assignments are skipped.
"""

from __future__ import annotations

import io
import posixpath
import shlex
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = ["BOT_DIR", "MissingFile", "archive_file_names", "describe", "missing_file", "named_files"]

#: where the sandbox shows the bot's own folder (workers/SANDBOX.md, "What a bot sees")
BOT_DIR: Final = "/bot"
#: the sandbox's other read-only folders: a command may name what is there (an interpreter by
#: its path). Not /tmp nor /scratch: the bot's scratch space starts empty
SYSTEM_DIRS: Final = ("/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc", "/dev", "/proc", "/opt/arena")
#: the suffixes of scripts and programs a command hands to an interpreter
SCRIPT_SUFFIXES: Final = (
    ".py", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".pl", ".php", ".lua", ".jar", ".exe",
)


@dataclass(frozen=True, slots=True)
class MissingFile:
    """A file a command names that the bot's folder will not hold in the sandbox.

    `why` is ``absolute`` (a path of another machine's folders), ``outside`` (``..`` out of the
    bot's folder) or ``missing`` (a relative name the folder does not hold); `relative` is the
    name inside the bot's folder (``missing``, ``/bot/...``), else ""."""

    word: str
    why: str
    relative: str = ""


def named_files(command: str) -> list[str]:
    """The words of `command` that name files (see the module doc), in order."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []  # unbalanced quotes: the sandbox's shell says so when it runs
    while words and "=" in words[0] and not words[0].startswith(("=", "-", "/", ".")):
        name = words[0].split("=", 1)[0]
        if not name.isidentifier():
            break
        words.pop(0)
    if not words:
        return []
    named = [words[0]] if "/" in words[0] else []
    for word in words[1:]:
        if not word or word.startswith("-") or any(c.isspace() for c in word) or "=" in word:
            continue
        if "/" in word or word.lower().endswith(SCRIPT_SUFFIXES):
            named.append(word)
    return named


def missing_file(command: str, has: Callable[[str], bool]) -> MissingFile | None:
    """The first file `command` names that the bot's folder will not hold in the sandbox, or
    None. `has(name)` says whether the folder holds `name` (relative, '/'-separated, normalized)."""
    for word in named_files(command):
        if word.startswith("/"):
            path = posixpath.normpath(word)
            if path == BOT_DIR or path.startswith(BOT_DIR + "/"):
                inside = path[len(BOT_DIR) + 1:]
                if inside and not has(inside):
                    return MissingFile(word, "missing", inside)
                continue
            if any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS):
                continue
            return MissingFile(word, "absolute")
        path = posixpath.normpath(word)
        if path == ".." or path.startswith("../"):
            return MissingFile(word, "outside")
        if not has(path):
            return MissingFile(word, "missing", path)
    return None


def describe(miss: MissingFile, command: str, folder: str) -> str:
    """What is wrong, in words: `command` names `miss.word`, which `folder` (the bot's files, as
    the caller calls them: "the archive", "the current folder X") will not hold. The caller adds
    the fix."""
    if miss.why == "absolute":
        return (
            f"{command!r} names {miss.word}, a path that will not exist in the sandbox: a hosted "
            f"bot sees only its own files ({folder}) as {BOT_DIR}, and the system's /usr"
        )
    if miss.why == "outside":
        return f"{command!r} names {miss.word}, outside {folder}: a hosted bot sees only its own files"
    return f"{command!r} names {miss.word}, which is not in {folder}"


def archive_file_names(tar_gz: bytes) -> frozenset[str]:
    """The names of the files and folders of a normalized archive
    (``ladder.archives.validate_archive``'s tar.gz: checked, bounded, no links)."""
    with tarfile.open(fileobj=io.BytesIO(tar_gz), mode="r:gz") as tar:
        return frozenset(posixpath.normpath(m.name) for m in tar.getmembers())
