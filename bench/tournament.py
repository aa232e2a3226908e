"""Figures for competitions: ``python -m bench.tournament [--sets 20] [--seat-sets 100]``.

Prints, on temporary SQLite databases with built-in bots:

* the wall time of a 4-bot round robin at Clank! 2 players with `--sets` duplicate sets, on the
  local pool with 1 and with 2 worker processes;
* the games the SPRT (elo0 0, elo1 20, alpha = beta = 0.05) needs for greedy against random;
* the seat-order effect: greedy against greedy over `--seat-sets` duplicate sets, first places
  by seat with their Wilson interval.

It reproduces the measurements of ``workers/COMPETITIONS.md`` ("Figures"), which were taken with
the same settings through ``arena tournament run`` and ``arena sprt``.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from ladder.competitions import competition_results, create_competition, parse_entry
from ladder.db import create_engine, upgrade
from workers.local_pool import LocalPool
from workers.tournament import Inline, run_competition, run_sprt


def _database(folder: str, name: str) -> str:
    url = f"sqlite:///{folder}/{name}.db"
    upgrade(url)
    return url


def main(argv: list[str] | None = None) -> int:
    """Run the three measurements and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--seat-sets", type=int, default=100)
    args = parser.parse_args(argv)
    field = [parse_entry("clank", n) for n in ("greedy", "random", "greedy", "random")]
    with tempfile.TemporaryDirectory(prefix="arena-tournament-bench-") as folder:
        for workers in (1, 2):
            url = _database(folder, f"rr{workers}")
            engine = create_engine(url)
            cid = create_competition(engine, game="clank", players=2, fmt="round-robin", field=field,
                                     sets=args.sets, seed=1)
            started = time.monotonic()
            with LocalPool(url, workers) as pool:
                run = run_competition(engine, cid, pool)
            wall = time.monotonic() - started
            print(f"round robin, 4 bots, {args.sets} sets ({run.done} games): {wall:.1f} s on "
                  f"{workers} worker(s), {run.done / wall:.2f} games/s")
            engine.dispose()
        url = _database(folder, "sprt")
        engine = create_engine(url)
        result = run_sprt(engine, "clank", parse_entry("clank", "greedy"), parse_entry("clank", "random"),
                          Inline(url), elo0=0, elo1=20)
        print(f"SPRT greedy vs random [0, 20]: {result.verdict} after {result.games} games "
              f"(W/D/L {result.wins}/{result.draws}/{result.losses}, LLR {result.llr:.2f})")
        cid = create_competition(engine, game="clank", players=2, fmt="round-robin",
                                 field=[parse_entry("clank", "greedy")] * 2, sets=args.seat_sets, seed=7)
        with LocalPool(url, 2) as pool:
            run_competition(engine, cid, pool)
        with engine.connect() as conn:
            res = competition_results(conn, cid, bootstrap_samples=50)
        assert res is not None
        for seat in res["seats"]:
            print(f"greedy vs greedy, seat {seat['seat'] + 1}: {seat['firsts']:g} of {seat['games']} first "
                  f"places = {seat['first_rate']:.0%} [{seat['low']:.0%}, {seat['high']:.0%}]")
        engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
