"""Read-side queries behind the HTTP API and the web page.

Each function takes an open connection and returns JSON-able typed dicts (times as ISO 8601
strings in UTC); lookups of one thing return None when it does not exist, including an id
that no row can have (outside the id columns' range, :func:`storable_id`): the database is never
asked about it (PostgreSQL would refuse it with "integer out of range", SQLite beyond 64 bits).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy import Connection

# pydantic (behind FastAPI) needs this TypedDict on Python < 3.12 to build response schemas
from typing_extensions import TypedDict

from ladder import coop_rating, skill
from ladder.bots import REMOTE, version_kind
from ladder.divisions import DivisionInfo, divisions_of, low_end
from ladder.rating_policy import POLICY_COLUMNS, RatingPolicy, policy_of
from ladder.schema import (
    bot_versions,
    bots,
    campaigns,
    competitions,
    ladder_entries,
    ladders,
    match_seats,
    matches,
    rating_history,
    replays,
    results,
    scenario_rating_history,
    scenarios,
)
from ladder.waiting import why_no_match

__all__ = [
    "INTERVAL_MIN_GAMES",
    "MAX_ID",
    "BotInfo",
    "LadderInfo",
    "MatchInfo",
    "MatchSummary",
    "ScenarioRating",
    "ScenariosPage",
    "StandingsPage",
    "Unranked",
    "bot_id_by_name",
    "bot_info",
    "bot_matches",
    "ladder_info",
    "list_ladders",
    "match_info",
    "match_summaries",
    "replay_data",
    "scenario_ratings",
    "standings",
    "storable_id",
    "unranked_reasons",
]

#: the id columns are 32-bit INTEGERs (``ladder.schema``): no id is outside 1..MAX_ID
MAX_ID: Final = 2**31 - 1
#: matches listed in a bot's profile
RECENT_MATCHES: Final = 10
#: the pages show a rating's or a win rate's interval only from this many games of its row on;
#: below, "too few games" (ladder/RATINGS.md, "Too few games")
INTERVAL_MIN_GAMES: Final = 10


class TimeControlInfo(TypedDict):
    """A ladder's time control."""

    decision_ms: int
    bank_ms: int
    max_strikes: int


class RatingPolicyInfo(TypedDict):
    """A ladder's rating policy (``ladder.rating_policy.RatingPolicy``)."""

    k_established: float
    k_provisional: float
    provisional_games: int
    initial_rating: float
    prior_games: float
    confidence: float


class LadderInfo(TypedDict):
    """A ladder."""

    id: int
    name: str
    game: str
    players: int
    #: "ffa" (free-for-all) or "coop" (cooperative: bots rated as a team against scenarios)
    kind: str
    time_control: TimeControlInfo
    #: the rules its matches play ("clank-2"; RATINGS.md, "Engine versions")
    engine_version: str
    #: how it rates (``ladder.rating_policy.RatingPolicy``; RATINGS.md, "Rating policy")
    rating_policy: RatingPolicyInfo


class Standing(TypedDict):
    """One row of a ladder's standings table."""

    rank: int
    bot_id: int
    bot_name: str
    owner: str
    rating: float
    games: int
    #: matches where it placed first alone (a shared first place is a draw, not a win)
    wins: int
    #: matches where it shared first place
    draws: int
    provisional: bool
    #: the 95% interval of the rating: rating ± 1.96 x its deviation (ladder/RATINGS.md)
    rating_low: float
    rating_high: float
    #: the probability that this bot is stronger than the next row's (null on the last row)
    los_next: float | None
    #: its division's name on a ladder with divisions (ladder/RATINGS.md, "Divisions"), else null
    division: str | None
    #: true on a division's boss's row (a reference bot: rated above it, a bot moves up)
    boss: bool


class Unranked(TypedDict):
    """A bot on a ladder that is not ranked: none of its versions has passed qualification and
    it has played no game there (ladder/RATINGS.md, "Who is ranked")."""

    bot_id: int
    bot_name: str
    owner: str
    #: why, from its newest version: "qualification pending", "qualification running",
    #: "failed qualification" or "no version"
    reason: str


class StandingsPage(TypedDict):
    """A ladder with its standings, ranked by the low end of the rating's 95% interval (on a
    cooperative ladder wins are team wins), and the bots on it that are not ranked yet."""

    ladder: LadderInfo
    standings: list[Standing]
    unranked: list[Unranked]
    #: the ladder's divisions, bottom first (empty: it has none); with divisions the standings
    #: list the top division's bots first
    divisions: list[DivisionInfo]


class ScenarioRating(TypedDict):
    """A scenario of a cooperative ladder, rated like an opponent of the teams."""

    rank: int
    scenario_id: int
    key: str
    description: str
    rating: float
    games: int
    #: games the team won against it
    team_wins: int
    provisional: bool


class ScenariosPage(TypedDict):
    """A ladder with its scenarios, hardest (highest rated) first; empty on a free-for-all ladder."""

    ladder: LadderInfo
    scenarios: list[ScenarioRating]


class BotVersionInfo(TypedDict):
    """One version of a bot."""

    id: int
    version: str
    #: "hosted" (an uploaded archive run in the sandbox), "remote" or "builtin"
    kind: str
    remote: bool
    #: "pending", "running", "passed" or "failed": only a passed version is rated
    qualification: str
    #: the qualification games' outcome (JSON object), once known
    qualification_detail: dict[str, Any] | None
    #: SHA-256 of the stored normalized archive (hosted versions)
    archive_sha256: str | None
    created_at: str
    #: why the matchmaker no longer seats it (it kept forfeiting rated matches:
    #: ladder.suspension), or null
    suspension: str | None


class BotLadderInfo(TypedDict):
    """A bot's standing on one ladder."""

    ladder_id: int
    ladder_name: str
    #: the ladder's seats a match (and a qualification game: `arena bot upload` says how many
    #: reference bots it plays)
    players: int
    rating: float
    games: int
    wins: int
    provisional: bool
    #: why the ladder can make no match now and what is missing (ladder.waiting), or null
    waiting: str | None
    #: on a ladder with divisions (ladder/RATINGS.md, "Divisions"): its division's name and
    #: position (0: the bottom; of `divisions`), else null
    division: str | None
    division_position: int | None
    divisions: int | None
    #: its division's boss and the boss's rating; null without divisions (or for a boss)
    boss_name: str | None
    boss_rating: float | None
    #: the low end of its rating's interval, what is compared with the boss's rating
    rating_low: float
    #: boss rating - rating_low: points the low end must still gain to pass the boss (negative:
    #: it is past it; in a division below the top, promoted at the next matchmaking pass)
    to_boss: float | None


class BotInfo(TypedDict):
    """A bot's public profile (never its token hash): versions, ratings, recent matches."""

    id: int
    name: str
    #: the owning account's name
    owner: str
    #: the game it plays (null for bots registered before accounts)
    game: str | None
    created_at: str
    versions: list[BotVersionInfo]
    #: its rating on each ladder it is on
    ladders: list[BotLadderInfo]
    #: its latest matches, newest first (at most RECENT_MATCHES)
    recent_matches: list[MatchSummary]


class SeatInfo(TypedDict):
    """Who sat in one seat of a match."""

    seat: int
    bot_version_id: int
    bot_id: int | None
    bot_name: str | None
    version: str | None


class MatchSummary(TypedDict):
    """A match in a list."""

    id: int
    ladder_id: int
    status: str
    seats: list[SeatInfo]
    places: list[int] | None
    created_at: str
    finished_at: str | None


class ResultInfo(TypedDict):
    """A match result."""

    places: list[int]
    scores: list[int]
    outcomes: list[str]
    reason: str
    #: cooperative games: whether the team won; None for free-for-all results
    team_won: bool | None


class RatingChangeInfo(TypedDict):
    """One bot's rating change from a match."""

    bot_id: int
    before: float
    after: float
    delta: float


class ScenarioChangeInfo(TypedDict):
    """A cooperative match's scenario and its rating change."""

    scenario_id: int
    key: str
    before: float
    after: float
    delta: float


class ReplayInfo(TypedDict):
    """Where a match's replay is and how to check it."""

    url: str
    sha256: str
    compressed_bytes: int


class MatchInfo(TypedDict):
    """A match in full."""

    id: int
    ladder_id: int
    status: str
    seed: int
    seats: list[SeatInfo]
    attempts: int
    created_at: str
    started_at: str | None
    finished_at: str | None
    error: str | None
    result: ResultInfo | None
    rating_changes: list[RatingChangeInfo]
    #: cooperative ladders, once recorded; None otherwise
    scenario_change: ScenarioChangeInfo | None
    replay: ReplayInfo | None
    #: the rules it is played at, set when a worker claims it (null: not claimed yet, or claimed
    #: before migration 0008; the replay's header names it)
    engine_version: str | None


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _ladder(row: Any) -> LadderInfo:
    return {
        "id": row.id,
        "name": row.name,
        "game": row.game,
        "players": row.players,
        "kind": row.kind,
        "time_control": {
            "decision_ms": row.decision_ms,
            "bank_ms": row.bank_ms,
            "max_strikes": row.max_strikes,
        },
        "engine_version": row.engine_version,
        "rating_policy": cast(RatingPolicyInfo, policy_of(row).as_json()),
    }


def storable_id(value: int) -> bool:
    """True if `value` can be the id of a row (1..:data:`MAX_ID`); lookups of others find nothing."""
    return 1 <= value <= MAX_ID


def list_ladders(conn: Connection) -> list[LadderInfo]:
    """All ladders, by name (not the competitions' or campaigns' own ladders:
    ``ladder.competitions``, ``ladder.campaigns``)."""
    query = sa.select(ladders).where(
        ladders.c.id.not_in(sa.select(competitions.c.ladder_id)),
        ladders.c.id.not_in(sa.select(campaigns.c.ladder_id)),
    )
    return [_ladder(row) for row in conn.execute(query.order_by(ladders.c.name))]


def ladder_info(conn: Connection, ladder_id: int) -> LadderInfo | None:
    """One ladder, or None."""
    if not storable_id(ladder_id):
        return None
    row = conn.execute(sa.select(ladders).where(ladders.c.id == ladder_id)).one_or_none()
    return None if row is None else _ladder(row)


def standings(conn: Connection, ladder_id: int) -> StandingsPage | None:
    """A ladder's standings table, or None for no ladder. Rows are ranked by the low end of
    each rating's 95% interval (then rating, then name): ladder/RATINGS.md, "Rank order"; on a
    ladder with divisions, by division first (the top one's bots first), each boss among its
    division's bots."""
    ladder = ladder_info(conn, ladder_id)
    if ladder is None:
        return None
    rows = conn.execute(
        sa.select(
            ladder_entries.c.bot_id,
            bots.c.name,
            bots.c.owner,
            ladder_entries.c.rating,
            ladder_entries.c.games,
            ladder_entries.c.wins,
            ladder_entries.c.draws,
            ladder_entries.c.information,
            ladder_entries.c.division,
        )
        .join(bots, bots.c.id == ladder_entries.c.bot_id)
        .where(ladder_entries.c.ladder_id == ladder_id)
        .order_by(ladder_entries.c.rating.desc(), bots.c.name)
    ).all()
    why = unranked_reasons(conn, [row.bot_id for row in rows if row.games == 0])
    unranked: list[Unranked] = [
        {"bot_id": row.bot_id, "bot_name": row.name, "owner": row.owner, "reason": why[row.bot_id]}
        for row in sorted(rows, key=lambda r: r.name)
        if row.bot_id in why
    ]
    rows = [row for row in rows if row.bot_id not in why]
    policy = RatingPolicy(**ladder["rating_policy"])
    # the information recording accumulated, one number per bot: nothing here grows with the
    # ladder's history (ladder/RATINGS.md, "Ladder standings")
    deviation = {
        row.bot_id: skill.deviation_from_information(float(row.information), prior_games=policy.prior_games)
        for row in rows
    }
    # ranked by how sure we are: the low end of the interval (95% unless the ladder's policy
    # says otherwise; ladder/RATINGS.md, "Rank order"), so a bot with few games ranks below an
    # equally rated one with many
    z = policy.z
    tiers = divisions_of(conn, ladder_id)
    tier_name = {t["position"]: t["name"] for t in tiers}
    bosses = {t["boss_bot_id"] for t in tiers}
    rows = sorted(
        rows,
        key=lambda r: (-r.division if tiers else 0, -(r.rating - z * deviation[r.bot_id]), -r.rating, r.name),
    )
    table: list[Standing] = []
    for rank, row in enumerate(rows, start=1):
        half = z * deviation[row.bot_id]
        nxt = rows[rank] if rank < len(rows) else None
        table.append(
            {
                "rank": rank,
                "bot_id": row.bot_id,
                "bot_name": row.name,
                "owner": row.owner,
                "rating": round(row.rating, 1),
                "games": row.games,
                "wins": row.wins,
                "draws": row.draws,
                "provisional": policy.is_provisional(row.games),
                "rating_low": round(row.rating - half, 1),
                "rating_high": round(row.rating + half, 1),
                "los_next": None
                if nxt is None
                else round(
                    skill.superiority(
                        row.rating - nxt.rating, deviation[row.bot_id], deviation[nxt.bot_id]
                    ),
                    3,
                ),
                "division": tier_name.get(row.division) if tiers else None,
                "boss": row.bot_id in bosses,
            }
        )
    return {"ladder": ladder, "standings": table, "unranked": unranked, "divisions": tiers}


_UNRANKED_WORDS: Final = {
    "pending": "qualification pending",
    "running": "qualification running",
    "failed": "failed qualification",
}


def unranked_reasons(conn: Connection, bot_ids: Sequence[int]) -> dict[int, str]:
    """bot id -> why it is not ranked, for those of `bot_ids` without a version that passed
    qualification (the newest version's state says why); a bot that has one is left out.

    Only a qualified version is ever seated by the matchmaker, so a bot without one sits at the
    initial rating having played nothing: ranking it would place it among bots that earned their
    rating. Callers pass only bots with no games where that is the rule (ladder/RATINGS.md)."""
    ids = sorted({int(b) for b in bot_ids if storable_id(int(b))})
    if not ids:
        return {}
    newest: dict[int, str] = {}
    passed: set[int] = set()
    for bot_id, state in conn.execute(
        sa.select(bot_versions.c.bot_id, bot_versions.c.qualification)
        .where(bot_versions.c.bot_id.in_(ids))
        .order_by(bot_versions.c.id)
    ):
        newest[int(bot_id)] = str(state)
        if state == "passed":
            passed.add(int(bot_id))
    return {b: _UNRANKED_WORDS.get(newest.get(b, ""), "no version") for b in ids if b not in passed}


def scenario_ratings(conn: Connection, ladder_id: int) -> ScenariosPage | None:
    """A ladder's scenarios (rating descending, then key), or None for no ladder."""
    ladder = ladder_info(conn, ladder_id)
    if ladder is None:
        return None
    rows = conn.execute(
        sa.select(scenarios)
        .where(scenarios.c.ladder_id == ladder_id)
        .order_by(scenarios.c.rating.desc(), scenarios.c.key)
    )
    table: list[ScenarioRating] = [
        {
            "rank": rank,
            "scenario_id": row.id,
            "key": row.key,
            "description": row.description,
            "rating": round(row.rating, 1),
            "games": row.games,
            "team_wins": row.wins,
            "provisional": coop_rating.scenario_is_provisional(row.games),
        }
        for rank, row in enumerate(rows, start=1)
    ]
    return {"ladder": ladder, "scenarios": table}


#: qualification detail that is the bot's own output: shown to its owner only (as its logs are)
OWNER_ONLY_DETAIL: Final = frozenset({"log_excerpt"})


def _detail(raw: str | None, with_output: bool) -> dict[str, Any] | None:
    detail = _json_object(raw)
    if detail is None or with_output:
        return detail
    return {k: v for k, v in detail.items() if k not in OWNER_ONLY_DETAIL}


def bot_info(conn: Connection, bot_id: int, *, with_output: bool = False) -> BotInfo | None:
    """A bot's profile: versions and ladder standings, or None. The qualification records leave
    out what the bot printed (`OWNER_ONLY_DETAIL`) unless `with_output` (its owner's view)."""
    if not storable_id(bot_id):
        return None
    bot = conn.execute(
        sa.select(bots.c.id, bots.c.name, bots.c.owner, bots.c.game, bots.c.created_at).where(
            bots.c.id == bot_id
        )
    ).one_or_none()
    if bot is None:
        return None
    versions: list[BotVersionInfo] = [
        {
            "id": row.id,
            "version": row.version,
            "kind": version_kind(row.command),
            "remote": row.command == REMOTE,
            "qualification": row.qualification,
            "qualification_detail": _detail(row.qualification_detail, with_output),
            "archive_sha256": row.archive_sha256,
            "created_at": row.created_at.isoformat(),
            "suspension": row.suspension,
        }
        for row in conn.execute(
            # every column but the archive itself
            sa.select(*(c for c in bot_versions.c if c.name != "archive"))
            .where(bot_versions.c.bot_id == bot_id)
            .order_by(bot_versions.c.id)
        )
    ]
    entries: list[BotLadderInfo] = []
    for row in conn.execute(
        sa.select(
            ladder_entries.c.ladder_id,
            ladders.c.name,
            ladders.c.players,
            ladder_entries.c.rating,
            ladder_entries.c.games,
            ladder_entries.c.wins,
            ladder_entries.c.information,
            ladder_entries.c.division,
            *(ladders.c[name] for name in POLICY_COLUMNS),
        )
        .join(ladders, ladders.c.id == ladder_entries.c.ladder_id)
        .where(ladder_entries.c.bot_id == bot_id)
        .order_by(ladders.c.name)
    ):
        policy = policy_of(row)
        low = low_end(float(row.rating), float(row.information), policy)
        tiers = divisions_of(conn, row.ladder_id)
        tier = next((t for t in tiers if t["position"] == row.division), None)
        boss = None if tier is None or tier["boss_bot_id"] == bot_id else tier
        entries.append(
            {
                "ladder_id": row.ladder_id,
                "ladder_name": row.name,
                "players": row.players,
                "rating": round(row.rating, 1),
                "games": row.games,
                "wins": row.wins,
                "provisional": policy.is_provisional(row.games),
                "waiting": why_no_match(conn, row.ladder_id),
                "division": None if tier is None else tier["name"],
                "division_position": None if tier is None else tier["position"],
                "divisions": len(tiers) if tiers else None,
                "boss_name": None if boss is None else boss["boss_name"],
                "boss_rating": None if boss is None else boss["boss_rating"],
                "rating_low": round(low, 1),
                "to_boss": None if boss is None else round(boss["boss_rating"] - low, 1),
            }
        )
    return {
        "id": bot.id,
        "name": bot.name,
        "owner": bot.owner,
        "game": bot.game,
        "created_at": bot.created_at.isoformat(),
        "versions": versions,
        "ladders": entries,
        "recent_matches": bot_matches(conn, bot_id, RECENT_MATCHES) or [],
    }


def bot_id_by_name(conn: Connection, name: str) -> int | None:
    """The id of the bot called `name`, or None."""
    if len(name) > 64:
        return None
    found: int | None = conn.execute(sa.select(bots.c.id).where(bots.c.name == name)).scalar_one_or_none()
    return found


def _json_object(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return {"raw": text}
    return value if isinstance(value, dict) else {"value": value}


def _seat_infos(conn: Connection, seat_lists: Iterable[Sequence[int]]) -> dict[int, SeatInfo]:
    """Seat details for every bot version id in `seat_lists` (seat number left at -1)."""
    ids = sorted({int(v) for seats in seat_lists for v in seats})
    if not ids:
        return {}
    rows = conn.execute(
        sa.select(bot_versions.c.id, bot_versions.c.version, bots.c.id.label("bot_id"), bots.c.name)
        .join(bots, bots.c.id == bot_versions.c.bot_id)
        .where(bot_versions.c.id.in_(ids))
    )
    return {
        row.id: {
            "seat": -1,
            "bot_version_id": row.id,
            "bot_id": row.bot_id,
            "bot_name": row.name,
            "version": row.version,
        }
        for row in rows
    }


def _seats(seats: Sequence[int], known: dict[int, SeatInfo]) -> list[SeatInfo]:
    out: list[SeatInfo] = []
    for seat, version_id in enumerate(seats):
        info = known.get(int(version_id))
        if info is None:  # the version was deleted since
            out.append(
                {
                    "seat": seat,
                    "bot_version_id": int(version_id),
                    "bot_id": None,
                    "bot_name": None,
                    "version": None,
                }
            )
        else:
            out.append({**info, "seat": seat})
    return out


def seats_contain(version_ids: Sequence[int]) -> sa.ColumnElement[bool]:
    """SQL: one of `version_ids` holds a seat of the match.

    Read from ``match_seats`` by its (version_id, match_id) index, so it costs the versions'
    own matches, not the ladder's whole history (the JSON ``seats`` column it replaces was
    unpacked for every match of the ladder)."""
    return matches.c.id.in_(
        sa.select(match_seats.c.match_id).where(match_seats.c.version_id.in_([int(v) for v in version_ids]))
    )


def bot_matches(conn: Connection, bot_id: int, limit: int = 50) -> list[MatchSummary] | None:
    """The bot's most recent matches (newest first, at most `limit`), or None for no bot."""
    if not storable_id(bot_id):
        return None
    if conn.execute(sa.select(bots.c.id).where(bots.c.id == bot_id)).first() is None:
        return None
    version_ids = list(
        conn.execute(sa.select(bot_versions.c.id).where(bot_versions.c.bot_id == bot_id)).scalars()
    )
    if not version_ids:
        return []
    return match_summaries(conn, seats_contain(version_ids), limit)


def match_summaries(conn: Connection, where: sa.ColumnElement[bool], limit: int) -> list[MatchSummary]:
    """The matches that satisfy `where`, newest first, at most `limit`, as match summaries
    (the bot page's and the ladder page's recent matches)."""
    rows = conn.execute(
        sa.select(matches, results.c.places)
        .outerjoin(results, results.c.match_id == matches.c.id)
        .where(where)
        .order_by(matches.c.id.desc())
        .limit(limit)
    ).all()
    known = _seat_infos(conn, (row.seats for row in rows))
    return [
        {
            "id": row.id,
            "ladder_id": row.ladder_id,
            "status": row.status,
            "seats": _seats(row.seats, known),
            "places": row.places,
            "created_at": row.created_at.isoformat(),
            "finished_at": _iso(row.finished_at),
        }
        for row in rows
    ]


def match_info(conn: Connection, match_id: int) -> MatchInfo | None:
    """A match with its seats, result, rating changes and replay link, or None."""
    if not storable_id(match_id):
        return None
    row = conn.execute(sa.select(matches).where(matches.c.id == match_id)).one_or_none()
    if row is None:
        return None
    res = conn.execute(sa.select(results).where(results.c.match_id == match_id)).one_or_none()
    result: ResultInfo | None = None
    if res is not None:
        result = {
            "places": res.places,
            "scores": res.scores,
            "outcomes": res.outcomes,
            "reason": res.reason,
            "team_won": res.team_won,
        }
    changes: list[RatingChangeInfo] = [
        {"bot_id": c.bot_id, "before": c.before, "after": c.after, "delta": c.delta}
        for c in conn.execute(
            sa.select(rating_history)
            .where(rating_history.c.match_id == match_id)
            .order_by(rating_history.c.bot_id)
        )
    ]
    scen = conn.execute(
        sa.select(scenario_rating_history, scenarios.c.key)
        .join(scenarios, scenarios.c.id == scenario_rating_history.c.scenario_id)
        .where(scenario_rating_history.c.match_id == match_id)
    ).one_or_none()
    scenario_change: ScenarioChangeInfo | None = None
    if scen is not None:
        scenario_change = {
            "scenario_id": scen.scenario_id,
            "key": scen.key,
            "before": scen.before,
            "after": scen.after,
            "delta": scen.delta,
        }
    rep = conn.execute(
        sa.select(replays.c.sha256, sa.func.length(replays.c.data).label("size")).where(
            replays.c.match_id == match_id
        )
    ).one_or_none()
    replay: ReplayInfo | None = None
    if rep is not None:
        replay = {
            "url": f"/api/matches/{match_id}/replay",
            "sha256": rep.sha256,
            "compressed_bytes": rep.size,
        }
    return {
        "id": row.id,
        "ladder_id": row.ladder_id,
        "status": row.status,
        "seed": row.seed,
        "seats": _seats(row.seats, _seat_infos(conn, [row.seats])),
        "attempts": row.attempts,
        "created_at": row.created_at.isoformat(),
        "started_at": _iso(row.started_at),
        "finished_at": _iso(row.finished_at),
        "error": row.error,
        "result": result,
        "rating_changes": changes,
        "scenario_change": scenario_change,
        "replay": replay,
        "engine_version": row.engine_version,
    }


def replay_data(conn: Connection, match_id: int) -> tuple[bytes, str] | None:
    """The stored (gzip) replay of a match and the SHA-256 of its uncompressed bytes, or None."""
    if not storable_id(match_id):
        return None
    row = conn.execute(
        sa.select(replays.c.data, replays.c.sha256).where(replays.c.match_id == match_id)
    ).one_or_none()
    return None if row is None else (bytes(row.data), row.sha256)
