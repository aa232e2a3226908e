"""The composition root of the `arena` command (pyproject's ``arena`` script).

This is the one module that imports every component. Each component adds its own
subcommands with an explicit ``register(commands)`` function; this module calls them in
order and hands each what it needs from the others, so no lower layer imports a higher one
(tests/test_layers.py checks it):

* the referee's `serve referee --db URL` lets remote bots in with the ladder's bot-token check
  (:func:`ladder.remote_bots.ladder_authenticator`);
* the referee's `match --sandbox` runs bots in the workers' sandbox (:class:`workers.sandbox.Sandbox`);
* the referee's `match --bot builtin:NAME` plays a built-in bot through the workers' in-process
  client (:func:`workers.grpc_executor.builtin_seat`), as ladder matches seat one;
* `replay serve` opens a replay in the ladder's web viewer (:func:`ladder.web.local.serve_file`).

`arena serve` and `arena bot` are shared by several components: their help is set here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli import campaign as campaign_cli
from cli import client as client_cli
from cli import ladder as ladder_cli
from cli import tournament as tournament_cli
from referee import cli as referee_cli
from referee.cli_checks import REPLAY_FILE, Commands, OneLineParser, port_number
from referee.server import commands as referee_commands

if TYPE_CHECKING:
    # Only the type: importing the lobby loads prometheus_client, which picks its value class
    # (in-process or multiprocess) on import, before `arena demo` has chosen multiprocess mode
    # (its /metrics would then miss the API's own counters).
    from referee.server.lobby import Authenticator

__all__ = ["build_parser", "main"]

#: the parent commands several components add to: name -> (help, dest)
SHARED_GROUPS: dict[str, tuple[str, str]] = {
    "serve": ("run a server: `arena serve api`, `arena serve referee`", "serve_command"),
    "bot": ("bot tools", "bot_command"),
}


def _ladder_authenticator(db_url: str) -> Authenticator:
    from ladder.remote_bots import ladder_authenticator

    return ladder_authenticator(db_url)


def _sandbox() -> Any:
    """The sandbox the ladder runs hosted bots in (`workers/SANDBOX.md`), checked to work here,
    on the current folder: `arena match --sandbox` shows it to its bots as /bot."""
    import os

    from workers.sandbox import Sandbox, SandboxUnavailable
    from workers.sandbox.sandbox import unreadable_reason

    sandbox = Sandbox()
    sandbox.check()
    # as root each bot has a uid of its own: the folder is mounted for it by root, so the
    # folders above it may be private (a home folder), but that uid reads the folder itself.
    # Say so before the match, in one line, rather than fail at the first bot's launch
    why = unreadable_reason(Path.cwd()) if os.geteuid() == 0 else None
    if why is not None:
        raise SandboxUnavailable(
            f"its bots run as another user, who cannot read this folder: {why}; "
            "make it readable by other users (chmod o+rx), or run from a folder that is"
        )
    return sandbox


def _builtin_seat(game: str, name: str, seed: int) -> Any:
    """The in-process player of an `arena match --bot builtin:NAME` seat."""
    from workers.grpc_executor import builtin_seat

    return builtin_seat(game, name, seed)


def _cmd_replay_serve(args: argparse.Namespace) -> int:
    from ladder.web.local import serve_file
    from referee.replay import ReplayError
    from workers.demo import PortInUse, check_port

    try:
        # a taken port is one line before the viewer is announced, not uvicorn's log after it
        check_port(args.host, args.port, "is another viewer or server running there? Give --port N")
    except PortInUse as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        serve_file(Path(args.file), args.host, args.port)
    except (ReplayError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _replay_viewer(rsub: Commands) -> None:
    """`arena replay serve`: the referee's replay file in the ladder's web viewer."""
    serve = rsub.add_parser("serve", help="open the replay in the web viewer (ladder/web/README.md)")
    serve.add_argument("file", help=f"the replay file: {REPLAY_FILE}")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=8765, help="port to listen on (default 8765)")
    serve.set_defaults(func=_cmd_replay_serve)


def build_parser() -> argparse.ArgumentParser:
    """The `arena` argument parser: every component's subcommands, in the order `arena --help`
    lists them."""
    parser = OneLineParser(prog="arena", description="Arena: bot ladders for deck-building games")
    sub = Commands(parser.add_subparsers(dest="command", required=True), SHARED_GROUPS)
    referee_cli.register(sub, replay_viewer=_replay_viewer)  # play, replay
    ladder_cli.register(sub)  # demo, db, serve api, worker, beat, audit, bot rename
    tournament_cli.register(sub)  # sprt, tournament
    referee_commands.register(  # serve referee, match, bot check
        sub, authenticator_for=_ladder_authenticator, sandbox=_sandbox, builtin_seat=_builtin_seat
    )
    client_cli.register(sub)  # login, logout, account, bot create|upload|remote|status|logs, ladder
    campaign_cli.register(sub)  # campaign run|resume
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `arena` command (one ``error:`` line and status 2 for a refused input
    or a closed output, see :func:`referee.cli.run`).

    The settings are parsed first, once for every command (referee/settings.md): a variable
    holding an unusable value is one ``error:`` line naming it, status 2, before anything runs."""
    from referee.cli_checks import USAGE_EXIT
    from referee.settings import SettingsError, current

    try:
        current()
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_EXIT
    return referee_cli.run(build_parser(), argv)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
