"""``arena sprt`` and ``arena tournament run|create|start|status|results|list``.

Games run like ladder matches (``workers.tournament``): on the local process pool by default,
on Celery workers when ``$BROKER_URL`` is set (the workers already on the queue, or ``--workers``
started for the run), or in this process with ``--workers 0``. A field entry is a built-in bot's
name, ``bot:NAME`` / ``version:ID`` (registered bots), or a hosted command line such as
``"python my_bot.py"``: hosted commands run in the sandbox with the current directory as their
read-only files, as ``arena match --sandbox`` runs them.

The database is ``--db``, else ``$DATABASE_URL``; ``run`` and ``sprt`` without either use a
temporary SQLite file removed at the end, the others ``sqlite:///arena.db``.

A command that names a file the sandbox will not show the bot (an absolute path of this machine,
a script not in the current folder: ``ladder.run_command``) is refused before the first game.
``run`` and ``start`` exit 1 when an entrant never played (every game of its own forfeited or
failed: listed apart with its error line, not ranked) or a game failed, 2 for refused input,
130 when interrupted. An interrupt (SIGINT, to this process or its whole group) stops the games
at once (``workers.local_pool.LocalPool.terminate``) and says how to go on, if one can.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import json
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cli.dispatch import dispatcher as play_on

__all__ = ["register"]


def _split_bots(values: Sequence[str]) -> list[str]:
    """--bots a,b,"python my bot.py" (quotes keep commas), repeatable."""
    out: list[str] = []
    for value in values:
        for row in csv.reader([value], skipinitialspace=True):
            out.extend(item.strip() for item in row if item.strip())
    return out


class Interrupted(Exception):
    """The run was interrupted; the message says what became of it and how to go on."""


def _archive_of_cwd(texts: Sequence[str], game: str) -> Any:
    """The current directory, packed as the files of the hosted command entrants (if any).

    A command naming a file the packed folder does not hold, as the sandbox will show it, is
    refused here, before anything is stored or played (ValueError, one line with the fix)."""
    from ladder.competitions import parse_entry

    commands = [t.strip() for t in texts if parse_entry(game, t).kind == "command"]
    if not commands:
        return None
    from ladder.archives import validate_archive
    from ladder.client import pack_directory
    from ladder.run_command import archive_file_names, describe, missing_file

    cwd = Path.cwd()
    archive = validate_archive(pack_directory(cwd).data)
    names = archive_file_names(archive.tar_gz)
    for command in commands:
        miss = missing_file(command, names.__contains__)
        if miss is None:
            continue
        problem = describe(miss, command, f"the current folder {cwd}")
        word = Path(miss.word)
        if miss.why == "absolute" and word.is_relative_to(cwd):
            fixed = command.replace(miss.word, word.relative_to(cwd).as_posix(), 1)
            fix = f"name it relative to the current folder: {fixed!r}"
        else:
            fix = "run from the folder that holds the bot and name its files relative to it"
        raise ValueError(f"{problem}; {fix}")
    return archive


def _named(specs: Sequence[Any], names: Sequence[str] | None) -> list[Any]:
    """The command entrants named by `--name`, in order (the others keep theirs)."""
    names = list(names or [])
    commands = [i for i, spec in enumerate(specs) if spec.kind == "command"]
    if len(names) > len(commands):
        raise ValueError(
            f"--name names {len(names)} command entrants, but the field has {len(commands)} "
            '(built-in and registered bots keep their own names; --name "mine" per "python mine.py")'
        )
    out = list(specs)
    for i, name in zip(commands, names, strict=False):
        if not 1 <= len(name) <= 64 or any(ord(c) < 32 or c in ",#" for c in name):
            raise ValueError(f"--name {name!r}: 1-64 printable characters, no ',' or '#'")
        out[i] = dataclasses.replace(specs[i], name=name)
    return out


@contextlib.contextmanager
def _database(url: str | None, *, temporary: bool) -> Iterator[str]:
    from ladder.db import database_url, upgrade
    from referee.settings import current

    if url or current().database_url or not temporary:
        resolved = database_url(url)
        upgrade(resolved)
        yield resolved
        return
    with tempfile.TemporaryDirectory(prefix="arena-tournament-") as folder:
        resolved = f"sqlite:///{folder}/competition.db"
        upgrade(resolved)
        yield resolved


@contextlib.contextmanager
def _progress(enabled: bool, label: str) -> Iterator[Any]:
    """A progress callback (finished, total) drawing a bar on stderr when it is a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(finished: int, total: int) -> None:
            bar.update(task, completed=finished, total=total)

        yield update


def _print_results(res: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ladder import formats
    from ladder.competitions import default_name
    from referee.cli_checks import output_console

    console = output_console()
    comp = res["competition"]
    # each thing once: the default name is only the settings printed after it
    title = f"competition {comp['id']}"
    if comp["name"] != default_name(comp["format"], comp["game"], comp["players"]):
        title += f" {comp['name']!r}"
    console.print(
        f"[bold]{escape(title)}[/bold]: {comp['format']}, {comp['game']} {comp['players']}p, "
        f"seed {comp['seed']} — {comp['status']}; games: "
        f"{res['counts']['played']} played, {res['counts']['failed']} failed, "
        f"{res['counts']['pending']} pending",
        soft_wrap=True,  # one line, as a script reading it expects; the terminal wraps it
    )
    table = Table(title="standings")
    # the format says how strength is shown and which columns its scoring adds (ladder.formats)
    format_ = formats.get(comp["format"])
    coop = format_.strength == "win_rate"
    for col in ("rank", "bot", "score", "win rate (95%)" if coop else "Elo (95%)",
                "" if coop else "P(> next)", "W/D/L", "games", *(c.title for c in format_.columns)):
        if col:
            table.add_column(col, justify="left" if col == "bot" else "right")
    for row in res["standings"]:
        cells = [str(row["rank"]), row["bot"], f"{row['score']:g}"]
        if coop:
            cells.append(f"{row['score']:.2f} [{row['win_rate_low']:.2f}, {row['win_rate_high']:.2f}]")
        else:
            cells.append(f"{row['elo']:.0f} [{row['elo_low']:.0f}, {row['elo_high']:.0f}]")
            cells.append("" if row["los_next"] is None else f"{row['los_next']:.2f}")
        cells += [f"{row['wins']}/{row['draws']}/{row['losses']}", str(row["games"])]
        for column in format_.columns:
            marked = column.mark_key is not None and row.get(column.mark_key)
            cells.append(f"{row.get(column.key, '')}" + (f" ({column.mark})" if marked else ""))
        table.add_row(*cells)
    console.print(table)
    withdrawn = res.get("withdrawn") or []
    if withdrawn:
        console.print("not ranked: never played (every game of its own forfeited or failed)", soft_wrap=True)
    for row in withdrawn:
        console.print(escape(_withdrawn_line(row)), soft_wrap=True)
    cross = res["crosstable"]
    if cross["rows"] and not coop:
        grid = Table(title="crosstable (row's points against column / games)")
        grid.add_column("")
        for name in cross["bots"]:
            grid.add_column(name, justify="right")
        for row in cross["rows"]:
            grid.add_row(row["bot"], *(
                f"{row['against'][o]['score']:g}/{row['against'][o]['games']}" if o in row["against"] else "-"
                for o in cross["bots"]
            ))
        console.print(grid)
    if res["seats"]:
        seats = Table(title="seat-order effect (first places by seat, every bot in every seat)")
        for col in ("seat", "games", "first places", "rate (95%)", "fair share"):
            seats.add_column(col, justify="right")
        for s in res["seats"]:
            rate = f"{s['first_rate']:.2f} [{s['low']:.2f}, {s['high']:.2f}]"
            seats.add_row(str(s["seat"]), str(s["games"]), f"{s['firsts']:g}", rate, f"{s['fair_share']:.2f}")
        console.print(seats)
    if coop and res.get("scenarios"):
        sc = Table(title="scenarios")
        for col in ("bot", "scenario", "wins/games", "win rate (95%)"):
            sc.add_column(col)
        for s in res["scenarios"]:
            sc.add_row(s["bot"], s["scenario"], f"{s['wins']}/{s['games']}",
                       f"{s['win_rate']:.2f} [{s['low']:.2f}, {s['high']:.2f}]")
        console.print(sc)


def _withdrawn_line(row: dict[str, Any]) -> str:
    """One entrant that never played, in words: its games, why (the referee's ruling, the sandbox
    limit that ended it) and its own error line, at the match and seat it is from."""
    games = int(row["games"])
    counts = []
    if row.get("forfeited"):
        counts.append(f"forfeited {row['forfeited']} of {games} game{'s' if games != 1 else ''}")
    if row.get("failed"):
        counts.append(f"{row['failed']} of {games} failed")
    where = f"match {row.get('match_id')} seat {row.get('seat')}"
    line = f"  {row['bot']}: {', '.join(counts)}; {where}: {row.get('reason') or 'forfeited'}"
    if row.get("killed_for"):
        line += f", killed at its sandbox's {row['killed_for']} (workers/SANDBOX.md, Limits)"
    if row.get("error"):
        line += f"; it printed: {row['error']}"
    return line


def _results(db_url: str, competition_id: int) -> dict[str, Any] | None:
    from ladder.competitions import competition_results
    from workers.match_execution import engine_for

    with engine_for(db_url).connect() as conn:
        return competition_results(conn, competition_id)


def _emit(args: argparse.Namespace, res: dict[str, Any]) -> None:
    if getattr(args, "csv", None):
        from ladder.competition_results import standings_csv

        Path(args.csv).write_text(standings_csv(res["standings"]))
    if getattr(args, "json_out", None):
        Path(args.json_out).write_text(json.dumps(res, indent=2))
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        _print_results(res)


def _create(args: argparse.Namespace, db_url: str) -> int:
    from ladder.competitions import create_competition
    from workers.match_execution import engine_for
    from workers.tournament import entrant_specs

    texts = _split_bots(args.bots)
    files = _archive_of_cwd(texts, args.game)
    scenarios = [json.loads(s) for s in args.scenario] if args.scenario else None
    return create_competition(
        engine_for(db_url),
        game=args.game,
        players=args.players,
        fmt=args.format,
        field=_named(entrant_specs(args.game, texts, files), args.name),
        sets=args.sets,
        rounds=args.rounds,
        scenarios=scenarios,
        seed=args.seed,
        name=args.title,
        decision_ms=args.decision_ms,
        bank_ms=args.bank_ms,
        max_strikes=args.max_strikes,
    )


def _replay_dir(args: argparse.Namespace) -> Path | None:
    """`--replay-dir`, checked writable before the first game."""
    from referee.cli_checks import check_writable_dir

    folder = getattr(args, "replay_dir", None)
    return check_writable_dir(folder, "--replay-dir") if folder else None


def _keep_replays(db_url: str, competition_id: int, folder: Path) -> int:
    """Write every recorded game's replay into `folder` as match-ID.replay.json.gz (the stored
    bytes: gzip, as `arena bot replay` writes them); how many."""
    import sqlalchemy as sa

    from ladder.schema import competition_games, replays
    from workers.match_execution import engine_for

    written = 0
    with engine_for(db_url).connect() as conn:
        rows = conn.execute(
            sa.select(replays.c.match_id, replays.c.data)
            .join(competition_games, competition_games.c.match_id == replays.c.match_id)
            .where(competition_games.c.competition_id == competition_id)
            .order_by(replays.c.match_id)
        )
        for match_id, data in rows:
            (folder / f"match-{match_id}.replay.json.gz").write_bytes(bytes(data))
            written += 1
    return written


def _games_done(db_url: str, competition_id: int) -> tuple[int, int]:
    """(games recorded or failed, games scheduled) of a competition."""
    from ladder.competitions import load_games
    from workers.match_execution import engine_for

    with engine_for(db_url).connect() as conn:
        games = load_games(conn, competition_id)
    return sum(g.status in ("done", "failed") for g in games), len(games)


def _run_stored(args: argparse.Namespace, db_url: str, competition_id: int, *, resume: str | None) -> int:
    """Play the competition, print its results; 1 if an entrant never played or a game failed.

    `resume`: the command that resumes it after an interrupt, None when nothing can (the run's
    database is a temporary one)."""
    from workers.match_execution import engine_for
    from workers.tournament import run_competition

    replay_dir = _replay_dir(args)
    # SIGINT only sets `stop` while games run; the loop raises KeyboardInterrupt between polls,
    # where nothing can swallow it (run_competition's docstring)
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: stop.set())
    try:
        with play_on(db_url, args.workers) as dispatcher, _progress(not args.json, "games") as progress:
            run_competition(engine_for(db_url), competition_id, dispatcher, on_progress=progress,
                            timeout=args.timeout, stop=stop)
    except KeyboardInterrupt:
        done, scheduled = _games_done(db_url, competition_id)
        kept = ""
        if replay_dir is not None:
            kept = f"; {_keep_replays(db_url, competition_id, replay_dir)} replays are in {replay_dir}"
        what = f"interrupted after {done} of {scheduled} games scheduled so far{kept}"
        if resume is None:
            raise Interrupted(
                f"{what}; the run's temporary database is gone with it (give --db FILE to keep a "
                "competition that `arena tournament start ID --db FILE` resumes)"
            ) from None
        raise Interrupted(f"{what}; `{resume}` resumes competition {competition_id}") from None
    finally:
        signal.signal(signal.SIGINT, previous)
    res = _results(db_url, competition_id)
    assert res is not None
    if replay_dir is not None:
        count = _keep_replays(db_url, competition_id, replay_dir)
        print(f"{count} replays written to {replay_dir}", file=sys.stderr)
    _emit(args, res)
    if res.get("withdrawn") or res["counts"]["failed"]:
        return 1
    return 0


def _resume_command(args: argparse.Namespace, competition_id: int) -> str | None:
    """`arena tournament start ID [--db URL]` for a competition kept in a database, else None."""
    import shlex

    if args.db:
        return f"arena tournament start {competition_id} --db {shlex.quote(args.db)}"
    from referee.settings import current

    if current().database_url:
        return f"arena tournament start {competition_id}"
    return None


def _guard(func: Any) -> Any:
    """One `error:` line for the user's mistakes (a bad field, an unknown competition)."""

    def run(args: argparse.Namespace) -> int:
        from ladder.client import ArchiveError
        from ladder.errors import LadderError
        from workers.tournament import CompetitionStalled

        try:
            return int(func(args))
        except (LadderError, ArchiveError, CompetitionStalled, LookupError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except Interrupted as exc:
            print(exc, file=sys.stderr)
            return 130
        except KeyboardInterrupt:  # before any game: nothing to say but that
            print("interrupted", file=sys.stderr)
            return 130

    return run


def _cmd_run(args: argparse.Namespace) -> int:
    _replay_dir(args)  # a folder that cannot be written is refused before anything is made
    with _database(args.db, temporary=True) as db_url:
        competition_id = _create(args, db_url)
        return _run_stored(args, db_url, competition_id, resume=_resume_command(args, competition_id))


def _cmd_create(args: argparse.Namespace) -> int:
    with _database(args.db, temporary=False) as db_url:
        competition_id = _create(args, db_url)
    print(json.dumps({"id": competition_id}) if args.json else f"competition {competition_id} created")
    return 0


def _cmd_start(args: argparse.Namespace) -> int:
    import shlex

    _replay_dir(args)
    with _database(args.db, temporary=False) as db_url:
        command = f"arena tournament start {args.id}"
        resume = command + (f" --db {shlex.quote(args.db)}" if args.db else "")
        return _run_stored(args, db_url, args.id, resume=resume)


def _cmd_status(args: argparse.Namespace) -> int:
    from ladder.competitions import competition_info
    from workers.match_execution import engine_for

    with _database(args.db, temporary=False) as db_url, engine_for(db_url).connect() as conn:
        info = competition_info(conn, args.id)
    if info is None:
        raise LookupError(f"no competition {args.id}")
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        counts = ", ".join(f"{k} {v}" for k, v in info["games"].items())
        print(f"competition {info['id']} {info['name']!r}: {info['status']}; games: {counts}")
    return 0


def _cmd_results(args: argparse.Namespace) -> int:
    with _database(args.db, temporary=False) as db_url:
        res = _results(db_url, args.id)
    if res is None:
        raise LookupError(f"no competition {args.id}")
    _emit(args, res)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from ladder.competitions import list_competitions
    from workers.match_execution import engine_for

    with _database(args.db, temporary=False) as db_url, engine_for(db_url).connect() as conn:
        rows = list_competitions(conn)
    if args.json:
        print(json.dumps(rows, indent=2))
    for r in rows if not args.json else []:
        print(f"{r['id']:>5}  {r['status']:<8} {r['format']:<12} {r['game']} {r['players']}p  {r['name']}")
    return 0


def _cmd_sprt(args: argparse.Namespace) -> int:
    from workers.match_execution import engine_for
    from workers.tournament import entrant_specs, run_sprt

    texts = [args.candidate, args.baseline]
    with _database(args.db, temporary=True) as db_url:
        files = _archive_of_cwd(texts, args.game)
        candidate, baseline = entrant_specs(args.game, texts, files)
        with play_on(db_url, args.workers) as dispatcher:

            def report(state: Any) -> None:
                if not args.json and sys.stderr.isatty():
                    print(f"\r  games {state.games}  W/D/L {state.wins}/{state.draws}/{state.losses}  "
                          f"LLR {state.llr:+.2f}", end="", file=sys.stderr, flush=True)

            result = run_sprt(
                engine_for(db_url), args.game, candidate, baseline, dispatcher,
                elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta,
                max_games=args.max_games, seed=args.seed, parallel=max(1, args.workers or 1),
                on_pair=report, timeout=args.timeout, decision_ms=args.decision_ms,
                bank_ms=args.bank_ms, max_strikes=args.max_strikes,
            )
    out = result.as_dict()
    out.update(candidate=candidate.name, baseline=baseline.name, game=args.game)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if sys.stderr.isatty():
        print(file=sys.stderr)
    words = {
        "H1": f"H1 accepted: {candidate.name} is better (elo1 = {args.elo1:g} over elo0 = {args.elo0:g})",
        "H0": f"H0 accepted: {candidate.name} is not {args.elo1:g} Elo better (elo0 = {args.elo0:g})",
        "inconclusive": "inconclusive: the game limit came first",
    }
    print(words[result.verdict])
    print(f"  LLR {result.llr:+.3f}  bounds [{result.lower:+.3f}, {result.upper:+.3f}]  "
          f"(alpha {args.alpha:g}, beta {args.beta:g})")
    print(f"  games {result.games}  W/D/L {result.wins}/{result.draws}/{result.losses}  "
          f"pairs 0/0.5/1/1.5/2: {'/'.join(map(str, result.pentanomial))}")
    print(f"  Elo {result.elo:+.1f}  95% [{result.elo_low:+.1f}, {result.elo_high:+.1f}]  "
          f"({result.seconds:.1f} s)")
    return 0


def _common(p: argparse.ArgumentParser, *, db_help: str) -> None:
    p.add_argument("--db", help=db_help)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _running(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=None,
                   help="match processes (default: cores, at most 4; with $BROKER_URL, Celery workers to "
                        "start if none is on the queue); 0: play in this process")
    p.add_argument("--timeout", type=float, default=None, help="give up after this many seconds")


def _time_control(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decision-ms", type=int, default=1000, help="per-decision allowance (default 1000)")
    p.add_argument("--bank-ms", type=int, default=30_000, help="per-seat time bank (default 30000)")
    p.add_argument("--max-strikes", type=int, default=3, help="strikes that forfeit a seat (default 3)")


def _definition(p: argparse.ArgumentParser) -> None:
    from ladder.formats import REGISTRY

    p.add_argument("--game", required=True, help="game name, e.g. clank")
    p.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    p.add_argument("--format", required=True, choices=tuple(REGISTRY),
                   help="how entrants are paired: " + "; ".join(f.summary for f in REGISTRY.values()))
    p.add_argument("--bots", action="append", required=True,
                   help='the field, comma-separated: built-in names, bot:NAME, version:ID, "python bot.py"')
    p.add_argument("--sets", type=int, default=1, help="duplicate sets per table (default 1)")
    p.add_argument("--rounds", type=int, default=None, help="Swiss rounds (default ceil(log2 n))")
    p.add_argument("--scenario", action="append",
                   help="a cooperative game's format: a game config as JSON (repeatable)")
    p.add_argument("--seed", type=int, default=1, help="seed of the pairings and games (default 1)")
    p.add_argument("--name", action="append", metavar="NAME",
                   help="the name of a command entrant, in the order of the field's commands (repeatable; "
                        "default: its script's name)")
    p.add_argument("--title", default=None, help="the competition's name (default: made from its settings)")
    _time_control(p)


def register(sub: Any) -> None:
    """Add ``sprt`` and ``tournament`` to the `arena` subparsers `sub`."""
    sprt = sub.add_parser("sprt", help="is the candidate better? paired games until the SPRT decides")
    sprt.add_argument("--game", required=True, help="game name, e.g. clank")
    sprt.add_argument("--candidate", required=True, help='built-in name, bot:NAME, version:ID or "CMD"')
    sprt.add_argument("--baseline", required=True, help='built-in name, bot:NAME, version:ID or "CMD"')
    sprt.add_argument("--elo0", type=float, default=0.0,
                      help="Elo difference of the null hypothesis (default 0)")
    sprt.add_argument("--elo1", type=float, default=20.0,
                      help="Elo difference of the alternative (default 20)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    sprt.add_argument("--max-games", type=int, default=0,
                      help="stop inconclusive after N games (0: no limit)")
    sprt.add_argument("--seed", type=int, default=1, help="seed of the first game pair (default 1)")
    _common(sprt, db_help="keep the games in this database (default: a temporary one)")
    _running(sprt)
    _time_control(sprt)
    sprt.set_defaults(func=_guard(_cmd_sprt))

    tour = sub.add_parser("tournament",
                          help="competitions in any format of ladder.formats (round robin, Swiss, ...)")
    tsub = tour.add_subparsers(dest="tournament_command", required=True)
    run = tsub.add_parser("run", help="create a competition, play it, print the standings")
    _definition(run)
    _common(run, db_help="database URL (default $DATABASE_URL, else a temporary SQLite file)")
    _running(run)
    run.add_argument("--csv", help="also write the standings as CSV to this file")
    run.add_argument("--json-out", help="also write the results as JSON to this file")
    run.add_argument("--replay-dir", help="keep every game's replay in this folder (match-ID.replay.json.gz)")
    run.set_defaults(func=_guard(_cmd_run))

    create = tsub.add_parser("create", help="store a competition (played by `start`)")
    _definition(create)
    _common(create, db_help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    create.set_defaults(func=_guard(_cmd_create))

    for name, func, helptext in (
        ("start", _cmd_start, "play (or resume) a stored competition to its end"),
        ("status", _cmd_status, "a stored competition's status and game counts"),
        ("results", _cmd_results, "a stored competition's standings, crosstable and seat effect"),
    ):
        p = tsub.add_parser(name, help=helptext)
        p.add_argument("id", type=int, help="the competition's id (printed by create)")
        _common(p, db_help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
        if name == "start":
            _running(p)
            p.add_argument("--replay-dir", help="keep every game's replay in this folder")
        if name in ("start", "results"):
            p.add_argument("--csv", help="write the standings as CSV to this file")
            p.add_argument("--json-out", help="write the results as JSON to this file")
        p.set_defaults(func=_guard(func))
    lst = tsub.add_parser("list", help="stored competitions, newest first")
    _common(lst, db_help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    lst.set_defaults(func=_guard(_cmd_list))
