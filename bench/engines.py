"""`make bench`: engine figures (not pass/fail).

- the goal of issue 14: engine + replay recorder decisions per CPU-second (Clank! 4p random
  play, as `play_local` records it) against RLCard's Uno steps per CPU-second (random agents,
  one `env.step` per decision), measured in the same run, interleaved, best of 3 rounds; beside
  it Clank! 2p/4p and Alien 1p/2p/4p bare (engine, observe and bot) and recorded, as ratios to
  Uno, and Clank! 4p with the replay's document and file bytes built too (`rlcard` comes with
  the `bench` extra: `pip install -e '.[bench]'`, `make install`);
- games/s and decisions/s of random play: Clank! at 2 and 4 players, Alien at 1, 2 and 4
  (engine + observe, as the runner does, without replay digests; and with them), Clank! Legacy
  at 2 and 4 (game 1 of a new campaign) beside Clank! in the same run;
- the cost of observe(), of legal-action generation, of copy(), of digest();
- the forward model a search uses (issue 27): copy + step from a mid-game state per CPU-second,
  beside the engine's plain step rate (steps on one game, no copy) measured interleaved in the
  same run, and copy() beside a pickle round trip of the same state (what copy() was before
  `referee.core.fastcopy`), every game at 2 players;
- peak memory of the process;
- replays: stored bytes per decision, format 1 vs 2, and recorder cost (`bench.replay`);
- greedy vs random win rate over 200 two-player games with seats swapped; Clank! Legacy greedy's
  escape rate over 200 four-player games (greedy, random, greedy, random, seats rotated).

Run `python -m bench.engines [--quick] [--json]`.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import pickle
import random
import resource
import time
from collections.abc import Callable
from typing import Any

from bench.replay import bench_player_counts
from bench.replay import figures as replay_figures
from referee.bots import make_bot
from referee.core.game import Game
from referee.games import all_specs, game_class
from referee.replay import dumps
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


#: issue 14: engine + replay recorder decisions per CPU-second at least RLCard's Uno steps
ENGINE_GOAL = 1.0
#: the workload the goal is taken on
GOAL_WORKLOAD = "clank_4p_recorded"
#: Uno games in one timed unit of the reference (about 40 steps a game)
UNO_GAMES_PER_UNIT = 25


def _bare(name: str, players: int, seed: int) -> int:
    """Play as `play_local` does (a built-in random bot per seat, observe, apply), no recorder."""
    cls = game_class(name)
    game = cls.new_game(cls.default_config(players), seed)
    bots = [make_bot(name, "random", seed * 31 + seat) for seat in range(players)]
    decisions = 0
    while not game.is_over():
        d = game.decision()
        assert d is not None
        game.apply_index(bots[d.seat].act(game.observe(d.seat), d.actions))
        decisions += 1
    return decisions


def _recorded(name: str, players: int, seed: int) -> int:
    return play_local(name, ["random"] * players, seed).decisions


def _recorded_file(name: str, players: int, seed: int) -> int:
    """As `_recorded`, and the replay's expanded document and file bytes built too."""
    played = play_local(name, ["random"] * players, seed)
    dumps(played.replay)
    return played.decisions


def _uno_unit() -> Callable[[int], int] | None:
    """One timed unit of RLCard's Uno with its random agents (seeded), or None without rlcard."""
    try:
        rlcard = importlib.import_module("rlcard")
        agents = importlib.import_module("rlcard.agents")
        numpy = importlib.import_module("numpy")
    except ImportError:
        return None
    env = rlcard.make("uno")
    players = [agents.RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)]

    def play(seed: int) -> int:
        env.seed(seed)
        numpy.random.seed(seed)  # RandomAgent draws from numpy's global stream
        steps = 0
        for _ in range(UNO_GAMES_PER_UNIT):
            state, seat = env.reset()
            while not env.is_over():
                state, seat = env.step(players[seat].step(state))
                steps += 1
        return steps

    return play


def _cpu_rates(plays: dict[str, Callable[[int], int]], seeds: range, rounds: int) -> dict[str, float]:
    """Decisions per CPU-second of each workload. Every unit (a seed) of every workload is timed
    once per round, the workloads interleaved unit by unit, and its best CPU time kept: the
    machine is shared, and a slow spell should land on all alike or be dropped."""
    best: dict[tuple[str, int], float] = {}
    decisions = dict.fromkeys(plays, 0)
    for round_ in range(rounds):
        for seed in seeds:
            for way, play in plays.items():
                started = time.process_time()
                n = play(seed)
                elapsed = time.process_time() - started
                best[way, seed] = min(best.get((way, seed), elapsed), elapsed)
                if round_ == 0:
                    decisions[way] += n
    return {way: decisions[way] / max(1e-9, sum(best[way, seed] for seed in seeds)) for way in plays}


def engine_vs_uno(games: int, rounds: int = 3) -> dict[str, Any]:
    """Decisions per CPU-second of the engines (bare and recorded) and of RLCard's Uno, and each
    one's ratio to Uno; `goal_met` says whether Clank! 4p recorded reaches ENGINE_GOAL."""
    plays: dict[str, Callable[[int], int]] = {}
    uno = _uno_unit()
    if uno is not None:
        plays["uno"] = uno
    for spec in all_specs():
        for players in bench_player_counts(spec):
            plays[f"{spec.name}_{players}p_bare"] = functools.partial(_bare, spec.name, players)
            plays[f"{spec.name}_{players}p_recorded"] = functools.partial(_recorded, spec.name, players)
    # what a stored replay costs on top: the expanded document and the file (not the goal)
    plays["clank_4p_replay_file"] = functools.partial(_recorded_file, "clank", 4)
    rates = _cpu_rates(plays, range(7000, 7000 + games), rounds)
    out: dict[str, Any] = {"decisions_per_cpu_s": rates}
    if uno is None:
        out["uno"] = "not measured: rlcard is not installed (pip install -e '.[bench]')"
        return out
    out["vs_uno"] = {way: rate / rates["uno"] for way, rate in rates.items() if way != "uno"}
    out["goal"] = ENGINE_GOAL
    out["goal_ratio"] = out["vs_uno"][GOAL_WORKLOAD]
    out["goal_met"] = out["goal_ratio"] >= ENGINE_GOAL
    return out


def _print_engine_vs_uno(row: dict[str, Any]) -> None:
    rates: dict[str, float] = row["decisions_per_cpu_s"]
    print("engine vs RLCard's Uno (random play, decisions per CPU-second, best of interleaved rounds):")
    if "vs_uno" not in row:
        print(f"  uno: {row['uno']}")
    for way, rate in rates.items():
        ratio = f"{row['vs_uno'][way]:.2f}x Uno" if way in row.get("vs_uno", {}) else ""
        if way == "uno":
            ratio = "reference (rlcard 1.2.0, env.step per decision)"
        goal = ""
        if way == GOAL_WORKLOAD and "goal_met" in row:
            goal = f"  goal >= {ENGINE_GOAL:.1f}x: {'met' if row['goal_met'] else 'NOT met'}"
        print(f"  {way:<20} {rate:>9,.0f}/s  {ratio}{goal}")


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


#: steps (or copies + steps) in one timed unit of the forward-model figure
FORWARD_STEPS = 200


def _forward_states(name: str, players: int, count: int) -> list[Game]:
    """Mid-game states of random play (a game that ended early is replaced by a later seed)."""
    cls = game_class(name)
    states: list[Game] = []
    seed = 0
    while len(states) < count:
        game = cls.new_game(cls.default_config(players), seed)
        rnd = random.Random(seed)
        for _ in range(40 + seed % 40):
            d = game.decision()
            if d is None:
                break
            game.apply_index(rnd.randrange(len(d.actions)))
        if not game.is_over():
            states.append(game)
        seed += 1
    return states


def forward_model(name: str, players: int, states: int = 6, rounds: int = 3) -> dict[str, float]:
    """Per CPU-second, from mid-game states: `plain_steps` (random steps on one game, as a game
    is played), `copy_steps` (copy the state, one random step on the copy: a search's unit), and
    `copies` and `pickle_copies` (a pickle round trip of the same state object); interleaved,
    best of `rounds`. `forward_vs_plain` and `copy_vs_pickle` are the ratios."""
    games = _forward_states(name, players, states)

    def plain(i: int) -> int:
        game, rnd, steps = games[i].copy(), random.Random(i), 0
        while steps < FORWARD_STEPS:
            d = game.decision()
            if d is None:  # the game ended: go on from the mid-game state again
                game = games[i].copy()
                continue
            game.apply_index(rnd.randrange(len(d.actions)))
            steps += 1
        return steps

    def copy_step(i: int) -> int:
        origin, rnd = games[i], random.Random(i)
        for _ in range(FORWARD_STEPS):
            game = origin.copy()
            d = game.decision()
            assert d is not None
            game.apply_index(rnd.randrange(len(d.actions)))
        return FORWARD_STEPS

    def copies(i: int) -> int:
        origin = games[i]
        for _ in range(FORWARD_STEPS):
            origin.copy()
        return FORWARD_STEPS

    def pickle_copies(i: int) -> int:
        state = games[i].s  # type: ignore[attr-defined]
        for _ in range(FORWARD_STEPS):
            pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
        return FORWARD_STEPS

    rates = _cpu_rates(
        {"plain_steps": plain, "copy_steps": copy_step, "copies": copies, "pickle_copies": pickle_copies},
        range(len(games)),
        rounds,
    )
    return {
        **{f"{way}_per_s": rate for way, rate in rates.items()},
        "forward_vs_plain": rates["copy_steps"] / rates["plain_steps"],
        "copy_vs_pickle": rates["copies"] / rates["pickle_copies"],
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


def _legacy_greedy_4p(games: int) -> dict[str, float]:
    """Clank! Legacy, 4 seats, two greedy and two random (rotated by one seat per game): how
    often a greedy seat escapes and wins."""
    escapes = wins = 0
    for i in range(games):
        lineup = ["greedy", "random"] * 2 if i % 2 == 0 else ["random", "greedy"] * 2
        g = play_local("clank_legacy", lineup, 60_000 + i)
        seats = [s for s, bot in enumerate(lineup) if bot == "greedy"]
        escapes += sum(g.result.outcomes[s] == "escaped" for s in seats)
        wins += any(g.result.places[s] == 1 for s in seats)
    return {"games": games, "greedy_escape_rate": escapes / (2 * games), "greedy_win_rate": wins / games}


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer games (smoke run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = 5 if args.quick else 40
    figures: dict[str, Any] = {"engine_vs_uno": engine_vs_uno(3 if args.quick else 8)}
    for spec in all_specs():  # every registered game; a cooperative one also with its own bots
        for players in bench_player_counts(spec):
            name, recorded = spec.name, max(2, n // 4)
            figures[f"{name}_random_{players}p"] = _random_play(name, players, n)
            figures[f"{name}_random_{players}p_with_replay"] = _with_replay(name, players, recorded)
            for bot in spec.bots if spec.cooperative else ():
                figures[f"{name}_{bot}_{players}p_with_replay"] = _with_replay(name, players, recorded, bot)
    for label, row in replay_figures(4 if args.quick else 20).items():
        figures[f"replay_{label}"] = row
    for spec in all_specs():
        figures[f"forward_model_{spec.name}_2p"] = forward_model(spec.name, 2, 3 if args.quick else 6)
    figures["clank_micro_4p"] = _micro(_midgame_states("clank", 4, 20), 20 if not args.quick else 3)
    figures["clank_greedy_vs_random_2p"] = _greedy_vs_random(40 if args.quick else 200)
    figures["clank_legacy_greedy_4p"] = _legacy_greedy_4p(40 if args.quick else 200)
    # sanity: a greedy bot instance is reusable
    make_bot("clank", "greedy", 0)
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        if key == "engine_vs_uno":
            _print_engine_vs_uno(value)
        elif isinstance(value, dict):
            print(f"{key}: " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                         for k, v in value.items()))
        else:
            print(f"{key}: {value:.1f}")


if __name__ == "__main__":
    main()
