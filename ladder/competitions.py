"""Stored competitions: create one, schedule its rounds as matches, read its results.

A competition (``competitions``) is a game, a player count, a format (``ladder.formats``) with
its options, a seed and a field (``competition_entrants``: each entrant's bot version). It gets
a ladder of its own, which the matchmaker and the ladder list leave alone: every game is a
``matches`` row there, so it runs exactly like a ladder match (the same executor, hosted bots
in the sandbox, leases, the sweeper, idempotent recording) on the local pool or on Celery.
``competition_games`` ties each game of a duplicate set to its match; it is unique per (round,
table, set, rotation), so scheduling a round twice (two runners, a restarted one) schedules
each game once, and a game counts once because its match is recorded once.

Field entries (:func:`parse_entry`): a built-in bot's name (``greedy``), ``bot:NAME`` (the
newest qualified version of a registered bot), ``version:ID`` (a registered bot version), or a
command line (a hosted bot; its files come with it, packed by the caller).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import secrets
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ladder import formats
from ladder.archives import NormalizedArchive
from ladder.bots import MAX_LOG_BYTES
from ladder.competition_results import results_table
from ladder.db import write_transaction
from ladder.errors import Conflict, InvalidInput, NotFound
from ladder.match_queue import insert_match
from ladder.scenarios import coop_games, match_scenario
from ladder.schema import (
    bot_logs,
    bot_versions,
    bots,
    competition_entrants,
    competition_games,
    competitions,
    ladders,
    matches,
    replays,
    results,
)
from referee.games import GAMES

__all__ = [
    "BUILTIN_OWNER",
    "MAX_ENTRANTS",
    "MAX_GAMES",
    "CompetitionGame",
    "EntrantSpec",
    "competition_info",
    "competition_results",
    "create_competition",
    "default_name",
    "entry_version",
    "list_competitions",
    "load_games",
    "parse_entry",
    "schedule_round",
    "set_status",
]

#: owner of the bots made for built-in entrants and command entrants
BUILTIN_OWNER: Final = "arena-competitions"
MAX_ENTRANTS: Final = 64
MAX_SETS: Final = 1000
#: the most games a competition may schedule (a bound on what one request can cost)
MAX_GAMES: Final = 100_000
DEFAULT_TIME_CONTROL: Final = {"decision_ms": 1000, "bank_ms": 30_000, "max_strikes": 3}
#: a seat's outcome when it was forfeited (every game's engine says so: ``Game.forfeit``)
FORFEITED: Final = "forfeited"


@dataclass(frozen=True, slots=True)
class EntrantSpec:
    """One field entry: `kind` is "builtin", "command" or "version"; `spec` what was asked for.

    A command entrant carries its files (`archive`, None for a bot needing none).
    """

    kind: str
    spec: str
    name: str
    archive: NormalizedArchive | None = None


@dataclass(frozen=True, slots=True)
class CompetitionGame:
    """A scheduled game with its match's id and status."""

    record: formats.GameRecord
    match_id: int
    status: str
    seed: int


def parse_entry(game: str, text: str, archive: NormalizedArchive | None = None) -> EntrantSpec:
    """The field entry `text` for `game` (see the module doc); InvalidInput if it cannot be."""
    from referee.bots import available
    from referee.cli_checks import short_name

    text = text.strip()
    if not text or len(text) > 1000 or any(ord(c) < 32 for c in text):
        raise InvalidInput("field: each entry 1-1000 printable characters")
    name = text.removeprefix("builtin:")
    if text.startswith("builtin:") or name in available(game):
        if name not in available(game):
            raise InvalidInput(f"field: no built-in bot {name!r} for {game} ({', '.join(available(game))})")
        return EntrantSpec("builtin", name, name)
    if text.startswith("version:"):
        raw = text.removeprefix("version:")
        if not raw.isdigit() or not 1 <= int(raw) <= 2**31 - 1:
            raise InvalidInput(f"field: {text!r} is not version:<id>")
        return EntrantSpec("version", raw, text)
    if text.startswith("bot:"):
        return EntrantSpec("version", text, text.removeprefix("bot:")[:64])
    # shown by its script's name, never its command line (which may hold arguments or secrets)
    return EntrantSpec("command", text, short_name(text), archive)


def entry_version(conn: Connection, entry: EntrantSpec, now: datetime) -> int:
    """The bot version a "builtin" or "version" entry (:func:`parse_entry`) names: a built-in's
    shared bot ``builtin-<name>`` (made on first use), or a registered version (``version:ID``;
    ``bot:NAME``: that bot's newest qualified version). NotFound for an unknown one; ValueError
    for a "command" entry, which needs a bot of its own."""
    if entry.kind == "builtin":
        return _builtin_version(conn, entry.spec, now)
    if entry.kind == "version":
        return _registered_version(conn, entry.spec)
    raise ValueError(f"a {entry.kind} entry names no existing version")


def _builtin_version(conn: Connection, name: str, now: datetime) -> int:
    """The version of the shared bot ``builtin-<name>`` (made on first use)."""
    bot_name = f"builtin-{name}"
    bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == bot_name)).scalar_one_or_none()
    if bot_id is None:
        bot_id = _insert_bot(conn, bot_name, now)
        return _insert_version(conn, bot_id, f"builtin:{name}", None, now)
    version: int | None = (
        conn.execute(
            sa.select(bot_versions.c.id)
            .where(bot_versions.c.bot_id == bot_id, bot_versions.c.command == f"builtin:{name}")
            .order_by(bot_versions.c.id.desc())
        )
        .scalars()
        .first()
    )
    if version is None:
        raise Conflict(f"a bot named {bot_name!r} exists but is not the built-in {name!r}")
    return version


def _insert_bot(conn: Connection, name: str, now: datetime) -> int:
    bot_id: int = conn.execute(
        sa.insert(bots)
        .values(
            name=name,
            owner=BUILTIN_OWNER,
            # nobody holds this token: the bot never connects by itself
            token_hash=hashlib.sha256(secrets.token_bytes(32)).hexdigest(),
            created_at=now,
        )
        .returning(bots.c.id)
    ).scalar_one()
    return bot_id


def _insert_version(
    conn: Connection, bot_id: int, command: str, archive: NormalizedArchive | None, now: datetime
) -> int:
    version_id: int = conn.execute(
        sa.insert(bot_versions)
        .values(
            bot_id=bot_id,
            version="1",
            command=command,
            created_at=now,
            archive=archive.tar_gz if archive else None,
            archive_sha256=archive.sha256 if archive else None,
            archive_files=archive.files if archive else None,
            archive_bytes=archive.bytes if archive else None,
            qualification="passed",
        )
        .returning(bot_versions.c.id)
    ).scalar_one()
    return version_id


def _registered_version(conn: Connection, spec: str) -> int:
    if spec.startswith("bot:"):
        bot_name = spec.removeprefix("bot:")
        found: int | None = (
            conn.execute(
                sa.select(bot_versions.c.id)
                .join(bots, bots.c.id == bot_versions.c.bot_id)
                .where(bots.c.name == bot_name, bot_versions.c.qualification == "passed")
                .order_by(bot_versions.c.id.desc())
            )
            .scalars()
            .first()
        )
        if found is None:
            raise NotFound(f"field: no bot {bot_name!r} with a qualified version")
        return found
    version_id = int(spec)
    if conn.execute(sa.select(bot_versions.c.id).where(bot_versions.c.id == version_id)).first() is None:
        raise NotFound(f"field: no bot version {version_id}")
    return version_id


def default_name(fmt: str, game: str, players: int) -> str:
    """The name of a competition created without one: its format, game and seat count."""
    return f"{fmt} {game} {players}p"


def create_competition(
    engine: Engine,
    *,
    game: str,
    players: int,
    fmt: str,
    field: Sequence[EntrantSpec],
    sets: int = 1,
    rounds: int | None = None,
    scenarios: Sequence[Mapping[str, Any]] | None = None,
    seed: int = 1,
    name: str | None = None,
    decision_ms: int = DEFAULT_TIME_CONTROL["decision_ms"],
    bank_ms: int = DEFAULT_TIME_CONTROL["bank_ms"],
    max_strikes: int = DEFAULT_TIME_CONTROL["max_strikes"],
    now: datetime | None = None,
) -> int:
    """Store a competition (status "created") with its ladder and field; return its id.

    Raises InvalidInput for a bad game, format, field or option, NotFound for an unknown
    registered bot or version.
    """
    now = now or datetime.now(UTC)
    if game not in GAMES:
        raise InvalidInput(f"game: one of {', '.join(sorted(GAMES))}")
    if fmt not in formats.REGISTRY:
        raise InvalidInput(f"format: one of {', '.join(formats.FORMATS)}")
    format_ = formats.REGISTRY[fmt]
    coop = game in coop_games()
    if coop != format_.coop:
        wanted = ", ".join(repr(f.name) for f in formats.REGISTRY.values() if f.coop == coop)
        raise InvalidInput(
            f"format: a cooperative game plays {wanted}"
            if coop
            else f"format: {fmt!r} is for cooperative games (others play {wanted})"
        )
    if not 2 <= players <= 4 and not coop:
        raise InvalidInput("players: 2 to 4")
    if not 1 <= len(field) <= MAX_ENTRANTS:
        raise InvalidInput(f"field: 1 to {MAX_ENTRANTS} entrants")
    if not 1 <= sets <= MAX_SETS:
        raise InvalidInput(f"sets: 1 to {MAX_SETS}")
    if rounds is not None and not 1 <= rounds <= 64:
        raise InvalidInput("rounds: 1 to 64")
    if decision_ms <= 0 or bank_ms < 0 or max_strikes < 0:
        raise InvalidInput("time control: decision_ms > 0, bank_ms >= 0, max_strikes >= 0")
    if not 0 <= seed < 2**63:
        raise InvalidInput("seed: 0 to 2^63 - 1")
    scenario_list = [dict(s) for s in (scenarios or [])]
    if coop:
        if not scenario_list:
            scenario_list = [{}]
        for config in scenario_list:
            match_scenario(game, players, config or None)  # InvalidInput if it names no scenario
    elif scenario_list:
        raise InvalidInput("scenarios: only for a cooperative game's format")
    # the size of the first round, counted before anything is planned (an attacker's field of 64
    # at tables of 4 with 1000 sets would be 2.5 billion games)
    n = len(field)
    tables = format_.first_round_tables(n, players, max(1, len(scenario_list)))
    first_round = tables * sets * (players if format_.rotates() else 1)
    if first_round > MAX_GAMES:
        raise InvalidInput(f"the first round alone has {first_round} games (at most {MAX_GAMES})")
    try:
        formats.next_round(
            fmt, n, players, [], sets=sets, rounds=rounds, scenarios=max(1, len(scenario_list))
        )
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    label = name or default_name(fmt, game, players)
    if not 1 <= len(label) <= 128:
        raise InvalidInput("name: 1-128 characters")
    try:
        with write_transaction(engine) as conn:
            ladder_id = conn.execute(
                sa.insert(ladders)
                .values(
                    name=f"competition-{secrets.token_hex(8)}",
                    game=game,
                    players=players,
                    decision_ms=decision_ms,
                    bank_ms=bank_ms,
                    max_strikes=max_strikes,
                    kind="coop" if coop else "ffa",
                    created_at=now,
                )
                .returning(ladders.c.id)
            ).scalar_one()
            competition_id: int = conn.execute(
                sa.insert(competitions)
                .values(
                    name=label,
                    game=game,
                    players=players,
                    format=fmt,
                    options={"sets": sets, "rounds": rounds, "scenarios": scenario_list},
                    seed=seed,
                    status="created",
                    ladder_id=ladder_id,
                    created_at=now,
                )
                .returning(competitions.c.id)
            ).scalar_one()
            names: set[str] = set()
            for slot, entry in enumerate(field):
                if entry.kind in ("builtin", "version"):
                    version_id = entry_version(conn, entry, now)
                else:
                    bot_id = _insert_bot(conn, f"competition{competition_id}-{slot}", now)
                    version_id = _insert_version(conn, bot_id, entry.spec, entry.archive, now)
                shown = entry.name
                for k in itertools.count(2):
                    if shown not in names:
                        break
                    shown = f"{entry.name[:58]}#{k}"
                names.add(shown)
                conn.execute(
                    sa.insert(competition_entrants).values(
                        competition_id=competition_id,
                        slot=slot,
                        name=shown,
                        kind=entry.kind,
                        spec=entry.spec,
                        bot_version_id=version_id,
                    )
                )
    except IntegrityError as exc:  # two creations made the same built-in bot at once
        raise Conflict(f"could not create the competition, try again ({type(exc).__name__})") from exc
    return competition_id


def set_status(
    engine: Engine, competition_id: int, status: str, *, error: str | None = None, now: datetime | None = None
) -> None:
    """Move a competition to `status` (stamping started_at / finished_at)."""
    now = now or datetime.now(UTC)
    values: dict[str, Any] = {"status": status}
    if status == "running":
        values["started_at"] = sa.func.coalesce(competitions.c.started_at, now)
    if status in ("done", "failed"):
        values["finished_at"] = now
        values["error"] = error
    with write_transaction(engine) as conn:
        conn.execute(sa.update(competitions).where(competitions.c.id == competition_id).values(values))


def _row(conn: Connection, competition_id: int) -> Any:
    if not 1 <= competition_id <= 2**31 - 1:
        return None
    return conn.execute(sa.select(competitions).where(competitions.c.id == competition_id)).one_or_none()


def load_games(conn: Connection, competition_id: int) -> list[CompetitionGame]:
    """Every scheduled game of the competition with its match status and, if recorded, places."""
    rows = conn.execute(
        sa.select(
            competition_games,
            matches.c.status,
            matches.c.seed,
            results.c.places,
            results.c.outcomes,
            results.c.team_won,
        )
        .join(matches, matches.c.id == competition_games.c.match_id)
        .outerjoin(results, results.c.match_id == competition_games.c.match_id)
        .where(competition_games.c.competition_id == competition_id)
        .order_by(competition_games.c.id)
    ).all()
    out = []
    for r in rows:
        places = tuple(int(p) for p in r.places) if r.places is not None and r.status == "done" else None
        forfeited: tuple[int, ...] = ()
        if places is not None:
            outcomes = list(r.outcomes or [])
            forfeited = tuple(s for s, o in enumerate(outcomes) if o == FORFEITED)
            places = formats.forfeit_places(places, forfeited)
        out.append(
            CompetitionGame(
                formats.GameRecord(
                    round=r.round,
                    table=r.table_no,
                    set_no=r.set_no,
                    rotation=r.rotation,
                    seats=tuple(int(s) for s in r.seats),
                    places=places,
                    team_won=r.team_won if places is not None else None,
                    scenario=r.scenario,
                    failed=r.status == "failed",
                    forfeited=forfeited,
                ),
                match_id=r.match_id,
                status=r.status,
                seed=int(r.seed),
            )
        )
    return out


def schedule_round(
    engine: Engine, competition_id: int, plan: Sequence[formats.TablePlan], *, now: datetime | None = None
) -> list[int]:
    """Queue the matches of `plan`'s games and return their ids (empty if another runner
    scheduled this round first: the games' unique key refuses a second copy)."""
    now = now or datetime.now(UTC)
    try:
        with write_transaction(engine) as conn:
            comp = conn.execute(
                sa.select(competitions).where(competitions.c.id == competition_id).with_for_update()
            ).one()
            versions = dict(
                conn.execute(
                    sa.select(competition_entrants.c.slot, competition_entrants.c.bot_version_id).where(
                        competition_entrants.c.competition_id == competition_id
                    )
                ).all()
            )
            scenario_configs = comp.options.get("scenarios") or []
            created = []
            for table in plan:
                for game in formats.plan_games(table):
                    seed = formats.set_seed(comp.seed, game.round, game.table, game.set_no)
                    config: Any = sa.null()
                    if game.scenario is not None and scenario_configs[game.scenario]:
                        config = scenario_configs[game.scenario]
                    match_id = insert_match(
                        conn, ladder_id=comp.ladder_id, seed=seed, seats=[versions[e] for e in game.seats],
                        config=config, created_at=now,
                    )
                    conn.execute(
                        sa.insert(competition_games).values(
                            competition_id=competition_id,
                            round=game.round,
                            table_no=game.table,
                            set_no=game.set_no,
                            rotation=game.rotation,
                            scenario=game.scenario,
                            seats=list(game.seats),
                            match_id=match_id,
                        )
                    )
                    created.append(match_id)
    except IntegrityError:
        return []  # already scheduled by another runner: nothing of this call was kept
    return created


def _entrants(conn: Connection, competition_id: int) -> list[Any]:
    return list(
        conn.execute(
            sa.select(competition_entrants)
            .where(competition_entrants.c.competition_id == competition_id)
            .order_by(competition_entrants.c.slot)
        ).all()
    )


def _info(row: Any, entrants: Sequence[Any], games: Sequence[CompetitionGame]) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    for g in games:
        statuses[g.status] = statuses.get(g.status, 0) + 1
    return {
        "id": row.id,
        "name": row.name,
        "game": row.game,
        "players": row.players,
        "format": row.format,
        "options": row.options,
        "seed": int(row.seed),
        "status": row.status,
        "ladder_id": row.ladder_id,
        "created_at": row.created_at.isoformat(),
        "started_at": row.started_at.isoformat() if row.started_at else None,
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
        "error": row.error,
        "field": [
            # a command entrant's command line is shown: it is what the operator typed
            {"slot": e.slot, "name": e.name, "kind": e.kind, "bot_version_id": e.bot_version_id}
            for e in entrants
        ],
        "games": {"scheduled": len(games), **statuses},
    }


def competition_info(conn: Connection, competition_id: int) -> dict[str, Any] | None:
    """A competition's settings, field and game counts by status, or None."""
    row = _row(conn, competition_id)
    if row is None:
        return None
    return _info(row, _entrants(conn, competition_id), load_games(conn, competition_id))


def list_competitions(conn: Connection, limit: int = 100) -> list[dict[str, Any]]:
    """The newest competitions first (at most `limit`), without their fields."""
    rows = conn.execute(sa.select(competitions).order_by(competitions.c.id.desc()).limit(limit)).all()
    return [
        {
            "id": r.id,
            "name": r.name,
            "game": r.game,
            "players": r.players,
            "format": r.format,
            "status": r.status,
            "created_at": r.created_at.isoformat(),
        }
        for r in rows
    ]


def competition_results(
    conn: Connection, competition_id: int, *, bootstrap_samples: int | None = None
) -> dict[str, Any] | None:
    """A competition with its results table (``ladder.competition_results``: standings,
    crosstable, seats), `counts` (games played, failed, pending) and `games` (every game)."""
    row = _row(conn, competition_id)
    if row is None:
        return None
    entrants = _entrants(conn, competition_id)
    games = load_games(conn, competition_id)
    names = [e.name for e in entrants]
    labels = (
        [
            match_scenario(row.game, row.players, cfg or None).scenario.key
            for cfg in (row.options.get("scenarios") or [])
        ]
        if formats.get(row.format).coop
        else []
    )
    kwargs: dict[str, Any] = {}
    if bootstrap_samples is not None:
        kwargs["bootstrap_samples"] = bootstrap_samples
    table = results_table(
        row.format,
        names,
        row.players,
        [g.record for g in games],
        seed=int(row.seed),
        scenario_labels=labels,
        **kwargs,
    )
    counts = table.pop("games")
    for row_out in table["withdrawn"]:
        row_out.update(_why_withdrawn(conn, games, int(row_out["slot"])))
    return {
        "competition": _info(row, entrants, games),
        **table,
        "counts": counts,
        "games": [
            {
                "match_id": g.match_id,
                "round": g.record.round,
                "table": g.record.table,
                "set": g.record.set_no,
                "rotation": g.record.rotation,
                "seed": g.seed,
                "seats": [names[e] for e in g.record.seats],
                "status": g.status,
                "places": list(g.record.places) if g.record.places is not None else None,
                "team_won": g.record.team_won,
            }
            for g in games
        ],
    }


def _why_withdrawn(conn: Connection, games: Sequence[CompetitionGame], entrant: int) -> dict[str, Any]:
    """Why an entrant never played, from its first game: the match, its seat's forfeit as the
    referee ruled it, the sandbox limit that ended it (if one did) and the bot's own error line
    (the last thing it printed), or the platform's error for a failed game."""
    from referee.bot_output import error_line

    first = next(g for g in games if entrant in g.record.seats)
    seat = first.record.seats.index(entrant)
    out: dict[str, Any] = {"match_id": first.match_id, "seat": seat}
    if first.status == "failed":
        error = conn.execute(sa.select(matches.c.error).where(matches.c.id == first.match_id)).scalar()
        out.update(reason="the platform could not play its game", error=str(error or "")[:300])
        return out
    record = _seat_record(conn, first.match_id, seat)
    out["reason"] = str(record.get("forfeit") or "forfeited")[:300]
    sandbox = record.get("sandbox")
    if isinstance(sandbox, dict) and sandbox.get("killed_for"):
        out["killed_for"] = str(sandbox["killed_for"])[:200]
    log = conn.execute(
        sa.select(bot_logs.c.data).where(bot_logs.c.match_id == first.match_id, bot_logs.c.seat == seat)
    ).scalar()
    text = ""
    if log is not None:  # stored at most MAX_LOG_BYTES: inflate no more, whatever the row holds
        text = zlib.decompressobj(wbits=31).decompress(bytes(log), MAX_LOG_BYTES).decode(errors="replace")
    out["error"] = error_line(text)
    return out


def _seat_record(conn: Connection, match_id: int, seat: int) -> dict[str, Any]:
    """Seat `seat`'s record in match `match_id`'s stored replay (its header: who played it, its
    forfeit, what the sandbox measured), or {} if there is none to read."""
    from referee.replay import MAX_INFLATED_BYTES

    data = conn.execute(sa.select(replays.c.data).where(replays.c.match_id == match_id)).scalar()
    if data is None:
        return {}
    try:
        doc = json.loads(zlib.decompressobj(wbits=31).decompress(bytes(data), MAX_INFLATED_BYTES))
    except (ValueError, zlib.error):
        return {}
    seats = doc.get("seats") if isinstance(doc, dict) else None
    if not isinstance(seats, list) or not 0 <= seat < len(seats) or not isinstance(seats[seat], dict):
        return {}
    record: dict[str, Any] = seats[seat]
    return record
