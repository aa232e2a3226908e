"""The referee's session records its replay in columns (`CompactRecorder`), not a dict per step,
and the replay it serves is byte for byte what the step-dict recorder (`ReplayRecorder`) gave."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.bots import make_bot
from referee.core.game import Action, Game
from referee.games import game_class
from referee.replay import (
    CHECKPOINT_EVERY,
    CompactRecorder,
    ReplayRecorder,
    dumps,
    loads,
    verify,
    verify_file,
)
from referee.server import session as session_module
from referee.server.config import MatchSpec, ServerLimits
from referee.server.seat import LOST, Inbox
from referee.server.session import MatchSession
from referee.wire._proto.arena.v1 import bot_pb2
from tests.referee.conftest import RANDOM_BOT, TIMEOUT_CLOCK, buggy, play

STARTED = 1_700_000_000.123
HEADER: dict[str, Any] = {"match_id": "m1", "time_control": {"decision_ms": 1000}}


def _play_both(name: str, players: int, seed: int, *, forfeit_at: int | None) -> tuple[bytes, bytes, int]:
    """One game recorded by both recorders with the same calls: notes, times (some CPU times),
    default-action reasons and a forfeit; the two replay files and the number of steps."""
    cls = game_class(name)
    cfg = cls.default_config(players)
    game = cls.new_game(cfg, seed)
    bots = [make_bot(name, "random", seed + seat) for seat in range(players)]
    seats = [{"seat": i, "bot": f"b{i}", "strikes": 0, "incidents": []} for i in range(players)]
    old = ReplayRecorder(game, seed, cfg, seats, started=STARTED)
    new = CompactRecorder(game, seed, cfg, seats, started=STARTED)
    rng = random.Random(seed)
    steps = 0
    while (d := game.decision()) is not None and steps < 400:
        if steps == forfeit_at:
            game.forfeit(d.seat)
            old.forfeit(d.seat, "disconnected: the stream closed")
            new.forfeit(d.seat, "disconnected: the stream closed")
            steps += 1
            continue
        index = bots[d.seat].act(game.observe(d.seat), d.actions)
        action: Action = game.apply_index(index)
        calls: dict[str, Any] = {"millis": rng.randrange(0, 3000)}
        if rng.random() < 0.2:
            calls["note"] = "n" * rng.randrange(1, 400)  # past NOTE_LIMIT too
        if rng.random() < 0.1:
            calls["reason"] = rng.choice(["timeout", "cpu_time", "forfeited"])
        if steps > 10 and rng.random() < 0.5:
            calls["cpu_millis"] = rng.randrange(0, 50)
        old.action(d.id, d.seat, index, action, **calls)
        new.action(d.id, d.seat, index, action, **calls)
        steps += 1
    doc = old.finish("game_over" if game.is_over() else "decision_limit")
    doc.update(HEADER)
    new.finish("game_over" if game.is_over() else "decision_limit", **HEADER)
    return dumps(doc), new.dumps(), steps


@pytest.mark.parametrize(
    ("name", "players", "seed", "forfeit_at"),
    [("clank", 2, 1, None), ("clank", 4, 7, 100), ("alien", 2, 3, 20), ("clank", 3, 5, 0)],
)
def test_same_bytes_as_the_step_recorder(name: str, players: int, seed: int, forfeit_at: int | None) -> None:
    old, new, steps = _play_both(name, players, seed, forfeit_at=forfeit_at)
    assert steps > (CHECKPOINT_EVERY if name == "clank" else 20)  # an Alien game is shorter
    assert new == old
    replay = loads(new)
    assert len(replay["steps"]) == steps
    assert any("note" in s for s in replay["steps"]) and any("cpu_ms" in s for s in replay["steps"])
    verify(replay)


def test_recorded_steps_continue_a_past_replay() -> None:
    """`arena replay rerun` appends a past replay's steps to the session's recorder (through
    `steps.append`) before the match goes on: the file is what ReplayRecorder made of them."""
    past = loads(_play_both("clank", 2, 4, forfeit_at=90)[0])
    cls = game_class("clank")
    both: list[tuple[Game, ReplayRecorder | CompactRecorder]] = []
    for make in (ReplayRecorder, CompactRecorder):
        game = cls.new_game(past["config"], past["seed"])
        both.append((game, make(game, past["seed"], past["config"], past["seats"], started=STARTED)))
    for game, recorder in both:
        for step in past["steps"][:150]:
            if "forfeit" in step:
                game.forfeit(step["forfeit"])
            else:
                d = game.decision()
                assert d is not None
                game.apply(d.actions[step["index"]])
            recorder.steps.append(dict(step))
        while (d := game.decision()) is not None:
            recorder.action(d.id, d.seat, 0, game.apply_index(0), millis=5)
    (_, old), (_, new) = both
    assert isinstance(old, ReplayRecorder) and isinstance(new, CompactRecorder)
    doc = old.finish()
    doc.update(HEADER)
    new.finish("game_over", **HEADER)
    assert new.dumps() == dumps(doc)
    verify(loads(new.dumps()))


def _held(value: Any, skip: set[int], seen: set[int]) -> int:
    """Bytes held by `value` and what it contains (not what `skip` names)."""
    if id(value) in skip or id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(_held(k, skip, seen) + _held(v, skip, seen) for k, v in value.items())
    elif isinstance(value, list | tuple | set):
        size += sum(_held(v, skip, seen) for v in value)
    elif isinstance(value, CompactRecorder):
        size += sum(_held(getattr(value, s, None), skip, seen) for s in value.__slots__)
    elif isinstance(value, ReplayRecorder):
        size += _held(vars(value), skip, seen)
    return size


def test_a_step_costs_a_few_bytes() -> None:
    """What the recorder itself holds per step (the game, config and seats are not its own):
    the step-dict recorder held about 400 B per Clank! step."""
    cls = game_class("clank")
    game = cls.new_game(cls.default_config(2), 2)
    bots = [make_bot("clank", "random", seat) for seat in range(2)]
    seats = [{"seat": i, "bot": f"b{i}", "strikes": 0, "incidents": []} for i in range(2)]
    recorder = CompactRecorder(game, 2, {}, seats)
    old = ReplayRecorder(game, 2, {}, seats)
    skip = {id(game), id(recorder.config), id(recorder.seats), id(old.config), id(old.seats)}
    empty = _held(recorder, skip, set())
    steps = 0
    while (d := game.decision()) is not None and steps < 640:
        index = bots[d.seat].act(game.observe(d.seat), d.actions)
        action = game.apply_index(index)
        recorder.action(d.id, d.seat, index, action, millis=12, note="why" if steps % 50 == 0 else "")
        old.action(d.id, d.seat, index, action, millis=12, note="why" if steps % 50 == 0 else "")
        steps += 1
    assert steps >= 2 * CHECKPOINT_EVERY
    per_step = (_held(recorder, skip, set()) - empty) / steps
    old_per_step = _held(old, skip, set()) / steps
    assert per_step < 40, per_step
    assert old_per_step > 5 * per_step, (old_per_step, per_step)


def test_a_session_records_in_columns() -> None:
    async def make() -> MatchSession:
        spec = MatchSpec(game="clank", seat_names=("a", "b"), seed=3)
        return MatchSession(spec, ServerLimits())

    session = asyncio.run(make())
    assert isinstance(session.recorder, CompactRecorder)


class _Teed(CompactRecorder):
    """The session's recorder, which also feeds every call to a ReplayRecorder (the old one)."""

    made: list[_Teed] = []

    def __init__(self, game: Game, seed: int, config: Any, seats: Any, **kw: Any) -> None:
        super().__init__(game, seed, config, seats, **kw)
        self.old = ReplayRecorder(game, seed, config, seats, started=self.started)
        self.made.append(self)

    def action(self, *args: Any, **kw: Any) -> None:
        super().action(*args, **kw)
        self.old.action(*args, **kw)

    def forfeit(self, seat: int, reason: str) -> None:
        super().forfeit(seat, reason)
        self.old.forfeit(seat, reason)

    def finish(self, ended_by: str = "game_over", **header: Any) -> None:
        super().finish(ended_by, **header)
        self.old.seats = self.seats
        self.expected = self.old.finish(ended_by)
        self.expected.update(header)


@pytest.mark.parametrize("mode", ["slow-once", "disconnect"])
def test_a_played_match_serves_the_old_recorders_bytes(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real match over gRPC (a bot that times out once, or one that disconnects: default
    actions, strikes, a forfeit): the replay the referee served is what ReplayRecorder gives
    of the same calls, and `arena replay verify` passes on it."""
    _Teed.made = []
    monkeypatch.setattr(session_module, "CompactRecorder", _Teed)
    played = play([RANDOM_BOT, buggy(mode)], tmp_path, seed=11, clock=TIMEOUT_CLOCK)
    (teed,) = _Teed.made
    assert played.launched.replay == dumps(teed.expected)
    steps = played.replay["steps"]
    kinds = {s.get("reason", "") for s in steps} | {"forfeit" for s in steps if "forfeit" in s}
    assert ("timeout" if mode == "slow-once" else "forfeit") in kinds, kinds
    path = tmp_path / "match.replay"
    path.write_bytes(played.launched.replay)
    assert verify_file(path).steps == len(steps)


def test_the_inbox_wakes_its_reader_and_keeps_what_a_cancelled_wait_missed() -> None:
    async def run() -> list[object]:
        inbox = Inbox()
        got: list[object] = []
        reader = asyncio.create_task(inbox.get_within(5))
        await asyncio.sleep(0)
        inbox.put_nowait(LOST)
        got.append(await reader)
        # the answer lands in the same turn as the reader's timer: it stays for the next get
        reader = asyncio.create_task(inbox.get_within(5))
        await asyncio.sleep(0)
        answer = bot_pb2.Answer(decision_id=4, index=1)
        inbox.put_nowait(answer)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        got.append(inbox.qsize())
        got.append(await inbox.get_within(5))
        got.append(inbox.empty())
        return got

    got = asyncio.run(run())
    assert got[0] is LOST
    assert got[1] == 1 and got[2] == bot_pb2.Answer(decision_id=4, index=1) and got[3] is True


def test_a_session_holds_no_per_instance_dict_nor_idle_events() -> None:
    async def make() -> MatchSession:
        return MatchSession(MatchSpec(game="clank", seat_names=("a", "b"), seed=3), ServerLimits())

    session = asyncio.run(make())
    assert not hasattr(session, "__dict__")
    for seat in session.seats:
        assert not hasattr(seat, "__dict__")
        assert seat._exited is None  # made only for a launcher that watches the process
        assert isinstance(seat.inbox, Inbox)
    assert session._changed is None  # made by the first WatchMatch stream
