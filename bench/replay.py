"""Replay figures for `make bench` (not pass/fail): stored bytes per decision and recorder cost.

- bytes per decision, gzipped, of the same games written as format 1 (a digest after every
  step, the layout before format 2), as format 2 (128-bit links and their positions stored) and
  as format 3 (`referee.replay.dumps`; the goal is at most 4);
- decisions/s of the same games played bare (engine and bots, no recorder), with the format 3
  recorder (digests at checkpoints) and file, and with a digest after every step (what the
  format 1 recorder paid), in the same run.

Run `python -m bench.replay [--quick]` (`python -m bench.engines` prints them too).
"""

from __future__ import annotations

import argparse
import gzip
import time
from collections.abc import Callable
from typing import Any

from referee.bots import make_bot
from referee.core.game import canonical_json
from referee.games import all_specs, game_class
from referee.games.spec import GameSpec
from referee.replay import dumps, encode
from referee.runner import play_local

__all__ = ["bench_player_counts", "figures", "format1_bytes", "format1_document", "lineups", "main"]


def bench_player_counts(spec: GameSpec) -> tuple[int, ...]:
    """The table sizes the benches measure a game at: its smallest, 2 and its largest, those
    its spec allows (Clank!: 2, 4; Alien: 1, 2, 4)."""
    wanted = {spec.min_players, 2, spec.max_players}
    return tuple(sorted(n for n in wanted if spec.min_players <= n <= spec.max_players))


def lineups() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(label, game, bots per seat): the games the figures are taken on. Every registered game
    at 2 seats and at its largest table, its reference bots taking the seats in turn (Clank!:
    random, greedy, random, greedy; Alien: its coop bot in every seat)."""
    out = []
    for spec in all_specs():
        for players in sorted({n for n in (2, spec.max_players) if spec.min_players <= n}):
            bots = tuple(spec.reference_bots[seat % len(spec.reference_bots)] for seat in range(players))
            out.append((f"{spec.name}_{players}p", spec.name, bots))
    return tuple(out)


def format1_bytes(replay: dict[str, Any]) -> int:
    """Size of `replay` written as format 1 was: a state digest on every step, whole JSON gzipped."""
    return len(gzip.compress(canonical_json(format1_document(replay)).encode(), compresslevel=9, mtime=0))


def format1_document(replay: dict[str, Any]) -> dict[str, Any]:
    """`replay` (expanded) as the format 1 recorder wrote it: a state digest on every step."""
    cls = game_class(replay["game"])
    game = cls.new_game(replay["config"], replay["seed"])
    steps = []
    for step in replay["steps"]:
        if "forfeit" in step:
            game.forfeit(step["forfeit"])
        else:
            game.apply_index(step["index"])
        steps.append({**step, "digest": game.digest()})
    return {**replay, "steps": steps, "format_version": 1}


def _bare(name: str, bots: tuple[str, ...], seed: int, digest_every_step: bool) -> int:
    """Play as `play_local` does, without a recorder (or with only the per-step digest)."""
    cls = game_class(name)
    game = cls.new_game(cls.default_config(len(bots)), seed)
    players = [make_bot(name, bot, seed * 31 + seat) for seat, bot in enumerate(bots)]
    decisions = 0
    while not game.is_over():
        d = game.decision()
        assert d is not None
        game.apply_index(players[d.seat].act(game.observe(d.seat), d.actions))
        if digest_every_step:
            game.digest()
        decisions += 1
    return decisions


def _rates(plays: dict[str, Callable[[int], int]], seeds: range, rounds: int = 3) -> dict[str, float]:
    """Decisions/s of each way of playing the same games. Each game is timed once per round in
    each way, the ways interleaved game by game, and its best time kept: the machine is shared,
    and a slow spell should land on all ways alike or be dropped."""
    best: dict[tuple[str, int], float] = {}
    decisions = dict.fromkeys(plays, 0)
    for round_ in range(rounds):
        for seed in seeds:
            for way, play in plays.items():
                started = time.perf_counter()
                n = play(seed)
                elapsed = time.perf_counter() - started
                best[way, seed] = min(best.get((way, seed), elapsed), elapsed)
                if round_ == 0:
                    decisions[way] += n
    return {way: decisions[way] / sum(best[way, seed] for seed in seeds) for way in plays}


def figures(games: int) -> dict[str, dict[str, float]]:
    """Per lineup: bytes/decision (formats 1, 2, 3) and decisions/s (bare, recorded, old)."""
    out: dict[str, dict[str, float]] = {}
    for label, name, bots in lineups():
        seeds = range(1000, 1000 + games)
        old = chained = new = decisions = 0
        for seed in seeds:
            played = play_local(name, list(bots), seed)
            decisions += played.decisions
            old += format1_bytes(played.replay)
            chained += len(gzip.compress(encode(played.replay, version=2), compresslevel=9, mtime=0))
            new += len(dumps(played.replay))

        def recorded(seed: int, name: str = name, bots: tuple[str, ...] = bots) -> int:
            played = play_local(name, list(bots), seed)
            dumps(played.replay)
            return played.decisions

        def bare_play(seed: int, name: str = name, bots: tuple[str, ...] = bots) -> int:
            return _bare(name, bots, seed, False)

        def digest_play(seed: int, name: str = name, bots: tuple[str, ...] = bots) -> int:
            return _bare(name, bots, seed, True)

        rates = _rates({"bare": bare_play, "recorded": recorded, "digest_each": digest_play}, seeds)
        bare, with_recorder, digest_each = rates["bare"], rates["recorded"], rates["digest_each"]
        out[label] = {
            "decisions_per_game": decisions / games,
            "format1_bytes_per_decision": old / decisions,
            "format2_bytes_per_decision": chained / decisions,
            "format3_bytes_per_decision": new / decisions,
            "bare_decisions_per_s": bare,
            "recorded_decisions_per_s": with_recorder,
            "recorded_vs_bare": with_recorder / bare,
            "digest_every_step_vs_bare": digest_each / bare,
        }
    return out


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer games (smoke run)")
    args = parser.parse_args()
    for label, row in figures(4 if args.quick else 20).items():
        print(f"replay_{label}: " + ", ".join(f"{k} {v:.2f}" for k, v in row.items()))


if __name__ == "__main__":
    main()
