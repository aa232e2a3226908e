"""``arena campaign run|resume``: a whole Clank! Legacy campaign, stored and resumable.

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

import argparse
import contextlib
import gzip
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from referee.games import campaign_game_names, game_spec

__all__ = [
    "CampaignFailed",
    "CampaignStep",
    "advance_campaign",
    "campaign_report",
    "play_campaign",
    "register",
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
    from ladder.schema import campaign_games, matches
    from referee.core.game import json_digest

    if json_digest((failed.config or {}).get("campaign")) != row.state_digest:
        raise CampaignFailed(
            f"campaign {campaign_id}: game {row.next_index}'s match does not carry the campaign state"
        )
    retry_id: int = conn.execute(
        sa.insert(matches)
        .values(
            ladder_id=failed.ladder_id,
            status="queued",
            seed=failed.seed,
            seats=failed.seats,
            config=failed.config,
            attempts=0,
            created_at=now,
        )
        .returning(matches.c.id)
    ).scalar_one()
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


@contextlib.contextmanager
def _dispatcher(db_url: str, workers: int) -> Iterator[Any]:
    """Celery when BROKER_URL is set, else a local pool of `workers` (0: in this process)."""
    from referee.settings import current

    if current().distributed:
        from workers.tournament_cli import _dispatcher as shared

        with shared(db_url, max(1, workers)) as celery:
            yield celery
        return
    from workers.tournament import Inline

    if workers == 0:
        yield Inline(db_url)
        return
    from workers.local_pool import LocalPool

    with LocalPool(db_url, workers) as pool:  # an interrupt terminates it (LocalPool.__exit__)
        yield pool


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


def _print_game(seats: Sequence[dict[str, Any]], game: dict[str, Any]) -> None:
    print(
        f"game {game['index']}: prologue {game['prologue']} ({game['board']}), epilogue {game['epilogue']}, "
        f"seed {game['seed']}, match {game['match_id']}, state {game['state_after']}"
    )
    print(f"  {'seat':<5}{'bot':<16}{'name':<16}{'score':>6}  {'outcome':<13}{'checkmarks':>10}")
    for seat, s in enumerate(seats):
        mvp = " MVP" if seat == game["mvp"] else ""
        print(
            f"  {seat:<5}{str(s['bot'])[:15]:<16}{str(s['name'])[:15]:<16}{game['scores'][seat]:>6}  "
            f"{game['outcomes'][seat]:<13}{game['checkmarks'][seat]:>10}{mvp}"
        )
    sys.stdout.flush()


def _print_total(report: dict[str, Any]) -> None:
    print(f"campaign {report['campaign']}: {report['status']}, {len(report['games'])} games, "
          f"state {report['state_digest']}")  # fmt: skip
    print(f"  {'place':<6}{'seat':<5}{'bot':<16}{'total':>6}  promotions")
    order = sorted(range(report["players"]), key=lambda s: (report["places"][s], s))
    for seat in order:
        bot = str(report["seats"][seat]["bot"])[:15]
        promos = ", ".join(report["promotions"][seat]) or "-"
        print(f"  {report['places'][seat]:<6}{seat:<5}{bot:<16}{report['totals'][seat]:>6}  {promos}")
    if report["error"]:
        print(f"  error: {report['error']}")


# --- commands -----------------------------------------------------------------------------------


def _seats_for(
    engine: Engine, game: str, texts: Sequence[str], names: Sequence[str], ladder_id: int | None = None
) -> list[dict[str, Any]]:
    """Built-in bots or registered versions (version:ID, bot:NAME) as campaign seats. With a
    campaign ladder (`ladder_id`), a built-in name is one of the ladder's reference bots playing
    it (a different one for each seat naming it): a campaign rated there adds no bot to it."""
    from ladder.competitions import entry_version, parse_entry
    from ladder.db import write_transaction
    from ladder.errors import InvalidInput

    now = datetime.now(UTC)
    seats = []
    with write_transaction(engine) as conn:
        references = _ladder_references(conn, ladder_id) if ladder_id is not None else {}
        for i, text in enumerate(texts):
            entry = parse_entry(game, text)
            if entry.kind == "command":
                raise InvalidInput(
                    f"bots: {text!r}: a campaign seat is a built-in bot, version:ID or bot:NAME"
                )
            if entry.kind == "builtin" and ladder_id is not None:
                free = references.get(entry.spec) or []
                if not free:
                    raise InvalidInput(
                        f"bots: {text!r}: ladder {ladder_id} has no more reference bots playing "
                        f"{entry.spec!r} (`arena ladder reference-bots {ladder_id}` adds them; or "
                        "name its bots with bot:NAME)"
                    )
                name, version_id = free.pop(0)
                seats.append({"version_id": version_id, "bot": name, "name": names[i]})
                continue
            seats.append({"version_id": entry_version(conn, entry, now), "bot": entry.name, "name": names[i]})
    return seats


def _ladder_references(conn: sa.Connection, ladder_id: int) -> dict[str, list[tuple[str, int]]]:
    """Strategy -> the ladder's reference bots playing it (name, newest version id), by name."""
    from ladder.bots import REFERENCE_OWNER
    from ladder.schema import bot_versions, bots, ladder_entries

    rows = conn.execute(
        sa.select(bots.c.name, bot_versions.c.id, bot_versions.c.command)
        .join(ladder_entries, ladder_entries.c.bot_id == bots.c.id)
        .join(bot_versions, bot_versions.c.bot_id == bots.c.id)
        .where(
            ladder_entries.c.ladder_id == ladder_id,
            bots.c.owner == REFERENCE_OWNER,
            bots.c.account_id.is_(None),
            bot_versions.c.command.startswith("builtin:"),
        )
        .order_by(bots.c.name, bot_versions.c.id)
    ).all()
    newest: dict[str, tuple[int, str]] = {}
    for row in rows:
        newest[row.name] = (int(row.id), str(row.command))
    found: dict[str, list[tuple[str, int]]] = {}
    for name, (version_id, command) in sorted(newest.items()):
        strategy = command.removeprefix("builtin:").partition("?")[0]
        found.setdefault(strategy, []).append((name, version_id))
    return found


def _time_control(engine: Engine, args: argparse.Namespace) -> dict[str, int]:
    """The campaign's time control: the rating ladder's (`--ladder`; a different one given is
    refused), else the options' (their defaults: 10 s a decision, a 120 s bank, 3 strikes)."""
    from ladder.campaigns import ladder_time_control
    from ladder.errors import InvalidInput, NotFound
    from ladder.schema import ladders

    given = {"decision_ms": args.decision_ms, "bank_ms": args.bank_ms, "max_strikes": args.max_strikes}
    if args.ladder is None:
        return {k: v if v is not None else _DEFAULT_TC[k] for k, v in given.items()}
    with engine.connect() as conn:
        row = conn.execute(sa.select(ladders).where(ladders.c.id == args.ladder)).one_or_none()
    if row is None:
        raise NotFound(f"no ladder {args.ladder}")
    keys = ("decision_ms", "bank_ms", "max_strikes", "cpu_decision_ms", "cpu_bank_ms")
    ladders_tc = dict(zip(keys, ladder_time_control(row), strict=True))
    for key, value in given.items():
        if value is not None and value != ladders_tc[key]:
            option = "--" + key.replace("_", "-")
            raise InvalidInput(
                f"{option} {value}: ladder {args.ladder} plays at {option} {ladders_tc[key]}; a campaign "
                f"rated there is played at the ladder's time control (leave {option} out)"
            )
    return ladders_tc


#: `arena campaign run`'s time control without --ladder
_DEFAULT_TC: Final = {"decision_ms": 10_000, "bank_ms": 120_000, "max_strikes": 3}


def _cmd_run(args: argparse.Namespace) -> int:
    from ladder.campaigns import create_campaign
    from ladder.db import database_url, upgrade
    from ladder.errors import InvalidInput
    from workers.match_execution import engine_for

    texts = [t.strip() for t in args.bots.split(",") if t.strip()]
    if len(texts) != args.players:
        raise InvalidInput(f"bots: {args.players} players need {args.players} bots, got {len(texts)}")
    rules = game_spec(args.game).campaign_state_rules()
    names = [n.strip() for n in args.names.split(",")] if args.names else rules.default_names(args.players)
    state = rules.new_state(args.players, names)
    db_url = database_url(args.db)
    upgrade(db_url)
    engine = engine_for(db_url)
    campaign_id = create_campaign(
        engine,
        game=args.game,
        players=args.players,
        seats=_seats_for(engine, args.game, texts, names, args.ladder),
        seed=args.seed,
        games=args.games,
        state=state,
        **_time_control(engine, args),
        rating_ladder_id=args.ladder,
    )
    print(f"campaign {campaign_id} stored (resume with: arena campaign resume {campaign_id} --db {db_url})",
          file=sys.stderr, flush=True)  # fmt: skip
    return _play(args, db_url, campaign_id)


def _cmd_resume(args: argparse.Namespace) -> int:
    from ladder.db import database_url, upgrade

    db_url = database_url(args.db)
    upgrade(db_url)
    return _play(args, db_url, args.id, retry_failed=True)


def _play(args: argparse.Namespace, db_url: str, campaign_id: int, *, retry_failed: bool = False) -> int:
    from workers.match_execution import engine_for

    engine = engine_for(db_url)
    report = campaign_report(engine, campaign_id)

    def shown(game: dict[str, Any]) -> None:
        if not args.json:
            _print_game(report["seats"], game)

    failed = None
    with _dispatcher(db_url, args.workers) as dispatcher:
        try:
            play_campaign(
                engine, campaign_id, dispatcher, timeout=args.timeout, on_game=shown,
                retry_failed=retry_failed,
            )  # fmt: skip
        except CampaignFailed as exc:
            failed = exc
    final = campaign_report(engine, campaign_id)
    if args.json:
        print(json.dumps(final, indent=2))
    else:
        _print_total(final)
    if failed is not None:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    return 0


def _guard(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """One `error:` line for the user's mistakes (an unknown campaign, a bad bot)."""

    def run(args: argparse.Namespace) -> int:
        from ladder.errors import LadderError

        try:
            return int(func(args))
        except (LadderError, LookupError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("interrupted: `arena campaign resume ID` continues it", file=sys.stderr)
            return 130

    return run


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="database URL (default $DATABASE_URL, else sqlite:///arena.db)")
    p.add_argument("--json", action="store_true", help="print one JSON object: the games and totals")
    p.add_argument("--workers", type=int, default=0,
                   help="local worker processes (default 0: games in this process; "
                        "with BROKER_URL set, games go to Celery workers)")  # fmt: skip
    p.add_argument("--timeout", type=float, default=DEFAULT_GAME_TIMEOUT_S,
                   help=f"seconds one game may take (default {DEFAULT_GAME_TIMEOUT_S:.0f})")  # fmt: skip


def register(sub: Any) -> None:
    """Add ``campaign run|resume`` to the `arena` subparsers `sub`."""
    camp = sub.add_parser("campaign", help="campaigns (Clank! Legacy): play, store and resume them")
    csub = camp.add_subparsers(dest="campaign_command", required=True)
    run = csub.add_parser("run", help="store a new campaign and play it to its end")
    games = campaign_game_names()
    # the registry's campaign games; the one there is needs no naming
    run.add_argument("--game", choices=games, default=games[0] if len(games) == 1 else None,
                     required=len(games) != 1, help=f"the campaign game ({', '.join(games)})")  # fmt: skip
    run.add_argument("--players", type=int, choices=(2, 3, 4), required=True, help="seats (2-4)")
    run.add_argument("--bots", required=True,
                     help="comma-separated, one per seat: built-ins, version:ID or bot:NAME")  # fmt: skip
    run.add_argument("--names", help="comma-separated deck-box names, one per seat")
    run.add_argument(
        "--games", type=_positive, default=10, help="games at most (default 10; the Book may end it)"
    )
    run.add_argument(
        "--seed", type=int, default=1, help="campaign seed; game seeds derive from it (default 1)"
    )
    run.add_argument("--ladder", type=int, help="rate the finished campaign on this campaign ladder (id)")
    run.add_argument("--decision-ms", type=_positive,
                     help="per-decision deadline, ms (default: the --ladder's, else 10000)")  # fmt: skip
    run.add_argument("--bank-ms", type=int,
                     help="per-game time bank, ms (default: the --ladder's, else 120000)")  # fmt: skip
    run.add_argument("--max-strikes", type=int,
                     help="missed deadlines before a forfeit (default: the --ladder's, else 3)")  # fmt: skip
    _common(run)
    run.set_defaults(func=_guard(_cmd_run))
    resume = csub.add_parser(
        "resume",
        help="continue a stored campaign after an interruption (a failed game is played again, once)",
    )
    resume.add_argument("id", type=int, help="the campaign's id (printed by run)")
    _common(resume)
    resume.set_defaults(func=_guard(_cmd_resume))
