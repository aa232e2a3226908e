"""The bot conformance kit: what an author runs before submitting (`arena bot check "CMD"`).

The bot plays a few short games over real gRPC against the house random bot, taking each seat
in turn. The report lists every protocol fault the referee ruled on (timeouts, rejected
answers, forfeits, crashes), the bot's decision-time percentiles as the referee measured them,
and a verdict: PASS only with no fault at all and a clean exit.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.replay import loads
from referee.server.config import TimeControl
from referee.server.launcher import EXIT_WAIT_S, missing_sdk_hint, run_match

__all__ = ["CheckReport", "GameCheck", "check_bot", "house_bot_command", "percentile"]

HOUSE_BOT = Path(__file__).resolve().parents[2] / "bots" / "python" / "examples" / "random_bot.py"


def house_bot_command() -> str:
    """The opponent: the SDK's random example bot, with this interpreter."""
    return f"{sys.executable} {HOUSE_BOT}"


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), nearest-rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return float(ordered[rank])


@dataclass
class GameCheck:
    """One game of the check."""

    seed: int
    seat: int
    ended_by: str
    outcome: str
    decisions: int
    millis: list[int]
    faults: list[dict[str, Any]]
    forfeit: str
    exit_code: int | None
    log_tail: str

    def problems(self) -> list[str]:
        """Why this game fails the check, one reason per line: the bot crashed, never connected,
        was forfeited, did not exit after the game, or exited with an error; then its protocol
        faults. Empty for a clean game."""
        out: list[str] = []
        forfeit = self.forfeit
        if forfeit.startswith("crashed: exit code "):
            out.append(f"crashed with exit code {forfeit.removeprefix('crashed: exit code ')}")
        elif forfeit.startswith("never connected"):
            out.append(f"never connected ({forfeit})" if forfeit != "never connected" else forfeit)
        elif forfeit == "exited before the game ended":
            out.append("exited (code 0) before the game ended")
        elif forfeit:
            out.append(f"forfeited: {forfeit}")
        if self.exit_code is None:
            # the launcher waits EXIT_WAIT_S after the match, then kills what is still running
            out.append(f"did not exit within {EXIT_WAIT_S:g} s after the game (killed)")
        elif self.exit_code != 0 and not forfeit.startswith("crashed"):
            out.append(f"exited with code {self.exit_code} after the game")
        if self.faults:
            kinds = sorted({str(f.get("kind")) for f in self.faults})
            out.append(f"{len(self.faults)} protocol fault(s): {', '.join(kinds)}")
        return out


@dataclass
class CheckReport:
    """All games of the check."""

    command: str
    games: list[GameCheck] = field(default_factory=list)

    @property
    def faults(self) -> list[dict[str, Any]]:
        """Every fault of every game."""
        return [f for g in self.games for f in g.faults]

    @property
    def passed(self) -> bool:
        """No fault, no forfeit, a clean exit after every game."""
        return not self.faults and all(not g.forfeit and g.exit_code == 0 for g in self.games)

    def reasons(self) -> list[str]:
        """Why the check fails ("game 1 (seat 0): crashed with exit code 3", ...); empty if it
        passes."""
        return [
            f"game {i} (seat {g.seat}): {problem}"
            for i, g in enumerate(self.games, 1)
            for problem in g.problems()
        ]

    def timings(self) -> dict[str, float]:
        """Decision-time percentiles in ms (referee-side: request sent -> answer received)."""
        ms = [m for g in self.games for m in g.millis]
        return {
            "decisions": len(ms),
            "p50": percentile(ms, 50),
            "p90": percentile(ms, 90),
            "p99": percentile(ms, 99),
            "max": float(max(ms, default=0)),
            "mean": round(statistics.fmean(ms), 2) if ms else 0.0,
        }

    def lines(self) -> list[str]:
        """The readable report."""
        out = [f"bot check: {self.command}"]
        for g in self.games:
            out.append(
                f"  game seed={g.seed} seat={g.seat}: {g.decisions} decisions, outcome {g.outcome}, "
                f"ended by {g.ended_by}, exit code {g.exit_code}"
                + (f", FORFEIT ({g.forfeit})" if g.forfeit else "")
            )
            for f in g.faults:
                out.append(
                    f"    fault: {f.get('kind')} at decision {f.get('decision', '-')}: {f.get('detail')}"
                )
            if g.problems() and g.log_tail:
                out.append("    bot output (last lines):")
                out.extend("      " + line for line in g.log_tail.splitlines())
        t = self.timings()
        out.append(
            f"  decision time (ms): p50 {t['p50']:.0f}  p90 {t['p90']:.0f}  p99 {t['p99']:.0f}  "
            f"max {t['max']:.0f}  over {t['decisions']:.0f} decisions"
        )
        if self.passed:
            out.append("PASS")
        else:
            out.append("FAIL:")
            out.extend(f"  {reason}" for reason in self.reasons())
            hint = next((h for g in self.games if (h := missing_sdk_hint(g.log_tail))), "")
            if hint:
                out.append(f"  {hint}")
        return out


async def check_bot(
    command: str,
    *,
    game: str,
    games: int = 2,
    seed: int = 1,
    time_control: TimeControl | None = None,
    opponent: str | None = None,
) -> CheckReport:
    """Run the check (2-player games, the bot alternating seats)."""
    report = CheckReport(command)
    house = opponent or house_bot_command()
    for i in range(games):
        seat = i % 2
        commands = [house, house]
        commands[seat] = command
        names = ["house-random", "house-random"]
        names[seat] = "candidate"
        launched = await run_match(
            game, commands, seed=seed + i, time_control=time_control or TimeControl(), names=names
        )
        replay = loads(launched.replay)
        record = replay["seats"][seat]
        steps = [s for s in replay["steps"] if s.get("seat") == seat and "forfeit" not in s]
        millis = [int(s["ms"]) for s in steps if not s.get("reason")]
        result = replay.get("result") or {}
        outcomes = result.get("outcomes") or ["?"] * len(commands)
        report.games.append(
            GameCheck(
                seed=seed + i,
                seat=seat,
                ended_by=str(replay.get("ended_by")),
                outcome=str(outcomes[seat]),
                decisions=len(steps),
                millis=millis,
                faults=list(record.get("incidents", [])),
                forfeit=str(record.get("forfeit", "")),
                exit_code=launched.bots[seat].exit_code,
                log_tail=launched.bots[seat].log_tail(),
            )
        )
    return report
