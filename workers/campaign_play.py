"""Playing a stored campaign game after game (``arena campaign run|resume`` and the campaign
ladders of ``arena beat`` drive it; the commands are in ``cli/campaign.py``).

``run`` stores a campaign (``ladder.campaigns``: seats, seed, the campaign state before game 1)
and plays it; ``resume ID`` continues a stored one after an interruption. Each game is a match
on the campaign's own ladder with the campaign state in its config, played by the ladder's match
function (``workers.match_execution.run_match``): in this process by default, on Celery workers
when ``BROKER_URL`` is set, or a local process pool with ``--workers N``. After a game the
campaign state after it is re-derived from the recorded replay (re-simulated through the engine,
checked against the digest the engine put in the result) and written with the game's scores in
one idempotent transaction, so a game is counted once however often it is retried or resumed.
Game seeds derive from the campaign seed and the index (``ladder.campaigns.game_seed``).

A game whose match failed (its executor raised: a built-in bot crashed, a seat could not be
started) fails the campaign. ``resume ID`` then plays that game again exactly once
(:func:`retry_failed_game`): a new match with the failed one's seed, seats and config (the same
campaign state), the failed match kept beside it on the campaign's ladder. If the retry fails too,
the campaign stays failed and every later ``resume`` says so in one line without playing.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from referee.games import game_spec

__all__ = [
    "CampaignFailed",
    "CampaignStep",
    "advance_campaign",
    "campaign_report",
    "play_campaign",
    "retry_failed_game",
    "state_after_match",
]

#: how long one game may take before the campaign gives up waiting for it
DEFAULT_GAME_TIMEOUT_S: Final = 1800.0


class CampaignFailed(RuntimeError):
    """A game of the campaign failed or never finished: the campaign cannot go on."""


#: how often ``arena campaign resume`` plays a failed game again
GAME_RETRIES: Final = 1


def _attempts(conn: sa.Connection, ladder_id: int, seed: int) -> list[Any]:
    """The matches that played (or tried) a campaign game: those on the campaign's own ladder
    with the game's seed (game seeds of one campaign differ: ``ladder.campaigns.game_seed``),
    oldest first."""
    from ladder.schema import matches

    return list(
        conn.execute(
            sa.select(matches.c.id, matches.c.status, matches.c.error)
            .where(matches.c.ladder_id == ladder_id, matches.c.seed == seed)
            .order_by(matches.c.id)
        )
    )


def retry_failed_game(engine: Engine, campaign_id: int, *, now: datetime | None = None) -> int | None:
    """Queue the failed game of failed campaign `campaign_id` once more; the new match's id.

    The new match copies the failed one's seed, seats and config (so the campaign state before
    the game, whose digest it checks), and the campaign is running again. None when there is
    nothing to retry (the campaign did not fail). Raises CampaignFailed when the game was
    retried already (:data:`GAME_RETRIES`) or the campaign failed for another reason.
    """
    from ladder.campaigns import lock_campaign
    from ladder.db import write_transaction
    from ladder.schema import campaigns

    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        row = lock_campaign(conn, campaign_id)
        if row.status != "failed":
            return None
        index = int(row.next_index)
        game, failed = _current_game(conn, campaign_id, index)
        if failed is None or failed.status != "failed":
            raise CampaignFailed(f"campaign {campaign_id} failed ({row.error}); no failed game to retry")
        if _was_retried(conn, row, game.seed):
            raise CampaignFailed(
                f"campaign {campaign_id}: game {index} failed again when retried (match {failed.id}: "
                f"{failed.error}); a failed game is retried once, the campaign stays failed"
            )
        retry_id = _queue_again(conn, campaign_id, row, failed, now)
        conn.execute(
            sa.update(campaigns)
            .where(campaigns.c.id == campaign_id)
            .values(status="running", error=None, updated_at=now)
        )
    return retry_id


def _current_game(conn: sa.Connection, campaign_id: int, index: int) -> tuple[Any, Any]:
    """(campaign_games row of game `index`, its match's row), None for either not there."""
    from ladder.schema import campaign_games, matches

    game = conn.execute(
        sa.select(campaign_games.c.match_id, campaign_games.c.seed).where(
            campaign_games.c.campaign_id == campaign_id, campaign_games.c.game_index == index
        )
    ).one_or_none()
    if game is None:
        return None, None
    return game, conn.execute(sa.select(matches).where(matches.c.id == game.match_id)).one()


def _was_retried(conn: sa.Connection, row: Any, seed: int) -> bool:
    """True if the game of `seed` has had its retry (:data:`GAME_RETRIES`) already."""
    return len(_attempts(conn, int(row.ladder_id), int(seed))) > GAME_RETRIES


def _queue_again(conn: sa.Connection, campaign_id: int, row: Any, failed: Any, now: datetime) -> int:
    """A new match playing failed match `failed`'s game again (its seed, seats and config: the
    same campaign state, checked by digest), now the game's match; its id."""
    from ladder.match_queue import insert_match
    from ladder.schema import campaign_games
    from referee.core.game import json_digest

    if json_digest((failed.config or {}).get("campaign")) != row.state_digest:
        raise CampaignFailed(
            f"campaign {campaign_id}: game {row.next_index}'s match does not carry the campaign state"
        )
    retry_id = insert_match(
        conn, ladder_id=failed.ladder_id, seed=failed.seed, seats=failed.seats, config=failed.config,
        created_at=now,
    )
    conn.execute(
        sa.update(campaign_games)
        .where(
            campaign_games.c.campaign_id == campaign_id,
            campaign_games.c.game_index == row.next_index,
            campaign_games.c.match_id == failed.id,
        )
        .values(match_id=retry_id)
    )
    return retry_id


@dataclass(frozen=True, slots=True)
class CampaignStep:
    """What one :func:`advance_campaign` did or found.

    `kind`: "waiting" (game `index` is match `match_id`, queued or in play; `new`: queued by
    this step, so the caller dispatches it), "recorded" (game `index` was written by this
    step, or by a concurrent one), "finished" (over, rated if it has a campaign ladder) or
    "failed" (`error` says why; for a failed game, `match_id` is its match, `error` the match's
    error and `retried` whether that was its retry).
    """

    kind: str
    index: int | None = None
    match_id: int | None = None
    new: bool = False
    error: str | None = None
    retried: bool = False


def advance_campaign(engine: Engine, campaign_id: int, *, retry_failed: bool = False) -> CampaignStep:
    """One step of campaign `campaign_id`, as far as it can go without waiting for a match:
    rate it if it finished unrated; else queue its next game unless it is queued already (one
    match per game); record a finished game (the state after it re-derived from the replay,
    written once, :func:`ladder.campaigns.record_game`) and rate the campaign if that was its
    last; or handle a failed game: with `retry_failed`, play it again once (a new match, same
    seed and state) and fail the campaign on its second failure (``arena beat``); without,
    fail the campaign at once (``arena campaign run``, whose ``resume`` retries).

    Safe to call from several processes at once and after a process died between steps: each
    write is idempotent or made under the campaign's row lock."""
    from ladder.campaigns import campaign_row, rate_campaign, record_game, schedule_game

    with engine.connect() as conn:
        row = campaign_row(conn, campaign_id)
    if row.status == "failed":
        return CampaignStep("failed", int(row.next_index), error=row.error)
    if row.status == "finished":
        rate_campaign(engine, campaign_id)  # once: a rated campaign is left alone
        return CampaignStep("finished")
    game = schedule_game(engine, campaign_id)
    if game is None:  # it finished or failed since we read it
        return advance_campaign(engine, campaign_id, retry_failed=retry_failed)
    if game.match_status in ("queued", "running"):
        return CampaignStep("waiting", game.index, game.match_id, new=game.new)
    if game.match_status == "failed":
        return _game_failed(engine, campaign_id, game.index, game.match_id, retry=retry_failed)
    try:
        after, result = state_after_match(engine, game.match_id)
    except CampaignFailed as exc:  # a recorded game that does not replay: nothing can go on
        _fail(engine, campaign_id, f"game {game.index} (match {game.match_id}): {exc}")
        return CampaignStep("failed", game.index, game.match_id, error=str(exc))
    record_game(
        engine, campaign_id, game.index, after,
        scores=result["scores"], outcomes=result["outcomes"], over=bool(after["over"]),
    )  # fmt: skip
    rate_campaign(engine, campaign_id)  # nothing unless that was its last game
    return CampaignStep("recorded", game.index, game.match_id)


def _fail(engine: Engine, campaign_id: int, error: str) -> None:
    from ladder.campaigns import mark_campaign_failed

    mark_campaign_failed(engine, campaign_id, error)


def _game_failed(engine: Engine, campaign_id: int, index: int, match_id: int, *, retry: bool) -> CampaignStep:
    """Game `index`'s match `match_id` failed: queue its retry (`retry`, once) or fail the
    campaign, under the campaign's row lock; a concurrent step that got there first wins."""
    from ladder.campaigns import lock_campaign
    from ladder.db import write_transaction
    from ladder.schema import campaigns

    now = datetime.now(UTC)
    with write_transaction(engine) as conn:
        row = lock_campaign(conn, campaign_id)
        game, failed = _current_game(conn, campaign_id, index)
        moved = row.status != "running" or int(row.next_index) != index or game is None
        if not moved and game.match_id == match_id:
            retried = _was_retried(conn, row, game.seed)
            why = (
                f"game {index} failed again when retried (match {match_id}: {failed.error}); "
                "a failed game is retried once"
                if retried
                else f"game {index} (match {match_id}): {failed.error}"
            )
            if retry and not retried:
                try:
                    retry_id = _queue_again(conn, campaign_id, row, failed, now)
                    return CampaignStep("waiting", index, retry_id, new=True)
                except CampaignFailed as exc:  # checked before any write: nothing to undo
                    why = f"{why}; not retried: {exc}"
            conn.execute(
                sa.update(campaigns)
                .where(campaigns.c.id == campaign_id)
                .values(status="failed", error=why[:2000], updated_at=now)
            )
            return CampaignStep("failed", index, match_id, error=str(failed.error), retried=retried)
    return advance_campaign(engine, campaign_id, retry_failed=retry)  # handled already: look again


def state_after_match(engine: Engine, match_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(campaign state JSON after the match, its result JSON), from the stored replay: the game
    is re-simulated from the campaign state its config embeds, and the state after it must have
    the digest the engine recorded in the result. Raises CampaignFailed if it does not."""
    from ladder.schema import replays
    from referee.core.game import json_digest
    from referee.replay import ReplayError, loads, simulate

    with engine.connect() as conn:
        data = conn.execute(
            sa.select(replays.c.data).where(replays.c.match_id == match_id)
        ).scalar_one_or_none()
    if data is None:
        raise CampaignFailed(f"match {match_id} has no replay")
    try:
        doc = loads(gzip.decompress(data))
        last = None
        for last, _ in simulate(doc):  # noqa: B007 - the loop runs the game; we keep its end
            pass
    except (ReplayError, OSError) as exc:
        raise CampaignFailed(f"match {match_id}: its replay does not re-simulate: {exc}") from None
    if last is None or not last.is_over() or not hasattr(last, "campaign_after"):
        raise CampaignFailed(f"match {match_id}: not a finished campaign game")
    after = last.campaign_after().to_json()
    result = last.result().to_json()
    recorded = (doc.get("result") or {}).get("details", {}).get("campaign_after")
    if recorded is not None and recorded != json_digest(after):
        raise CampaignFailed(
            f"match {match_id}: the re-simulated campaign state differs from the recorded one"
        )
    return after, result


def _wait(engine: Engine, match_id: int, dispatcher: Any, timeout: float) -> str:
    """Pump until match `match_id` is done or failed; requeue it if its lease ran out (a worker,
    or the process resumed from, died while playing it)."""
    from ladder.schema import matches
    from workers.sweeper import retry_dispatch, sweep

    deadline = time.monotonic() + timeout
    dispatcher.dispatch(match_id)
    while True:
        dispatcher.pump()
        with engine.connect() as conn:
            status, expires = conn.execute(
                sa.select(matches.c.status, matches.c.lease_expires_at).where(matches.c.id == match_id)
            ).one()
        if status in ("done", "failed"):
            return str(status)
        if status == "parked":  # not the game's fault: an operator requeues it, then resume
            raise CampaignFailed(
                f"match {match_id} was parked after repeated platform faults (its workers died); "
                f"requeue it with `arena db requeue {match_id}`, then `arena campaign resume`"
            )
        if status == "queued":
            dispatcher.ensure_dispatched(match_id)
        if status == "running" and expires is not None and expires < datetime.now(UTC):
            # its player died: the sweeper's step (requeue every expired lease, dispatch them)
            sweep(engine, retry_dispatch(dispatcher))
        if time.monotonic() > deadline:
            raise CampaignFailed(f"match {match_id} did not finish within {timeout:.0f} s")
        time.sleep(0.05)


def play_campaign(
    engine: Engine,
    campaign_id: int,
    dispatcher: Any,
    *,
    timeout: float = DEFAULT_GAME_TIMEOUT_S,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    retry_failed: bool = False,
) -> None:
    """Play campaign `campaign_id` from its next game to its end (resuming a half-played game:
    a match already done is not played again), rating it once if it has a campaign ladder:
    :func:`advance_campaign` step after step, waiting for each game's match here.
    `on_game` gets each newly recorded game's report row. `retry_failed`: a failed campaign's
    failed game is played again first, once (:func:`retry_failed_game`). Raises
    CampaignFailed."""
    if retry_failed:
        retry_failed_game(engine, campaign_id)
    while True:
        step = advance_campaign(engine, campaign_id)
        if step.kind == "finished":
            return
        if step.kind == "waiting":
            assert step.match_id is not None
            _wait(engine, step.match_id, dispatcher, timeout)
        elif step.kind == "recorded":
            if on_game is not None:
                report = campaign_report(engine, campaign_id)
                on_game(report["games"][int(step.index or 0) - 1])
        elif step.retried:
            raise CampaignFailed(
                f"game {step.index} failed again when retried (match {step.match_id}: {step.error}); "
                "a failed game is retried once, the campaign stays failed"
            )
        elif step.match_id is not None:
            raise CampaignFailed(
                f"game {step.index} (match {step.match_id}) failed: {step.error}; "
                f"`arena campaign resume {campaign_id}` plays it again, once"
            )
        else:
            raise CampaignFailed(f"campaign {campaign_id} failed: {step.error}")


def campaign_report(engine: Engine, campaign_id: int) -> dict[str, Any]:
    """The campaign as JSON: seats, status, each recorded game (scores, outcomes and what the
    game's campaign rules log of it: for Clank! Legacy its passages, MVP and checkmarks after
    it; state digests) and the campaign totals."""
    from ladder.campaigns import campaign_places, campaign_row, load_campaign_games

    with engine.connect() as conn:
        row = campaign_row(conn, campaign_id)
        games = [g for g in load_campaign_games(conn, campaign_id) if g.state_after is not None]
    rules = game_spec(row.game).campaign_state_rules()
    totals = [0] * int(row.players)
    rows = []
    for g in games:
        scores = list(g.scores or ())
        totals = [a + b for a, b in zip(totals, scores, strict=True)]
        rows.append(
            {
                "index": g.index,
                "match_id": g.match_id,
                "seed": g.seed,
                "scores": scores,
                "outcomes": list(g.outcomes or ()),
                **rules.game_summary(row.state, g.index),
                "state_before": g.state_before,
                "state_after": g.state_after,
            }
        )
    return {
        "campaign": campaign_id,
        "status": row.status,
        "error": row.error,
        "seed": int(row.seed),
        "players": int(row.players),
        "seats": list(row.seats),
        "games": rows,
        "totals": totals,
        "places": list(campaign_places(totals)),
        "next_index": int(row.next_index),
        "state_digest": row.state_digest,
        **rules.summary(row.state),
    }


# --- printing -----------------------------------------------------------------------------------
