"""The referee's `arena` subcommands (`play`, `replay verify|show|rerun`) and the way every
`arena` command ends (one ``error:`` line, never a traceback).

The `arena` command itself is put together by the composition root, ``cli/main.py`` (the
``arena`` script of pyproject.toml): it calls :func:`register` here and each other
component's ``register``. The referee is the lowest layer and imports none of them;
:func:`main` and :func:`build_parser` stay for ``python -m referee.cli`` and hand over to the
installed root. Handlers keep their imports local so that `arena --help` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.cli_checks import Commands

__all__ = ["PIPE_EXIT", "build_parser", "main", "register", "run"]


# --- arena play ----------------------------------------------------------------------------


def _stats_table(games: Sequence[Any], game: str) -> dict[str, Any]:
    """Wins, mean score and the game's outcomes (Clank!: escapes and knockouts) by seat and bot.

    A seat wins when it is placed first; in a cooperative game (a result with `team_won`) when
    the team won and the seat was not forfeited.
    """
    from referee.games import game_spec

    columns = game_spec(game).outcome_columns

    def empty() -> dict[str, float]:
        return {"games": 0, "wins": 0, "score_sum": 0, **{name: 0 for name, _ in columns}}

    by_seat: dict[int, dict[str, float]] = defaultdict(empty)
    by_bot: dict[str, dict[str, float]] = defaultdict(empty)
    for g in games:
        for seat, bot in enumerate(g.bots):
            outcome = g.result.outcomes[seat]
            if g.result.team_won is None:
                won = g.result.places[seat] == 1
            else:
                won = g.result.team_won and outcome != "forfeited"
            for row in (by_seat[seat], by_bot[bot]):
                row["games"] += 1
                row["wins"] += won
                row["score_sum"] += g.result.scores[seat]
                for name, counted in columns:
                    row[name] += outcome in counted

    def finish(row: dict[str, float]) -> dict[str, float]:
        n = row["games"] or 1
        return {
            "games": row["games"],
            "wins": row["wins"],
            "win_rate": round(row["wins"] / n, 4),
            "mean_score": round(row["score_sum"] / n, 2),
            **{name: row[name] for name, _ in columns},
        }

    total_decisions = sum(g.decisions for g in games)
    total_seconds = sum(g.seconds for g in games) or 1e-9
    return {
        "games": len(games),
        "by_seat": {str(seat): finish(row) for seat, row in sorted(by_seat.items())},
        "by_bot": {bot: finish(row) for bot, row in sorted(by_bot.items())},
        "decisions": total_decisions,
        "games_per_second": round(len(games) / total_seconds, 2),
    }


def _print_table(stats: dict[str, Any]) -> None:
    from rich.table import Table

    from referee.cli_checks import output_console

    console = output_console()
    fixed = ("games", "wins", "win_rate", "mean_score")
    for key, title in (("by_seat", "seat"), ("by_bot", "bot")):
        rows = stats[key]
        outcomes = [c for c in next(iter(rows.values()), {}) if c not in fixed]
        table = Table(title=f"Results by {title} ({stats['games']} games)")
        for col in (title, "games", "wins", "win %", "mean score", *(c.replace("_", " ") for c in outcomes)):
            table.add_column(col, justify="left" if col == title else "right")
        for name, row in rows.items():
            table.add_row(
                name,
                str(row["games"]),
                str(row["wins"]),
                f"{100 * row['win_rate']:.1f}",
                f"{row['mean_score']:.1f}",
                *(str(row[c]) for c in outcomes),
            )
        console.print(table)
    console.print(f"{stats['decisions']} decisions, {stats['games_per_second']} games/s")


def _cmd_play(args: argparse.Namespace) -> int:
    from referee.cli_checks import check_writable_dir
    from referee.core.game import InvalidConfig
    from referee.games import game_class
    from referee.replay import save
    from referee.runner import play_local

    try:
        cls = game_class(args.game)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    bots = [b.strip() for b in args.bots.split(",")] if args.bots else ["random"]
    if len(bots) == 1:
        bots *= args.players  # one name plays every seat
    if len(bots) != args.players:
        print(f"error: --bots names {len(bots)} bots for {args.players} players", file=sys.stderr)
        return 2
    try:
        config = cls.default_config(args.players)
        if args.board:
            config["board"] = args.board
        cls.new_game(config, args.seed)  # the players and board are checked before any game
    except (InvalidConfig, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    replay_dir = check_writable_dir(args.replay_dir, "--replay-dir") if args.replay_dir else None
    games = []
    from rich.progress import Progress

    with Progress(disable=args.json or not sys.stderr.isatty(), transient=True) as progress:
        task = progress.add_task(f"{args.game} x{args.games}", total=args.games)
        for i in range(args.games):
            seed = args.seed + i
            try:
                g = play_local(args.game, bots, seed, config)
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            games.append(g)
            if replay_dir:
                save(g.replay, replay_dir / f"{args.game}-{seed}.replay.json.gz")
            progress.advance(task)
    stats = _stats_table(games, args.game)
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        _print_table(stats)
    return 0


# --- arena replay --------------------------------------------------------------------------


def _cmd_replay_verify(args: argparse.Namespace) -> int:
    from referee.replay import ReplayError, verify_file

    try:
        report = verify_file(Path(args.file))
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except (ReplayError, OSError) as exc:
        print(f"FAILED {args.file}: {exc}", file=sys.stderr)
        return 1
    print(f"OK {args.file}: {report.describe()}")
    return 0


def _cmd_replay_show(args: argparse.Namespace) -> int:
    from referee.cli_checks import USAGE_EXIT
    from referee.replay import ReplayError, load
    from referee.replay_view import render

    try:
        for line in render(load(Path(args.file)), args.seat, actions=args.actions):
            print(line)
    except BrokenPipeError:
        raise  # the reader went away (`| head`): main() ends quietly
    except (ReplayError, OSError) as exc:  # the file: unreadable, malformed, does not re-simulate
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # the command line: a seat the replay does not have
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_EXIT
    return 0


def _cmd_replay_rerun(args: argparse.Namespace) -> int:
    import asyncio

    from referee.cli_checks import USAGE_EXIT, check_replay_target, write_replay
    from referee.replay import ReplayError, load
    from referee.rerun import describe, rerun

    if (args.step is None) == (args.start is None):
        print("error: give --step K (one decision) or --from K (play on from there)", file=sys.stderr)
        return 2
    target = check_replay_target(args.replay) if args.replay else None
    step = args.step if args.step is not None else args.start
    try:
        done = asyncio.run(
            rerun(
                load(Path(args.file)),
                step,
                args.seat,
                args.bot,
                play_on=args.start is not None,
                others=args.others,
                decision_ms=args.decision_ms,
            )
        )
    except BrokenPipeError:
        raise
    except (ReplayError, OSError) as exc:  # the file (or a bot that could not be started)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # the command line: a step or seat the replay does not have
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_EXIT
    print(f"step {done.step}, seat {done.seat} (decision {done.decision}): {done.prompt}")
    print(f"  recorded: {describe(done.recorded, done.actions)}")
    print(f"  your bot: {describe(done.answered, done.actions)}")
    if done.answered is None or "forfeit" in done.answered:
        # a bot that never answered: its own words, not only a log file's name, and the fix
        # when its words say the SDK or the JavaScript kit's packages are missing here
        from referee.bot_output import error_line
        from referee.server.launcher import missing_sdk_hint

        log = (done.log_dir / f"seat{done.seat}.log") if done.log_dir else None
        said = error_line(log.read_text(errors="replace")) if log and log.is_file() else ""
        why = str(done.answered.get("reason", "")) if done.answered else done.ended_by
        hint = missing_sdk_hint(said)
        print(
            f"error: your bot did not answer step {done.step} ({why})"
            + (f"; it printed: {said}" if said else "; it printed nothing")
            + f"; its output: {log}"
            + (f"; {hint}" if hint else ""),
            file=sys.stderr,
        )
        return 1
    if done.answered is not None and "index" in done.answered and "index" in done.recorded:
        same = done.answered["index"] == done.recorded["index"]
        print("  the same action" if same else "  a different action")
    if args.start is not None:
        result = done.replay.get("result")
        print(f"played on to the end: {done.ended_by}; result {result}")
    if target is not None:
        write_replay(done.replay, target)
        print(f"replay written to {target}")
    print(f"bot output: {done.log_dir}")
    return 0


# --- parser --------------------------------------------------------------------------------


def register(sub: Commands, *, replay_viewer: Callable[[Commands], None] | None = None) -> None:
    """Add `play` and `replay verify|show|rerun` to the `arena` commands `sub`.

    `replay_viewer` adds `replay serve` (the web viewer is the ladder's: the composition root
    passes it), between `show` and `rerun`.
    """
    from referee.cli_checks import REPLAY_FILE, Commands, positive_int
    from referee.games import game_names

    play = sub.add_parser("play", help="play games in-process between built-in bots")
    play.add_argument("game", help=f"the game: {', '.join(game_names())}")
    play.add_argument("--players", type=positive_int, default=2, help="seats per game (default 2)")
    play.add_argument(
        "--bots", help="comma-separated bot names, one per seat, or one name for every seat (default: random)"
    )
    play.add_argument("--seed", type=int, default=1, help="seed of the first game (game i uses seed+i)")
    play.add_argument("--games", type=positive_int, default=1, help="how many games (default 1)")
    play.add_argument("--board", help="board side (default: the game's default)")
    play.add_argument("--replay-dir", help="write each game's replay into this folder")
    play.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    play.set_defaults(func=_cmd_play)

    replay = sub.add_parser("replay", help="verify or show a replay file")
    rsub = replay.add_subparsers(dest="replay_command", required=True)
    verify = rsub.add_parser("verify", help="re-simulate and check every digest")
    verify.add_argument("file", help=f"the replay file: {REPLAY_FILE}")
    verify.set_defaults(func=_cmd_replay_verify)
    show = rsub.add_parser("show", help="print the game, as one seat saw it or all of it")
    show.add_argument("file", help=f"the replay file: {REPLAY_FILE}")
    show.add_argument(
        "--seat", type=int, default=None, help="show only what this seat saw (default: everything)"
    )
    show.add_argument(
        "--actions", action="store_true", help="list the legal actions at each decision shown"
    )
    show.set_defaults(func=_cmd_replay_show)
    if replay_viewer is not None:
        replay_viewer(Commands(rsub))
    rerun = rsub.add_parser(
        "rerun", help="send your bot what a seat was sent at a step, over the real protocol"
    )
    rerun.add_argument("file", help=f"the replay file: {REPLAY_FILE}")
    rerun.add_argument("--step", type=int, help="step K (as `replay show` numbers it): ask that decision")
    rerun.add_argument("--from", dest="start", type=int, help="step K: play the rest of the game from there")
    rerun.add_argument("--seat", type=int, required=True, help="the seat your bot takes")
    rerun.add_argument("--bot", required=True, help='your bot\'s command, e.g. "python my_bot.py"')
    rerun.add_argument("--others", help="the other seats' bot command (default: the random example bot)")
    rerun.add_argument("--decision-ms", type=int, default=10_000, help="your bot's time per decision")
    rerun.add_argument("--replay", metavar="FILE", help=f"write the new replay here: {REPLAY_FILE}")
    rerun.set_defaults(func=_cmd_replay_rerun)


def _installed_root() -> Any:
    """The module of the installed `arena` command (pyproject's [project.scripts]): the
    composition root. Found through the package metadata, so the referee names no component
    above it."""
    import importlib
    from importlib.metadata import entry_points

    for script in entry_points(group="console_scripts", name="arena"):
        if script.module != __name__:
            return importlib.import_module(script.module)
    raise SystemExit(
        "error: the arena command is not installed (pip install -e . in the repository)"
    )


def build_parser() -> argparse.ArgumentParser:
    """The whole `arena` argument parser, as the installed root builds it."""
    parser: argparse.ArgumentParser = _installed_root().build_parser()
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m referee.cli ARGS` is `arena ARGS`: the installed root runs it."""
    code: int = _installed_root().main(argv)
    return code


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Parse `argv` with `parser` and run the chosen command: the `arena` entry point's body.

    A command refused for its input (`referee.cli_checks.UsageError`) ends with one
    ``error:`` line and status 2. Output cut short by its reader (``arena replay show F | head``)
    ends quietly, as a Unix tool stopped by SIGPIPE does: nothing on stderr, status
    :data:`PIPE_EXIT` (141, what the shell reports for such a tool). This is the one place that
    handles it, for every command: they let BrokenPipeError through.
    """
    from referee.cli_checks import USAGE_EXIT, UsageError
    from referee.settings import SettingsError

    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        # the last of the output is still buffered: a reader gone is met here, not at exit
        sys.stdout.flush()
    except (UsageError, SettingsError) as exc:  # a command that set a variable it then read
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_EXIT
    except BrokenPipeError:
        _quiet_stdout()
        return PIPE_EXIT
    return code


#: the status of a command whose reader went away (`| head`): 128 + SIGPIPE, as the shell
#: reports a tool that SIGPIPE ended
PIPE_EXIT = 141


def _quiet_stdout() -> None:
    # the interpreter flushes stdout on exit: into a closed pipe that is a second BrokenPipeError,
    # printed as "Exception ignored"; pointing stdout at /dev/null makes that flush a no-op
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
