"""Checks of `arena`'s command-line input, made before any game is played.

A user's mistake (a bad number, a folder that cannot be written, a replay name that says one
format) ends the command with one ``error:`` line on stderr and exit code 2, never a traceback:
:class:`OneLineParser` does it for what argparse checks, :class:`UsageError` for what a command
checks itself (``referee.cli.main`` turns it into that line).
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "REPLAY_FILE",
    "Commands",
    "OneLineParser",
    "UsageError",
    "check_listen",
    "check_replay_target",
    "check_writable_dir",
    "database_url_arg",
    "non_negative_int",
    "output_console",
    "port_number",
    "positive_int",
    "seat_names",
    "short_name",
    "write_replay",
]

#: exit code of a command refused for its input (argparse's own)
USAGE_EXIT = 2

#: how every help text names a replay file: the canonical suffix (referee/REPLAY.md), and the
#: plain-JSON form `check_replay_target` accepts too
REPLAY_FILE = "NAME.replay.json.gz (or NAME.replay.json, plain JSON)"


class UsageError(Exception):
    """The command line asks for something that cannot be done; the message is the one line."""


class Commands:
    """One level of `arena` subcommands, handed to each component's ``register(commands)``.

    Some commands are shared by components: `arena serve api` is the ladder's, `arena serve
    referee` the referee's; `arena bot check` the referee's, `arena bot create` the client's.
    `group(name)` makes that parent command the first time any component asks for it and gives
    the same subcommands to every later caller, so no component has to know who registered
    first. The composition root (``cli/main.py``) names the groups and their help.
    """

    def __init__(
        self, action: argparse._SubParsersAction[Any], groups: Mapping[str, tuple[str, str]] | None = None
    ) -> None:
        #: `action`: the argparse subparsers; `groups`: name -> (help, dest) of each shared parent
        self._action = action
        self._group_help = dict(groups or {})
        self._groups: dict[str, Commands] = {}

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add the subcommand `name` (the arguments of argparse's ``add_parser``)."""
        parser: argparse.ArgumentParser = self._action.add_parser(name, **kwargs)
        return parser

    def group(self, name: str) -> Commands:
        """The subcommands of the shared parent command `name` (made on first use)."""
        if name not in self._groups:
            help_text, dest = self._group_help[name]
            parent = self._action.add_parser(name, help=help_text)
            self._groups[name] = Commands(parent.add_subparsers(dest=dest, required=True))
        return self._groups[name]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (argparse prints the usage block first).

    The line names the command and points at its ``--help``; subparsers inherit the class.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (see PROG --help)`` on stderr and exit with status 2."""
        self.exit(USAGE_EXIT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (0: any free port, where a server allows it)."""
    value = _int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def database_url_arg(text: str) -> str:
    """An argparse type: a database URL whose kind SQLAlchemy knows (``sqlite:///file.db``,
    ``postgresql://user@host/db``); the URL itself is returned unchanged."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        make_url(text.replace("postgres://", "postgresql://", 1)).get_dialect()
    except (ArgumentError, NoSuchModuleError, ValueError) as exc:
        first = (str(exc).strip().splitlines() or [""])[0]
        raise argparse.ArgumentTypeError(
            f"not a database URL ({first}); e.g. sqlite:///arena.db or postgresql://user@host/arena"
        ) from None
    return text


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _probe_write(folder: Path) -> None:
    # os.access says yes to root on a read-only mount (/proc, /sys): only a real write tells
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".arena-probe-"):
        pass


def check_listen(host: str, port: int) -> None:
    """:class:`UsageError` unless a server can listen on `host`:`port` (checked before it
    starts, so a taken port is one line rather than the server's own traceback)."""
    import socket

    if port == 0:
        return  # any free port
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UsageError(f"--host {host}: not an address here ({exc.strerror or exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers do
        try:
            probe.bind(address)
        except OSError as exc:
            raise UsageError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc}): is another server "
                "running there? Give another --port"
            ) from None


def check_writable_dir(path: str, option: str) -> Path:
    """The folder `path` (created with its parents if missing), once a file could be written in
    it; otherwise :class:`UsageError` naming `option`."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _probe_write(folder)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    return folder


def check_replay_target(path: str, option: str = "--replay") -> Path:
    """Where a replay will be written, checked before the game is played.

    The name says the format: ``.json`` plain JSON, ``.gz`` gzip (the default format,
    ``NAME.replay.json.gz``); any other name is refused rather than written in a format it
    does not say. The folder must exist and be writable.
    """
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path}: is a folder, give a file name")
    if target.suffix not in (".json", ".gz"):
        raise UsageError(
            f"{option} {path}: name the file .json (plain JSON) or .gz (gzip, e.g. "
            f"{target.name or 'match'}.replay.json.gz)"
        )
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    try:
        _probe_write(folder)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {folder} ({exc.strerror or exc})") from None
    return target


def write_replay(replay: Mapping[str, Any], path: Path) -> None:
    """Write `replay` in the format its name says (see :func:`check_replay_target`)."""
    from referee.core.game import canonical_json
    from referee.replay import save

    if path.suffix == ".json":
        path.write_text(canonical_json(dict(replay)) + "\n")
    else:
        save(replay, path)


#: programs that run a script named by their first argument (the script names the bot)
_INTERPRETERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|java|sh|bash)$")
#: a script's extension, left out of its name (a module path's dots are kept: ``my.bot``)
_SCRIPT_SUFFIX = re.compile(r"\.(py|pyw|js|mjs|cjs|ts|rb|pl|php|sh|jar|exe|bin)$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: longest default seat name (a name is for reading, the command is in the bot's log folder)
SHORT_NAME_LIMIT = 32


def short_name(command: str) -> str:
    """A seat name for a bot command: its script or program, without folders or extension.

    ``FOO=1 python bots/x/random_bot.py --fast`` -> ``random_bot``; ``python -m my.bot`` ->
    ``my.bot``; ``./mybot`` -> ``mybot``. Environment assignments never show (they may hold
    secrets), nor do arguments.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    words = [w for w in words if not _ASSIGNMENT.match(w)] or ["bot"]
    if words[0] in ("env", "exec", "nice", "time"):
        words = [w for w in words[1:] if not _ASSIGNMENT.match(w) and not w.startswith("-")] or ["bot"]
    program = Path(words[0]).name
    name = program
    if _INTERPRETERS.match(program):
        rest = iter(words[1:])
        for word in rest:
            if word == "-m":
                name = next(rest, program)
                break
            if word in ("-c", "-e"):  # inline code: the program is all there is to name
                break
            if not word.startswith("-"):
                name = Path(word).name
                break
    stem = _SCRIPT_SUFFIX.sub("", name)
    return (stem or "bot")[:SHORT_NAME_LIMIT]


def seat_names(commands: Sequence[str], names: Sequence[str]) -> list[str]:
    """One name per seat: `names` given with ``--name`` (as many as commands), else short names."""
    if names and len(names) != len(commands):
        raise UsageError(f"--name given {len(names)} times for {len(commands)} --bot commands")
    if names:
        for name in names:
            if not name.strip() or len(name) > 64:
                raise UsageError(f"--name {name!r}: give 1 to 64 characters")
        return list(names)
    return [short_name(c) for c in commands]


def fail(message: str) -> int:
    """Print one ``error:`` line and return the usage exit code (for handlers that return)."""
    print(f"error: {message}", file=sys.stderr)
    return USAGE_EXIT


def output_console(**options: Any) -> Any:
    """A rich Console for a command's output that leaves a reader gone (``| head``) to `arena`'s
    main entry, as every other write does (``referee.cli.run``: quietly, status 141); rich's own
    answer is SystemExit(1)."""
    from rich.console import Console

    class _PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _PipeConsole(**options)
