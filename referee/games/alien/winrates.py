"""Win rates and speed of built-in bots at Alien (a tuning and benchmark script, not a test).

python -m referee.games.alien.winrates --games 200 --players 1 2 3 4 --bots random coop
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from referee.runner import play_local

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Play `--games` games per (bot, player count) and print win rate and speed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--bots", nargs="+", default=["random", "coop"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for bot in args.bots:
        for n in args.players:
            wins = 0
            decisions = 0
            objectives: Counter[int] = Counter()
            ended: Counter[str] = Counter()
            started = time.perf_counter()
            for g in range(args.games):
                played = play_local("alien", [bot] * n, args.seed + g)
                wins += bool(played.result.team_won)
                decisions += played.decisions
                objectives[int(played.result.details["objectives_completed"])] += 1
                ended[str(played.result.details["ended_by"])] += 1
            seconds = time.perf_counter() - started
            print(
                f"{bot:>6} {n}p: win {100 * wins / args.games:5.1f}%  "
                f"games/s {args.games / seconds:6.1f}  decisions/s {decisions / seconds:7.0f}  "
                f"objectives {dict(sorted(objectives.items()))}  ended {dict(ended)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
