"""What a bot version's ``command`` means.

``bot_versions.command`` (see ``ladder.bots.add_bot_version``) is one of:

* ``builtin:<name>`` — a reference bot from ``referee/bots`` (``builtin:random``,
  ``builtin:greedy``), played in-process by the worker. An optional ``?think_ms=<n>`` makes it
  sleep that long before every decision (paced demos, and tests that need a match to last);
* ``remote`` (:data:`ladder.bots.REMOTE`) — a bot that runs on its author's machine and
  connects to the referee with its bot token;
* anything else — a hosted bot: the command line the sandbox launches.

Only built-in bots can play without the gRPC referee (``referee/server``); see
``workers/executor.py`` for where the other two plug in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import parse_qsl

from ladder.bots import REMOTE

__all__ = ["BUILTIN_PREFIX", "BotCommand", "BotCommandError", "builtin_command", "parse_command"]

BUILTIN_PREFIX: Final = "builtin:"
_OPTIONS: Final = frozenset({"think_ms"})

BotKind = Literal["builtin", "hosted", "remote"]


class BotCommandError(ValueError):
    """A ``builtin:`` command that cannot be understood."""


@dataclass(frozen=True, slots=True)
class BotCommand:
    """A parsed bot version command."""

    kind: BotKind
    #: the command as stored
    raw: str
    #: the built-in bot's name (kind "builtin" only)
    builtin: str = ""
    #: milliseconds a built-in bot waits before answering each decision
    think_ms: int = 0


def builtin_command(name: str, *, think_ms: int = 0) -> str:
    """The command of built-in bot `name` (``builtin:greedy``, ``builtin:random?think_ms=5``)."""
    return f"{BUILTIN_PREFIX}{name}" + (f"?think_ms={think_ms}" if think_ms else "")


def parse_command(command: str) -> BotCommand:
    """Parse a bot version command. Raises BotCommandError for a malformed ``builtin:``."""
    if command == REMOTE:
        return BotCommand(kind="remote", raw=command)
    if not command.startswith(BUILTIN_PREFIX):
        return BotCommand(kind="hosted", raw=command)
    name, _, query = command[len(BUILTIN_PREFIX) :].partition("?")
    if not name:
        raise BotCommandError(f"{command!r}: no built-in bot name")
    options = dict(parse_qsl(query, strict_parsing=True)) if query else {}
    unknown = set(options) - _OPTIONS
    if unknown:
        raise BotCommandError(f"{command!r}: unknown options {sorted(unknown)}")
    try:
        think_ms = int(options.get("think_ms", "0"))
    except ValueError:
        raise BotCommandError(f"{command!r}: think_ms must be an integer") from None
    if think_ms < 0:
        raise BotCommandError(f"{command!r}: think_ms must be >= 0")
    return BotCommand(kind="builtin", raw=command, builtin=name, think_ms=think_ms)
