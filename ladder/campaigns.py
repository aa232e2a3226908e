"""Stored campaigns (Clank! Legacy): the campaign state between games, each game, and the rating
of a finished campaign on a campaign ladder.

A campaign row holds its seats (bot versions), seed, the campaign state as versioned canonical
JSON with its digest, the index of the next game and its status. Its games are matches on the
campaign's own ladder (like a competition's: the matchmaker and the ladder list leave it alone),
so they run through the ladder's match function with its time control, executor, leases and
idempotent recording. ``campaign_games`` ties each index to its match (the primary key
(campaign, index): a game is scheduled once), with the state digests before and after.

Writing game k's outcome and the new campaign state is one transaction (:func:`record_game`),
idempotent on (campaign, index): it applies only while the campaign's next index is k, so a
retried or resumed game is never counted twice. A finished campaign on a campaign ladder is
rated once (:func:`rate_campaign`; the formula is in ``ladder/RATINGS.md``, "Campaign ladders").

Pure bookkeeping: playing a game and deriving the state after it (re-simulating the replay
through the engine) is the caller's (``workers/campaign_play.py``, whose ``advance_campaign``
step both ``arena campaign run`` and ``arena beat``'s campaign ladders take,
``workers/campaign_ladders.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

from ladder import skill
from ladder.db import write_transaction
from ladder.elo import rating_deltas
from ladder.errors import InvalidInput, NotFound
from ladder.ladders import ensure_entries, ladder_policy
from ladder.match_queue import insert_match
from ladder.schema import (
    bot_versions,
    bots,
    campaign_games,
    campaign_ratings,
    campaigns,
    ladder_entries,
    ladders,
    matches,
)
from referee.core.game import json_digest
from referee.games import campaign_game_names

__all__ = [
    "CampaignGame",
    "RatedCampaign",
    "campaign_places",
    "campaign_row",
    "create_campaign",
    "game_seed",
    "insert_campaign",
    "ladder_time_control",
    "load_campaign_games",
    "lock_campaign",
    "mark_campaign_failed",
    "rate_campaign",
    "record_game",
    "schedule_game",
]

def game_seed(campaign_seed: int, index: int) -> int:
    """Game `index`'s seed: 48 bits of SHA-256 of the campaign seed and the index (no two games
    of a campaign share a seed; the same campaign seed gives the same games)."""
    digest = hashlib.sha256(f"arena-campaign:{campaign_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def create_campaign(engine: Engine, **fields: Any) -> int:
    """Store a new campaign and its own ladder; return the campaign id: :func:`insert_campaign`
    (the same keyword arguments) in a transaction of its own."""
    with write_transaction(engine) as conn:
        return insert_campaign(conn, **fields)


def insert_campaign(
    conn: Connection,
    *,
    game: str | None = None,
    players: int,
    seats: Sequence[Mapping[str, Any]],
    seed: int,
    games: int,
    state: Mapping[str, Any],
    decision_ms: int = 10_000,
    bank_ms: int = 120_000,
    max_strikes: int = 3,
    cpu_decision_ms: int = 0,
    cpu_bank_ms: int = 0,
    rating_ladder_id: int | None = None,
    now: datetime | None = None,
) -> int:
    """Store a new campaign and its own ladder in the caller's transaction; the campaign id.

    `seats` are per seat ``{"version_id": bot_versions.id, "bot": label, "name": deck-box name}``;
    `state` the campaign state's JSON before game 1 (its `version` is stored beside it).
    `game` is a campaign game (its spec says so; None: the build's one campaign game);
    `rating_ladder_id` names a campaign ladder of
    that game and seat count to rate the campaign on when it finishes. The games are played
    with the time control given (the CPU budgets as on ``ladders``, 0 = none). Raises
    InvalidInput for a wrong seat count, game count, game or ladder, NotFound for an unknown
    version or ladder.
    """
    now = now or datetime.now(UTC)
    if len(seats) != players:
        raise InvalidInput(f"seats: {players} players need {players} seats, got {len(seats)}")
    if not 1 <= games <= 100:
        raise InvalidInput(f"games: 1 to 100, got {games}")
    version_ids = [int(s["version_id"]) for s in seats]
    known = set(
        conn.execute(sa.select(bot_versions.c.id).where(bot_versions.c.id.in_(version_ids))).scalars()
    )
    missing = sorted(set(version_ids) - known)
    if missing:
        raise NotFound(f"no bot versions {missing}")
    if game is None:
        # no name needed while the build has one campaign game; with more, callers say which
        choices = campaign_game_names()
        if len(choices) != 1:
            raise InvalidInput(f"game: one of the campaign games {', '.join(choices)}")
        game = choices[0]
    if game not in campaign_game_names():
        raise InvalidInput(f"game: {game!r} is not played in campaigns")
    # its games play the campaign ladder's engine version (else the build's current one)
    pinned: dict[str, str] = {}
    if rating_ladder_id is not None:
        ladder = conn.execute(
            sa.select(ladders).where(ladders.c.id == rating_ladder_id)
        ).one_or_none()
        if ladder is None:
            raise NotFound(f"no ladder {rating_ladder_id}")
        if ladder.kind != "campaign" or ladder.game != game or ladder.players != players:
            raise InvalidInput(f"ladder {rating_ladder_id} is not a {players}-player {game} campaign ladder")
        # a campaign rated on a ladder is played as the ladder's own are: at its time control,
        # among its bots (rating it never puts a bot on the ladder that was not there)
        given = (decision_ms, bank_ms, max_strikes, cpu_decision_ms, cpu_bank_ms)
        if given != ladder_time_control(ladder):
            raise InvalidInput(
                f"time control: ladder {rating_ladder_id} plays at {ladder.decision_ms} ms a decision, "
                f"a {ladder.bank_ms} ms bank and {ladder.max_strikes} strikes; a campaign rated there "
                "is played at its time control"
            )
        outside = conn.execute(
            sa.select(bots.c.name)
            .join(bot_versions, bot_versions.c.bot_id == bots.c.id)
            .where(
                bot_versions.c.id.in_(version_ids),
                bots.c.id.not_in(
                    sa.select(ladder_entries.c.bot_id).where(ladder_entries.c.ladder_id == rating_ladder_id)
                ),
            )
            .order_by(bots.c.name)
        ).scalars().all()
        if outside:
            raise InvalidInput(
                f"seats: {', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not on ladder "
                f"{rating_ladder_id}; a campaign rated there seats the bots on it "
                "(its reference bots: bot:reference-...; others join it first)"
            )
        pinned["engine_version"] = ladder.engine_version
    ladder_id: int = conn.execute(
        sa.insert(ladders)
        .values(
            # unique: the seed and the time make it readable, the digest unique enough
            name=f"campaign-{seed}-{json_digest([seed, now.isoformat(), version_ids])[:10]}",
            game=game,
            players=players,
            decision_ms=decision_ms,
            bank_ms=bank_ms,
            max_strikes=max_strikes,
            cpu_decision_ms=cpu_decision_ms,
            cpu_bank_ms=cpu_bank_ms,
            kind="ffa",
            created_at=now,
            **pinned,
        )
        .returning(ladders.c.id)
    ).scalar_one()
    campaign_id: int = conn.execute(
        sa.insert(campaigns)
        .values(
            game=game,
            players=players,
            seats=[dict(s) for s in seats],
            seed=seed,
            games=games,
            state=dict(state),
            state_digest=json_digest(dict(state)),
            state_version=int(state["version"]),
            next_index=1,
            status="running",
            ladder_id=ladder_id,
            rating_ladder_id=rating_ladder_id,
            created_at=now,
            updated_at=now,
        )
        .returning(campaigns.c.id)
    ).scalar_one()
    return campaign_id


def ladder_time_control(ladder: Any) -> tuple[int, int, int, int, int]:
    """A ladders row's time control as insert_campaign takes it: decision_ms, bank_ms,
    max_strikes, cpu_decision_ms, cpu_bank_ms."""
    return (
        int(ladder.decision_ms),
        int(ladder.bank_ms),
        int(ladder.max_strikes),
        int(ladder.cpu_decision_ms),
        int(ladder.cpu_bank_ms),
    )


def campaign_row(conn: Connection, campaign_id: int) -> Any:
    """The campaign's row; NotFound if there is none."""
    row = conn.execute(sa.select(campaigns).where(campaigns.c.id == campaign_id)).one_or_none()
    if row is None:
        raise NotFound(f"no campaign {campaign_id}")
    return row


@dataclass(frozen=True, slots=True)
class CampaignGame:
    """One game of a campaign: its match and, once recorded, the state after it."""

    index: int
    match_id: int
    seed: int
    state_before: str
    state_after: str | None
    scores: tuple[int, ...] | None
    outcomes: tuple[str, ...] | None
    match_status: str
    #: True when :func:`schedule_game` queued its match just now (the caller dispatches it)
    new: bool = False


def _game(row: Any) -> CampaignGame:
    return CampaignGame(
        index=row.game_index,
        match_id=row.match_id,
        seed=int(row.seed),
        state_before=row.state_before,
        state_after=row.state_after,
        scores=tuple(row.scores) if row.scores is not None else None,
        outcomes=tuple(row.outcomes) if row.outcomes is not None else None,
        match_status=row.status,
    )


_GAMES = sa.select(campaign_games, matches.c.status).join(matches, matches.c.id == campaign_games.c.match_id)


def load_campaign_games(conn: Connection, campaign_id: int) -> list[CampaignGame]:
    """The campaign's scheduled games, by index."""
    rows = conn.execute(
        _GAMES.where(campaign_games.c.campaign_id == campaign_id).order_by(campaign_games.c.game_index)
    )
    return [_game(r) for r in rows]


def lock_campaign(conn: Connection, campaign_id: int) -> Any:
    """The campaign's row, locked until the transaction ends (``SELECT ... FOR UPDATE`` on
    PostgreSQL; SQLite's write transaction holds the database); NotFound if there is none."""
    row = conn.execute(
        sa.select(campaigns).where(campaigns.c.id == campaign_id).with_for_update()
    ).one_or_none()
    if row is None:
        raise NotFound(f"no campaign {campaign_id}")
    return row


def schedule_game(engine: Engine, campaign_id: int, *, now: datetime | None = None) -> CampaignGame | None:
    """The campaign's next game, queued as a match on its ladder with the campaign state in the
    config (``{"players": N, "campaign": state}``) unless it is scheduled already; None when the
    campaign is not running. Idempotent: one match per (campaign, index)."""
    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        row = lock_campaign(conn, campaign_id)
        if row.status != "running":
            return None
        index = int(row.next_index)
        existing = conn.execute(
            _GAMES.where(campaign_games.c.campaign_id == campaign_id, campaign_games.c.game_index == index)
        ).one_or_none()
        if existing is not None:
            return _game(existing)
        seed = game_seed(int(row.seed), index)
        seats = [int(s["version_id"]) for s in row.seats]
        match_id = insert_match(
            conn, ladder_id=row.ladder_id, seed=seed, seats=seats,
            config={"players": row.players, "campaign": row.state}, created_at=now,
        )
        conn.execute(
            sa.insert(campaign_games).values(
                campaign_id=campaign_id,
                game_index=index,
                match_id=match_id,
                seed=seed,
                state_before=row.state_digest,
            )
        )
    return CampaignGame(index, match_id, seed, row.state_digest, None, None, None, "queued", new=True)


def record_game(
    engine: Engine,
    campaign_id: int,
    index: int,
    state_after: Mapping[str, Any],
    *,
    scores: Sequence[int],
    outcomes: Sequence[str],
    over: bool,
    now: datetime | None = None,
) -> bool:
    """Write game `index`'s outcome and the campaign state after it, in one transaction.

    True if this call wrote it; False if it was written before (the campaign's next index has
    moved past `index`): a retried game is never counted twice. The campaign finishes when
    `over` (the Book ended it) or when its number of games is played. Raises InvalidInput when
    `index` is not the next game or was never scheduled.
    """
    now = now or datetime.now(UTC)
    digest = json_digest(dict(state_after))
    with write_transaction(engine) as conn:
        row = lock_campaign(conn, campaign_id)
        if int(row.next_index) > index:
            return False
        if int(row.next_index) != index or row.status != "running":
            raise InvalidInput(
                f"campaign {campaign_id}: game {index} is not its next game ({row.next_index})"
            )
        done = conn.execute(
            sa.update(campaign_games)
            .where(
                campaign_games.c.campaign_id == campaign_id,
                campaign_games.c.game_index == index,
                campaign_games.c.state_after.is_(None),
            )
            .values(state_after=digest, scores=list(scores), outcomes=list(outcomes))
        ).rowcount
        if done != 1:
            raise InvalidInput(f"campaign {campaign_id}: game {index} was never scheduled")
        finished = over or index >= int(row.games)
        conn.execute(
            sa.update(campaigns)
            .where(campaigns.c.id == campaign_id)
            .values(
                state=dict(state_after),
                state_digest=digest,
                state_version=int(state_after["version"]),
                next_index=index + 1,
                status="finished" if finished else "running",
                updated_at=now,
            )
        )
    return True


def mark_campaign_failed(
    engine: Engine, campaign_id: int, error: str, *, now: datetime | None = None
) -> None:
    """The campaign cannot go on (a game failed): status failed, with why."""
    with write_transaction(engine) as conn:
        conn.execute(
            sa.update(campaigns)
            .where(campaigns.c.id == campaign_id, campaigns.c.status == "running")
            .values(status="failed", error=error[:2000], updated_at=now or datetime.now(UTC))
        )


def campaign_places(totals: Sequence[int]) -> tuple[int, ...]:
    """1-based places by campaign total score, higher first; equal totals share a place."""
    return tuple(1 + sum(1 for other in totals if other > t) for t in totals)


@dataclass(frozen=True, slots=True)
class RatedCampaign:
    """What :func:`rate_campaign` did: `changes` bot id -> rating delta (empty if nothing)."""

    campaign_id: int
    already_rated: bool
    changes: Mapping[int, float]


def rate_campaign(engine: Engine, campaign_id: int, *, now: datetime | None = None) -> RatedCampaign:
    """Rate a finished campaign on its campaign ladder, once (``ladder/RATINGS.md``).

    Each seat's campaign total is the sum of its scores over the campaign's games; the places
    by total are rated as one free-for-all match with the ladder's pairwise Elo (its rating
    policy's K), one game per bot. Idempotent: the campaign's `rated_at` and
    ``campaign_ratings`` (one row per campaign and bot) are written in the same transaction as
    the ratings. A campaign with no campaign ladder, or not finished, is left alone.
    """
    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        row = lock_campaign(conn, campaign_id)
        if row.rated_at is not None:
            return RatedCampaign(campaign_id, True, {})
        if row.rating_ladder_id is None or row.status != "finished":
            return RatedCampaign(campaign_id, False, {})
        totals = [0] * int(row.players)
        for g in load_campaign_games(conn, campaign_id):
            for seat, score in enumerate(g.scores or ()):
                totals[seat] += int(score)
        places = campaign_places(totals)
        version_ids = [int(s["version_id"]) for s in row.seats]
        bot_of = {
            int(v): int(b)
            for v, b in conn.execute(
                sa.select(bot_versions.c.id, bot_versions.c.bot_id).where(bot_versions.c.id.in_(version_ids))
            )
        }
        seat_bots = [int(bot_of[v]) for v in version_ids]
        ladder_id = int(row.rating_ladder_id)
        policy = ladder_policy(conn, ladder_id)
        ensure_entries(conn, ladder_id, seat_bots, now, initial_rating=policy.initial_rating)
        entries = {
            e.bot_id: e
            for e in conn.execute(
                sa.select(ladder_entries.c.bot_id, ladder_entries.c.rating, ladder_entries.c.games)
                .where(ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id.in_(seat_bots))
                .order_by(ladder_entries.c.bot_id)
                .with_for_update()
            )
        }
        deltas = rating_deltas(
            [entries[b].rating for b in seat_bots],
            places,
            [policy.k_factor(entries[b].games) for b in seat_bots],
        )
        changes: dict[int, float] = {}
        best: dict[int, int] = {}
        for seat, bot in enumerate(seat_bots):
            changes[bot] = changes.get(bot, 0.0) + deltas[seat]
            best[bot] = min(best.get(bot, places[seat]), places[seat])
        shared_first = sum(1 for p in places if p == 1) > 1
        # one free-for-all game of its bots (each pair once, weight 1/(players - 1)), at their
        # ratings before it: ladder/RATINGS.md, "Ladder standings"
        rated_bots = sorted(changes)
        weight = 1.0 / (int(row.players) - 1)
        information = {
            a: sum(
                skill.game_information(float(entries[a].rating), float(entries[b].rating), weight)
                for b in rated_bots
                if b != a
            )
            for a in rated_bots
        }
        for bot in sorted(changes):
            before = float(entries[bot].rating)
            after = before + changes[bot]
            conn.execute(
                sa.update(ladder_entries)
                .where(ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot)
                .values(
                    rating=after,
                    games=ladder_entries.c.games + 1,
                    wins=ladder_entries.c.wins + int(best[bot] == 1 and not shared_first),
                    draws=ladder_entries.c.draws + int(best[bot] == 1 and shared_first),
                    information=ladder_entries.c.information + information[bot],
                    updated_at=now,
                )
            )
            conn.execute(
                sa.insert(campaign_ratings).values(
                    campaign_id=campaign_id,
                    bot_id=bot,
                    ladder_id=ladder_id,
                    before=before,
                    after=after,
                    delta=changes[bot],
                )
            )
        conn.execute(
            sa.update(campaigns).where(campaigns.c.id == campaign_id).values(rated_at=now, updated_at=now)
        )
    return RatedCampaign(campaign_id, False, changes)
