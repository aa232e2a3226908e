"""`make bench`: engine figures (not pass/fail).

- games/s and decisions/s of random play: Clank! at 2 and 4 players, Alien at 1, 2 and 4
  (engine + observe, as the runner does, without replay digests; and with them);
- the cost of observe(), of legal-action generation, of copy(), of digest();
- peak memory of the process;
- replays: stored bytes per decision, format 1 vs 2, and recorder cost (`referee.replay_bench`);
- greedy vs random win rate over 200 two-player games with seats swapped.

Run `python -m referee.bench [--quick] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from typing import Any

from referee.bots import make_bot
from referee.core.game import Game
from referee.games import game_class
from referee.replay_bench import figures as replay_figures
from referee.runner import play_local


def _random_play(name: str, players: int, games: int) -> dict[str, float]:
    cls = game_class(name)
    decisions = 0
    started = time.perf_counter()
    for seed in range(games):
        game = cls.new_game(cls.default_config(players), seed)
        rnd = random.Random(seed)
        while not game.is_over():
            d = game.decision()
            assert d is not None
            game.observe(d.seat)
            game.apply(d.actions[rnd.randrange(len(d.actions))])
            decisions += 1
    elapsed = time.perf_counter() - started
    return {"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed,
            "decisions_per_game": decisions / games}


def _with_replay(name: str, players: int, games: int, bot: str = "random") -> dict[str, float]:
    started = time.perf_counter()
    decisions = sum(play_local(name, [bot] * players, seed).decisions for seed in range(games))
    elapsed = time.perf_counter() - started
    return {"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed}


def _midgame_states(name: str, players: int, count: int) -> list[Game]:
    cls = game_class(name)
    states = []
    for seed in range(count):
        game = cls.new_game(cls.default_config(players), seed)
        rnd = random.Random(seed)
        for _ in range(150 + seed % 100):
            if game.is_over():
                break
            d = game.decision()
            assert d is not None
            game.apply(d.actions[rnd.randrange(len(d.actions))])
        states.append(game)
    return states


def _micro(states: list[Game], repeat: int) -> dict[str, float]:
    def per_call_us(fn: Any) -> float:
        started = time.perf_counter()
        for _ in range(repeat):
            for g in states:
                fn(g)
        return 1e6 * (time.perf_counter() - started) / (repeat * len(states))

    def legal(g: Game) -> None:
        g._decision = None  # force regeneration
        g.decision()

    return {
        "observe_us": per_call_us(lambda g: g.observe(0)),
        "legal_actions_us": per_call_us(legal),
        "copy_us": per_call_us(lambda g: g.copy()),
        "digest_us": per_call_us(lambda g: g.digest()),
    }


def _greedy_vs_random(games: int) -> dict[str, float]:
    wins = 0
    played = 0
    escapes = 0
    for i in range(games):
        seed = 50_000 + i // 2
        lineup = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        g = play_local("clank", lineup, seed)
        seat = lineup.index("greedy")
        played += 1
        wins += g.result.places[seat] == 1 and g.result.places[1 - seat] != 1
        escapes += g.result.outcomes[seat] == "escaped"
    return {"games": played, "greedy_win_rate": wins / played, "greedy_escape_rate": escapes / played}


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer games (smoke run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = 5 if args.quick else 40
    figures: dict[str, Any] = {}
    for players in (2, 4):
        figures[f"clank_random_{players}p"] = _random_play("clank", players, n)
        figures[f"clank_random_{players}p_with_replay"] = _with_replay("clank", players, max(2, n // 4))
    for players in (1, 2, 4):
        figures[f"alien_random_{players}p"] = _random_play("alien", players, n)
        figures[f"alien_random_{players}p_with_replay"] = _with_replay("alien", players, max(2, n // 4))
        figures[f"alien_coop_{players}p_with_replay"] = _with_replay("alien", players, max(2, n // 4), "coop")
    for label, row in replay_figures(4 if args.quick else 20).items():
        figures[f"replay_{label}"] = row
    figures["clank_micro_4p"] = _micro(_midgame_states("clank", 4, 20), 20 if not args.quick else 3)
    figures["clank_greedy_vs_random_2p"] = _greedy_vs_random(40 if args.quick else 200)
    # sanity: a greedy bot instance is reusable
    make_bot("clank", "greedy", 0)
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        if isinstance(value, dict):
            print(f"{key}: " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                         for k, v in value.items()))
        else:
            print(f"{key}: {value:.1f}")


if __name__ == "__main__":
    main()
