"""Seasons: a ladder's rating periods, closed and archived (ladder/RATINGS.md, "Seasons").

A season is a rating period (``ladder_periods``, migration 0008): the current one is the ladder
itself, each closed one a row holding its engine version, start, end and final standings. Two
operator commands close one, both through :func:`close_period`:

- ``arena ladder season close`` (:func:`close_season`): same rules, a new season; the ratings
  are shrunk toward the ladder's mean by :data:`SEASON_CARRY`;
- ``arena ladder upgrade`` (:func:`ladder.ladders.upgrade_ladder`): the engine version moves;
  the ratings are carried as they were (carry 1).

Either way the games, wins and draws restart at zero (each bot is provisional again), and the
closed season's standings are kept as the ladder page showed them, forever. On a ladder with
divisions (``ladder.divisions``) every bot keeps its division into the next season: the shrink
moves its rating and its boss's alike toward the mean, so no bot passes or falls behind a boss
by it, and a promotion is never undone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

# pydantic (behind FastAPI) needs this TypedDict on Python < 3.12 to build response schemas
from typing_extensions import TypedDict

from ladder.errors import InvalidInput, NotFound
from ladder.queries import LadderInfo, ladder_info, standings, storable_id
from ladder.schema import bots, ladder_entries, ladder_periods, ladders, rating_history, scenarios

__all__ = [
    "SEASON_CARRY",
    "ArchivedStanding",
    "ClosedSeason",
    "SeasonInfo",
    "SeasonPage",
    "close_period",
    "close_season",
    "season_page",
    "seasons",
]

#: the share of a bot's distance from the ladder's mean that a new season keeps:
#: rating' = mean + SEASON_CARRY x (rating - mean). Why 0.75: RATINGS.md, "Seasons".
SEASON_CARRY: Final = 0.75


@dataclass(frozen=True, slots=True)
class ClosedSeason:
    """What :func:`close_season` did."""

    ladder: str
    #: the closed season's number (1 = the ladder's first)
    season: int
    engine_version: str
    #: bots carried into the next season (their games count restarts)
    bots: int
    #: the mean the ratings were shrunk toward, and the share of the distance they kept
    mean: float
    carry: float


def close_period(
    conn: Connection, ladder: Any, now: datetime, *, closed_by: str, carry: float
) -> tuple[int, int, float]:
    """Close ladder row `ladder`'s current rating period inside the caller's transaction (which
    holds the row ``FOR UPDATE``): archive its standings, set every bot's rating to
    mean + `carry` x (rating - mean), the mean over the bots on the ladder, and restart the
    games, wins and draws (a cooperative ladder's scenarios' too; their ratings carry as they
    were). Returns (the closed period's number, the bots carried, the mean)."""
    ladder_id = ladder.id
    closed = conn.execute(
        sa.select(ladder_periods.c.ended_at)
        .where(ladder_periods.c.ladder_id == ladder_id)
        .order_by(ladder_periods.c.id.desc())
    ).all()
    rows = conn.execute(
        sa.select(ladder_entries, bots.c.name)
        .join(bots, bots.c.id == ladder_entries.c.bot_id)
        .where(ladder_entries.c.ladder_id == ladder_id)
        .order_by(ladder_entries.c.rating.desc(), ladder_entries.c.bot_id)
    ).all()
    entries = [
        {
            "bot_id": e.bot_id,
            "name": e.name,
            "rating": e.rating,
            "games": e.games,
            "wins": e.wins,
            "draws": e.draws,
            # its division's position (ladder.divisions): carried into the next season as it is
            "division": e.division,
        }
        for e in rows
    ]
    page = standings(conn, ladder_id)
    # "bots": every bot on it at full precision (what the audit checks the replay against);
    # "table": the ranked rows as the ladder page showed them when it closed
    archive: dict[str, object] = {"bots": entries, "table": page["standings"] if page else []}
    if ladder.kind == "coop":
        archive["scenarios"] = [
            {"key": s.key, "rating": s.rating, "games": s.games, "wins": s.wins}
            for s in conn.execute(
                sa.select(scenarios).where(scenarios.c.ladder_id == ladder_id).order_by(scenarios.c.key)
            )
        ]
    last_rating_id = conn.execute(
        sa.select(sa.func.coalesce(sa.func.max(rating_history.c.id), 0)).where(
            rating_history.c.ladder_id == ladder_id
        )
    ).scalar_one()
    ratings = [float(e.rating) for e in rows]
    mean = sum(ratings) / len(ratings) if ratings else float(ladder.initial_rating)
    conn.execute(
        sa.insert(ladder_periods).values(
            last_rating_id=last_rating_id,
            ladder_id=ladder_id,
            engine_version=ladder.engine_version,
            started_at=closed[0].ended_at if closed else ladder.created_at,
            ended_at=now,
            standings=archive,
            closed_by=closed_by,
            carry=carry,
            mean=mean,
        )
    )
    values: dict[str, Any] = {"games": 0, "wins": 0, "draws": 0, "updated_at": now}
    if carry != 1:
        values["rating"] = mean + carry * (ladder_entries.c.rating - mean)
    conn.execute(sa.update(ladder_entries).where(ladder_entries.c.ladder_id == ladder_id).values(values))
    conn.execute(
        sa.update(scenarios).where(scenarios.c.ladder_id == ladder_id).values(games=0, wins=0, updated_at=now)
    )
    return len(closed) + 1, len(entries), mean


def lock_ladder(conn: Connection, ladder_id: int) -> Any:
    """Ladder `ladder_id`'s row, locked for update until the transaction ends (recording reads
    it under a share lock, so no result is rated half before and half after a close); raises
    NotFound for no such ladder."""
    ladder = conn.execute(sa.select(ladders).where(ladders.c.id == ladder_id).with_for_update()).one_or_none()
    if ladder is None:
        raise NotFound(f"no ladder {ladder_id}")
    return ladder


def close_season(engine: Engine, ladder_id: int, *, now: datetime | None = None) -> ClosedSeason:
    """Close ladder `ladder_id`'s current season and start the next at the same engine version
    (RATINGS.md, "Seasons"): its standings are archived, each rating shrunk toward the mean by
    :data:`SEASON_CARRY`, the games counted from zero. Raises NotFound for an unknown ladder and
    InvalidInput for a season without a rated game (closing twice in a row would shrink the
    ratings twice for nothing)."""
    from ladder.db import write_transaction

    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        # the row lock: recording reads the ladder under a share lock, so no result is rated
        # half in one season and half in the next (as with an upgrade)
        ladder = lock_ladder(conn, ladder_id)
        played = conn.execute(
            sa.select(sa.func.coalesce(sa.func.sum(ladder_entries.c.games), 0)).where(
                ladder_entries.c.ladder_id == ladder_id
            )
        ).scalar_one()
        if not played:
            number = (
                1
                + conn.execute(
                    sa.select(sa.func.count())
                    .select_from(ladder_periods)
                    .where(ladder_periods.c.ladder_id == ladder_id)
                ).scalar_one()
            )
            raise InvalidInput(
                f"ladder {ladder.name}: season {number} has no rated game yet, nothing to close"
            )
        number, carried, mean = close_period(conn, ladder, now, closed_by="season", carry=SEASON_CARRY)
    return ClosedSeason(ladder.name, number, ladder.engine_version, carried, mean, SEASON_CARRY)


class SeasonInfo(TypedDict):
    """One season of a ladder: a closed one (archived) or the current one."""

    #: 1 = the ladder's first
    number: int
    #: the rules it was played at
    engine_version: str
    started_at: str
    #: null for the current season
    ended_at: str | None
    current: bool
    #: "season" (arena ladder season close), "upgrade" (arena ladder upgrade: the engine moved
    #: on); null for the current season
    closed_by: str | None
    #: how the ratings went on into the next season: rating' = mean + carry x (rating - mean)
    carry: float | None
    mean: float | None
    #: bots on the ladder when it closed (the current season: now)
    bots: int


class ArchivedStanding(TypedDict):
    """A row of a closed season's standings, as the ladder page showed it when the season closed
    (seasons closed by an upgrade before migration 0013 kept no interval: ranked by rating)."""

    rank: int
    bot_id: int
    bot_name: str
    rating: float
    games: int
    wins: int
    draws: int
    rating_low: float | None
    rating_high: float | None
    los_next: float | None


class SeasonPage(TypedDict):
    """A closed season with its final standings."""

    ladder: LadderInfo
    season: SeasonInfo
    standings: list[ArchivedStanding]


def _info(number: int, row: Any) -> SeasonInfo:
    return {
        "number": number,
        "engine_version": row.engine_version,
        "started_at": row.started_at.isoformat(),
        "ended_at": row.ended_at.isoformat(),
        "current": False,
        "closed_by": row.closed_by,
        "carry": row.carry,
        "mean": None if row.mean is None else round(row.mean, 6),
        "bots": len(row.standings.get("bots", [])),
    }


def _periods(conn: Connection, ladder_id: int) -> list[Any]:
    return list(
        conn.execute(
            sa.select(ladder_periods)
            .where(ladder_periods.c.ladder_id == ladder_id)
            .order_by(ladder_periods.c.id)
        )
    )


def seasons(conn: Connection, ladder_id: int) -> list[SeasonInfo] | None:
    """Ladder `ladder_id`'s seasons, the first first and the current one last; None for no
    ladder."""
    if not storable_id(ladder_id):
        return None
    ladder = conn.execute(sa.select(ladders).where(ladders.c.id == ladder_id)).one_or_none()
    if ladder is None:
        return None
    closed = _periods(conn, ladder_id)
    listed = [_info(n, row) for n, row in enumerate(closed, start=1)]
    on_it = conn.execute(
        sa.select(sa.func.count()).select_from(ladder_entries).where(ladder_entries.c.ladder_id == ladder_id)
    ).scalar_one()
    listed.append(
        {
            "number": len(closed) + 1,
            "engine_version": ladder.engine_version,
            "started_at": (closed[-1].ended_at if closed else ladder.created_at).isoformat(),
            "ended_at": None,
            "current": True,
            "closed_by": None,
            "carry": None,
            "mean": None,
            "bots": int(on_it),
        }
    )
    return listed


def season_page(conn: Connection, ladder_id: int, number: int) -> SeasonPage | None:
    """Closed season `number` of ladder `ladder_id` with its final standings; None when the
    ladder or that closed season does not exist (the current season is the ladder's page)."""
    info = ladder_info(conn, ladder_id)
    if info is None or not 1 <= number <= len(closed := _periods(conn, ladder_id)):
        return None
    row = closed[number - 1]
    stored = row.standings
    table: list[ArchivedStanding]
    if "table" in stored:
        table = [
            {
                "rank": r["rank"],
                "bot_id": r["bot_id"],
                "bot_name": r["bot_name"],
                "rating": r["rating"],
                "games": r["games"],
                "wins": r["wins"],
                "draws": r["draws"],
                "rating_low": r["rating_low"],
                "rating_high": r["rating_high"],
                "los_next": r["los_next"],
            }
            for r in stored["table"]
        ]
    else:
        # closed by an upgrade before 0013: the bots by rating, named as they are now
        names = dict(
            conn.execute(
                sa.select(bots.c.id, bots.c.name).where(bots.c.id.in_([b["bot_id"] for b in stored["bots"]]))
            ).all()
        )
        table = [
            {
                "rank": rank,
                "bot_id": b["bot_id"],
                "bot_name": str(b.get("name") or names.get(b["bot_id"], f"bot {b['bot_id']}")),
                "rating": round(float(b["rating"]), 1),
                "games": b["games"],
                "wins": b["wins"],
                "draws": b["draws"],
                "rating_low": None,
                "rating_high": None,
                "los_next": None,
            }
            for rank, b in enumerate(cast(list[dict[str, Any]], stored["bots"]), start=1)
        ]
    return {"ladder": info, "season": _info(number, row), "standings": table}
