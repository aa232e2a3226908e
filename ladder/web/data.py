"""Read-side queries that only the web pages need (the rest come from :mod:`ladder.queries`).

The pages call the same :mod:`ladder.queries` functions as the JSON API (standings, bot profile,
match) and add what a page shows beyond the API: W/D/L and last played per bot, rating history
for charts, a ladder's recent matches, a bot's win rate by seat and by opponent.

W/D/L: a win is a sole first place, a draw a shared first place, a loss anything else.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Final, Generic, TypeVar

import sqlalchemy as sa
from sqlalchemy import Connection
from typing_extensions import TypedDict

from ladder.campaigns import campaign_places
from ladder.queries import (
    MatchSummary,
    match_info,
    match_summaries,
    seats_contain,
    storable_id,
    unranked_reasons,
)
from ladder.schema import (
    bot_versions,
    bots,
    campaign_games,
    campaign_ratings,
    campaigns,
    competitions,
    ladder_entries,
    ladder_periods,
    ladders,
    matches,
    rating_history,
    replays,
    results,
)
from referee.games import game_spec

__all__ = [
    "MAX_PAGE_SIZE",
    "PAGE_SIZE",
    "RECENT",
    "BotEntry",
    "CampaignView",
    "ChartPoint",
    "CompetitionRow",
    "Paged",
    "bot_directory",
    "bot_search",
    "campaign_view",
    "competition_page",
    "entrant_bots",
    "hidden_owner",
    "ladder_campaigns",
    "ladder_links",
    "last_played",
    "live_matches",
    "match_page",
    "most_played",
    "played_by",
    "rating_series",
    "recent_ladder_matches",
    "replay_sha256",
    "seat_and_opponent_rates",
]

T = TypeVar("T")

#: matches listed on a ladder page
RECENT: Final = 20
#: rows per page of /matches, /bots and /competitions, unless ?limit= asks for another number
PAGE_SIZE: Final = 50
#: the most rows a page may ask for (?limit=)
MAX_PAGE_SIZE: Final = 200
#: a point of a rating chart: (recording sequence, rating after, match id)
ChartPoint = tuple[int, float, int]
#: points per bot in a rating chart (the newest ones)
CHART_POINTS: Final = 300
#: a bot's matches looked at for its win rate by seat and by opponent
RATE_WINDOW: Final = 2000
#: opponents listed on a bot's page (the most played; the rest are counted in one line), so the
#: page does not grow with the bot's history
OPPONENT_ROWS: Final = 20


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
    if ladder_id is not None:
        _season_points(conn, ladder_id, out)
    return out


def _season_points(conn: Connection, ladder_id: int, out: dict[int, list[ChartPoint]]) -> None:
    """Add to each line in `out` the step where a season close shrank its rating (RATINGS.md,
    "Seasons"), at the close's place in the recording order and with match id -(season number),
    so a line still ends at the rating the standings show."""
    closed = sa.select(ladder_periods).where(ladder_periods.c.ladder_id == ladder_id)
    for number, period in enumerate(conn.execute(closed.order_by(ladder_periods.c.id)), start=1):
        if period.carry == 1 or period.mean is None:
            continue
        for entry in period.standings.get("bots", []):
            points = out.get(int(entry["bot_id"]))
            if points is None:
                continue
            shrunk = period.mean + period.carry * (float(entry["rating"]) - period.mean)
            at = int(period.last_rating_id)
            where = sum(1 for x, _, _ in points if x <= at)
            if where:  # (a close before the line's window, or before its first game: no step)
                points.insert(where, (at, round(shrunk, 1), -number))


def recent_ladder_matches(conn: Connection, ladder_id: int, limit: int = RECENT) -> list[MatchSummary]:
    """The ladder's latest matches, newest first, in the API's match-summary shape."""
    if not storable_id(ladder_id):
        return []
    return match_summaries(conn, matches.c.ladder_id == ladder_id, limit)


def played_by(conn: Connection, bot_id: int) -> sa.ColumnElement[bool] | None:
    """SQL: one of the bot's versions holds a seat of the match; None for a bot without one."""
    if not storable_id(bot_id):
        return None
    query = sa.select(bot_versions.c.id).where(bot_versions.c.bot_id == bot_id)
    versions = list(conn.execute(query).scalars())
    return seats_contain(versions) if versions else None


class Paged(TypedDict, Generic[T]):
    """One page of a list: its rows, and whether rows come before (newer, or earlier by name) and
    after it (the keys of the links to the previous and next pages are its first and last rows)."""

    rows: list[T]
    has_previous: bool
    has_next: bool


def _exists(conn: Connection, table: sa.Table, where: sa.ColumnElement[bool]) -> bool:
    return conn.execute(sa.select(sa.literal(1)).select_from(table).where(where).limit(1)).first() is not None


def match_page(
    conn: Connection,
    *,
    limit: int,
    before: int | None = None,
    after: int | None = None,
    where: sa.ColumnElement[bool] | None = None,
) -> Paged[MatchSummary]:
    """A page of matches, newest first: the `limit` newest with ids below `before`, or the
    `limit` oldest above `after` (the previous page), or the newest; `where` filters them.

    Keyset paging on the primary key: a page costs the same however deep it is."""
    cond = sa.true() if where is None else where
    if after is not None:
        ids = list(
            conn.execute(
                sa.select(matches.c.id).where(cond, matches.c.id > after).order_by(matches.c.id).limit(limit)
            ).scalars()
        )
        rows = match_summaries(conn, matches.c.id.in_(ids), limit) if ids else []
    else:
        below = sa.true() if before is None else matches.c.id < before
        rows = match_summaries(conn, sa.and_(cond, below), limit)
    if not rows:
        return {"rows": [], "has_previous": False, "has_next": False}
    newest, oldest = rows[0]["id"], rows[-1]["id"]
    return {
        "rows": rows,
        "has_previous": _exists(conn, matches, sa.and_(cond, matches.c.id > newest)),
        "has_next": _exists(conn, matches, sa.and_(cond, matches.c.id < oldest)),
    }


class BotEntry(TypedDict):
    """A bot on /bots: its name and owner, and its place on each ladder it is on."""

    bot_id: int
    name: str
    owner: str
    #: (ladder id, ladder name, rating, games, why it is not ranked there or None) for each
    #: ladder the bot is on
    ladders: list[tuple[int, str, float, int, str | None]]


class CompetitionRow(TypedDict):
    """A competition on /competitions."""

    id: int
    name: str
    game: str
    players: int
    format: str
    status: str
    created_at: str
    finished_at: str | None


def competition_page(
    conn: Connection, *, limit: int, before: int | None = None, after: int | None = None
) -> Paged[CompetitionRow]:
    """A page of competitions, newest first (keyset paging on the id, as :func:`match_page`)."""
    query = sa.select(competitions)
    if after is not None:
        oldest_first = query.where(competitions.c.id > after).order_by(competitions.c.id).limit(limit)
        found = list(reversed(conn.execute(oldest_first).all()))
    else:
        below = sa.true() if before is None else competitions.c.id < before
        found = list(conn.execute(query.where(below).order_by(competitions.c.id.desc()).limit(limit)).all())
    rows: list[CompetitionRow] = [
        {
            "id": r.id,
            "name": r.name,
            "game": r.game,
            "players": r.players,
            "format": r.format,
            "status": r.status,
            "created_at": r.created_at.isoformat(),
            "finished_at": r.finished_at.isoformat() if r.finished_at else None,
        }
        for r in found
    ]
    if not rows:
        return {"rows": [], "has_previous": False, "has_next": False}
    return {
        "rows": rows,
        "has_previous": _exists(conn, competitions, competitions.c.id > rows[0]["id"]),
        "has_next": _exists(conn, competitions, competitions.c.id < rows[-1]["id"]),
    }


def bot_search(text: str) -> sa.ColumnElement[bool]:
    """SQL: the bot's name or owner contains `text`, case-insensitively (``%`` and ``_`` are
    matched as themselves)."""
    needle = text.lower()
    return sa.or_(
        sa.func.lower(bots.c.name).contains(needle, autoescape=True),
        sa.func.lower(bots.c.owner).contains(needle, autoescape=True),
    )


def bot_directory(
    conn: Connection,
    limit: int = PAGE_SIZE,
    *,
    search: str = "",
    after: str | None = None,
    before: str | None = None,
) -> Paged[BotEntry]:
    """A page of bots by name: the first `limit` after the name `after`, or the last `limit`
    before the name `before` (the previous page), whose name or owner contains `search`; each
    with the ladders it is on (rating and games, or why it is not ranked there) (/bots)."""
    cond = bot_search(search) if search else sa.true()
    query = sa.select(bots.c.id, bots.c.name, bots.c.owner).where(cond)
    if before is not None:
        newest_first = query.where(bots.c.name < before).order_by(bots.c.name.desc()).limit(limit)
        found = list(reversed(conn.execute(newest_first).all()))
    else:
        above = sa.true() if after is None else bots.c.name > after
        found = list(conn.execute(query.where(above).order_by(bots.c.name).limit(limit)).all())
    entries: dict[int, BotEntry] = {
        row.id: {"bot_id": row.id, "name": row.name, "owner": row.owner, "ladders": []} for row in found
    }
    if entries:
        listed = conn.execute(
            sa.select(ladder_entries.c.bot_id, ladders.c.id, ladders.c.name, ladder_entries.c.rating,
                      ladder_entries.c.games)
            .join(ladders, ladders.c.id == ladder_entries.c.ladder_id)
            .where(ladder_entries.c.bot_id.in_(list(entries)))
            .order_by(ladders.c.name)
        ).all()
        unplayed = {int(e.bot_id) for e in listed if e.games == 0}
        why = unranked_reasons(conn, sorted(unplayed))
        for e in listed:
            reason = why.get(int(e.bot_id)) if e.games == 0 else None
            entries[e.bot_id]["ladders"].append((e.id, e.name, float(e.rating), int(e.games), reason))
    if not found:
        return {"rows": [], "has_previous": False, "has_next": False}
    first, last = found[0].name, found[-1].name
    return {
        "rows": list(entries.values()),
        "has_previous": _exists(conn, bots, sa.and_(cond, bots.c.name < first)),
        "has_next": _exists(conn, bots, sa.and_(cond, bots.c.name > last)),
    }


def entrant_bots(conn: Connection, field: list[dict[str, Any]]) -> dict[str, int]:
    """entrant name -> the id of the bot behind its version, for a competition's field (every
    entrant, built-in and command ones too, plays as a bot version of its own)."""
    version_of = {str(e["name"]): int(e["bot_version_id"]) for e in field}
    if not version_of:
        return {}
    bot_of = dict(
        conn.execute(
            sa.select(bot_versions.c.id, bot_versions.c.bot_id).where(
                bot_versions.c.id.in_(sorted(set(version_of.values())))
            )
        ).all()
    )
    return {name: int(bot_of[v]) for name, v in version_of.items() if v in bot_of}


def ladder_links(conn: Connection, ladder_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """ladder id -> (label, page) for the ladders a page names: a ladder's own page, or, for the
    hidden ladder a competition or a campaign plays its games on, that competition's or
    campaign's page (the hidden ladder's per-game ratings mean nothing: RATINGS.md)."""
    ids = sorted({int(i) for i in ladder_ids if storable_id(int(i))})
    if not ids:
        return {}
    out = {
        int(r.id): (str(r.name), f"/ladders/{r.id}")
        for r in conn.execute(sa.select(ladders.c.id, ladders.c.name).where(ladders.c.id.in_(ids)))
    }
    held = sa.select(campaigns.c.id, campaigns.c.ladder_id).where(campaigns.c.ladder_id.in_(ids))
    for c in conn.execute(held):
        out[int(c.ladder_id)] = (f"campaign #{c.id}", f"/campaigns/{c.id}")
    held = sa.select(competitions.c.id, competitions.c.ladder_id, competitions.c.name).where(
        competitions.c.ladder_id.in_(ids)
    )
    for t in conn.execute(held):
        out[int(t.ladder_id)] = (f"competition {t.name or '#' + str(t.id)}", f"/competitions/{t.id}")
    return out


def hidden_owner(conn: Connection, ladder_id: int) -> str | None:
    """The page of the competition or campaign whose games ladder `ladder_id` holds, or None
    for a ladder of its own."""
    label = ladder_links(conn, [ladder_id]).get(ladder_id)
    return None if label is None or label[1].startswith("/ladders/") else label[1]


class CampaignSeat(TypedDict):
    """A seat of a campaign: its bot, the deck-box name, the total so far, place and rating change."""

    seat: int
    bot_id: int | None
    bot_name: str
    name: str
    total: int
    #: by total, once the campaign is finished
    place: int | None
    #: its rating change on the campaign ladder, once rated
    change: float | None


class CampaignChange(TypedDict):
    """One thing a campaign game changed (the game's campaign rules describe it): its kind
    (names, board, vote, cards, ability, path, fact, promotion, end) and a line of text."""

    kind: str
    text: str


class CampaignGameRow(TypedDict):
    """A game of a campaign: its index, match, the match's status, the seats' scores and, once
    recorded, what it changed in the campaign state (None before, or if the states stored for
    it cannot be read: `changes_error` says why)."""

    index: int
    match_id: int
    status: str
    scores: list[int] | None
    changes: list[CampaignChange] | None
    changes_error: str | None


class CampaignView(TypedDict):
    """A campaign as its page shows it."""

    id: int
    game: str
    players: int
    status: str
    max_games: int
    seed: int
    created_at: str
    error: str | None
    rated: bool
    #: (id, name) of the campaign ladder it is rated on, if any
    rating_ladder: tuple[int, str] | None
    seats: list[CampaignSeat]
    games: list[CampaignGameRow]


def campaign_view(conn: Connection, campaign_id: int) -> CampaignView | None:
    """A campaign with its seats (bots linked by id), totals, places and rating changes, and its
    games with their matches; None if there is none."""
    if not storable_id(campaign_id):
        return None
    row = conn.execute(sa.select(campaigns).where(campaigns.c.id == campaign_id)).one_or_none()
    if row is None:
        return None
    game_rows = conn.execute(
        sa.select(
            campaign_games.c.game_index,
            campaign_games.c.match_id,
            campaign_games.c.scores,
            campaign_games.c.state_after,
            matches.c.status,
            matches.c.config,
        )
        .join(matches, matches.c.id == campaign_games.c.match_id)
        .where(campaign_games.c.campaign_id == campaign_id)
        .order_by(campaign_games.c.game_index)
    ).all()
    seats = list(row.seats)
    totals = [0] * len(seats)
    for g in game_rows:
        for i, score in enumerate(g.scores or []):
            if i < len(totals):
                totals[i] += int(score)
    versions = sorted({int(s["version_id"]) for s in seats})
    owner = {
        int(v.id): (int(v.bot_id), str(v.name))
        for v in conn.execute(
            sa.select(bot_versions.c.id, bot_versions.c.bot_id, bots.c.name)
            .join(bots, bots.c.id == bot_versions.c.bot_id)
            .where(bot_versions.c.id.in_(versions))
        )
    } if versions else {}
    changes = {
        int(c.bot_id): float(c.delta)
        for c in conn.execute(
            sa.select(campaign_ratings.c.bot_id, campaign_ratings.c.delta).where(
                campaign_ratings.c.campaign_id == campaign_id
            )
        )
    }
    finished = row.status == "finished"
    places = campaign_places(totals) if finished and totals else None
    out_seats: list[CampaignSeat] = []
    for i, seat in enumerate(seats):
        bot_id, bot_name = owner.get(int(seat["version_id"]), (None, str(seat.get("bot", f"seat {i}"))))
        out_seats.append(
            {
                "seat": i,
                "bot_id": bot_id,
                "bot_name": bot_name,
                "name": str(seat.get("name", "")),
                "total": totals[i],
                "place": None if places is None else int(places[i]),
                "change": changes.get(bot_id) if bot_id is not None else None,
            }
        )
    rating_ladder = None
    if row.rating_ladder_id is not None:
        named = sa.select(ladders.c.name).where(ladders.c.id == row.rating_ladder_id)
        name = conn.execute(named).scalar_one()
        rating_ladder = (int(row.rating_ladder_id), str(name))
    return {
        "id": int(row.id),
        "game": row.game,
        "players": int(row.players),
        "status": row.status,
        "max_games": int(row.games),
        "seed": int(row.seed),
        "created_at": row.created_at.isoformat(),
        "error": row.error,
        "rated": row.rated_at is not None,
        "rating_ladder": rating_ladder,
        "seats": out_seats,
        "games": _with_changes(row, game_rows),
    }


def _with_changes(campaign: Any, game_rows: Sequence[Any]) -> list[CampaignGameRow]:
    """The campaign's games with what each recorded game changed. The state before game k is
    the one its match was queued with (``matches.config["campaign"]``); the state after it is
    the one game k + 1 was queued with, or, for the last recorded game, the campaign's own
    state. The game's campaign rules (through its spec: ladder/ names no game) describe the
    difference."""
    rules = game_spec(campaign.game).campaign_state_rules()
    out: list[CampaignGameRow] = []
    for i, g in enumerate(game_rows):
        changes: list[CampaignChange] | None = None
        error: str | None = None
        if g.state_after is not None:
            later = game_rows[i + 1] if i + 1 < len(game_rows) else None
            after = (later.config or {}).get("campaign") if later is not None else campaign.state
            before = (g.config or {}).get("campaign")
            try:
                if before is None or after is None:
                    raise ValueError("the campaign state before or after it is not stored")
                changes = [{"kind": c["kind"], "text": c["text"]} for c in rules.changes(before, after)]
            except ValueError as exc:  # an old or hand-edited state: the page still loads
                error = str(exc)
        out.append(
            {
                "index": int(g.game_index),
                "match_id": int(g.match_id),
                "status": g.status,
                "scores": None if g.scores is None else [int(x) for x in g.scores],
                "changes": changes,
                "changes_error": error,
            }
        )
    return out


def ladder_campaigns(conn: Connection, ladder_id: int, limit: int = RECENT) -> list[dict[str, Any]]:
    """A campaign ladder's newest campaigns (at most `limit`): id, status, games played, seats
    as (bot id, bot name)."""
    if not storable_id(ladder_id):
        return []
    rows = conn.execute(
        sa.select(campaigns.c.id, campaigns.c.status, campaigns.c.seats, campaigns.c.rated_at,
                  campaigns.c.next_index, campaigns.c.created_at)
        .where(campaigns.c.rating_ladder_id == ladder_id)
        .order_by(campaigns.c.id.desc())
        .limit(limit)
    ).all()
    versions = sorted({int(s["version_id"]) for r in rows for s in r.seats})
    owner = {
        int(v.id): (int(v.bot_id), str(v.name))
        for v in conn.execute(
            sa.select(bot_versions.c.id, bot_versions.c.bot_id, bots.c.name)
            .join(bots, bots.c.id == bot_versions.c.bot_id)
            .where(bot_versions.c.id.in_(versions))
        )
    } if versions else {}
    return [
        {
            "id": int(r.id),
            "status": r.status,
            "rated": r.rated_at is not None,
            "created_at": r.created_at.isoformat(),
            "seats": [owner.get(int(s["version_id"]), (None, str(s.get("bot", "?")))) for s in r.seats],
        }
        for r in rows
    ]


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


def most_played(rates: list[Rate], limit: int = OPPONENT_ROWS) -> tuple[list[Rate], int]:
    """The `limit` rows with the most games (ties by name), and how many rows were left out."""
    shown = sorted(rates, key=lambda r: (-r["games"], r["key"]))[:limit]
    return shown, len(rates) - len(shown)


def seat_and_opponent_rates(conn: Connection, bot_id: int) -> tuple[list[Rate], list[Rate], int]:
    """The bot's W/D/L by seat and by opponent over its last RATE_WINDOW recorded matches
    (a draw counts half in the win rate); also how many matches were counted."""
    if not storable_id(bot_id):
        return [], [], 0
    mine = set(conn.execute(sa.select(bot_versions.c.id).where(bot_versions.c.bot_id == bot_id)).scalars())
    if not mine:
        return [], [], 0
    rows = conn.execute(
        sa.select(matches.c.seats, results.c.places)
        .join(results, results.c.match_id == matches.c.id)
        .where(seats_contain(sorted(mine)))
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


#: matches the home page's "live now" list shows at most
LIVE_LISTED: Final = 10


def live_matches(conn: Connection, limit: int = LIVE_LISTED) -> list[dict[str, Any]]:
    """The matches being played now, the latest started first: each one's id, game, where it
    is played (label, page) and its seats' bot names (the home page's "live now" list)."""
    rows = conn.execute(
        sa.select(matches.c.id, matches.c.ladder_id, matches.c.started_at, ladders.c.game)
        .join(ladders, ladders.c.id == matches.c.ladder_id)
        .where(matches.c.status == "running")
        .order_by(matches.c.started_at.desc(), matches.c.id.desc())
        .limit(limit)
    ).all()
    links = ladder_links(conn, [r.ladder_id for r in rows])
    out = []
    for r in rows:
        info = match_info(conn, int(r.id))
        if info is None:  # recorded between the two reads
            continue
        label, link = links.get(int(r.ladder_id), ("", ""))
        out.append({
            "id": int(r.id),
            "game": str(r.game),
            "where": label,
            "where_url": link,
            "seats": [str(s["bot_name"] or f"seat {i}") for i, s in enumerate(info["seats"])],
            "started_at": info["started_at"] or info["created_at"],
        })
    return out
