"""Does `builtin:ismcts` raise the team's win rate in Alien over `builtin:coop`? (issue 27, part 4)

Paired seeds: every seed is played twice, once with ``coop`` at every seat and once with
``ismcts`` at every seat, the same deal both times (the engine's seed). The search runs on an
iteration budget (``--iterations`` samples a decision, seeded), not on wall time, so the result
does not depend on the machine's load; what that budget costs per decision is printed beside it
(CPU time, the searched decisions only: one with a single legal action is answered at once).

Prints both team win rates with Wilson 95% intervals, the paired difference (ismcts minus coop,
per seed) with its 95% interval (normal approximation over the seeds), the seeds only one of
them won, and the search's CPU milliseconds a searched decision (mean, median, 99th percentile)
beside the ladder's allowance of 1,000 ms a decision.

    python -m bench.ismcts_alien --seeds 500 --games 200 --iterations 8 --jobs 2
    make bench-ismcts
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

Z95 = 1.959964
#: the ladder's per-decision allowance (referee/server/config.py DEFAULT_DECISION_MS)
LADDER_DECISION_MS = 1000


def _wilson(wins: int, games: int) -> tuple[float, float]:
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denominator = 1 + Z95**2 / games
    centre = (p + Z95**2 / (2 * games)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games**2)) / denominator
    return (centre - half, centre + half)


def play(seed: int, players: int, bot: str, iterations: int, horizon: int | None) -> dict[str, Any]:
    """One game of `bot` at every seat: whether the team won, and the searched decisions' CPU ms."""
    from referee.bots import make_bot
    from referee.bots.ismcts import IsmctsBot
    from referee.games import game_class

    cls = game_class("alien")
    game = cls.new_game(cls.default_config(players), seed)
    if bot == "ismcts":
        bots: list[Any] = [
            IsmctsBot("alien", seed * 8 + i, time_ms=None, iterations=iterations, horizon=horizon)
            for i in range(players)
        ]
    else:
        bots = [make_bot("alien", bot, seed * 8 + i) for i in range(players)]
    times: list[float] = []
    overruled = 0
    while (d := game.decision()) is not None:
        if len(d.actions) == 1:
            game.apply_index(0)
            continue
        started = time.process_time()
        index = bots[d.seat].act(game.observe(d.seat), d.actions)
        times.append(1000 * (time.process_time() - started))
        search = getattr(bots[d.seat], "last_search", None)
        if search and d.actions[index] != search.get("prefer"):
            overruled += 1
        game.apply_index(index)
    return {"seed": seed, "won": bool(game.result().team_won), "ms": times, "overruled": overruled}


def main(argv: list[str] | None = None) -> None:
    """Play the paired games and print the figures (module docstring)."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--seeds", type=int, default=500, help="first seed (default 500)")
    parser.add_argument("--games", type=int, default=200, help="seeds, each played by both (default 200)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=8, help="ismcts samples a decision (default 8)")
    parser.add_argument("--horizon", type=int, default=None, help="rollout horizon (default: the game's)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    seeds = range(args.seeds, args.seeds + args.games)
    runs: dict[str, list[dict[str, Any]]] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for bot in ("coop", "ismcts"):
            futures = [pool.submit(play, s, args.players, bot, args.iterations, args.horizon) for s in seeds]
            runs[bot] = [f.result() for f in futures]
    n = args.games
    for bot in ("coop", "ismcts"):
        wins = sum(r["won"] for r in runs[bot])
        low, high = _wilson(wins, n)
        print(f"{bot:>6}: team won {wins} of {n}  {wins / n:.3f}  95% [{low:.3f}, {high:.3f}]")
    diffs = [int(b["won"]) - int(a["won"]) for a, b in zip(runs["coop"], runs["ismcts"], strict=True)]
    mean = sum(diffs) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, n - 1) / n)
    print(
        f"paired difference (ismcts - coop, {n} seeds): {mean:+.3f}  95% [{mean - Z95 * spread:+.3f}, "
        f"{mean + Z95 * spread:+.3f}]; won by ismcts only {diffs.count(1)}, by coop only {diffs.count(-1)}"
    )
    ms = sorted(t for r in runs["ismcts"] for t in r["ms"])
    reference = sorted(t for r in runs["coop"] for t in r["ms"])
    if ms:
        print(
            f"ismcts at {args.iterations} samples a decision (horizon {args.horizon or 'the game default'}): "
            f"CPU ms a searched decision mean {sum(ms) / len(ms):.1f}, median {ms[len(ms) // 2]:.1f}, "
            f"p99 {ms[int(0.99 * (len(ms) - 1))]:.1f} over {len(ms)} decisions (coop: mean "
            f"{sum(reference) / max(1, len(reference)):.2f}); the ladder allows {LADDER_DECISION_MS} ms a "
            f"decision: mean / allowance {sum(ms) / len(ms) / LADDER_DECISION_MS:.2f}; "
            f"overruled coop's choice in {sum(r['overruled'] for r in runs['ismcts'])} decisions"
        )


if __name__ == "__main__":
    main()
