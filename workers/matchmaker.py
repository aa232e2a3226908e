"""Matchmaking: keeps every ladder's queue at a target depth with sensible pairings.

:func:`plan_matches` is the pairing logic, pure (no I/O; randomness from the `rng` passed in):

* **placement first** — a bot with fewer than :data:`PLACEMENT_GAMES` games (played plus already
  queued) anchors the next match, so a newcomer gets its first games at once; its provisional K
  (``ladder/RATINGS.md``) then moves it to its level fast. Otherwise the bot with the fewest
  of the recent matches (history window plus queue) anchors, so play spreads evenly;
* **close ratings** — the anchor's opponents are the bots nearest its rating, with
  :data:`RATING_JITTER` points of noise so the same neighbours do not always meet, and
  :data:`LOAD_WEIGHT` points per recent match more than the anchor has had;
* **no immediate rematch** — a bot that was in the anchor's last match (or whose last match
  had the anchor) is taken only when nobody else is left;
* **seat rotation** — seats go to the permutation that puts each bot where it sat least often
  in the recent history (first-player advantage evens out);
* **one referee per match** — a remote bot plays on the referee that holds its stream
  (`Entrant.site`, from ``GrpcMatchExecutor.referee_of``); with several referees, remote bots
  on different ones are never seated together (no referee could run that match). Hosted and
  built-in bots have no site and go anywhere;
* **within a division** — on a ladder with divisions (``ladder.divisions``), an anchor's
  opponents are bots of its own division, or across a border only the overlap
  (:func:`ladder.divisions.may_meet`: the :data:`~ladder.divisions.DIVISION_OVERLAP` best of a
  division and as many lowest of the next); a table of more seats fills from the anchor's reach.
  Only a table that cannot be filled within it at all takes the nearest others (a bot is never
  left with no game); before each pass, bots rated above their division's boss move up
  (:func:`ladder.divisions.promote_past_bosses`);
* **never reference bots alone** — a ladder's reference bots (``arena ladder create
  --reference-bots``, owner :data:`ladder.bots.REFERENCE_OWNER`) are opponents, never a match's
  anchor: every match seats at least one other bot, and a ladder nobody has joined yet plays
  nothing (two fixed built-ins meeting again and again only fill the database).

:func:`fill_queues` does the I/O: reads each ladder's entrants and recent matches, plans enough
matches to bring the ladder's queue to its target (:func:`queue_target`: `target_depth`, and
never fewer queued than running), enqueues them and hands each id to `dispatch` (the Celery task
or the local pool); before planning, it suspends the versions that keep forfeiting their
rated matches (``ladder.suspension``: 3 of their last 5). A bot version is seated only if it
passed its qualification (``workers.qualification``; versions from before uploads count as
passed), is not suspended, and
``workers.executor.can_seat`` says so (built-in bots always; hosted and remote bots once the
gRPC referee executor is there, remote ones only while connected), and each bot plays its
newest seatable version.
"""

from __future__ import annotations

import itertools
import logging
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

from ladder.bots import REFERENCE_OWNER
from ladder.divisions import DIVISION_OVERLAP, may_meet, promote_past_bosses
from ladder.formats import rotations
from ladder.match_queue import enqueue_match
from ladder.schema import bot_versions, bots, campaigns, competitions, ladder_entries, ladders, matches
from ladder.suspension import suspend_forfeiting_versions
from referee import settings
from workers import metrics
from workers.bot_commands import BotCommandError, parse_command
from workers.executor import can_seat, referee_executor

__all__ = [
    "DEFAULT_QUEUE_DEPTH",
    "DUPLICATE_SETS_ENV",
    "HISTORY_WINDOW",
    "LOAD_WEIGHT",
    "PLACEMENT_GAMES",
    "QUEUE_DEPTH_ENV",
    "RATING_JITTER",
    "Entrant",
    "LadderField",
    "LadderView",
    "PlannedMatch",
    "fill_queues",
    "load_entrants",
    "load_ladder_views",
    "plan_matches",
    "queue_depth",
    "queue_target",
]

log = logging.getLogger(__name__)

#: games (played or queued) under which a bot is still in placement and anchors matches first
PLACEMENT_GAMES: Final = 5
#: rating points of noise in "closest opponent", so pairings vary among near neighbours
RATING_JITTER: Final = 100.0
#: rating points an opponent "costs" per recent match it has had more than the anchor
LOAD_WEIGHT: Final = 50.0
#: matches per ladder the matchmaker looks back at for seats and rematches
HISTORY_WINDOW: Final = 200
QUEUE_DEPTH_ENV: Final = "ARENA_QUEUE_DEPTH"
#: queued matches the matchmaker keeps on each ladder (at least the number of worker processes)
DEFAULT_QUEUE_DEPTH: Final = 8
# an added distance that makes a rematch the last resort
_REMATCH_PENALTY: Final = 1e6
# larger still: an opponent outside the anchor's division and its overlap, taken only when the
# table cannot be filled from within (before a rematch inside is given up)
_DIVISION_PENALTY: Final = 1e9


#: "1": the matchmaker plans duplicate sets (one seed, every cyclic seat rotation) instead of games
DUPLICATE_SETS_ENV: Final = "ARENA_DUPLICATE_SETS"


def queue_depth() -> int:
    """The target queue depth per ladder: ``$ARENA_QUEUE_DEPTH`` or the default."""
    return settings.current().queue_depth


def queue_target(depth: int, running: int) -> int:
    """Queued matches to keep on a ladder with `running` matches in play: `depth`, and at least
    one per running match; none when `depth` is 0 (the queue is being drained).

    Each running match is a busy worker process, so every busy worker finds its next match
    waiting when it finishes, however many worker processes there are (a fixed depth below
    their number left the rest idle until the next refill). An idle worker takes a queued
    match at once, so once the queue is non-empty no worker process starves.
    """
    if depth <= 0:
        return 0
    return max(depth, running)


@dataclass(frozen=True, slots=True)
class Entrant:
    """A bot on a ladder, with the version it plays and its standing."""

    bot_id: int
    version_id: int
    rating: float
    games: int
    #: the referee holding a remote bot's stream (None: hosted or built-in, seated anywhere)
    site: str | None = None
    #: a reference bot (`ladder.bots.REFERENCE_OWNER`): an opponent for the others, never a
    #: match's reason to be made (a table of reference bots only tells nobody anything)
    reference: bool = False
    #: its division's position on a ladder with divisions (0: the bottom one, or no divisions)
    division: int = 0


@dataclass(frozen=True, slots=True)
class PlannedMatch:
    """A match to enqueue: bot ids and their version ids in seat order, and the game seed."""

    bots: tuple[int, ...]
    versions: tuple[int, ...]
    seed: int


@dataclass
class _Plan:
    """The matchmaker's running picture while it plans a batch."""

    load: Counter[int]
    last_with: dict[int, frozenset[int]]
    seat_counts: defaultdict[int, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))

    def remember(self, seated: Sequence[int]) -> None:
        """A match from the history: seats and company, not load (pending counts that)."""
        for seat, bot in enumerate(seated):
            self.seat_counts[bot][seat] += 1
            self.last_with[bot] = frozenset(seated) - {bot}

    def note(self, seated: Sequence[int]) -> None:
        """A match just planned."""
        self.remember(seated)
        self.load.update(seated)


def plan_matches(
    entrants: Sequence[Entrant],
    players: int,
    count: int,
    rng: random.Random,
    *,
    history: Sequence[Sequence[int]] = (),
    pending: Mapping[int, int] | None = None,
    placement_games: int = PLACEMENT_GAMES,
    overlap: int = DIVISION_OVERLAP,
) -> list[PlannedMatch]:
    """Plan `count` matches of `players` seats among `entrants`.

    `history` holds recent matches (bot ids in seat order, oldest first, queued ones included);
    `pending` the number of queued or running matches per bot. Returns fewer matches (none)
    when there are fewer entrants than seats. Every match is made around an entrant that is not
    a reference bot: a ladder of reference bots only (no bot has joined it yet) stays quiet.
    Opponents come from the anchor's division and the `overlap` at its borders (module
    docstring).
    """
    by_bot = {e.bot_id: e for e in entrants}
    if len(by_bot) < players or count <= 0:
        return []
    pending = pending or {}
    # load: this bot's share of the recent matches (history and queue), so play spreads evenly
    plan = _Plan(load=Counter({b: 0 for b in by_bot}), last_with={})
    for past in history:
        plan.remember(past)
        plan.load.update(b for b in past if b in by_bot)
    placed = {b: e.games + pending.get(b, 0) for b, e in by_bot.items()}
    reach = may_meet(
        {b: e.division for b, e in by_bot.items()},
        {b: e.rating for b, e in by_bot.items()},
        {b: e.reference for b, e in by_bot.items()},
        overlap=overlap,
    )
    planned = []
    #: anchors with no full table on their referee: not tried again in this batch
    stranded: set[int] = set()
    for _ in range(count):
        candidates = [b for b in by_bot if b not in stranded and not by_bot[b].reference]
        if not candidates:
            break
        anchor = min(
            candidates,
            key=lambda b: (placed[b] >= placement_games, plan.load[b], rng.random()),
        )
        last = plan.last_with
        avoid = {b for b in by_bot if b in last.get(anchor, ()) or anchor in last.get(b, ())}
        rating = by_bot[anchor].rating
        score = {
            b: abs(by_bot[b].rating - rating)
            + rng.uniform(0, RATING_JITTER)
            + LOAD_WEIGHT * max(0, plan.load[b] - plan.load[anchor])
            + (_REMATCH_PENALTY if b in avoid else 0.0)
            + (0.0 if b in reach[anchor] else _DIVISION_PENALTY)
            for b in sorted(by_bot)
            if b != anchor
        }
        others = _same_site(anchor, sorted(score, key=score.__getitem__), by_bot, players - 1)
        if len(others) < players - 1:  # no full table on the anchor's referee: it waits a turn
            stranded.add(anchor)
            continue
        seated = _rotate_seats([anchor, *others], plan.seat_counts, rng)
        plan.note(seated)
        for bot in seated:
            placed[bot] += 1
        planned.append(
            PlannedMatch(
                bots=tuple(seated),
                versions=tuple(by_bot[b].version_id for b in seated),
                seed=rng.randrange(2**62),
            )
        )
    return planned


def _same_site(
    anchor: int, candidates: Sequence[int], by_bot: Mapping[int, Entrant], wanted: int
) -> list[int]:
    """The first `wanted` of `candidates` (best first) that can share a referee with `anchor`:
    at most one site (a remote bot's referee) among them all."""
    site = by_bot[anchor].site
    chosen: list[int] = []
    for bot in candidates:
        if len(chosen) == wanted:
            break
        other = by_bot[bot].site
        if other is not None and site is not None and other != site:
            continue
        site = site or other
        chosen.append(bot)
    return chosen


def _rotate_seats(
    group: Sequence[int], seat_counts: Mapping[int, Counter[int]], rng: random.Random
) -> list[int]:
    """The seat order putting each bot where it sat least often (ties broken at random)."""
    orders = list(itertools.permutations(group))
    rng.shuffle(orders)
    best = min(orders, key=lambda order: sum(seat_counts[b][s] for s, b in enumerate(order)))
    return list(best)


# --- database side ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LadderView:
    """What the matchmaker reads about one ladder."""

    ladder_id: int
    name: str
    game: str
    players: int
    entrants: tuple[Entrant, ...]
    queued: int
    pending: Mapping[int, int]
    history: tuple[tuple[int, ...], ...]
    #: matches in play (claimed by a worker), however old
    running: int = 0


def _seatable_versions(
    rows: Iterable[Any], game: str, seatable: Callable[[str, str, int], bool]
) -> dict[int, int]:
    """bot id -> its newest version that can be seated now (rows: id, bot_id, command)."""
    newest: dict[int, int] = {}
    for row in rows:
        if row.id > newest.get(row.bot_id, -1) and seatable(game, row.command, row.bot_id):
            newest[row.bot_id] = row.id
    return newest


def _default_site(command: str, bot_id: int) -> str | None:
    """A remote bot's referee (the executor's ``referee_of``); None for anything else."""
    if command.strip() != "remote":
        return None
    referee_of: Callable[[int], str | None] | None = getattr(referee_executor(), "referee_of", None)
    return None if referee_of is None else referee_of(bot_id)


def _default_seatable(game: str, command: str, bot_id: int) -> bool:
    try:
        return can_seat(game, parse_command(command), bot_id)
    except BotCommandError:
        return False


@dataclass(frozen=True, slots=True)
class LadderField:
    """The bots a ladder may seat now, and the bot of each of their versions."""

    entrants: tuple[Entrant, ...]
    #: version id -> bot id, for every version of the ladder's bots (seatable or not): old
    #: matches and campaigns name versions
    bot_of_version: Mapping[int, int]


def load_entrants(
    conn: Connection,
    ladder_id: int,
    game: str,
    *,
    seatable: Callable[[str, str, int], bool] = _default_seatable,
    site_of: Callable[[str, int], str | None] = _default_site,
) -> LadderField:
    """The ladder's entrants as the matchmaker seats them: each bot on it with its newest
    version that passed qualification and can be seated now (`seatable`), its rating and games
    there, its referee (`site_of`, remote bots) and whether it is a reference bot. Campaign
    ladders (``workers.campaign_ladders``) seat their campaigns from the same field."""
    entries = conn.execute(
        sa.select(
            ladder_entries.c.bot_id,
            ladder_entries.c.rating,
            ladder_entries.c.games,
            ladder_entries.c.division,
            # made by the operator's tool, never through an account (an account
            # named like the owner does not make its bots reference bots)
            sa.and_(bots.c.owner == REFERENCE_OWNER, bots.c.account_id.is_(None)).label("reference"),
        )
        .join(bots, bots.c.id == ladder_entries.c.bot_id)
        .where(ladder_entries.c.ladder_id == ladder_id)
    ).all()
    bot_ids = [e.bot_id for e in entries]
    version_rows = conn.execute(
        sa.select(
            bot_versions.c.id,
            bot_versions.c.bot_id,
            bot_versions.c.command,
            bot_versions.c.qualification,
            bot_versions.c.suspended_at,
        ).where(bot_versions.c.bot_id.in_(bot_ids))
    ).all()
    # only qualified versions play (workers.qualification): a pending or failed upload
    # leaves its bot on the newest version that passed, or out of the pairings; so does a
    # version suspended for its forfeits (ladder.suspension): its bot falls back to its last
    # good version
    newest = _seatable_versions(
        [row for row in version_rows if row.qualification == "passed" and row.suspended_at is None],
        game,
        seatable,
    )
    command_of = {row.id: row.command for row in version_rows}
    entrants = tuple(
        Entrant(
            e.bot_id,
            newest[e.bot_id],
            float(e.rating),
            e.games,
            site_of(command_of[newest[e.bot_id]], e.bot_id),
            reference=bool(e.reference),
            division=int(e.division),
        )
        for e in entries
        if e.bot_id in newest
    )
    return LadderField(entrants, {row.id: row.bot_id for row in version_rows})


def load_ladder_views(
    engine: Engine,
    ladder_ids: Iterable[int] | None = None,
    *,
    seatable: Callable[[str, str, int], bool] = _default_seatable,
    site_of: Callable[[str, int], str | None] = _default_site,
) -> list[LadderView]:
    """Each ladder's entrants (bots with a seatable version), queue and recent history."""
    views = []
    with engine.connect() as conn:
        # a competition's (or campaign's) own ladder plays only the games it schedules; a
        # campaign ladder rates whole campaigns, never single games (workers.campaign_ladders
        # starts its campaigns, seated with load_entrants and plan_matches)
        query = (
            sa.select(ladders)
            .where(
                ladders.c.id.not_in(sa.select(competitions.c.ladder_id)),
                ladders.c.id.not_in(sa.select(campaigns.c.ladder_id)),
                ladders.c.kind != "campaign",
            )
            .order_by(ladders.c.id)
        )
        if ladder_ids is not None:
            query = query.where(ladders.c.id.in_(list(ladder_ids)))
        for ladder in conn.execute(query).all():
            field = load_entrants(conn, ladder.id, ladder.game, seatable=seatable, site_of=site_of)
            bot_of_version = field.bot_of_version
            recent = conn.execute(
                sa.select(matches.c.seats, matches.c.status)
                .where(matches.c.ladder_id == ladder.id)
                .order_by(matches.c.id.desc())
                .limit(HISTORY_WINDOW)
            ).all()
            pending: Counter[int] = Counter()
            in_flight: dict[str, int] = {
                str(status): int(n)
                for status, n in conn.execute(
                    sa.select(matches.c.status, sa.func.count())
                    .where(
                        matches.c.ladder_id == ladder.id,
                        matches.c.status.in_(("queued", "running")),
                    )
                    .group_by(matches.c.status)
                ).all()
            }
            for past in recent:
                if past.status in ("queued", "running"):
                    pending.update(bot_of_version.get(int(v), -1) for v in past.seats)
            history = tuple(
                tuple(bot_of_version.get(int(v), -1) for v in past.seats) for past in reversed(recent)
            )
            views.append(
                LadderView(
                    ladder_id=ladder.id,
                    name=ladder.name,
                    game=ladder.game,
                    players=ladder.players,
                    entrants=field.entrants,
                    queued=in_flight.get("queued", 0),
                    pending=dict(pending),
                    history=history,
                    running=in_flight.get("running", 0),
                )
            )
    return views


def _matchmaker_lock(engine: Engine) -> Callable[[], None] | None:
    """On PostgreSQL, a session advisory lock so two matchmakers never overfill a queue.

    Returns the release function, or None if another matchmaker holds the lock. SQLite needs
    none (the embedded matchmaker is one loop in one process).
    """
    if engine.dialect.name != "postgresql":
        return lambda: None
    conn = engine.connect()
    key = 0x4172656E61  # "Arena"
    try:
        locked = conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar_one()
    except BaseException:
        conn.close()
        raise
    if not locked:
        conn.close()
        return None

    def release() -> None:
        # if the server went away the session (and its lock) is gone with it: the unlock then
        # raises the database's error, and the connection is closed all the same
        try:
            conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": key})
            conn.commit()
        finally:
            conn.close()

    return release


def fill_queues(
    engine: Engine,
    dispatch: Callable[[int], object],
    *,
    target_depth: int | None = None,
    limit: int | None = None,
    ladder_ids: Iterable[int] | None = None,
    rng: random.Random | None = None,
) -> list[int]:
    """Enqueue matches until each ladder has its target queued; dispatch each new match.

    The target is `target_depth` (default :func:`queue_depth`), raised to the number of the
    ladder's running matches (:func:`queue_target`). `limit` caps the matches created by this
    call (all ladders together). Returns the new match ids, in creation order.
    """
    depth = queue_depth() if target_depth is None else target_depth
    duplicate = settings.current().duplicate_sets
    rng = rng or random.Random()
    release = _matchmaker_lock(engine)
    if release is None:
        return []
    created: list[int] = []
    try:
        # first, versions that keep forfeiting their rated matches leave the pairings (and
        # their queued matches the queue): their bots play their last good versions
        for version_id in suspend_forfeiting_versions(engine):
            log.warning("version %s suspended from matchmaking: it keeps forfeiting", version_id)
        # then bots rated above their division's boss move up, before they are paired
        ids = None if ladder_ids is None else list(ladder_ids)
        for up in promote_past_bosses(engine, ids):
            log.info("ladder %s: bot %s promoted to %s", up.ladder_id, up.bot_id, up.to_name)
        for view in load_ladder_views(engine, ids):
            metrics.QUEUE_DEPTH.labels(ladder=view.name).set(view.queued)
            want = queue_target(depth, view.running) - view.queued
            if limit is not None:
                want = min(want, limit - len(created))
            planned = plan_matches(
                view.entrants,
                view.players,
                want,
                rng,
                history=view.history,
                pending=view.pending,
            )
            for match in planned:
                # $ARENA_DUPLICATE_SETS=1: each pairing is a duplicate set, its seed played once per
                # cyclic rotation of the seats (ladder.formats), so the luck of the deal cancels
                seatings = rotations(match.versions) if duplicate else [match.versions]
                for seats in seatings:
                    match_id = enqueue_match(engine, view.ladder_id, seats, match.seed)
                    created.append(match_id)
                    dispatch(match_id)
            if planned:
                metrics.QUEUE_DEPTH.labels(ladder=view.name).set(
                    view.queued + len(planned) * (view.players if duplicate else 1)
                )
    finally:
        release()
    return created
