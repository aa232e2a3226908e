"""Read-side queries that only the web pages need (the rest come from :mod:`ladder.queries`).

The pages call the same :mod:`ladder.queries` functions as the JSON API (standings, bot profile,
match) and add what a page shows beyond the API: W/D/L and last played per bot, rating history
for charts, a ladder's recent matches, a bot's win rate by seat and by opponent.

W/D/L: a win is a sole first place, a draw a shared first place, a loss anything else.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Connection
from typing_extensions import TypedDict

from ladder.queries import MatchSummary, match_summaries, storable_id
from ladder.schema import (
    bot_versions,
    bots,
    ladder_entries,
    ladders,
    matches,
    rating_history,
    replays,
    results,
)

__all__ = [
    "BOTS_LISTED",
    "MATCHES_LISTED",
    "RECENT",
    "BotEntry",
    "ChartPoint",
    "bot_directory",
    "last_played",
    "rating_series",
    "recent_ladder_matches",
    "recent_matches",
    "replay_sha256",
    "seat_and_opponent_rates",
]

#: matches listed on a ladder page
RECENT: Final = 20
#: matches listed on /matches (the newest, all ladders)
MATCHES_LISTED: Final = 100
#: bots listed on /bots (by name)
BOTS_LISTED: Final = 1000
#: a point of a rating chart: (recording sequence, rating after, match id)
ChartPoint = tuple[int, float, int]
#: points per bot in a rating chart (the newest ones)
CHART_POINTS: Final = 300
#: a bot's matches looked at for its win rate by seat and by opponent
RATE_WINDOW: Final = 2000


def last_played(conn: Connection, ladder_id: int) -> dict[int, str]:
    """bot id -> when its latest match on the ladder was recorded (ISO 8601), for bots that played.

    Recording a match updates each of its bots' ``ladder_entries`` row in the same transaction,
    so ``updated_at`` is that moment: one row per bot, no scan of the matches.
    """
    if not storable_id(ladder_id):
        return {}
    rows = conn.execute(
        sa.select(ladder_entries.c.bot_id, ladder_entries.c.updated_at).where(
            ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.games > 0
        )
    )
    return {int(r.bot_id): r.updated_at.isoformat() for r in rows}


def replay_sha256(conn: Connection, match_id: int) -> str | None:
    """The SHA-256 of a match's stored replay (not the replay itself), or None."""
    if not storable_id(match_id):
        return None
    found: str | None = conn.execute(
        sa.select(replays.c.sha256).where(replays.c.match_id == match_id)
    ).scalar_one_or_none()
    return found


def rating_series(
    conn: Connection, bot_ids: list[int], ladder_id: int | None = None
) -> dict[int, list[ChartPoint]]:
    """bot id -> [(recording sequence, rating after, match id), ...] in the order the ratings
    were recorded (the newest CHART_POINTS per bot), on one ladder or on every ladder.

    The order is ``rating_history.id``, not the match id: matches are recorded in the order they
    finish, not the order they were queued, and recording a match locks its bots' ladder rows
    before it inserts their history rows, so per bot the history ids follow the recordings. The
    last point of a bot's line is therefore its rating on the standings.
    """
    out: dict[int, list[ChartPoint]] = {}
    for bot_id in bot_ids:
        if not storable_id(bot_id):
            continue
        query = (
            sa.select(rating_history.c.id, rating_history.c.after, rating_history.c.match_id)
            .where(rating_history.c.bot_id == bot_id)
            .order_by(rating_history.c.id.desc())
            .limit(CHART_POINTS)
        )
        if ladder_id is not None:
            query = query.where(rating_history.c.ladder_id == ladder_id)
        points = [(int(r.id), round(float(r.after), 1), int(r.match_id)) for r in conn.execute(query)]
        points.reverse()
        out[bot_id] = points
    return out


def recent_ladder_matches(conn: Connection, ladder_id: int, limit: int = RECENT) -> list[MatchSummary]:
    """The ladder's latest matches, newest first, in the API's match-summary shape."""
    if not storable_id(ladder_id):
        return []
    return match_summaries(conn, matches.c.ladder_id == ladder_id, limit)


def recent_matches(conn: Connection, limit: int = MATCHES_LISTED) -> list[MatchSummary]:
    """The newest matches of every ladder, newest first (/matches)."""
    return match_summaries(conn, sa.true(), limit)


class BotEntry(TypedDict):
    """A bot on /bots: its name and owner, and its place on each ladder it is on."""

    bot_id: int
    name: str
    owner: str
    #: (ladder id, ladder name, rating, games) for each ladder the bot is on
    ladders: list[tuple[int, str, float, int]]


def bot_directory(conn: Connection, limit: int = BOTS_LISTED) -> list[BotEntry]:
    """Bots by name (at most `limit`), each with the ladders it is on (/bots)."""
    rows = conn.execute(
        sa.select(bots.c.id, bots.c.name, bots.c.owner).order_by(bots.c.name).limit(limit)
    ).all()
    entries: dict[int, BotEntry] = {
        row.id: {"bot_id": row.id, "name": row.name, "owner": row.owner, "ladders": []} for row in rows
    }
    if entries:
        for e in conn.execute(
            sa.select(ladder_entries.c.bot_id, ladders.c.id, ladders.c.name, ladder_entries.c.rating,
                      ladder_entries.c.games)
            .join(ladders, ladders.c.id == ladder_entries.c.ladder_id)
            .where(ladder_entries.c.bot_id.in_(list(entries)))
            .order_by(ladders.c.name)
        ):
            entries[e.bot_id]["ladders"].append((e.id, e.name, float(e.rating), int(e.games)))
    return list(entries.values())


class Rate(TypedDict):
    """Games and results against one key (a seat, or an opponent)."""

    key: str
    bot_id: int | None
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float


def _rates(table: dict[Any, list[int]], names: dict[Any, tuple[str, int | None]]) -> list[Rate]:
    out: list[Rate] = []
    for key, (w, d, losses) in sorted(table.items(), key=lambda kv: str(kv[0])):
        games = w + d + losses
        name, bot_id = names[key]
        out.append(
            {
                "key": name,
                "bot_id": bot_id,
                "games": games,
                "wins": w,
                "draws": d,
                "losses": losses,
                "win_rate": round((w + 0.5 * d) / games, 3) if games else 0.0,
            }
        )
    return out


def seat_and_opponent_rates(conn: Connection, bot_id: int) -> tuple[list[Rate], list[Rate], int]:
    """The bot's W/D/L by seat and by opponent over its last RATE_WINDOW recorded matches
    (a draw counts half in the win rate); also how many matches were counted."""
    if not storable_id(bot_id):
        return [], [], 0
    mine = set(conn.execute(sa.select(bot_versions.c.id).where(bot_versions.c.bot_id == bot_id)).scalars())
    if not mine:
        return [], [], 0
    from ladder.queries import _seats_contain

    rows = conn.execute(
        sa.select(matches.c.seats, results.c.places)
        .join(results, results.c.match_id == matches.c.id)
        .where(_seats_contain(conn, sorted(mine)))
        .order_by(matches.c.id.desc())
        .limit(RATE_WINDOW)
    ).all()
    # version id -> (bot id, bot name) of every opponent seen
    others = {int(v) for r in rows for v in r.seats} - mine
    owner: dict[int, tuple[int, str]] = {}
    if others:
        for found in conn.execute(
            sa.select(bot_versions.c.id, bots.c.id.label("bot_id"), bots.c.name)
            .join(bots, bots.c.id == bot_versions.c.bot_id)
            .where(bot_versions.c.id.in_(sorted(others)))
        ):
            owner[int(found.id)] = (int(found.bot_id), found.name)
    by_seat: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    by_opp: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    opp_names: dict[int, tuple[str, int | None]] = {}
    for r in rows:
        seats = [int(v) for v in r.seats]
        places = list(r.places)
        firsts = places.count(1)
        for seat, version in enumerate(seats):
            if version not in mine or seat >= len(places):
                continue
            place = places[seat]
            col = 0 if place == 1 and firsts == 1 else 1 if place == 1 else 2
            by_seat[seat][col] += 1
            for o_seat, o_version in enumerate(seats):
                if o_version in mine or o_seat >= len(places):
                    continue
                o_bot, o_name = owner.get(o_version, (-o_version, f"version {o_version}"))
                opp_names[o_bot] = (o_name, o_bot if o_bot > 0 else None)
                # head to head: who placed better in this match
                o_place = places[o_seat]
                by_opp[o_bot][0 if place < o_place else 1 if place == o_place else 2] += 1
    seat_names: dict[int, tuple[str, int | None]] = {s: (f"seat {s}", None) for s in by_seat}
    return _rates(dict(by_seat), seat_names), _rates(dict(by_opp), opp_names), len(rows)


def ladder_sizes(conn: Connection, ladder_id: int) -> tuple[int, int]:
    """(bots on the ladder, matches played on it)."""
    n_bots = conn.execute(
        sa.select(sa.func.count()).select_from(ladder_entries).where(ladder_entries.c.ladder_id == ladder_id)
    ).scalar_one()
    n_matches = conn.execute(
        sa.select(sa.func.count()).select_from(matches).where(matches.c.ladder_id == ladder_id)
    ).scalar_one()
    return int(n_bots), int(n_matches)
