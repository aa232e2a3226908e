"""The replay viewer's server side: re-simulate a replay and render each step for one viewer.

Step numbers are the replay's: step n (1-based) is the n-th entry of ``replay["steps"]``, the
same n that ``arena replay verify`` names in its errors and ``arena replay show`` prints as
``[step n]``. Frame n shows the game as it was when step n was decided (before its action),
with that decision; frame N+1 ("end") shows the final state.

Who sees what (the "perspective" of a frame):

- seat s: the board drawn from ``game.observe(s)`` (only what that seat may know), and, at the
  steps where s was asked, exactly what it was sent: the observation, the prompt, every legal
  action with the chosen one marked, its note and its decision time. Nothing of another seat's
  hand or deck is rendered: the frame is built from the seat's observation alone, so it cannot
  reach the page.
- "all": the whole state (``game.observe_all()``: every hand, deck order, hidden token). A
  stored replay exists only once its match is over (the replay is written with the result),
  and the replay file itself holds the seed, so the whole state is no secret by then; the pages
  offer "all" for finished matches only all the same (the Kaggle rule), and for local files.

The game is re-simulated once with full verification (every digest checked); states are kept
as checkpoints every :data:`CHECKPOINT_EVERY` steps and a frame replays the few steps after its
checkpoint without re-hashing.
"""

from __future__ import annotations

import json
import shlex
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, Final

from referee.core.game import Game
from referee.games import game_spec
from referee.replay import ReplayError, simulate
from referee.replay_view import example_bot_command

__all__ = ["CHECKPOINT_EVERY", "Timeline", "TimelineCache", "percentile"]

#: a state is kept every this many steps
CHECKPOINT_EVERY: Final = 16
#: seat colours (pawns, cubes, chart lines)
SEAT_COLOURS: Final = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of `values` by the nearest-rank method (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return float(ordered[rank - 1])


def _colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


class Timeline:
    """A replay re-simulated: frames for any step and perspective.

    A replay that stops simulating part way (a digest differs, an action is illegal) keeps the
    steps before the fault; `error` says what went wrong and at which step.
    """

    def __init__(self, replay: Mapping[str, Any], file_name: str = "replay.json.gz") -> None:
        self.replay = replay
        #: the file name the rerun command on screen names (the download's, or the local file's)
        self.file_name = file_name
        self.steps: list[Mapping[str, Any]] = list(replay["steps"])
        self.seats = len(replay["seats"])
        self.error: str | None = None
        self._checkpoints: list[Game] = []
        self._last: Game | None = None
        self.playable = 0  # steps that re-simulated
        try:
            for n, (game, step) in enumerate(simulate(replay)):
                if n % CHECKPOINT_EVERY == 0:
                    self._checkpoints.append(game.copy())
                if step is None:
                    self._last = game.copy()
                else:
                    self.playable = n + 1  # step n+1 can be shown (its state re-simulated)
            self.playable = len(self.steps)
        except ReplayError as exc:
            self.error = str(exc)
        except Exception as exc:  # a replay is outside input: any engine failure is its fault
            self.error = f"the replay does not re-simulate: {type(exc).__name__}: {exc}"
        if not self._checkpoints:
            raise ReplayError(self.error or "the replay does not re-simulate")
        # decision id -> step number, for incidents (they name the decision they happened at)
        self.step_of_decision: dict[int, int] = {}
        for n, step in enumerate(self.steps, start=1):
            if "decision" in step:
                self.step_of_decision.setdefault(int(step["decision"]), n)
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """Frames: one per re-simulated step, plus the end when the replay played through."""
        return self.playable + (1 if self._last is not None else 0)

    def state_before(self, n: int) -> Game:
        """A copy of the game before step n (n = len(steps)+1: the final state)."""
        if not 1 <= n <= self.total:
            raise IndexError(f"no step {n} (1..{self.total})")
        if n == len(self.steps) + 1 and self._last is not None:
            return self._last.copy()
        index = (n - 1) // CHECKPOINT_EVERY
        with self._lock:
            game = self._checkpoints[index].copy()
        for step in self.steps[index * CHECKPOINT_EVERY : n - 1]:
            if "forfeit" in step:
                game.forfeit(int(step["forfeit"]))
            else:
                d = game.decision()
                assert d is not None  # verified when the timeline was built
                game.apply(d.actions[int(step["index"])])
        return game

    def frame(self, n: int, seat: int | None) -> dict[str, Any]:
        """Frame n for `seat` (None: the whole state): JSON with HTML fragments to show."""
        if seat is not None and not 0 <= seat < self.seats:
            raise IndexError(f"no seat {seat}")
        game = self.state_before(n)
        obs = game.observe_all() if seat is None else game.observe(seat)
        step = self.steps[n - 1] if n <= len(self.steps) else None
        return {
            "step": n,
            "total": self.total,
            "steps": len(self.steps),
            "label": "end" if step is None else f"step {n}",
            "seat": seat,
            "actor": None if step is None else step.get("seat", step.get("forfeit")),
            "chosen": None if step is None or seat not in (None, step.get("seat")) else step.get("index"),
            "record_html": self._record_html(n, step, game),
            "board_html": render_board(game, obs),
            "seat_html": self._seat_html(n, step, game, obs, seat),
        }

    # --- fragments ------------------------------------------------------------------------

    def _record_html(self, n: int, step: Mapping[str, Any] | None, game: Game) -> str:
        parts: list[str] = []
        if step is None:
            result = self.replay.get("result")
            ended = self.replay.get("ended_by", "game_over")
            parts.append(f"<p class=event>The match ended ({escape(str(ended))}).</p>")
            if result:
                rows = "".join(
                    f"<tr><td>seat {i}</td><td>{escape(str(p))}</td><td>{escape(str(s))}</td>"
                    f"<td>{escape(str(o))}</td></tr>"
                    for i, (p, s, o) in enumerate(
                        zip(result["places"], result["scores"], result["outcomes"], strict=False)
                    )
                )
                parts.append(
                    "<table class=result><tr><th>seat</th><th>place</th><th>score</th>"
                    f"<th>outcome</th></tr>{rows}</table>"
                )
        elif "forfeit" in step:
            parts.append(
                f"<p class=event><b>Seat {int(step['forfeit'])} forfeits</b>: "
                f"{escape(str(step.get('reason', '')))}</p>"
            )
        else:
            seat = int(step["seat"])
            text = escape(str(step["action"].get("text") or step["action"].get("kind")))
            parts.append(
                f"<p class=event><span class=pawn style='background:{_colour(seat)}'></span>"
                f"Seat {seat} chose: <b>{text}</b></p>"
            )
            if step.get("reason"):
                parts.append(
                    f"<p class=incident>The referee played this default action: "
                    f"{escape(str(step['reason']))} (a strike).</p>"
                )
        decision = None if step is None else step.get("decision")
        for s, record in enumerate(self.replay["seats"]):
            for incident in record.get("incidents", []) or []:
                if not isinstance(incident, Mapping):
                    continue
                at = incident.get("decision")
                if isinstance(at, int) and at == decision and "forfeit" not in (step or {}):
                    parts.append(
                        f"<p class=incident>Incident, seat {s}: {escape(str(incident.get('kind', '')))}"
                        f" {escape(str(incident.get('detail', '')))}</p>"
                    )
        if self.error and n == self.total:
            parts.append(f"<p class=error>The replay stops here: {escape(self.error)}</p>")
        return "".join(parts)

    def _seat_html(
        self,
        n: int,
        step: Mapping[str, Any] | None,
        game: Game,
        obs: Mapping[str, Any],
        seat: int | None,
    ) -> str:
        who = "the whole state" if seat is None else f"seat {seat}"
        d = game.decision()
        asked = step is not None and "forfeit" not in step and (seat is None or step.get("seat") == seat)
        parts: list[str] = []
        if asked and step is not None and d is not None:
            parts.append(
                f"<h3>Step {n}: seat {d.seat} was asked (decision id {d.id}, {escape(d.kind)})</h3>"
                f"<p class=prompt>{escape(d.prompt)}</p>"
            )
            facts = []
            if "ms" in step:
                facts.append(f"decision time {int(step['ms'])} ms")
            if "cpu_ms" in step:
                facts.append(f"CPU {int(step['cpu_ms'])} ms")
            if step.get("reason"):
                facts.append(f"default action: {escape(str(step['reason']))}")
            if facts:
                parts.append(f"<p class=facts>{'; '.join(facts)}</p>")
            if step.get("note"):
                parts.append(f"<p class=note>Note: <q>{escape(str(step['note']))}</q></p>")
            chosen = int(step["index"])
            items = []
            for i, action in enumerate(d.actions):
                mark = " class=chosen aria-current=true" if i == chosen else ""
                items.append(
                    f"<li{mark} data-index={i}><code>{i}</code> {escape(action.text or action.kind)}</li>"
                )
            parts.append(f"<ol class=actions start=0>{''.join(items)}</ol>")
            seats = self.replay["seats"]
            record = seats[d.seat] if d.seat < len(seats) and isinstance(seats[d.seat], Mapping) else {}
            command = (
                f"arena replay rerun {shlex.quote(self.file_name)} --step {n} --seat {d.seat} "
                f'--bot "{example_bot_command(record)}"'
            )
            parts.append(
                f"<p class=rerun>Your bot at this moment: <code id=rerun-command>{escape(command)}</code></p>"
            )
        elif step is None:
            parts.append(f"<h3>The end, as {who} sees it</h3>")
        elif "forfeit" in step:
            parts.append(f"<h3>Seat {int(step['forfeit'])} forfeits: nobody was asked</h3>")
        else:
            parts.append(
                f"<h3>Seat {int(step['seat'])} decides: {who} was sent nothing at this step</h3>"
                "<p class=meta>What it may know now is drawn on the board.</p>"
            )
        title = "Observation sent" if asked and seat is not None else "Observation"
        if seat is None:
            title = "Whole state"
        summary = "".join(f"<li>{escape(line)}</li>" for line in game.summarize(dict(obs)))
        parts.append(f"<h4>{title} (summary)</h4><ul class=summary>{summary}</ul>")
        parts.append(
            f"<details><summary>{title} as JSON</summary>"
            f"<pre class=observation>{escape(json.dumps(obs, indent=1, sort_keys=True))}</pre></details>"
        )
        return "".join(parts)


class TimelineCache:
    """The last few timelines built, by key (a match id and its replay digest)."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: OrderedDict[Any, Timeline] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, key: Any) -> Timeline | None:
        """The timeline under `key` if it is cached."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def get(self, key: Any, build: Any) -> Timeline:
        """The timeline under `key`, built with ``build()`` when it is not cached."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        made: Timeline = build()
        with self._lock:
            self._items[key] = made
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return made


# --- board drawing ------------------------------------------------------------------------


def render_board(game: Game, obs: Mapping[str, Any]) -> str:
    """The board of `game` as HTML/SVG drawn from `obs` only (a seat's view or the whole state).

    A game's drawing is the function its spec names (`GameSpec.board`, in the game's folder), so
    the viewer keeps no list of games; a game without one is shown as its observation's JSON."""
    draw = game_spec(game.name).board_drawing()
    if draw is None:
        return f"<pre>{escape(json.dumps(obs, indent=1, sort_keys=True))}</pre>"
    return draw(game, obs)
