"""`arena replay show`: a replay as one seat saw it, or all of it, in words."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.core.game import canonical_json
from referee.replay import simulate

__all__ = ["describe_incident", "example_bot_command", "place_notes", "render", "seat_label"]


def example_bot_command(record: Mapping[str, Any], script: str = "my_bot") -> str:
    """A bot command to suggest for `arena replay rerun --bot` at a seat of a replay: `node
    SCRIPT.js` when the seat played with the JavaScript kit (its hello's `sdk`, recorded in the
    seat's record), else `python SCRIPT.py`."""
    node = str(record.get("sdk", "")).startswith("arena-bot-node/")
    return f"node {script}.js" if node else f"python {script}.py"


def _legend(game: str) -> tuple[str, ...]:
    from referee.games import game_spec

    try:
        return game_spec(game).legend
    except KeyError:  # simulate() names an unknown game in its own words
        return ()


def seat_label(record: Mapping[str, Any], seat: int, *, own_name: bool = False) -> str:
    """``seat N (name)``, the name the match gave the seat; with `own_name` also the name the
    bot gave itself, when it differs."""
    name = str(record.get("bot") or record.get("name") or "")
    own = str(record.get("bot_name") or "") if own_name else ""
    if own and own != name:
        name = f"{name}, calls itself {own!r}" if name else own
    return f"seat {seat} ({name})" if name else f"seat {seat}"


def describe_incident(incident: Mapping[str, Any]) -> str:
    """An incident of a seat's record in words: what happened, at which decision."""
    kind = str(incident.get("kind", "incident")).replace("_", " ")
    at = f" at decision {incident['decision']}" if "decision" in incident else ""
    detail = incident.get("detail")
    return f"{kind}{at}" + (f": {detail}" if detail else "")


def place_notes(places: Sequence[int], scores: Sequence[int], outcomes: Sequence[str]) -> dict[int, str]:
    """Why a forfeited seat holds a place as good as a seat that played on, per such seat.

    Places rank scores only: a seat that crashed at 0 points shares first place when every
    seat ended at 0, which reads like a win unless it is explained.
    """
    notes: dict[int, str] = {}
    for seat, outcome in enumerate(outcomes):
        if outcome != "forfeited":
            continue
        level = [o for o in range(len(places)) if o != seat and places[o] == places[seat]]
        below = [o for o in range(len(places)) if places[o] > places[seat] and outcomes[o] != "forfeited"]
        if level:
            seats = ", ".join(str(o) for o in level)
            notes[seat] = (
                f"shared: tied on {scores[seat]} points with seat {seats}; places rank scores "
                "only, the forfeit is in the outcome"
            )
        elif below:
            notes[seat] = "placed by its score; places rank scores only, the forfeit is in the outcome"
    return notes


def _result_lines(replay: Mapping[str, Any], places: Sequence[int], scores: Sequence[int],
                  outcomes: Sequence[str], team_won: bool | None) -> Iterator[str]:
    head = "result:" if team_won is None else f"result: the team {'won' if team_won else 'lost'}"
    yield head
    notes = place_notes(places, scores, outcomes)
    for seat, record in enumerate(replay["seats"]):
        line = (
            f"  {seat_label(record, seat, own_name=True)}: place {places[seat]}, score {scores[seat]}, "
            f"{outcomes[seat].replace('_', ' ')}"
        )
        if seat in notes:
            line += f" ({notes[seat]})"
        yield line


def render(replay: Mapping[str, Any], seat: int | None, *, actions: bool = False) -> Iterator[str]:
    """Lines describing the game. With `seat`, only what that seat observed at each of its
    decisions, plus the public record of other seats' actions; without, the full state too.
    With `actions`, every decision shown lists its legal actions, numbered as the bot saw them.

    Steps are numbered as ``verify`` and the web viewer number them: step n is the n-th entry of
    the replay's ``steps`` (forfeits included), shown with the state it was decided in."""
    records: Sequence[Mapping[str, Any]] = replay["seats"]
    n_seats = len(records)
    if seat is not None and not 0 <= seat < n_seats:
        raise ValueError(f"seat {seat} does not exist (seats 0..{n_seats - 1})")
    label = [seat_label(r, i) for i, r in enumerate(records)]
    yield (
        f"{replay['game']} seed {replay['seed']} engine {replay['engine_version']} "
        f"content {replay['content_version']} config {canonical_json(replay['config'])}"
    )
    for i, record in enumerate(records):
        extra = []
        if record.get("strikes"):
            extra.append(f"{record['strikes']} strikes")
        if record.get("forfeit"):
            extra.append(f"forfeited: {record['forfeit']}")
        full = seat_label(record, i, own_name=True)
        yield f"  {full}" + (f": {'; '.join(extra)}" if extra else "")
        for incident in record.get("incidents") or ():
            yield f"    incident: {describe_incident(incident)}"
    # a game's legend explains the notation of its summary lines, once
    yield from _legend(str(replay["game"]))
    for n, (game, step) in enumerate(simulate(replay), start=1):
        if step is None:
            if game.is_over():
                r = game.result()
                yield from _result_lines(replay, r.places, r.scores, r.outcomes, r.team_won)
            yield f"ended by: {replay.get('ended_by', 'game_over')}"
            return
        if "forfeit" in step:
            yield f"[step {n}] {label[int(step['forfeit'])]} forfeits: {step['reason']}"
            continue
        actor = int(step["seat"])
        if seat is None or actor == seat:
            obs = game.observe_all() if seat is None else game.observe(seat)
            lines = game.summarize(obs)
            pending = game.decision()
            legal = pending.actions if pending else ()
            yield f"[step {n}] {label[actor]} to act (decision {step['decision']}, {len(legal)} legal):"
            for line in lines:
                yield f"    {line}"
            if actions:
                if pending is not None and pending.prompt:
                    yield f"    {pending.prompt}"
                for index, action in enumerate(legal):
                    yield f"      [{index}] {action.text or action.kind}"
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
            chosen = f"[{step['index']}] " if actions and "index" in step else ""
            yield f"  -> {chosen}{step['action']['text']}{suffix}"
        else:
            yield f"[step {n}] {label[actor]}: {step['action']['text']}"
