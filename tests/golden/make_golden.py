"""Write the golden set of a game's current engine version: `python tests/golden/make_golden.py GAME`
(`make golden GAME=clank`).

A golden set is a few games per player count played by the built-in bots with fixed seeds (one
of each pair with a forfeit), stored as what each step chose and the state digest after it
(tests/golden/README.md). It is written once, when the version is new: a set that exists is
never written again (a rules change that alters it needs a new engine version), so this refuses.

The sets of versions released before golden sets existed were made by this same script run in a
checkout of the commit before each version bump, with only that checkout importable:
`PYTHONPATH=/path/to/old/checkout python -S tests/golden/make_golden.py GAME` (README.md). So it
reads no more of the engine API than those builds had: game_class, new_game, default_config,
decision, apply_index, forfeit, digest, result, and the built-in bots' make_bot.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: games of builds older than the game registry (no spec): their strong bot and player counts
_BEFORE_SPECS = {"clank": ("greedy", 2, 4), "alien": ("coop", 1, 5)}
#: games per player count: enough that each version's rule changes are played (tests/golden/README.md)
GAMES_PER_COUNT = 4


def plan(game: str) -> list[tuple[list[str], int, int | None]]:
    """(bots, seed, forfeit step or None) of each game of the set: three per player count (the
    game's strong built-in bot against `KindsBot`, the same with a forfeit, the strong bot in
    every seat)."""
    try:
        from referee.games import game_spec

        spec = game_spec(game)
        strong = next(b for b in spec.reference_bots if b != "random")
        low, high = spec.min_players, spec.max_players
    except ImportError:
        strong, low, high = _BEFORE_SPECS[game]
    games: list[tuple[list[str], int, int | None]] = []
    for i, players in enumerate(range(low, high + 1)):
        pair = [strong, "kinds"]
        for k in range(GAMES_PER_COUNT):
            seed = 3 + GAMES_PER_COUNT * i + k
            if k % 3 == 2:
                games.append(([strong] * players, seed, None))
            else:  # the forfeit early in the game: every seat still plays on after it
                bots = [pair[(seat + k) % 2] for seat in range(players)]
                games.append((bots, seed, 10 * (players + 2) if k % 3 == 1 else None))
    return games


class KindsBot:
    """The golden sets' explorer: picks an action kind at random, then an action of that kind,
    so rare moves (buying a market item, drinking a potion, teleporting, trashing) are played
    far more often than by a uniform random bot. Written here, not taken from the build, so it
    plays the same in every checkout."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Any, legal_actions: Any) -> int:
        kinds = sorted({a.kind for a in legal_actions})
        kind = kinds[self.rng.randrange(len(kinds))]
        return self.rng.choice([i for i, a in enumerate(legal_actions) if a.kind == kind])


def _make_bot(game: str, name: str, seed: int) -> Any:
    if name == "kinds":
        return KindsBot(seed)
    if importlib.util.find_spec("bots.builtin") is not None:  # builds before referee.bots
        from bots.builtin import make_bot
    else:
        from referee.bots import make_bot
    return make_bot(game, name, seed)


def record(game: str, bots: list[str], seed: int, forfeit_at: int | None) -> dict[str, Any]:
    """One game of the set, played by this build."""
    from referee.games import game_class

    cls = game_class(game)
    config = cls.default_config(len(bots))
    state = cls.new_game(config, seed)
    players = [_make_bot(game, name, seed * 31 + seat) for seat, name in enumerate(bots)]
    steps: list[Any] = []
    seats, digests = "", [state.digest()]
    while not state.is_over():
        d = state.decision()
        assert d is not None
        seats += str(d.seat)
        if len(steps) + 1 == forfeit_at:
            state.forfeit(d.seat)
            steps.append([d.seat])  # a forfeit: [seat]
        else:
            index = players[d.seat].act(state.observe(d.seat), d.actions)
            state.apply_index(index)
            steps.append(index)
        digests.append(state.digest())
    return {
        "bots": bots,
        "seed": seed,
        "config": config,
        "steps": steps,
        "seats": seats,
        "digests": "".join(d[:8] for d in digests),
        "final_digest": digests[-1],
        "result": state.result().to_json(),
    }


def main(argv: list[str]) -> int:
    """Write tests/golden/GAME/VERSION.json.gz for this build's current version of GAME."""
    if len(argv) != 1:
        print("usage: make_golden.py GAME", file=sys.stderr)
        return 2
    from referee.games import game_class

    game = argv[0]
    cls = game_class(game)
    path = HERE / game / f"{cls.engine_version}.json.gz"
    if path.exists():
        print(
            f"error: {path} exists: the golden set of {cls.engine_version} is never written again; "
            "a rules change that alters it needs a new engine version (referee/games/README.md)",
            file=sys.stderr,
        )
        return 1
    games = [record(game, *entry) for entry in plan(game)]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    doc = {
        "format": "arena-golden",
        "game": game,
        "engine_version": cls.engine_version,
        "content_version": cls.new_game(games[0]["config"], games[0]["seed"]).content_version,
        "recorded_at": commit.stdout.strip(),
        "games": games,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    steps = sum(len(g["steps"]) for g in games)
    print(f"wrote {path}: {len(games)} games, {steps} steps, {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
