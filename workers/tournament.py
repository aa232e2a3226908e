"""Running stored competitions and SPRT tests: schedule rounds, get the matches played, repeat.

:func:`run_competition` is the runner of one competition (``ladder.competitions``): it asks the
format for the next round (``ladder.formats.next_round``), schedules its games as matches on the
competition's ladder, hands them to a dispatcher (the local pool, Celery, or :class:`Inline`
for in-process play), sweeps expired leases, re-sends matches queued too long, and repeats until
the format says the competition is over. Everything it knows is in the database, so a runner
that stops (killed, the database restarted) can be started again on the same competition: it
re-sends what is still queued, the sweeper requeues what a dead worker held, and the unique
(round, table, set, rotation) key and the idempotent recording count every game once.

:func:`run_sprt` plays candidate against baseline in duplicate pairs (one seed, both seat
orders) as a stored 2-entrant competition and stops when the SPRT (``ladder.sprt``) decides.
Pairs are read in set order, whatever order they finish in, so the verdict does not depend on
how many run at once; pairs still in flight when it stops are not counted.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import formats
from ladder.competitions import (
    EntrantSpec,
    create_competition,
    load_games,
    schedule_round,
    set_status,
)
from ladder.db import is_outage
from ladder.schema import competition_entrants, competition_games, competitions
from ladder.sprt import SprtState, bounds, elo_estimate
from workers.match_execution import run_match
from workers.season import Dispatcher
from workers.sweeper import retry_dispatch, sweep

__all__ = [
    "CompetitionRun",
    "CompetitionStalled",
    "Inline",
    "SprtResult",
    "Step",
    "advance_competition",
    "advance_competitions",
    "advance_running",
    "run_competition",
    "run_sprt",
]

#: seconds a match may wait queued before the runner sends it again (a lost message)
STALE_SECONDS: Final = 30.0


class CompetitionStalled(RuntimeError):
    """The competition made no progress before the timeout (no workers on the queue?)."""


class Inline:
    """A dispatcher that plays matches in this process, one per :meth:`pump` (no pool)."""

    def __init__(self, db_url: str) -> None:
        """Play on the database at `db_url`."""
        self.db_url = db_url
        self._queue: deque[int] = deque()

    def dispatch(self, match_id: int) -> None:
        """Queue the match for the next pump."""
        if match_id not in self._queue:
            self._queue.append(match_id)

    def ensure_dispatched(self, match_id: int) -> None:
        """Queue it unless it is queued here already."""
        self.dispatch(match_id)

    def pump(self) -> None:
        """Play the next match, if any (kept for later while the database is unreachable)."""
        if self._queue:
            match_id = self._queue.popleft()
            try:
                run_match(self.db_url, match_id)
            except Exception as exc:
                if not is_outage(exc):
                    raise
                self._queue.append(match_id)
                time.sleep(0.5)

    def idle(self) -> bool:
        """True when nothing is waiting here."""
        return not self._queue


@dataclass(frozen=True, slots=True)
class CompetitionRun:
    """How a run of a competition ended: games done and failed, rounds, seconds."""

    competition_id: int
    done: int
    failed: int
    rounds: int
    seconds: float


def _competition(engine: Engine, competition_id: int) -> Any:
    with engine.connect() as conn:
        row = conn.execute(sa.select(competitions).where(competitions.c.id == competition_id)).one_or_none()
    if row is None:
        raise LookupError(f"no competition {competition_id}")
    return row


@dataclass(frozen=True, slots=True)
class Step:
    """What one :func:`advance_competition` saw: games finished and scheduled, and whether the
    competition is over."""

    finished: int
    scheduled: int
    over: bool
    done: int = 0
    failed: int = 0
    rounds: int = 0


def advance_competition(
    engine: Engine, competition_id: int, dispatcher: Dispatcher, sent: set[int] | None = None
) -> Step:
    """One step of a running competition: schedule (and dispatch) the next round once the
    current one is complete, or mark the competition done when the format says it is over.

    With `sent` (a runner's memory), queued matches not in it are dispatched and added; without
    it (``arena beat``) only newly scheduled matches are, the sweeper re-sends lost ones.
    Safe to call from several processes at once: a round is scheduled once.
    """
    comp = _competition(engine, competition_id)
    options = comp.options
    with engine.connect() as conn:
        games = load_games(conn, competition_id)
        size = int(
            conn.execute(
                sa.select(sa.func.count()).where(competition_entrants.c.competition_id == competition_id)
            ).scalar_one()
        )
    if sent is not None:
        for g in games:
            if g.status == "queued" and g.match_id not in sent:
                sent.add(g.match_id)
                dispatcher.ensure_dispatched(g.match_id)
    plan = formats.next_round(
        comp.format, size, comp.players, [g.record for g in games],
        sets=int(options.get("sets") or 1), rounds=options.get("rounds"),
        scenarios=max(1, len(options.get("scenarios") or [])),
    )
    if plan:
        created = schedule_round(engine, competition_id, plan)
        for match_id in created:
            if sent is not None:
                sent.add(match_id)
            dispatcher.dispatch(match_id)
        return Step(sum(g.status in ("done", "failed") for g in games), len(games) + len(created), False)
    if plan is None and comp.status != "done":
        set_status(engine, competition_id, "done")
    return Step(
        sum(g.status in ("done", "failed") for g in games),
        len(games),
        plan is None,
        sum(g.status == "done" for g in games),
        sum(g.status == "failed" for g in games),
        len({g.record.round for g in games}),
    )


def advance_competitions(engine: Engine, dispatcher: Dispatcher) -> int:
    """One step of every running competition (``arena beat``); returns how many it stepped."""
    with engine.connect() as conn:
        running = list(
            conn.execute(sa.select(competitions.c.id).where(competitions.c.status == "running")).scalars()
        )
    for competition_id in running:
        try:
            advance_competition(engine, competition_id, dispatcher)
        except ValueError as exc:  # a format that cannot go on (should not happen): say so, stop it
            set_status(engine, competition_id, "failed", error=str(exc))
    return len(running)


def run_competition(
    engine: Engine,
    competition_id: int,
    dispatcher: Dispatcher,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    poll_seconds: float = 0.2,
    sweep_seconds: float = 2.0,
    stale_seconds: float = STALE_SECONDS,
    timeout: float | None = None,
    stop: threading.Event | None = None,
) -> CompetitionRun:
    """Play competition `competition_id` to its end (or resume it) and mark it done.

    `on_progress(finished, scheduled)` is called when the counts change. Database outages are
    waited out (the loop retries); raises CompetitionStalled at `timeout` seconds. `stop`, once
    set (by an interrupt handler that does nothing else), raises KeyboardInterrupt here, between
    two polls: a KeyboardInterrupt raised wherever the signal lands can be lost ("Exception
    ignored" when it lands in a callback, e.g. inside an import's module lock), and the run would
    play on.
    """
    started = time.monotonic()
    if _competition(engine, competition_id).status != "done":
        set_status(engine, competition_id, "running")
    sent: set[int] = set()
    last_sweep = 0.0
    reported = (-1, -1)
    while True:
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt
        try:
            dispatcher.pump()
            now = time.monotonic()
            if now - last_sweep >= sweep_seconds:
                sweep(engine, retry_dispatch(dispatcher))
                _resend_stale(engine, competition_id, dispatcher, stale_seconds)
                last_sweep = now
            step = advance_competition(engine, competition_id, dispatcher, sent)
        except Exception as exc:
            if not is_outage(exc):
                raise
            _check_timeout(started, timeout, competition_id)
            time.sleep(1.0)
            continue
        if (step.finished, step.scheduled) != reported:
            reported = (step.finished, step.scheduled)
            if on_progress is not None:
                on_progress(step.finished, step.scheduled)
        if step.over:
            return CompetitionRun(
                competition_id, step.done, step.failed, step.rounds, time.monotonic() - started
            )
        _check_timeout(started, timeout, competition_id)
        if isinstance(dispatcher, Inline) and not dispatcher.idle():
            continue
        if stop is not None:
            stop.wait(poll_seconds)  # a stop wakes it at once
        else:
            time.sleep(poll_seconds)


def _resend_stale(engine: Engine, competition_id: int, dispatcher: Dispatcher, stale_seconds: float) -> None:
    """Send again this competition's matches queued longer than `stale_seconds` (a lost message)."""
    from workers.sweeper import queued_before

    with engine.connect() as conn:
        ours = set(
            conn.execute(
                sa.select(competition_games.c.match_id).where(
                    competition_games.c.competition_id == competition_id
                )
            ).scalars()
        )
    for match_id in queued_before(engine, stale_seconds):
        if match_id in ours:
            dispatcher.ensure_dispatched(match_id)


def _check_timeout(started: float, timeout: float | None, competition_id: int) -> None:
    if timeout is not None and time.monotonic() - started > timeout:
        raise CompetitionStalled(
            f"competition {competition_id} not over after {timeout:.0f} s (are workers running on this "
            "database and queue?)"
        )


@dataclass(slots=True)
class SprtResult:
    """The outcome of an SPRT run (see ``ladder.sprt``)."""

    competition_id: int
    verdict: str
    llr: float
    lower: float
    upper: float
    games: int
    wins: int
    draws: int
    losses: int
    pentanomial: list[int]
    elo: float
    elo_low: float
    elo_high: float
    elo0: float
    elo1: float
    alpha: float
    beta: float
    failed_pairs: int = 0
    seconds: float = 0.0
    history: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able (the LLR history left out)."""
        return {
            "competition_id": self.competition_id,
            "verdict": self.verdict,
            "llr": round(self.llr, 4),
            "bounds": [round(self.lower, 4), round(self.upper, 4)],
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "pentanomial": self.pentanomial,
            "elo": round(self.elo, 1),
            "elo_interval": [round(self.elo_low, 1), round(self.elo_high, 1)],
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "failed_pairs": self.failed_pairs,
            "seconds": round(self.seconds, 2),
        }


def run_sprt(
    engine: Engine,
    game: str,
    candidate: EntrantSpec,
    baseline: EntrantSpec,
    dispatcher: Dispatcher,
    *,
    elo0: float = 0.0,
    elo1: float = 20.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 0,
    seed: int = 1,
    parallel: int = 1,
    on_pair: Callable[[SprtState], None] | None = None,
    timeout: float | None = None,
    decision_ms: int = 1000,
    bank_ms: int = 30_000,
    max_strikes: int = 3,
) -> SprtResult:
    """Play candidate (seats A, B) and baseline (B, A) in pairs until the SPRT decides.

    `parallel` pairs are kept in flight. `max_games` (0: no limit) ends it inconclusive.
    A pair with a failed game (a platform failure, not a bot's fault: those are forfeits) is
    left out and counted in `failed_pairs`.
    """
    state = SprtState(elo0, elo1, alpha, beta, max_games)
    bounds(alpha, beta)
    competition_id = create_competition(
        engine, game=game, players=2, fmt="round-robin", field=[candidate, baseline], sets=1,
        seed=seed, name=f"sprt {candidate.name} vs {baseline.name}"[:128],
        decision_ms=decision_ms, bank_ms=bank_ms, max_strikes=max_strikes,
    )
    set_status(engine, competition_id, "running")
    started = time.monotonic()
    next_set = 0
    processed = 0
    failed_pairs = 0
    history: list[float] = []
    while state.verdict == "running":
        budget_sets = (max_games + 1) // 2 if max_games else None
        while next_set - processed < max(1, parallel) and (budget_sets is None or next_set < budget_sets):
            plan = [formats.TablePlan(0, 0, (0, 1), 1, first_set=next_set)]
            for match_id in schedule_round(engine, competition_id, plan):
                dispatcher.dispatch(match_id)
            next_set += 1
        dispatcher.pump()
        with engine.connect() as conn:
            games = load_games(conn, competition_id)
        by_set: dict[int, list[formats.GameRecord]] = {}
        for g in games:
            by_set.setdefault(g.record.set_no, []).append(g.record)
        while state.verdict == "running" and processed in by_set:
            pair = by_set[processed]
            if not all(g.places is not None or g.failed for g in pair):
                break
            processed += 1
            if any(g.failed for g in pair):
                failed_pairs += 1
                continue
            scores = []
            for rec in sorted(pair, key=lambda r: r.rotation):
                assert rec.places is not None
                mine, theirs = rec.places[rec.seats.index(0)], rec.places[rec.seats.index(1)]
                scores.append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
            state.add_pair(scores)
            history.append(state.llr)
            if on_pair is not None:
                on_pair(state)
        if budget_sets is not None and processed >= budget_sets and state.verdict == "running":
            break  # every allowed pair counted (some failed): the limit is reached
        _check_timeout(started, timeout, competition_id)
        if not (isinstance(dispatcher, Inline) and not dispatcher.idle()):
            time.sleep(0.02)
    set_status(engine, competition_id, "done")
    elo, low, high = elo_estimate(state.pentanomial)
    lower, upper = state.bounds
    verdict = state.verdict if state.verdict != "running" else "inconclusive"
    return SprtResult(
        competition_id, verdict, state.llr, lower, upper, state.games, state.wins, state.draws,
        state.losses, list(state.pentanomial), elo, low, high, elo0, elo1, alpha, beta,
        failed_pairs, time.monotonic() - started, history,
    )


def entrant_specs(game: str, texts: Sequence[str], files: Any = None) -> list[EntrantSpec]:
    """Field entries from the command line; command entrants get `files` (a packed archive)."""
    from ladder.competitions import parse_entry

    return [parse_entry(game, t, files) for t in texts]


def advance_running() -> int:
    """The ``arena beat`` step: advance every running competition, dispatching through Celery
    (a competition started over the API is played this way)."""
    from ladder.db import database_url
    from workers.celery_app import dispatcher
    from workers.match_execution import engine_for

    return advance_competitions(engine_for(database_url()), dispatcher())
