"""Campaign ladders played around the clock: ``arena beat`` starts and advances their campaigns.

A campaign ladder (``ladders.kind = 'campaign'``, Clank! Legacy) rates whole campaigns, so the
matchmaker plays no single games on it. Instead each beat pass (and each wake on a finished
match) runs :func:`tick_campaign_ladders`:

1. **advance** every campaign rated on a campaign ladder that is running, or finished and not
   yet rated: :func:`workers.campaign_play.advance_campaign` step after step, the one step
   ``arena campaign run`` takes too. A finished game is recorded (the state after it derived
   from its replay) and the next one queued as a match for the workers; after the last game the
   campaign is rated once. A failed game is played again once (a new match, same seed and
   campaign state); a second failure fails the campaign, with the reason. Nothing here waits
   for a match: the tick returns and the next one finds the match done.
2. **start** campaigns on each campaign ladder with fewer than :func:`campaigns_per_ladder`
   running, among the bots it may seat: the matchmaker's field (``workers.matchmaker``:
   qualified, seatable versions, each bot's newest; reference bots are opponents, never a table
   of their own) and the matchmaker's pairing (:func:`workers.matchmaker.plan_matches`: a bot
   with fewer than ``PLACEMENT_GAMES`` campaigns, rated plus running, anchors first, else the
   one with the fewest recent campaigns; close ratings, no immediate rematch, seat rotation,
   ties broken by the seeded `rng`), with the ladder's campaigns as its history. Each campaign has
   :func:`campaign_games` games, the ladder's time control, and its first game is queued at once.

Idempotent: two beats at once, or a beat killed between two steps, never queue a game twice,
count a game twice or rate a campaign twice. Queuing a game is one match per (campaign, index)
under the campaign's row lock; recording is conditional on the campaign's next index; rating
sets ``rated_at`` once; a failed game's retry is decided under the row lock; starting takes the
campaign ladder's row lock, so the count of running campaigns cannot be raced past. A game
queued but never dispatched (the beat died in between) is re-sent by the sweeper like any
match queued too long.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Final, TypeVar

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import is_outage, write_transaction
from ladder.schema import bots, campaigns, ladders
from referee import settings
from workers.campaign_play import advance_campaign
from workers.matchmaker import HISTORY_WINDOW, load_entrants, plan_matches

__all__ = [
    "CAMPAIGNS_PER_LADDER_ENV",
    "CAMPAIGN_GAMES_ENV",
    "DEFAULT_CAMPAIGNS_PER_LADDER",
    "DEFAULT_CAMPAIGN_GAMES",
    "CampaignTick",
    "campaign_game_names",
    "campaigns_per_ladder",
    "run_beat_step",
    "start_campaigns",
    "tick_campaign_ladders",
]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

CAMPAIGNS_PER_LADDER_ENV: Final = "ARENA_CAMPAIGNS_PER_LADDER"
#: campaigns kept running per campaign ladder (each has one game in flight at a time)
DEFAULT_CAMPAIGNS_PER_LADDER: Final = 4
CAMPAIGN_GAMES_ENV: Final = "ARENA_CAMPAIGN_GAMES"
#: games per campaign started on a campaign ladder (a Clank! Legacy campaign's length)
DEFAULT_CAMPAIGN_GAMES: Final = 10
#: steps one campaign takes per tick at most (record, queue the next: 2 suffice; a bound in
#: case a step reports progress it did not make)
_STEPS_PER_TICK: Final = 4


def campaigns_per_ladder() -> int:
    """``$ARENA_CAMPAIGNS_PER_LADDER``, else :data:`DEFAULT_CAMPAIGNS_PER_LADDER`."""
    return settings.current().campaigns_per_ladder


def campaign_game_names() -> int:
    """``$ARENA_CAMPAIGN_GAMES``, else :data:`DEFAULT_CAMPAIGN_GAMES`."""
    return settings.current().campaign_games


@dataclass
class CampaignTick:
    """What one :func:`tick_campaign_ladders` did."""

    #: campaigns started
    started: list[int] = field(default_factory=list)
    #: matches queued and dispatched (next games, retries, first games)
    dispatched: list[int] = field(default_factory=list)
    #: (campaign, game index) recorded
    recorded: list[tuple[int, int]] = field(default_factory=list)
    #: campaigns found finished (and rated, if they were not)
    finished: list[int] = field(default_factory=list)
    #: campaigns that failed (this tick or before)
    failed: list[int] = field(default_factory=list)


def _on_campaign_ladders() -> sa.ColumnElement[bool]:
    return campaigns.c.rating_ladder_id.in_(sa.select(ladders.c.id).where(ladders.c.kind == "campaign"))


def _advance(engine: Engine, campaign_id: int, dispatch: Callable[[int], object], tick: CampaignTick) -> None:
    """Step campaign `campaign_id` until it waits for a match, finishes or fails (a few steps:
    one game is in flight at a time, so a tick records at most the one that ended)."""
    for _ in range(_STEPS_PER_TICK):
        step = advance_campaign(engine, campaign_id, retry_failed=True)
        if step.kind == "recorded":
            tick.recorded.append((campaign_id, int(step.index or 0)))
            continue
        if step.kind == "waiting" and step.new and step.match_id is not None:
            dispatch(step.match_id)
            tick.dispatched.append(step.match_id)
        elif step.kind == "finished":
            tick.finished.append(campaign_id)
        elif step.kind == "failed":
            tick.failed.append(campaign_id)
            log.warning("campaign %s failed: %s", campaign_id, step.error)
        return


def start_campaigns(
    engine: Engine,
    ladder_id: int,
    *,
    limit: int,
    games: int,
    rng: random.Random,
    now: datetime | None = None,
) -> list[int]:
    """Start campaigns on campaign ladder `ladder_id` until `limit` run there (or nobody is
    left to seat); the new campaign ids. Seats as the module doc says; the first games are not
    queued here (advancing a campaign does that)."""
    from ladder.campaigns import insert_campaign
    from referee.games import campaign_game_names, game_spec

    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        # the ladder's row lock: two beats cannot both see room for the same campaign
        ladder = conn.execute(
            sa.select(ladders)
            .where(ladders.c.id == ladder_id, ladders.c.kind == "campaign")
            .with_for_update()
        ).one_or_none()
        if ladder is None or ladder.game not in campaign_game_names():
            return []
        # the campaign state before game 1 is made by the game's own campaign rules
        rules = game_spec(ladder.game).campaign_state_rules()
        recent = conn.execute(
            sa.select(campaigns.c.seats, campaigns.c.status)
            .where(campaigns.c.rating_ladder_id == ladder_id)
            .order_by(campaigns.c.id.desc())
            .limit(HISTORY_WINDOW)
        ).all()
        running = int(
            conn.execute(
                sa.select(sa.func.count()).where(
                    campaigns.c.rating_ladder_id == ladder_id, campaigns.c.status == "running"
                )
            ).scalar_one()
        )
        if running >= limit:
            return []
        field_ = load_entrants(conn, ladder_id, ladder.game)
        oldest_first = list(reversed(recent))
        history = [
            tuple(field_.bot_of_version.get(int(s["version_id"]), -1) for s in c.seats) for c in oldest_first
        ]
        # a bot's running campaigns count as its pending games: placement and load see them
        pending = Counter(
            bot
            for c, seated in zip(oldest_first, history, strict=True)
            if c.status == "running"
            for bot in seated
        )
        planned = plan_matches(
            field_.entrants, int(ladder.players), limit - running, rng, history=history, pending=pending
        )
        names = dict(
            conn.execute(
                sa.select(bots.c.id, bots.c.name).where(
                    bots.c.id.in_(sorted({b for p in planned for b in p.bots}))
                )
            ).all()
        )
        started = []
        for plan in planned:
            deck_boxes = rules.default_names(int(ladder.players))
            started.append(
                insert_campaign(
                    conn,
                    game=ladder.game,
                    players=int(ladder.players),
                    seats=[
                        {"version_id": v, "bot": names[b], "name": deck_boxes[seat]}
                        for seat, (b, v) in enumerate(zip(plan.bots, plan.versions, strict=True))
                    ],
                    seed=plan.seed,
                    games=games,
                    state=rules.new_state(int(ladder.players), deck_boxes),
                    decision_ms=int(ladder.decision_ms),
                    bank_ms=int(ladder.bank_ms),
                    max_strikes=int(ladder.max_strikes),
                    cpu_decision_ms=int(ladder.cpu_decision_ms),
                    cpu_bank_ms=int(ladder.cpu_bank_ms),
                    rating_ladder_id=ladder_id,
                    now=now,
                )
            )
    return started


def tick_campaign_ladders(
    engine: Engine,
    dispatch: Callable[[int], object],
    *,
    per_ladder: int | None = None,
    games: int | None = None,
    rng: random.Random | None = None,
) -> CampaignTick:
    """One pass over the campaign ladders (module doc): advance their campaigns, then start new
    ones where fewer than `per_ladder` (default :func:`campaigns_per_ladder`) run, of `games`
    games (default :func:`campaign_games`); every newly queued match goes to `dispatch`.

    A campaign whose step raises (other than a database outage, which ends the pass) is logged
    and skipped: the others go on."""
    per_ladder = campaigns_per_ladder() if per_ladder is None else per_ladder
    games = campaign_game_names() if games is None else games
    rng = rng or random.Random()
    tick = CampaignTick()
    with engine.connect() as conn:
        open_ones = list(
            conn.execute(
                sa.select(campaigns.c.id)
                .where(
                    _on_campaign_ladders(),
                    sa.or_(
                        campaigns.c.status == "running",
                        sa.and_(campaigns.c.status == "finished", campaigns.c.rated_at.is_(None)),
                    ),
                )
                .order_by(campaigns.c.id)
            ).scalars()
        )
        ladder_ids = list(
            conn.execute(
                sa.select(ladders.c.id).where(ladders.c.kind == "campaign").order_by(ladders.c.id)
            ).scalars()
        )
    for campaign_id in open_ones:
        _guarded(partial(_advance, engine, campaign_id, dispatch, tick), f"campaign {campaign_id}")
    for ladder_id in ladder_ids:
        start = partial(start_campaigns, engine, ladder_id, limit=per_ladder, games=games, rng=rng)
        new = _guarded(start, f"campaign ladder {ladder_id}") or []
        tick.started += new
        for campaign_id in new:
            _guarded(partial(_advance, engine, campaign_id, dispatch, tick), f"campaign {campaign_id}")
    return tick


def _guarded(step: Callable[[], _T], what: str) -> _T | None:
    """`step()`; a database outage propagates (the pass ends), anything else is logged (None)."""
    try:
        return step()
    except Exception as exc:
        if is_outage(exc):
            raise
        log.exception("campaign ladders: %s could not go on; the next pass tries again", what)
        return None


def run_beat_step() -> CampaignTick | None:
    """The ``arena beat`` step: :func:`tick_campaign_ladders` on ``$DATABASE_URL``, games sent to
    the Celery workers (nothing while the database is away)."""
    from ladder.db import database_url
    from workers.celery_app import dispatch
    from workers.match_execution import engine_for

    try:
        return tick_campaign_ladders(engine_for(database_url()), dispatch)
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("campaign ladders: the database is unreachable (%s); trying again next beat", exc)
        return None
