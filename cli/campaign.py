"""``arena campaign run|resume``: a whole campaign, stored and resumable (the playing itself is
``workers/campaign_play.py``: see its docstring for how a game is played, recorded and retried).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from cli.dispatch import campaign_dispatcher
from referee.cli_checks import positive_int
from referee.games import campaign_game_names, game_spec
from workers.campaign_play import (
    DEFAULT_GAME_TIMEOUT_S,
    CampaignFailed,
    campaign_report,
    play_campaign,
)

__all__ = ["register"]



def _print_game(seats: Sequence[dict[str, Any]], game: dict[str, Any]) -> None:
    print(
        f"game {game['index']}: prologue {game['prologue']} ({game['board']}), epilogue {game['epilogue']}, "
        f"seed {game['seed']}, match {game['match_id']}, state {game['state_after']}"
    )
    print(f"  {'seat':<5}{'bot':<16}{'name':<16}{'score':>6}  {'outcome':<13}{'checkmarks':>10}")
    for seat, s in enumerate(seats):
        mvp = " MVP" if seat == game["mvp"] else ""
        print(
            f"  {seat:<5}{str(s['bot'])[:15]:<16}{str(s['name'])[:15]:<16}{game['scores'][seat]:>6}  "
            f"{game['outcomes'][seat]:<13}{game['checkmarks'][seat]:>10}{mvp}"
        )
    sys.stdout.flush()


def _print_total(report: dict[str, Any]) -> None:
    print(f"campaign {report['campaign']}: {report['status']}, {len(report['games'])} games, "
          f"state {report['state_digest']}")  # fmt: skip
    print(f"  {'place':<6}{'seat':<5}{'bot':<16}{'total':>6}  promotions")
    order = sorted(range(report["players"]), key=lambda s: (report["places"][s], s))
    for seat in order:
        bot = str(report["seats"][seat]["bot"])[:15]
        promos = ", ".join(report["promotions"][seat]) or "-"
        print(f"  {report['places'][seat]:<6}{seat:<5}{bot:<16}{report['totals'][seat]:>6}  {promos}")
    if report["error"]:
        print(f"  error: {report['error']}")


# --- commands -----------------------------------------------------------------------------------


def _seats_for(
    engine: Engine, game: str, texts: Sequence[str], names: Sequence[str], ladder_id: int | None = None
) -> list[dict[str, Any]]:
    """Built-in bots or registered versions (version:ID, bot:NAME) as campaign seats. With a
    campaign ladder (`ladder_id`), a built-in name is one of the ladder's reference bots playing
    it (a different one for each seat naming it): a campaign rated there adds no bot to it."""
    from ladder.competitions import entry_version, parse_entry
    from ladder.db import write_transaction
    from ladder.errors import InvalidInput

    now = datetime.now(UTC)
    seats = []
    with write_transaction(engine) as conn:
        references = _ladder_references(conn, ladder_id) if ladder_id is not None else {}
        for i, text in enumerate(texts):
            entry = parse_entry(game, text)
            if entry.kind == "command":
                raise InvalidInput(
                    f"bots: {text!r}: a campaign seat is a built-in bot, version:ID or bot:NAME"
                )
            if entry.kind == "builtin" and ladder_id is not None:
                free = references.get(entry.spec) or []
                if not free:
                    raise InvalidInput(
                        f"bots: {text!r}: ladder {ladder_id} has no more reference bots playing "
                        f"{entry.spec!r} (`arena ladder reference-bots {ladder_id}` adds them; or "
                        "name its bots with bot:NAME)"
                    )
                name, version_id = free.pop(0)
                seats.append({"version_id": version_id, "bot": name, "name": names[i]})
                continue
            seats.append({"version_id": entry_version(conn, entry, now), "bot": entry.name, "name": names[i]})
    return seats


def _ladder_references(conn: sa.Connection, ladder_id: int) -> dict[str, list[tuple[str, int]]]:
    """Strategy -> the ladder's reference bots playing it (name, newest version id), by name."""
    from ladder.bots import REFERENCE_OWNER
    from ladder.schema import bot_versions, bots, ladder_entries

    rows = conn.execute(
        sa.select(bots.c.name, bot_versions.c.id, bot_versions.c.command)
        .join(ladder_entries, ladder_entries.c.bot_id == bots.c.id)
        .join(bot_versions, bot_versions.c.bot_id == bots.c.id)
        .where(
            ladder_entries.c.ladder_id == ladder_id,
            bots.c.owner == REFERENCE_OWNER,
            bots.c.account_id.is_(None),
            bot_versions.c.command.startswith("builtin:"),
        )
        .order_by(bots.c.name, bot_versions.c.id)
    ).all()
    newest: dict[str, tuple[int, str]] = {}
    for row in rows:
        newest[row.name] = (int(row.id), str(row.command))
    found: dict[str, list[tuple[str, int]]] = {}
    for name, (version_id, command) in sorted(newest.items()):
        strategy = command.removeprefix("builtin:").partition("?")[0]
        found.setdefault(strategy, []).append((name, version_id))
    return found


def _time_control(engine: Engine, args: argparse.Namespace) -> dict[str, int]:
    """The campaign's time control: the rating ladder's (`--ladder`; a different one given is
    refused), else the options' (their defaults: 10 s a decision, a 120 s bank, 3 strikes)."""
    from ladder.campaigns import ladder_time_control
    from ladder.errors import InvalidInput, NotFound
    from ladder.schema import ladders

    given = {"decision_ms": args.decision_ms, "bank_ms": args.bank_ms, "max_strikes": args.max_strikes}
    if args.ladder is None:
        return {k: v if v is not None else _DEFAULT_TC[k] for k, v in given.items()}
    with engine.connect() as conn:
        row = conn.execute(sa.select(ladders).where(ladders.c.id == args.ladder)).one_or_none()
    if row is None:
        raise NotFound(f"no ladder {args.ladder}")
    keys = ("decision_ms", "bank_ms", "max_strikes", "cpu_decision_ms", "cpu_bank_ms")
    ladders_tc = dict(zip(keys, ladder_time_control(row), strict=True))
    for key, value in given.items():
        if value is not None and value != ladders_tc[key]:
            option = "--" + key.replace("_", "-")
            raise InvalidInput(
                f"{option} {value}: ladder {args.ladder} plays at {option} {ladders_tc[key]}; a campaign "
                f"rated there is played at the ladder's time control (leave {option} out)"
            )
    return ladders_tc


#: `arena campaign run`'s time control without --ladder
_DEFAULT_TC: Final = {"decision_ms": 10_000, "bank_ms": 120_000, "max_strikes": 3}


def _cmd_run(args: argparse.Namespace) -> int:
    from ladder.campaigns import create_campaign
    from ladder.db import database_url, upgrade
    from ladder.errors import InvalidInput
    from workers.match_execution import engine_for

    texts = [t.strip() for t in args.bots.split(",") if t.strip()]
    if len(texts) != args.players:
        raise InvalidInput(f"bots: {args.players} players need {args.players} bots, got {len(texts)}")
    rules = game_spec(args.game).campaign_state_rules()
    names = [n.strip() for n in args.names.split(",")] if args.names else rules.default_names(args.players)
    state = rules.new_state(args.players, names)
    db_url = database_url(args.db)
    upgrade(db_url)
    engine = engine_for(db_url)
    campaign_id = create_campaign(
        engine,
        game=args.game,
        players=args.players,
        seats=_seats_for(engine, args.game, texts, names, args.ladder),
        seed=args.seed,
        games=args.games,
        state=state,
        **_time_control(engine, args),
        rating_ladder_id=args.ladder,
    )
    print(f"campaign {campaign_id} stored (resume with: arena campaign resume {campaign_id} --db {db_url})",
          file=sys.stderr, flush=True)  # fmt: skip
    return _play(args, db_url, campaign_id)


def _cmd_resume(args: argparse.Namespace) -> int:
    from ladder.db import database_url, upgrade

    db_url = database_url(args.db)
    upgrade(db_url)
    return _play(args, db_url, args.id, retry_failed=True)


def _play(args: argparse.Namespace, db_url: str, campaign_id: int, *, retry_failed: bool = False) -> int:
    from workers.match_execution import engine_for

    engine = engine_for(db_url)
    report = campaign_report(engine, campaign_id)

    def shown(game: dict[str, Any]) -> None:
        if not args.json:
            _print_game(report["seats"], game)

    failed = None
    with campaign_dispatcher(db_url, args.workers) as dispatcher:
        try:
            play_campaign(
                engine, campaign_id, dispatcher, timeout=args.timeout, on_game=shown,
                retry_failed=retry_failed,
            )  # fmt: skip
        except CampaignFailed as exc:
            failed = exc
    final = campaign_report(engine, campaign_id)
    if args.json:
        print(json.dumps(final, indent=2))
    else:
        _print_total(final)
    if failed is not None:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    return 0


def _guard(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """One `error:` line for the user's mistakes (an unknown campaign, a bad bot)."""

    def run(args: argparse.Namespace) -> int:
        from ladder.errors import LadderError

        try:
            return int(func(args))
        except (LadderError, LookupError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("interrupted: `arena campaign resume ID` continues it", file=sys.stderr)
            return 130

    return run


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    p.add_argument("--json", action="store_true", help="print one JSON object: the games and totals")
    p.add_argument("--workers", type=int, default=0,
                   help="local worker processes (default 0: games in this process; "
                        "with BROKER_URL set, games go to Celery workers)")  # fmt: skip
    p.add_argument("--timeout", type=float, default=DEFAULT_GAME_TIMEOUT_S,
                   help=f"seconds one game may take (default {DEFAULT_GAME_TIMEOUT_S:.0f})")  # fmt: skip


def register(sub: Any) -> None:
    """Add ``campaign run|resume`` to the `arena` subparsers `sub`."""
    camp = sub.add_parser("campaign", help="campaigns (Clank! Legacy): play, store and resume them")
    csub = camp.add_subparsers(dest="campaign_command", required=True)
    run = csub.add_parser("run", help="store a new campaign and play it to its end")
    games = campaign_game_names()
    # the registry's campaign games; the one there is needs no naming
    run.add_argument("--game", choices=games, default=games[0] if len(games) == 1 else None,
                     required=len(games) != 1, help=f"the campaign game ({', '.join(games)})")  # fmt: skip
    run.add_argument("--players", type=int, choices=(2, 3, 4), required=True, help="seats (2-4)")
    run.add_argument("--bots", required=True,
                     help="comma-separated, one per seat: built-ins, version:ID or bot:NAME")  # fmt: skip
    run.add_argument("--names", help="comma-separated deck-box names, one per seat")
    run.add_argument(
        "--games", type=positive_int, default=10, help="games at most (default 10; the Book may end it)"
    )
    run.add_argument(
        "--seed", type=int, default=1, help="campaign seed; game seeds derive from it (default 1)"
    )
    run.add_argument("--ladder", type=int, help="rate the finished campaign on this campaign ladder (id)")
    run.add_argument("--decision-ms", type=positive_int,
                     help="per-decision deadline, ms (default: the --ladder's, else 10000)")  # fmt: skip
    run.add_argument("--bank-ms", type=int,
                     help="per-game time bank, ms (default: the --ladder's, else 120000)")  # fmt: skip
    run.add_argument("--max-strikes", type=int,
                     help="missed deadlines before a forfeit (default: the --ladder's, else 3)")  # fmt: skip
    _common(run)
    run.set_defaults(func=_guard(_cmd_run))
    resume = csub.add_parser(
        "resume",
        help="continue a stored campaign after an interruption (a failed game is played again, once)",
    )
    resume.add_argument("id", type=int, help="the campaign's id (printed by run)")
    _common(resume)
    resume.set_defaults(func=_guard(_cmd_resume))
