"""`arena replay show`: a replay as one seat saw it, or all of it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from referee.core.game import canonical_json
from referee.replay import simulate

__all__ = ["render"]


def render(replay: Mapping[str, Any], seat: int | None) -> Iterator[str]:
    """Lines describing the game. With `seat`, only what that seat observed at each of its
    decisions, plus the public record of other seats' actions; without, the full state too.

    Steps are numbered as ``verify`` and the web viewer number them: step n is the n-th entry of
    the replay's ``steps`` (forfeits included), shown with the state it was decided in."""
    n_seats = len(replay["seats"])
    if seat is not None and not 0 <= seat < n_seats:
        raise ValueError(f"seat {seat} does not exist (seats 0..{n_seats - 1})")
    yield (
        f"{replay['game']} seed {replay['seed']} engine {replay['engine_version']} "
        f"content {replay['content_version']} config {canonical_json(replay['config'])}"
    )
    for s in replay["seats"]:
        yield f"  seat {s.get('seat')}: {s.get('bot') or s.get('name') or s}"
    for n, (game, step) in enumerate(simulate(replay), start=1):
        if step is None:
            if game.is_over():
                r = game.result()
                yield f"result: places {list(r.places)} scores {list(r.scores)} outcomes {list(r.outcomes)}"
            yield f"ended by: {replay.get('ended_by', 'game_over')}"
            return
        if "forfeit" in step:
            yield f"[step {n}] seat {step['forfeit']} forfeits: {step['reason']}"
            continue
        actor = step["seat"]
        if seat is None or actor == seat:
            obs = game.observe_all() if seat is None else game.observe(seat)
            lines = game.summarize(obs)
            pending = game.decision()
            legal = len(pending.actions) if pending else 0
            yield f"[step {n}] seat {actor} to act (decision {step['decision']}, {legal} legal):"
            for line in lines:
                yield f"    {line}"
            extra = []
            if "note" in step:
                extra.append(f"note {step['note']!r}")
            if "ms" in step:
                extra.append(f"{step['ms']} ms")
            if "cpu_ms" in step:
                extra.append(f"{step['cpu_ms']} ms CPU")
            if "reason" in step:
                extra.append(f"default action: {step['reason']}")
            suffix = f"  ({'; '.join(extra)})" if extra else ""
            yield f"  -> {step['action']['text']}{suffix}"
        else:
            yield f"[step {n}] seat {actor}: {step['action']['text']}"
