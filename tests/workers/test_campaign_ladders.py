"""Campaign ladders played by `arena beat` (workers.campaign_ladders), on SQLite and PostgreSQL:
a tick starts a campaign among the joined bots, ticks with the matches played in-process carry
it to its end and rate it once, repeated and concurrent ticks never queue a game twice or rate
twice, a failed game is retried once and then fails the campaign, and a real `arena beat` with
a Celery worker plays a short campaign by itself."""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

import ladder.campaigns
import workers.executor
import workers.matchmaker
from ladder.bots import REFERENCE_OWNER, add_bot_version, register_bot
from ladder.db import create_engine
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import (
    bot_versions,
    campaign_games,
    campaign_ratings,
    campaigns,
    ladder_entries,
    ladders,
    matches,
)
from referee.bots import LocalBot
from referee.core.game import Action
from workers.campaign_ladders import CampaignTick, tick_campaign_ladders
from workers.match_execution import run_match
from workers.tournament import Inline

from .conftest import REPO, Broker, WorkerFarm


@dataclass(frozen=True)
class Field:
    ladder_id: int
    bot_ids: tuple[int, ...]
    version_ids: tuple[int, ...]


def _campaign_ladder(engine: Engine, bots: Sequence[str], *, players: int = 2, reference: int = 0) -> Field:
    """A `players`-seat Clank! Legacy campaign ladder with `reference` reference bots (random)
    and one joined bot per name of `bots` (built-in random, qualified)."""
    ladder_id = create_ladder(
        engine, "legacy-2p", "clank_legacy", players, decision_ms=1000, bank_ms=30_000, max_strikes=3,
        kind="campaign",
    )  # fmt: skip
    bot_ids, version_ids = [], []
    names = [(f"reference-{i}", REFERENCE_OWNER) for i in range(reference)] + [(b, "tests") for b in bots]
    for name, owner in names:
        bot_id = register_bot(engine, name, owner).bot_id
        version_ids.append(add_bot_version(engine, bot_id, "1", "builtin:random"))
        join_ladder(engine, ladder_id, bot_id)
        bot_ids.append(bot_id)
    return Field(ladder_id, tuple(bot_ids), tuple(version_ids))


def _tick(
    engine: Engine, dispatch: Callable[[int], object], *, per_ladder: int = 1, games: int = 2
) -> CampaignTick:
    return tick_campaign_ladders(engine, dispatch, per_ladder=per_ladder, games=games, rng=random.Random(7))


def _play(inline: Inline) -> None:
    while not inline.idle():
        inline.pump()


def _campaigns(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(sa.select(campaigns).order_by(campaigns.c.id)))


def _games(engine: Engine, campaign_id: int) -> list[tuple[int, int, str, int]]:
    """(game index, match id, match status, seed) of every match on the campaign's own ladder,
    by match id: a retried game has two."""
    with engine.connect() as conn:
        own = conn.execute(sa.select(campaigns.c.ladder_id).where(campaigns.c.id == campaign_id)).scalar_one()
        index_of = dict(
            conn.execute(
                sa.select(campaign_games.c.seed, campaign_games.c.game_index).where(
                    campaign_games.c.campaign_id == campaign_id
                )
            ).all()
        )
        return [
            (int(index_of[int(m.seed)]), int(m.id), str(m.status), int(m.seed))
            for m in conn.execute(sa.select(matches).where(matches.c.ladder_id == own).order_by(matches.c.id))
        ]


def _rated(engine: Engine, ladder_id: int) -> tuple[dict[int, int], int]:
    """(bot id -> campaigns it was rated in on the ladder, campaign_ratings rows)."""
    with engine.connect() as conn:
        games = dict(
            conn.execute(
                sa.select(ladder_entries.c.bot_id, ladder_entries.c.games).where(
                    ladder_entries.c.ladder_id == ladder_id
                )
            ).all()
        )
        rows = conn.execute(sa.select(sa.func.count()).select_from(campaign_ratings)).scalar_one()
    return games, int(rows)


def test_a_tick_starts_a_campaign_among_the_joined_bots_never_among_reference_bots_alone(
    engine: Engine, db_url: str
) -> None:
    field = _campaign_ladder(engine, [], reference=2)
    sent: list[int] = []
    assert _tick(engine, sent.append).started == [] and sent == []  # reference bots only: quiet
    alice = register_bot(engine, "alice", "alice").bot_id
    pending = add_bot_version(engine, alice, "1", "builtin:random")
    join_ladder(engine, field.ladder_id, alice)
    with engine.begin() as conn:  # an unqualified version is not seated
        conn.execute(
            sa.update(bot_versions).where(bot_versions.c.id == pending).values(qualification="pending")
        )
    assert _tick(engine, sent.append).started == [] and sent == []
    version = add_bot_version(engine, alice, "2", "builtin:random")

    tick = _tick(engine, sent.append)
    assert len(tick.started) == 1 and len(sent) == 1 and tick.dispatched == sent
    (row,) = _campaigns(engine)
    seated = [int(s["version_id"]) for s in row.seats]
    assert version in seated and set(seated) - {version} <= set(field.version_ids)
    assert (row.status, row.rating_ladder_id, row.game, row.games, row.players) == (
        "running", field.ladder_id, "clank_legacy", 2, 2,
    )  # fmt: skip
    assert "alice" in [s["bot"] for s in row.seats]
    with engine.connect() as conn:
        own = conn.execute(sa.select(ladders).where(ladders.c.id == row.ladder_id)).one()
        queued = conn.execute(sa.select(matches).where(matches.c.ladder_id == row.ladder_id)).one()
    assert (own.decision_ms, own.bank_ms, own.max_strikes) == (1000, 30_000, 3)  # the ladder's
    assert queued.id == sent[0] and queued.status == "queued" and list(map(int, queued.seats)) == seated

    # the ladder holds its one campaign (per_ladder=1): another tick starts and queues nothing
    again = _tick(engine, sent.append)
    assert again.started == [] and again.dispatched == [] and len(sent) == 1
    assert len(_campaigns(engine)) == 1


def test_ticks_play_a_campaign_to_its_end_and_rate_it_once(engine: Engine, db_url: str) -> None:
    field = _campaign_ladder(engine, ["ada", "bo"])
    inline = Inline(db_url)
    sent: list[int] = []

    def dispatch(match_id: int) -> None:
        sent.append(match_id)
        inline.dispatch(match_id)

    for _ in range(10):
        _tick(engine, dispatch, games=3)
        _play(inline)
        if _campaigns(engine)[0].rated_at is not None:
            break
    first = _campaigns(engine)[0]
    assert first.status == "finished" and first.rated_at is not None and first.next_index == 4
    played = _games(engine, first.id)
    assert [(g[0], g[2]) for g in played] == [(1, "done"), (2, "done"), (3, "done")]
    assert sent[:3] == [g[1] for g in played] and len(set(sent)) == len(sent)
    with engine.connect() as conn:
        recorded = ladder.campaigns.load_campaign_games(conn, first.id)
    assert [g.state_after is not None for g in recorded] == [True] * 3
    assert all(b.state_before == a.state_after for a, b in itertools.pairwise(recorded))
    games, rows = _rated(engine, field.ladder_id)
    assert games == {field.bot_ids[0]: 1, field.bot_ids[1]: 1} and rows == 2

    # more ticks: the rated campaign is neither played nor rated again (the next campaign,
    # started when it ended, is not played here, so it cannot finish)
    for _ in range(3):
        _tick(engine, inline.dispatch, per_ladder=0)
    assert _games(engine, first.id) == played and _rated(engine, field.ladder_id) == (games, rows)


def test_a_beat_killed_between_recording_and_rating_rates_on_the_next_tick(
    engine: Engine, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    field = _campaign_ladder(engine, ["ada", "bo"])
    inline = Inline(db_url)
    real = ladder.campaigns.rate_campaign

    def killed(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the beat died here")

    monkeypatch.setattr(ladder.campaigns, "rate_campaign", killed)
    for _ in range(10):  # every step dies right after its write: the next tick picks it up
        _tick(engine, inline.dispatch)
        _play(inline)
        if _campaigns(engine)[0].status == "finished":
            break
    first = _campaigns(engine)[0]
    assert first.status == "finished" and first.rated_at is None
    monkeypatch.setattr(ladder.campaigns, "rate_campaign", real)
    tick = _tick(engine, inline.dispatch, per_ladder=0)
    assert tick.finished == [first.id] and _campaigns(engine)[0].rated_at is not None
    assert _rated(engine, field.ladder_id) == ({field.bot_ids[0]: 1, field.bot_ids[1]: 1}, 2)
    assert [(g[0], g[2]) for g in _games(engine, first.id)] == [(1, "done"), (2, "done")]


def test_repeated_and_concurrent_ticks_never_queue_a_game_twice_nor_rate_twice(
    engine: Engine, db_url: str
) -> None:
    field = _campaign_ladder(engine, ["ada", "bo", "cy"])
    sent: list[int] = []
    lock = threading.Lock()

    def dispatch(match_id: int) -> None:
        with lock:
            sent.append(match_id)

    def two_ticks() -> None:
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def one() -> None:
            try:
                barrier.wait(timeout=10)
                _tick(engine, dispatch, per_ladder=2)
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=one) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors

    played: set[int] = set()
    for _ in range(12):
        two_ticks()
        _tick(engine, dispatch, per_ladder=2)  # and a repeated one
        for match_id in sorted(set(sent) - played):
            run_match(db_url, match_id)
            played.add(match_id)
        if sum(c.rated_at is not None for c in _campaigns(engine)) >= 2:
            break
    assert len(sent) == len(set(sent)), sent  # no match dispatched twice
    rated = [c for c in _campaigns(engine) if c.rated_at is not None]
    assert len(rated) >= 2
    for c in _campaigns(engine):
        # one match per game, each played once
        games = _games(engine, c.id)
        assert [g[0] for g in games] == list(range(1, len(games) + 1)), games
        assert all(g[2] == "done" for g in games[: c.next_index - 1])
    with engine.connect() as conn:
        per_campaign = conn.execute(
            sa.select(campaign_ratings.c.campaign_id, sa.func.count()).group_by(
                campaign_ratings.c.campaign_id
            )
        ).all()
    assert sorted(int(c) for c, _ in per_campaign) == sorted(c.id for c in rated)
    assert all(n == 2 for _, n in per_campaign)  # each rated campaign moved its 2 bots once
    games_by_bot, _rows = _rated(engine, field.ladder_id)
    assert sum(games_by_bot.values()) == 2 * len(rated)


def test_two_beats_starting_at_once_keep_to_the_bound(
    engine: Engine, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ticks reach the pairing together unless the ladder's row lock holds one back (then
    the first waits out the barrier): only one campaign is started for a bound of one."""
    _campaign_ladder(engine, ["ada", "bo", "cy", "di"])
    barrier = threading.Barrier(2)
    real = workers.matchmaker.plan_matches

    def meet(*args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=3)
        return real(*args, **kwargs)

    monkeypatch.setattr("workers.campaign_ladders.plan_matches", meet)
    started: list[int] = []

    def one() -> None:
        started.extend(_tick(engine, lambda _m: None).started)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(started) == 1 and len(_campaigns(engine)) == 1


class _CrashingBot:
    name = "random"

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        raise RuntimeError("the bot crashed on its first decision")


def _crash(monkeypatch: pytest.MonkeyPatch, matches_left: int | None) -> None:
    """Seat 0's bot of the next `matches_left` matches (None: every match) crashes, so the
    executor raises and the match fails."""
    real = workers.executor.make_bot  # type: ignore[attr-defined]
    state = {"made": 0, "left": matches_left}

    def make_bot(game: str, name: str, seed: int) -> LocalBot:
        state["made"] = int(state["made"] or 0) + 1
        left = state["left"]
        if int(state["made"] or 0) % 2 == 1 and (left is None or left > 0):
            if left is not None:
                state["left"] = left - 1
            return _CrashingBot()
        return real(game, name, seed)

    monkeypatch.setattr(workers.executor, "make_bot", make_bot)


def test_a_failed_game_is_played_again_once_with_its_seed_and_the_campaign_goes_on(
    engine: Engine, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    field = _campaign_ladder(engine, ["ada", "bo"])
    _crash(monkeypatch, 1)
    inline = Inline(db_url)
    for _ in range(10):
        _tick(engine, inline.dispatch)
        _play(inline)
        if _campaigns(engine)[0].rated_at is not None:
            break
    first = _campaigns(engine)[0]
    assert first.status == "finished" and first.error is None
    played = _games(engine, first.id)
    assert [(g[0], g[2]) for g in played] == [(1, "failed"), (1, "done"), (2, "done")]
    assert played[0][3] == played[1][3]  # the same seed (and campaign state: the retry's rule)
    assert _rated(engine, field.ladder_id)[1] == 2


def test_a_game_failing_on_its_retry_fails_the_campaign_with_the_reason(
    engine: Engine, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _campaign_ladder(engine, ["ada", "bo"])
    _crash(monkeypatch, None)
    inline = Inline(db_url)
    for _ in range(6):
        _tick(engine, inline.dispatch)
        _play(inline)
    first = _campaigns(engine)[0]
    assert first.status == "failed" and first.rated_at is None
    assert first.error.startswith("game 1 failed again when retried (match ")
    assert "the bot crashed" in first.error and first.error.endswith("a failed game is retried once")
    # two matches for game 1, never a third however many ticks ran
    assert [(g[0], g[2]) for g in _games(engine, first.id)] == [(1, "failed"), (1, "failed")]
    # its place went to a new campaign (which fails the same way here)
    assert len(_campaigns(engine)) >= 2


@pytest.mark.integration
def test_arena_beat_and_a_worker_play_a_campaign_ladder_by_themselves(
    worker_farm: WorkerFarm, broker: Broker, pg_url: str, tmp_path: Path
) -> None:
    """Production shape: a campaign ladder with two joined bots, one `arena beat` and one
    Celery worker, nobody running `arena campaign run`: a 2-game campaign is played and rated."""
    engine = create_engine(pg_url)
    beat = None
    try:
        field = _campaign_ladder(engine, ["ada", "bo"])
        worker_farm.env.update(
            {"ARENA_BEAT_SECONDS": "0.5", "ARENA_CAMPAIGN_GAMES": "2", "ARENA_CAMPAIGNS_PER_LADDER": "1"}
        )
        worker_farm.start(1)
        beat_log = tmp_path / "beat.log"
        with beat_log.open("wb") as log:
            beat = subprocess.Popen(
                [sys.executable, "-m", "referee.cli", "beat", "--loglevel", "WARNING"],
                env={**os.environ, **worker_farm.env}, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            found = _campaigns(engine)
            if found and found[0].rated_at is not None:
                break
            assert beat.poll() is None, beat_log.read_text(errors="replace")
            assert time.monotonic() < deadline, worker_farm.log_text()
            time.sleep(0.3)
        first = found[0]
        assert "campaign ladders:" not in beat_log.read_text(errors="replace")  # no step failed
        assert first.status == "finished" and first.games == 2 and first.next_index == 3
        assert [(g[0], g[2]) for g in _games(engine, first.id)] == [(1, "done"), (2, "done")]
        # the beat goes on starting campaigns (one at a time): stop it, then count. Each rated
        # campaign (the first, and any that finished since) rated both bots once, no more
        beat.terminate()
        assert beat.wait(timeout=20) is not None
        rated = [c for c in _campaigns(engine) if c.rated_at is not None]
        games, rows = _rated(engine, field.ladder_id)
        assert len(rated) >= 1 and games == {field.bot_ids[0]: len(rated), field.bot_ids[1]: len(rated)}
        assert rows == 2 * len(rated)
    finally:
        if beat is not None:
            beat.terminate()
            beat.wait(timeout=20)
        engine.dispose()
