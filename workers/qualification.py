"""Qualification: a new hosted bot version plays a few games before it is rated.

An uploaded version starts ``pending`` (``bot_versions.qualification``). :func:`qualify_version`
claims it (``running``, under a lease of ``$ARENA_LEASE_SECONDS``, 30 s, like a match), plays
:func:`qualification_games` games (``$ARENA_QUALIFICATION_GAMES``, default 2) against the
game's reference bots through the same executor as a ladder match
(``workers.executor.executor_for``: the gRPC referee, with the hosted bot launched as ladder
matches launch it — in the sandbox). Then it writes ``passed`` or ``failed`` and the detail (JSON
text in ``qualification_detail``: every game's seat, outcome, decisions and faults, the reason,
the end of the bot's output), which the owner sees in ``arena bot status`` and
``GET /api/bots/{id}``. The matchmaker seats only versions that passed (``workers.matchmaker``).

**A qualification game looks like a rated match to the bot** (a bot that could tell them apart
could play cleanly here and crash in rated play): game *i* is played as a rated match of the
*i*-th (in turn) ladder its bot is on — that ladder's seats, engine version, time control and
config (a campaign
ladder's: a new campaign's first game), its reference bots as opponents under their own names
(``reference-clank-greedy``; rotated from game to game; short of them, built-in bots named as
``arena ladder create --reference-bots`` names them; the search bot ``ismcts`` searches as long
as in rated play, ``ARENA_SEARCH_MS`` a decision, so its seat's timing tells nothing), the
candidate's seat rotating; a match id
from the matches' own sequence, so the referee names it ``ladder-<id>-<hex>`` as it names every
ladder match; a seed from the system's random source, as unpredictable as the matchmaker's.
A bot on no ladder yet plays the default ladder's shape: 2 seats, :data:`TIME_CONTROL`
(``arena ladder create``'s defaults). What remains: a remote bot (it has the network) can ask
the public API about the match id (a qualification game's id has no match), and qualification
comes soon after an upload; a version that passes and then keeps forfeiting rated matches is
suspended (``ladder.suspension``).

**What fails a version** — a protocol fault of the candidate's seat in any game, read from the
replay's seat record (``referee/server/PROTOCOL.md``, "Misbehaviour"):

* a forfeit, whatever its reason: crashed, exited early, disconnected, never connected, strikes,
  flood, not reading, message too large;
* any strike: a timeout (no answer within the deadline *and* the time bank is empty — with a
  30 s bank, the default ladder's, that is a bot far too slow, not a busy machine), an answer to
  an unknown decision, an index out of range;
* any other incident the referee noted (a message that does not parse, a second hello).

Losing is no fault: a bot that plays badly but correctly qualifies. The first faulty game ends
the qualification (failed); the remaining games are not played.

**What the author reads** (:func:`game_faults`, :func:`seat_figures`): each fault says where
it happened (the step, as ``arena replay show`` numbers it; "before its first decision" when the
bot made none), the bot's own decision count (not the match's), and the sandbox limit that ended
it ("killed at its sandbox's memory limit of 512 MB"). The failed game's replay is kept
(``qualification_replays``, one per version) for its owner: ``GET /api/bots/{id}/versions/
{version_id}/qualification/replay``, ``arena bot replay NAME --qualification VERSION``, which
``arena bot status`` names.

**When the platform fails** (no executor, the sandbox cannot start, the referee errs): that is
not the bot's fault. The version goes back to ``pending`` with ``retry_after`` (30 s, then
doubling) and is tried again, up to :data:`MAX_ATTEMPTS` attempts in all; then it is ``failed``
with a reason that says so.

**Where it runs** — like a match: :func:`due_versions` lists the versions to qualify (pending
ones whose ``retry_after`` has passed, and running ones whose lease ran out: their worker died);
:func:`dispatch_due` hands them to a dispatcher. In production the beat task ``arena.sweep``
dispatches the Celery task ``arena.qualify_version`` (match queue; a Redis marker keeps a pending
version from being sent twice within ``MARKER_TTL_S``); embedded, the season loop does it with
the local pool. A claim is a conditional UPDATE (``pending`` -> ``running``, or a ``running``
one whose detail — holding the lease — is unchanged since it was read), so exactly one worker
plays a version at a time; the claimer renews its lease (``lease_expires_at`` in the detail)
every third of it, and writes its result only while it still holds it.

**Remote versions** (the bot runs on its author's machine and connects to the long-lived
referee with its bot token) qualify the same way, with the same games, faults and detail: the
candidate's seat is bound to the bot (``SeatSpec.bot_id``) and the gRPC executor plays the games
on the referee holding its stream, as it plays a remote bot's ladder matches. A remote version
starts ``pending`` with the reason :data:`ladder.bots.WAITING_FOR_CONNECTION` (detail
``waiting: "connection"``) and stays so while its bot is not connected (``connected``, default
:func:`bot_connected`: the referee executor's ``can_seat``, i.e. ``ListBots`` on
``$ARENA_REFEREE_ADDR``): :func:`due_versions` leaves it out and :func:`qualify_version` does not
claim it. Once the bot is connected the sweeper sends it like an upload. If the bot is gone when
a game starts (its seat forfeits ``never connected``), that is no verdict: the version goes back to
waiting, the attempt not counted, tried again no sooner than :data:`RETRY_SECONDS` later. A
disconnect *during* a game is a forfeit like any other: failed. Why not pass remote versions
unplayed (as before): ``passed`` said a bot had played correctly when it had never played, and
the first thing a broken remote bot did was forfeit rated games. See ``workers/README.md``,
"Qualification".

A built-in bot needs no games: it passes at once, with a reason saying why.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import REMOTE, WAITING_FOR_CONNECTION, reference_opponents
from ladder.db import write_transaction
from ladder.schema import bot_versions, bots, ladder_entries, ladders, matches, qualification_replays
from referee import settings
from referee.games import default_game, game_class, game_spec
from workers import metrics
from workers.bot_commands import BotCommandError, parse_command
from workers.executor import (
    Execution,
    ExecutorUnavailable,
    LadderMatchSpec,
    LadderTimeControl,
    MatchAborted,
    SeatSpec,
    can_seat,
    executor_for,
)
from workers.lease import LeaseThread
from workers.match_execution import default_worker_id, engine_for, lease_seconds, seat_specs

__all__ = [
    "GAMES_ENV",
    "MAX_ATTEMPTS",
    "TIME_CONTROL",
    "QualificationRun",
    "bot_connected",
    "dispatch_due",
    "due_versions",
    "game_faults",
    "qualification_games",
    "qualify_version",
    "reference_bots",
    "seat_figures",
]

log = logging.getLogger(__name__)

GAMES_ENV: Final = "ARENA_QUALIFICATION_GAMES"
DEFAULT_GAMES: Final = 2
#: the time control of qualification games for a bot on no ladder yet (``arena ladder create``'s
#: defaults); on a ladder, its own
TIME_CONTROL: Final = LadderTimeControl(decision_ms=1000, bank_ms=30_000, max_strikes=3)
#: a running qualification's lease is the match lease (``$ARENA_LEASE_SECONDS``, default 30 s:
#: workers.match_execution.lease_seconds), renewed every third of it
#: attempts before a qualification the platform could not finish is failed
MAX_ATTEMPTS: Final = 3
#: qualification games' seeds: unpredictable, as the matchmaker's are (a seed a bot could derive
#: from its version id would tell it the game it is in)
_SEEDS: Final = random.SystemRandom()
RETRY_SECONDS: Final = 30.0
#: the hardest time limit of one qualification (all its games)
MAX_SECONDS: Final = 1200.0
#: lines and characters of the bot's output kept in the detail
EXCERPT_LINES: Final = 40
EXCERPT_CHARS: Final = 4000

Status = Literal["passed", "failed", "pending", "not_claimed"]


@dataclass(frozen=True, slots=True)
class QualificationRun:
    """What one :func:`qualify_version` call did: ``passed``/``failed`` (it wrote that),
    ``pending`` (the platform failed; tried again later), ``not_claimed`` (nothing to do)."""

    version_id: int
    status: Status
    reason: str = ""


def qualification_games() -> int:
    """Games a version plays: ``$ARENA_QUALIFICATION_GAMES`` or 2 (at least 1)."""
    return settings.current().qualification_games


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def _parse_detail(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _moment(detail: Mapping[str, Any], key: str) -> datetime | None:
    value = detail.get(key)
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


# --- finding and dispatching -------------------------------------------------------------------


def bot_connected(bot_id: int) -> bool:
    """True while remote bot `bot_id` holds a stream to a long-lived referee (the referee
    executor's ``can_seat``: ``ListBots`` on ``$ARENA_REFEREE_ADDR``; False without one)."""
    return can_seat("", parse_command(REMOTE), bot_id)


def due_versions(
    engine: Engine,
    now: datetime | None = None,
    *,
    limit: int = 100,
    connected: Callable[[int], bool] | None = None,
) -> list[int]:
    """Versions to qualify now: pending (past their ``retry_after``), and running ones whose
    lease ran out (their worker died). Oldest first. A remote version is due only while its bot
    is connected (`connected`, default :func:`bot_connected`): its games need it there."""
    now = now or _now()
    connected = connected or bot_connected
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(
                bot_versions.c.id,
                bot_versions.c.bot_id,
                bot_versions.c.command,
                bot_versions.c.qualification,
                bot_versions.c.qualification_detail,
            )
            .where(bot_versions.c.qualification.in_(("pending", "running")))
            .order_by(bot_versions.c.id)
        ).all()
    due = []
    for row in rows:
        if row.command.strip() == REMOTE and not connected(int(row.bot_id)):
            continue  # waiting for its bot: nothing to play against yet
        detail = _parse_detail(row.qualification_detail)
        if row.qualification == "pending":
            retry_after = _moment(detail, "retry_after")
            if retry_after is None or retry_after <= now:
                due.append(int(row.id))
        else:
            expires = _moment(detail, "lease_expires_at")
            if expires is None or expires <= now:
                due.append(int(row.id))
        if len(due) >= limit:
            break
    return due


def dispatch_due(
    engine: Engine,
    dispatch: Callable[[int], object],
    now: datetime | None = None,
    *,
    connected: Callable[[int], bool] | None = None,
) -> list[int]:
    """Hand every due version (:func:`due_versions`) to `dispatch`; returns their ids.

    A duplicate dispatch is harmless: the claim lets one through."""
    due = due_versions(engine, now, connected=connected)
    for version_id in due:
        dispatch(version_id)
    return due


# --- claiming and the lease --------------------------------------------------------------------


def _claim(
    engine: Engine, version_id: int, worker_id: str, now: datetime
) -> tuple[dict[str, Any], str] | None:
    """Take the version (pending, or running with an expired lease); the detail written, as a
    dict and as the exact text stored (the lease is held while that text is unchanged)."""
    with write_transaction(engine) as conn:
        row = conn.execute(
            sa.select(bot_versions.c.qualification, bot_versions.c.qualification_detail).where(
                bot_versions.c.id == version_id
            )
        ).one_or_none()
    if row is None:
        return None
    old = _parse_detail(row.qualification_detail)
    if row.qualification == "running":
        expires = _moment(old, "lease_expires_at")
        if expires is not None and expires > now:
            return None
    elif row.qualification != "pending":
        return None
    attempt = int(old.get("attempt", 0)) + 1
    detail: dict[str, Any] = {
        "attempt": attempt,
        "worker": worker_id,
        "started_at": _iso(now),
        "lease_expires_at": _iso(now + timedelta(seconds=lease_seconds())),
        "games_required": qualification_games(),
        "games": [],
    }
    if old.get("platform_errors"):
        detail["platform_errors"] = old["platform_errors"]
    if row.qualification == "running":
        detail["previous_attempt"] = "its worker stopped renewing the lease (it died or hung)"
    text = json.dumps(detail, sort_keys=True)
    condition = bot_versions.c.qualification == row.qualification
    if row.qualification_detail is None:
        condition = condition & bot_versions.c.qualification_detail.is_(None)
    else:
        condition = condition & (bot_versions.c.qualification_detail == row.qualification_detail)
    with write_transaction(engine) as conn:
        changed = conn.execute(
            sa.update(bot_versions)
            .where(bot_versions.c.id == version_id, condition)
            .values(qualification="running", qualification_detail=text)
        ).rowcount
    return (detail, text) if changed == 1 else None


class _Lease(LeaseThread):
    """Holds a running qualification: renews its lease in a thread, swaps the detail under it.

    Also the executor's stop signal: ``lease lost`` once someone else holds it, ``time limit``
    after :data:`MAX_SECONDS`."""

    def __init__(self, engine: Engine, version_id: int, detail: dict[str, Any], text: str) -> None:
        super().__init__(lease_seconds(), time.monotonic() + MAX_SECONDS, name=f"qualify-{version_id}")
        self._engine = engine
        self.version_id = version_id
        self.detail = detail
        self._finished = False
        self._text = text
        self._lock = threading.Lock()

    def write(self, status: str | None = None, **changes: Any) -> bool:
        """Update the detail (and the status, if given) while the lease is held; False if lost."""
        with self._lock:
            if self._lost:
                return False
            detail = {**self.detail, **changes}
            text = json.dumps(detail, sort_keys=True)
            values: dict[str, Any] = {"qualification_detail": text}
            if status is not None:
                values["qualification"] = status
            try:
                with write_transaction(self._engine) as conn:
                    changed = conn.execute(
                        sa.update(bot_versions)
                        .where(
                            bot_versions.c.id == self.version_id,
                            bot_versions.c.qualification == "running",
                            bot_versions.c.qualification_detail == self._text,
                        )
                        .values(**values)
                    ).rowcount
            except Exception:
                log.warning("version %s: updating its qualification failed", self.version_id, exc_info=True)
                return False
            if changed != 1:
                self._lost = True
                return False
            self.detail, self._text = detail, text
            self._finished = status is not None
            return True

    def _renew(self) -> bool:
        if self._finished:  # its final status is written: nothing left to hold
            return True
        expires = _iso(_now() + timedelta(seconds=self._lease))
        if not self.write(lease_expires_at=expires) and self._lost:
            log.warning("version %s: lost its qualification lease", self.version_id)
            return False
        return True  # held, or a passing database failure (retried at the next renewal)


# --- playing -----------------------------------------------------------------------------------


def _record(execution: Execution, seat: int) -> Mapping[str, Any]:
    seats = execution.replay.get("seats") or []
    record = seats[seat] if seat < len(seats) else {}
    return record if isinstance(record, Mapping) else {}


def seat_figures(execution: Execution, seat: int) -> dict[str, Any]:
    """What `seat` itself did in a played game, from its replay: its own ``decisions`` (not the
    match's: the reference bot's count in a game it played alone was read as the candidate's),
    the ``step`` of its first fault (its forfeit, else its first default action, else the step
    of its first incident's decision; None without one) and ``killed_for``, the sandbox limit
    that ended it ("" if none did: ``referee.server.launcher.killed_for``)."""
    steps = [s for s in execution.replay.get("steps") or [] if isinstance(s, Mapping)]
    record = _record(execution, seat)
    own = [n for n, s in enumerate(steps, start=1) if "forfeit" not in s and s.get("seat") == seat]
    step = next((n for n, s in enumerate(steps, start=1) if s.get("forfeit") == seat), None)
    if step is None:
        step = next((n for n in own if steps[n - 1].get("reason")), None)
    if step is None:
        decisions = [i.get("decision") for i in record.get("incidents") or [] if isinstance(i, Mapping)]
        step = next((n for n in own for d in decisions[:1] if steps[n - 1].get("decision") == d), None)
    sandbox = record.get("sandbox")
    killed = str(sandbox.get("killed_for") or "") if isinstance(sandbox, Mapping) else ""
    return {"decisions": len(own), "step": step, "killed_for": killed}


def game_faults(execution: Execution, seat: int) -> list[str]:
    """The protocol faults of `seat` in a played game (empty: none), from its replay record; a
    forfeit says where (the step, and "before its first decision" when the bot made none) and
    the sandbox limit that ended the bot, when one did."""
    record = _record(execution, seat)
    figures = seat_figures(execution, seat)
    faults = []
    forfeit = record.get("forfeit") or next((why for s, why in execution.forfeits if s == seat), "")
    if forfeit:
        text = f"forfeited: {forfeit}"
        if figures["killed_for"]:
            text += f", killed at its sandbox's {figures['killed_for']} (workers/SANDBOX.md, Limits)"
        own = int(figures["decisions"])
        where = f"step {figures['step']}, " if figures["step"] else ""
        when = "before its first decision" if own == 0 else f"after {own} decision{'s' if own != 1 else ''}"
        faults.append(f"{text} ({where}{when})")
    strikes = int(record.get("strikes") or 0)
    if strikes:
        first = f" (the first at step {figures['step']})" if figures["step"] and not forfeit else ""
        faults.append(f"{strikes} strike{'s' if strikes != 1 else ''}{first}")
    for incident in (record.get("incidents") or [])[:5]:
        kind = incident.get("kind", "incident") if isinstance(incident, Mapping) else "incident"
        what = incident.get("detail", "") if isinstance(incident, Mapping) else str(incident)
        faults.append(f"{kind}: {what}".rstrip(": ")[:300])
    omitted = int(record.get("incidents_omitted") or 0)
    if omitted:
        faults.append(f"{omitted} more incidents")
    return faults


def _keep_replay(
    engine: Engine, version_id: int, number: int, seat: int, execution: Execution
) -> dict[str, Any]:
    """Store the failed game's replay for the version's owner (``qualification_replays``: one
    per version, the newest failure's); what the detail says of it."""
    import gzip
    import hashlib

    from referee.core.game import canonical_json
    from referee.replay import ReplayError
    from referee.replay import encode as encode_replay

    try:  # as ladder matches store theirs (workers.match_execution): format 2, else format 1
        raw = encode_replay(execution.replay)
    except ReplayError:
        raw = canonical_json(execution.replay).encode()
    data = gzip.compress(raw, mtime=0)
    row = {
        "version_id": version_id, "game": number, "seat": seat,
        "data": data, "sha256": hashlib.sha256(raw).hexdigest(), "created_at": _now(),
    }
    with write_transaction(engine) as conn:
        conn.execute(sa.delete(qualification_replays).where(qualification_replays.c.version_id == version_id))
        conn.execute(sa.insert(qualification_replays).values(row))
    return {"game": number, "seat": seat, "bytes": len(data)}


def _excerpt(execution: Execution, seat: int) -> str:
    data, truncated = execution.logs.get(seat, (b"", False))
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()[-EXCERPT_LINES:]
    excerpt = "\n".join(lines)[-EXCERPT_CHARS:]
    cut = truncated or len(lines) < len(text.splitlines()) or len(excerpt) < len("\n".join(lines))
    return ("[...]\n" if cut and excerpt else "") + excerpt


def _game_of(engine: Engine, bot_id: int) -> str:
    with engine.connect() as conn:
        game = conn.execute(sa.select(bots.c.game).where(bots.c.id == bot_id)).scalar_one_or_none()
        if not game:  # a bot from before accounts: the game of a ladder it is on
            game = conn.execute(
                sa.select(ladders.c.game)
                .join(ladder_entries, ladder_entries.c.ladder_id == ladders.c.id)
                .where(ladder_entries.c.bot_id == bot_id)
                .limit(1)
            ).scalar_one_or_none()
    # a bot on no ladder either (none can be made today): the registry's default game
    return str(game or default_game())


def reference_bots(game: str) -> tuple[str, ...]:
    """The built-in bots ``arena ladder create --reference-bots`` seats on a ladder of `game`,
    which a candidate plays in turn (``random`` for a game the registry does not know: its
    engine lookup fails next, with the known games named)."""
    try:
        return game_spec(game).reference_bots
    except KeyError:
        return ("random",)


@dataclass(frozen=True, slots=True)
class _Table:
    """Where a qualification game is played as if rated: a ladder's shape, time control and
    reference bots (the ladder the candidate's bot is on), or the default ladder's."""

    ladder_id: int
    kind: str
    players: int
    time_control: LadderTimeControl
    #: the ladder's reference bots (their seats: names and versions as in its rated matches)
    references: tuple[SeatSpec, ...]
    #: the engine version the ladder plays ("": the game's current one)
    engine_version: str = ""


def _tables(engine: Engine, bot_id: int, game: str) -> list[_Table]:
    """The ladders the candidate's bot is on (the matchmaker's and campaign ladders, by id), or
    the default ladder's shape (2 seats, :data:`TIME_CONTROL`) when it is on none yet; each
    with its reference bots."""
    from ladder.bots import REFERENCE_OWNER
    from ladder.suspension import matchmaker_ladders

    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(ladders)
            .join(ladder_entries, ladder_entries.c.ladder_id == ladders.c.id)
            .where(
                ladder_entries.c.bot_id == bot_id,
                ladders.c.game == game,
                sa.or_(ladders.c.id.in_(matchmaker_ladders()), ladders.c.kind == "campaign"),
            )
            .order_by(ladders.c.id)
        ).all()
        tables = []
        for row in rows:
            newest: dict[int, int] = {}
            for ref in conn.execute(
                sa.select(bot_versions.c.id, bot_versions.c.bot_id)
                .join(bots, bots.c.id == bot_versions.c.bot_id)
                .join(ladder_entries, ladder_entries.c.bot_id == bots.c.id)
                .where(
                    ladder_entries.c.ladder_id == row.id,
                    # on a ladder with divisions, those of the bottom one, where a new bot
                    # starts (a higher division's boss is what it works up to)
                    ladder_entries.c.division == 0,
                    bots.c.owner == REFERENCE_OWNER,
                    bots.c.account_id.is_(None),
                    bot_versions.c.command.startswith("builtin:"),
                    bot_versions.c.qualification == "passed",
                )
            ):
                newest[int(ref.bot_id)] = max(int(ref.id), newest.get(int(ref.bot_id), 0))
            references = seat_specs(conn, [newest[b] for b in sorted(newest)]) if newest else ()
            tables.append(
                _Table(
                    ladder_id=int(row.id),
                    kind=str(row.kind),
                    players=int(row.players),
                    time_control=LadderTimeControl(
                        row.decision_ms, row.bank_ms, row.max_strikes, row.cpu_decision_ms, row.cpu_bank_ms
                    ),
                    references=tuple(references),
                    engine_version=str(row.engine_version or ""),
                )
            )
    return tables or [_Table(0, "ffa", 2, TIME_CONTROL, ())]


def _opponents(table: _Table, game: str, number: int) -> list[SeatSpec]:
    """The `players - 1` opponents of game `number` (0-based) at `table`: its reference bots,
    rotated by the game's number; short of them, built-in reference bots named as ``arena
    ladder create --reference-bots`` names them (``reference-<game>-<strategy>``)."""
    wanted = table.players - 1
    pool = list(table.references)
    if len(pool) < wanted:
        taken = {s.bot_name for s in pool}
        for name, strategy in _reference_names(game, table.players + len(pool)):
            if name not in taken:
                pool.append(
                    SeatSpec(
                        seat=0, bot_id=0, bot_name=name, version_id=0, version="1",
                        command=parse_command(f"builtin:{strategy}"),
                    )
                )
    start = number % len(pool)
    return (pool[start:] + pool[:start])[:wanted]


def _reference_names(game: str, players: int) -> list[tuple[str, str]]:
    from ladder.bots import reference_bot_names

    return reference_bot_names(game, players, reference_bots(game))


def _match_id(engine: Engine) -> int:
    """An id from the ladder matches' own sequence, so a qualification game's match id
    (``ladder-<id>-<hex>``, as the referee names a ladder match) is one a rated match could have.
    PostgreSQL: the next value of ``matches.id``'s sequence (never used by a match after it);
    SQLite: the next id (a later match may take it: an embedded database has no sequence)."""
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            query = sa.text("SELECT nextval(pg_get_serial_sequence('matches', 'id'))")
            reserved = int(conn.execute(query).scalar_one())
            conn.commit()
            return reserved
        return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(matches.c.id), 0) + 1)).scalar_one())


def _config(game: str, table: _Table) -> dict[str, Any]:
    """A game's config as a rated match at `table` has it: the default for its seats; on a
    campaign ladder, a new campaign's first game (as ``arena beat`` starts them)."""
    if table.kind == "campaign":
        rules = game_spec(game).campaign_state_rules()
        names = rules.default_names(table.players)
        return {"players": table.players, "campaign": rules.new_state(table.players, names)}
    return dict(game_class(game, table.engine_version or None).default_config(table.players))


def _specs(engine: Engine, version_id: int, games: int) -> list[tuple[LadderMatchSpec, int, str]]:
    """The qualification games: (spec, the candidate's seat, its opponents as the report names
    them). Each game looks to the bot like a rated match of a ladder its bot is on (in turn):
    that ladder's seats, time control, config and reference bots (their names), a match id from
    the matches' sequence and a random seed; see the module docstring."""
    with engine.connect() as conn:
        (candidate,) = seat_specs(conn, [version_id])
    game = _game_of(engine, candidate.bot_id)
    tables = _tables(engine, candidate.bot_id, game)
    planned = []
    for i in range(games):
        table = tables[i % len(tables)]
        seat = i % table.players
        others = _opponents(table, game, i)
        order = [*others[:seat], candidate, *others[seat:]]
        seats = tuple(dataclasses.replace(s, seat=n) for n, s in enumerate(order))
        spec = LadderMatchSpec(
            match_id=_match_id(engine),
            ladder_id=table.ladder_id,
            game=game,
            config=_config(game, table),
            seed=_SEEDS.randrange(2**62),
            time_control=table.time_control,
            seats=seats,
            engine_version=table.engine_version,
        )
        opponents = ", ".join(str(o.command.raw) for o in others)
        planned.append((spec, seat, opponents))
    return planned


def _remote_bot(engine: Engine, version_id: int) -> int | None:
    """The bot id of a remote version (None: not remote, or no such version)."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(bot_versions.c.bot_id, bot_versions.c.command).where(bot_versions.c.id == version_id)
        ).one_or_none()
    return int(row.bot_id) if row is not None and row.command.strip() == REMOTE else None


def _instant_pass(engine: Engine, version_id: int) -> str | None:
    """Why a version passes without games (a built-in bot), or None if it must play (hosted
    and remote versions alike)."""
    with engine.connect() as conn:
        command = conn.execute(
            sa.select(bot_versions.c.command).where(bot_versions.c.id == version_id)
        ).scalar_one_or_none()
    try:
        kind = parse_command(command or "").kind
    except BotCommandError:
        return None
    if kind == "builtin":
        return "a built-in reference bot: no qualification games"
    return None


def qualify_version(
    db_url: str,
    version_id: int,
    worker_id: str | None = None,
    *,
    games: int | None = None,
    connected: Callable[[int], bool] | None = None,
) -> QualificationRun:
    """Claim version `version_id` and qualify it (see the module docstring); at most one
    worker at a time. A remote version whose bot is not connected (`connected`, default
    :func:`bot_connected`) is left waiting, unclaimed. Nothing the bot does makes it raise; a
    database error does."""
    worker_id = worker_id or default_worker_id()
    engine = engine_for(db_url)
    remote_bot = _remote_bot(engine, version_id)
    if remote_bot is not None and not (connected or bot_connected)(remote_bot):
        return QualificationRun(version_id, "not_claimed", WAITING_FOR_CONNECTION)
    claimed = _claim(engine, version_id, worker_id, _now())
    if claimed is None:
        return QualificationRun(version_id, "not_claimed")
    detail, text = claimed
    games = games or qualification_games()
    with _Lease(engine, version_id, detail, text) as lease:
        if int(detail["attempt"]) > MAX_ATTEMPTS:
            reason = (
                f"qualification did not finish in {MAX_ATTEMPTS} attempts: their workers stopped "
                "(killed, or hung past their lease)"
            )
            lease.write("failed", reason=reason, finished_at=_iso(_now()), lease_expires_at=None)
            return QualificationRun(version_id, "failed", reason)
        instant = _instant_pass(engine, version_id)
        if instant is not None:
            lease.write("passed", reason=instant, finished_at=_iso(_now()), lease_expires_at=None)
            return QualificationRun(version_id, "passed", instant)
        played: list[dict[str, Any]] = []
        game = "unknown"
        try:
            planned = _specs(engine, version_id, games)
            game = planned[0][0].game
            for number, (spec, seat, reference) in enumerate(planned, start=1):
                started = time.monotonic()
                execution = executor_for(spec).execute(spec, lease)
                if remote_bot is not None and _never_connected(execution, seat):
                    return _back_to_waiting(lease, number, games)
                faults = game_faults(execution, seat)
                played.append(
                    {
                        "game": number,
                        "opponent": reference,
                        "seat": seat,
                        "seed": spec.seed,
                        "outcome": execution.result.outcomes[seat],
                        "place": execution.result.places[seat],
                        "decisions": execution.decisions,
                        "seconds": round(time.monotonic() - started, 2),
                        "faults": faults,
                    }
                )
                played[-1].update(seat_figures(execution, seat))  # its own, not the match's
                if faults:
                    reason = f"game {number} of {games}: {'; '.join(faults)}"
                    kept = _keep_replay(engine, version_id, number, seat, execution)
                    lease.write(
                        "failed", games=played, reason=reason, log_excerpt=_excerpt(execution, seat),
                        finished_at=_iso(_now()), lease_expires_at=None, replay=kept,
                    )
                    metrics.QUALIFICATIONS.labels(game=game, outcome="failed").inc()
                    return QualificationRun(version_id, "failed", reason)
                lease.write(games=played)
            plural = "s" if games != 1 else ""
            against = reference_opponents(len(spec.seats) for spec, _seat, _ref in planned)
            reason = f"played {games} game{plural} against {against} without a fault"
            lease.write(
                "passed", games=played, reason=reason, log_excerpt=_excerpt(execution, seat),
                finished_at=_iso(_now()), lease_expires_at=None,
            )
            metrics.QUALIFICATIONS.labels(game=game, outcome="passed").inc()
            return QualificationRun(version_id, "passed", reason)
        except MatchAborted as exc:
            if lease.lost:
                return QualificationRun(version_id, "not_claimed", f"lease lost: {exc}")
            error = f"stopped: {exc}"
        except (ExecutorUnavailable, LookupError, ValueError, BotCommandError) as exc:
            error = f"{type(exc).__name__}: {exc}"
        except Exception as exc:
            log.exception("version %s: qualification failed on the platform's side", version_id)
            error = f"{type(exc).__name__}: {exc}"
        run = _platform_failure(lease, played, error)
        outcome = "retry" if run.status == "pending" else "failed"
        metrics.QUALIFICATIONS.labels(game=game, outcome=outcome).inc()
        return run


def _never_connected(execution: Execution, seat: int) -> bool:
    """True if `seat` was forfeited because its bot never came (referee ruling ``never
    connected``): a remote bot that left between its dispatch and the game."""
    seats = execution.replay.get("seats") or []
    record: Mapping[str, Any] = seats[seat] if seat < len(seats) else {}
    from referee.server.rulings import ForfeitKind  # (gRPC: loaded when a game was played)

    why = str(record.get("forfeit") or next((w for s, w in execution.forfeits if s == seat), ""))
    return ForfeitKind.of(why) is ForfeitKind.NEVER_CONNECTED


def _back_to_waiting(lease: _Lease, number: int, games: int) -> QualificationRun:
    """A remote bot gone before game `number`: no verdict; pending again, waiting for it to
    connect, this attempt not counted, not due before :data:`RETRY_SECONDS`."""
    reason = (
        f"the bot was not connected when qualification game {number} of {games} began; "
        + WAITING_FOR_CONNECTION
    )
    retry_after = _now() + timedelta(seconds=RETRY_SECONDS)
    lease.write(
        "pending", games=[], reason=reason, waiting="connection",
        attempt=max(0, int(lease.detail.get("attempt", 1)) - 1),
        retry_after=_iso(retry_after), lease_expires_at=None,
    )
    return QualificationRun(lease.version_id, "pending", reason)


def _platform_failure(lease: _Lease, played: Sequence[dict[str, Any]], error: str) -> QualificationRun:
    """Not the bot's fault: back to pending for a later attempt, or failed after MAX_ATTEMPTS."""
    attempt = int(lease.detail.get("attempt", 1))
    errors = [*lease.detail.get("platform_errors", []), error[:500]][-MAX_ATTEMPTS:]
    if attempt >= MAX_ATTEMPTS:
        reason = (
            f"the platform could not play the qualification games in {attempt} attempts "
            f"(last: {error[:300]}); this is not your bot's fault: upload it again later"
        )
        lease.write("failed", games=list(played), reason=reason, platform_errors=errors,
                    finished_at=_iso(_now()), lease_expires_at=None)
        return QualificationRun(lease.version_id, "failed", reason)
    retry_after = _now() + timedelta(seconds=RETRY_SECONDS * 2 ** (attempt - 1))
    reason = f"attempt {attempt} could not be played ({error[:300]}); retrying after {_iso(retry_after)}"
    lease.write("pending", games=list(played), reason=reason, platform_errors=errors,
                retry_after=_iso(retry_after), lease_expires_at=None)
    return QualificationRun(lease.version_id, "pending", reason)

