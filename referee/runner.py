"""The local runner: plays games in-process between built-in bots, no network, no storage."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from referee.bots import LocalBot, make_bot
from referee.core.game import Action, Game, Result
from referee.games import game_class
from referee.replay import IndexRecorder

__all__ = ["LocalGame", "play_local"]


@dataclass(frozen=True)
class LocalGame:
    """One finished local game. Its replay document is built when first asked for (recording
    kept only what it had to: `IndexRecorder`)."""

    seed: int
    bots: tuple[str, ...]
    result: Result
    decisions: int
    seconds: float
    document: Callable[[], dict[str, Any]] = field(repr=False, compare=False)

    @cached_property
    def replay(self) -> dict[str, Any]:
        """The replay (the expanded document `referee.replay.dumps` writes)."""
        return self.document()


def play_local(
    game_name: str,
    bot_names: Sequence[str],
    seed: int,
    config: Mapping[str, Any] | None = None,
    bots: Sequence[LocalBot] | None = None,
    engine_version: str | None = None,
    on_action: Callable[[int, Action], object] | None = None,
) -> LocalGame:
    """Play one game; seat i is played by bot_names[i] (a fresh built-in bot per seat), by the
    rules of `engine_version` (None or empty: the current ones). `on_action(seat, action)` is
    called after each action is applied (a live match's feed)."""
    cls: type[Game] = game_class(game_name, engine_version or None)
    cfg = dict(config) if config is not None else cls.default_config(len(bot_names))
    game = cls.new_game(cfg, seed)
    if bots is None:
        bots = [make_bot(game_name, name, seed * 31 + seat) for seat, name in enumerate(bot_names)]
    seats = [{"seat": i, "bot": name, "kind": "builtin"} for i, name in enumerate(bot_names)]
    # no start time: a local game is a pure function of its seed and bots, and so is its file
    recorder = IndexRecorder(game, seed, cfg, seats)
    started = time.perf_counter()
    decisions = 0
    record = recorder.action
    while (d := game.decision()) is not None:  # None once the game is over
        index = bots[d.seat].act(game.observe(d.seat), d.actions)
        action = game.apply_index(index)
        record(d.id, d.seat, index, action)
        if on_action is not None:
            on_action(d.seat, action)
        decisions += 1
    return LocalGame(
        seed=seed,
        bots=tuple(bot_names),
        result=game.result(),
        decisions=decisions,
        seconds=time.perf_counter() - started,
        document=recorder.finish(),
    )
