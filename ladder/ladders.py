"""Ladders and who is on them.

A ladder is one game at one table size with one time control; each bot on it has a row in
``ladder_entries`` holding its rating there (starting at its rating policy's initial rating,
:mod:`ladder.rating_policy`).
A ladder's ``kind`` says how results are rated: ``"ffa"`` (free-for-all, pairwise Elo),
``"coop"`` (a cooperative game: the team plays a rated scenario, see :mod:`ladder.coop_rating`)
or ``"campaign"`` (Clank! Legacy: each finished campaign is rated once by its campaign totals,
see :mod:`ladder.campaigns`; the matchmaker plays no single games on it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy import Connection, Engine
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from ladder.errors import Conflict, InvalidInput, NotFound
from ladder.rating_policy import DEFAULT_POLICY, POLICY_COLUMNS, RatingPolicy, policy_of
from ladder.scenarios import check_coop_game, coop_games
from ladder.schema import LADDER_KINDS, bots, ladder_entries, ladders
from referee.games import all_specs

__all__ = ["Upgrade", "create_ladder", "ensure_entries", "join_ladder", "ladder_policy", "upgrade_ladder"]


def create_ladder(
    engine: Engine,
    name: str,
    game: str,
    players: int,
    *,
    decision_ms: int,
    bank_ms: int,
    max_strikes: int,
    kind: str = "ffa",
    cpu_decision_ms: int = 0,
    cpu_bank_ms: int = 0,
    policy: RatingPolicy = DEFAULT_POLICY,
    now: datetime | None = None,
) -> int:
    """Create a ladder and return its id.

    `decision_ms` is the per-decision deadline, `bank_ms` the per-match time bank and
    `max_strikes` the missed deadlines a seat may have before it forfeits. `kind` is "ffa"
    (free-for-all), "coop" (a team ladder of a cooperative game, e.g. "alien") or "campaign"
    (a campaign game, one whose spec says ``campaign``: clank_legacy; it rates whole campaigns,
    ``ladder.campaigns.rate_campaign``, and is the only kind such a game's ladders may have).
    `cpu_decision_ms` / `cpu_bank_ms` turn on the CPU clock for hosted (sandboxed) bots: each
    decision's CPU time against that allowance, then the CPU bank (0: off). `policy` is how it
    rates (K-factors, starting rating, interval: :class:`ladder.rating_policy.RatingPolicy`).
    Raises InvalidInput for impossible values, Conflict if the name is taken.
    """
    if kind not in LADDER_KINDS:
        raise InvalidInput(f"kind: one of {', '.join(LADDER_KINDS)}, got {kind!r}")
    if players < 2:
        what = "a team ladder (solo play is not laddered)" if kind == "coop" else "a free-for-all ladder"
        raise InvalidInput(f"players: {what} needs at least 2")
    if kind == "coop":
        check_coop_game(game, players)
    elif kind == "campaign":
        if not _is_campaign_game(game):
            names = ", ".join(s.name for s in all_specs() if s.campaign) or "no game"
            raise InvalidInput(f"kind: campaign ladders are for {names}, not {game!r}")
        spec = next(s for s in all_specs() if s.name == game)
        if not spec.min_players <= players <= spec.max_players:
            raise InvalidInput(
                f"players: {game} is for {spec.min_players} to {spec.max_players} players, got {players}"
            )
    elif game in coop_games():
        raise InvalidInput(f"kind: {game} is cooperative, its ladders are kind 'coop'")
    elif _is_campaign_game(game):
        # a game of a campaign game is played from the campaign state before it; the matchmaker
        # would play every match as a fresh campaign's first game, so a free-for-all ladder of
        # it would rate something that is not the game (`arena campaign run --ladder` is)
        raise InvalidInput(f"kind: {game} is played in campaigns, its ladders are kind 'campaign'")
    if decision_ms <= 0 or bank_ms < 0 or max_strikes < 0:
        raise InvalidInput("time control: decision_ms > 0, bank_ms >= 0, max_strikes >= 0")
    if cpu_decision_ms < 0 or cpu_bank_ms < 0 or (cpu_bank_ms and not cpu_decision_ms):
        raise InvalidInput("CPU clock: cpu_decision_ms >= 0, cpu_bank_ms >= 0 (a bank needs an allowance)")
    row = {
        "name": name,
        "game": game,
        "players": players,
        "decision_ms": decision_ms,
        "bank_ms": bank_ms,
        "max_strikes": max_strikes,
        "cpu_decision_ms": cpu_decision_ms,
        "cpu_bank_ms": cpu_bank_ms,
        "kind": kind,
        "created_at": now or datetime.now(UTC),
        **policy.as_row(),
    }
    try:
        with engine.begin() as conn:
            ladder_id: int = conn.execute(
                sa.insert(ladders).values(row).returning(ladders.c.id)
            ).scalar_one()
    except IntegrityError as exc:
        raise Conflict(f"a ladder named {name!r} already exists") from exc
    return ladder_id


def _is_campaign_game(game: str) -> bool:
    """True if `game` is registered and its spec says it is played in campaigns."""
    return any(spec.name == game and spec.campaign for spec in all_specs())


_ENSURE_ENTRIES: dict[str, sa.Insert] = {
    "postgresql": postgresql.insert(ladder_entries).on_conflict_do_nothing(),
    "sqlite": sqlite.insert(ladder_entries).on_conflict_do_nothing(),
}


def ladder_policy(conn: Connection, ladder_id: int) -> RatingPolicy:
    """Ladder `ladder_id`'s rating policy. Raises NotFound for an unknown ladder."""
    row = conn.execute(
        sa.select(*(ladders.c[name] for name in POLICY_COLUMNS)).where(ladders.c.id == ladder_id)
    ).one_or_none()
    if row is None:
        raise NotFound(f"no ladder {ladder_id}")
    return policy_of(row)


def ensure_entries(
    conn: Connection,
    ladder_id: int,
    bot_ids: Iterable[int],
    now: datetime,
    *,
    initial_rating: float | None = None,
) -> None:
    """Put the bots on the ladder at its initial rating unless they are on it already.

    `initial_rating` is the ladder's (its policy's), read here when the caller does not hold it.
    Rows are inserted in bot id order, the same order recording locks them in, so concurrent
    callers cannot deadlock on each other.
    """
    wanted = sorted(set(bot_ids))
    if not wanted:
        return
    if initial_rating is None:
        initial_rating = ladder_policy(conn, ladder_id).initial_rating
    rows = [
        {
            "ladder_id": ladder_id,
            "bot_id": bot_id,
            "rating": initial_rating,
            "games": 0,
            "wins": 0,
            "joined_at": now,
            "updated_at": now,
        }
        for bot_id in wanted
    ]
    # The statement is built once and given the rows as parameters (SQLAlchemy sends them as
    # one multi-row INSERT): a .values(rows) statement is compiled again on every call, and
    # every recorded match calls this (issue 14's recording bench).
    stmt = _ENSURE_ENTRIES.get(conn.dialect.name)
    if stmt is None:  # pragma: no cover - only the two supported databases
        raise NotImplementedError(conn.dialect.name)
    conn.execute(stmt, rows)


def join_ladder(
    engine: Engine, ladder_id: int, bot_id: int, *, now: datetime | None = None
) -> None:
    """Put bot `bot_id` on ladder `ladder_id` (doing nothing if it is on it already).

    Raises NotFound for an unknown ladder or bot.
    """
    with engine.begin() as conn:
        if conn.execute(sa.select(ladders.c.id).where(ladders.c.id == ladder_id)).first() is None:
            raise NotFound(f"no ladder {ladder_id}")
        if conn.execute(sa.select(bots.c.id).where(bots.c.id == bot_id)).first() is None:
            raise NotFound(f"no bot {bot_id}")
        ensure_entries(conn, ladder_id, [bot_id], now or datetime.now(UTC))


@dataclass(frozen=True, slots=True)
class Upgrade:
    """What `upgrade_ladder` did: the versions, the period it closed and the bots carried."""

    ladder: str
    old_version: str
    new_version: str
    #: the closed period's number (1 = the ladder's first)
    closed_period: int
    #: bots whose rating was carried into the new period (their games count restarts)
    bots: int


def upgrade_ladder(engine: Engine, ladder_id: int, version: str, *, now: datetime | None = None) -> Upgrade:
    """Move ladder `ladder_id` to engine `version`, closing its rating period, a season
    (RATINGS.md, "Engine versions"; :func:`ladder.seasons.close_period`): the standings as they
    are are kept in ``ladder_periods``; every rating
    is carried into the new period as its starting point, with the games, wins and draws
    counted from zero (so each bot is provisional again, its K at the provisional value, and
    finds its level under the new rules fast). A cooperative ladder's scenarios likewise.

    Matches claimed before the upgrade are played at the old version; recorded after it, they
    are kept (result and replay) but not rated (`ladder.recording`). Raises NotFound, and
    InvalidInput for a version the build does not have for the game, the ladder's own version,
    or a campaign ladder with campaigns in progress (they would be rated across versions).
    """
    from ladder.db import write_transaction
    from ladder.schema import campaigns
    from ladder.seasons import close_period, lock_ladder
    from referee.games import game_spec

    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        ladder = lock_ladder(conn, ladder_id)
        known = game_spec(ladder.game).versions()
        if version not in known:
            have = ", ".join(known)
            raise InvalidInput(f"engine: {ladder.game} has no version {version!r}; this build has {have}")
        if version == ladder.engine_version:
            raise InvalidInput(f"engine: ladder {ladder.name} already plays {version}")
        running = conn.execute(
            sa.select(sa.func.count())
            .select_from(campaigns)
            .where(campaigns.c.rating_ladder_id == ladder_id, campaigns.c.status == "running")
        ).scalar_one()
        if running:
            raise InvalidInput(
                f"ladder {ladder.name} has {running} campaigns in progress: let them finish (or "
                "stop arena beat and wait) before moving it to another engine version"
            )
        # the ratings carry as they were (carry 1): the rules moved, the bots did not
        closed, carried, _ = close_period(conn, ladder, now, closed_by="upgrade", carry=1.0)
        conn.execute(sa.update(ladders).where(ladders.c.id == ladder_id).values(engine_version=version))
    return Upgrade(ladder.name, ladder.engine_version, version, closed, carried)
