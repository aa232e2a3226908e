"""Replays: a complete, verifiable record of one game.

Format (documented in `referee/REPLAY.md`): gzip-compressed JSON with the engine and content
versions, the config, the seed, the seats, every action (decision id, seat, index, the action's
kind/args/text, an optional bot note), a digest of the state after every step, forfeits with
their reasons, and the result. `verify` re-simulates the game and checks every digest.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.game import Action, Game, IllegalAction, Result, canonical_json
from referee.games import game_class

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ReplayError",
    "ReplayRecorder",
    "VerifyReport",
    "dumps",
    "load",
    "loads",
    "save",
    "simulate",
    "verify",
]

FORMAT = "arena-replay"
FORMAT_VERSION = 1
NOTE_LIMIT = 256


class ReplayError(ValueError):
    """A replay is malformed, from another engine version, or does not re-simulate."""


@dataclass
class ReplayRecorder:
    """Builds a replay while a game is played. Call `action` / `forfeit` after each step."""

    game: Game
    seed: int
    config: Mapping[str, Any]
    seats: Sequence[Mapping[str, Any]]
    steps: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        self.initial_digest = self.game.digest()

    def action(
        self,
        decision_id: int,
        seat: int,
        index: int,
        action: Action,
        *,
        note: str = "",
        millis: int | None = None,
        reason: str = "",
        cpu_millis: int | None = None,
    ) -> None:
        """Record an applied action (call after game.apply). `reason` marks a default action;
        `cpu_millis` is the bot's CPU time on it, when its launcher measured it."""
        step: dict[str, Any] = {
            "decision": decision_id,
            "seat": seat,
            "index": index,
            "action": action.to_json(),
            "digest": self.game.digest(),
        }
        if note:
            step["note"] = note[:NOTE_LIMIT]
        if millis is not None:
            step["ms"] = millis
        if cpu_millis is not None:
            step["cpu_ms"] = cpu_millis
        if reason:
            step["reason"] = reason
        self.steps.append(step)

    def forfeit(self, seat: int, reason: str) -> None:
        """Record a forfeit (call after game.forfeit)."""
        self.steps.append({"forfeit": seat, "reason": reason, "digest": self.game.digest()})

    def finish(self, ended_by: str = "game_over") -> dict[str, Any]:
        """The replay document. `ended_by` says why the match ended."""
        result = self.game.result().to_json() if self.game.is_over() else None
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": self.game.name,
            "engine_version": self.game.engine_version,
            "content_version": self.game.content_version,
            "config": dict(self.config),
            "seed": self.seed,
            "seats": [dict(s) for s in self.seats],
            "initial_digest": self.initial_digest,
            "steps": self.steps,
            "result": result,
            "ended_by": ended_by,
            "started_at": round(self.started, 3),
        }


def dumps(replay: Mapping[str, Any]) -> bytes:
    """Replay document -> compressed bytes (deterministic: no gzip timestamp)."""
    return gzip.compress(canonical_json(replay).encode(), compresslevel=9, mtime=0)


def loads(data: bytes) -> dict[str, Any]:
    """Compressed (or plain JSON) bytes -> replay document. Raises ReplayError."""
    try:
        raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        doc = json.loads(raw)
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReplayError(f"not a replay file: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ReplayError("not a replay file: missing format marker")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ReplayError(f"replay format version {doc.get('format_version')} is not supported")
    for key in ("game", "engine_version", "content_version", "config", "seed", "seats", "steps"):
        if key not in doc:
            raise ReplayError(f"replay is missing {key!r}")
    return doc


def save(replay: Mapping[str, Any], path: Path) -> None:
    """Write a replay file."""
    path.write_bytes(dumps(replay))


def load(path: Path) -> dict[str, Any]:
    """Read a replay file."""
    return loads(path.read_bytes())


@dataclass(frozen=True)
class VerifyReport:
    """Outcome of `verify`."""

    steps: int
    result: Result | None


def simulate(replay: Mapping[str, Any]) -> Iterator[tuple[Game, Mapping[str, Any] | None]]:
    """Re-simulate a replay, yielding (game, step) before each step and (game, None) at the end.

    Raises ReplayError at the first step that does not match. The yielded game is live: copy
    it before keeping it.
    """
    try:
        cls = game_class(replay["game"])
    except KeyError as exc:
        raise ReplayError(str(exc)) from None
    if replay["engine_version"] != cls.engine_version:
        raise ReplayError(
            f"replay needs engine {replay['engine_version']}, this build has {cls.engine_version}"
        )
    game = cls.new_game(replay["config"], int(replay["seed"]))
    if game.content_version != replay["content_version"]:
        raise ReplayError(
            f"replay needs content {replay['content_version']}, this build has {game.content_version}"
        )
    if replay.get("initial_digest") not in (None, game.digest()):
        raise ReplayError("initial state digest differs")
    for n, step in enumerate(replay["steps"], start=1):
        yield game, step
        if "forfeit" in step:
            game.forfeit(int(step["forfeit"]))
        else:
            d = game.decision()
            if d is None:
                raise ReplayError(f"step {n}: the game is already over")
            if step["decision"] != d.id or step["seat"] != d.seat:
                raise ReplayError(f"step {n}: expected decision {d.id} for seat {d.seat}")
            index = int(step["index"])
            if not 0 <= index < len(d.actions):
                raise ReplayError(f"step {n}: index {index} out of range")
            action = d.actions[index]
            recorded = step["action"]
            if action.kind != recorded["kind"] or list(action.args) != list(recorded["args"]):
                raise ReplayError(
                    f"step {n}: recorded action {recorded} but index {index} is {action.to_json()}"
                )
            try:
                game.apply(action)
            except IllegalAction as exc:
                raise ReplayError(f"step {n}: {exc}") from None
        if game.digest() != step["digest"]:
            raise ReplayError(
                f"step {n}: state digest differs (recorded {step['digest']}, got {game.digest()})"
            )
    yield game, None


def verify(replay: Mapping[str, Any]) -> VerifyReport:
    """Re-simulate every step and check every digest and the result. Raises ReplayError."""
    last: Game | None = None
    for last, _ in simulate(replay):  # noqa: B007 - the loop runs the simulation; we keep the end
        pass
    assert last is not None
    game = last
    result = game.result() if game.is_over() else None
    recorded = replay.get("result")
    if recorded is not None:
        if result is None:
            raise ReplayError("replay records a result but the game is not over")
        if result.to_json() != recorded:
            raise ReplayError(f"result differs: recorded {recorded}, got {result.to_json()}")
    return VerifyReport(steps=len(replay["steps"]), result=result)
