"""`make bench`: the lab's observation encoding (issue 27) beside the engine's plain step rate.

Every figure is per CPU-second, measured interleaved in the same run on the same mid-game
states of random play (best of 3 rounds, `bench.engines._cpu_rates`), at 2 players for every
registered game:

- `plain_steps`: random steps on one game, as a game is played (the engine's plain step rate);
- `observed_steps`: the same steps, each preceded by `observe(seat)` (the dict bots get);
- `encoded_steps`: the same steps, each preceded by what a learner pays for its observation:
  `observe(seat)` and `referee.lab.encode_observation` (the 512-float vector);
- `pettingzoo_steps`: the same random play through `pettingzoo_env` (`env.last()` then
  `env.step`), the whole AEC loop as a trainer runs it;
- `encodings` and `path_text_encodings`: encoding alone, of observations recorded from those
  states, with the lab's encoder and with the plain walk that builds each leaf's path text and
  hashes it (what the encoder was before it carried the CRC down the walk; the same vector).

Printed: each rate, the encoding's cost in µs (goal: at most `ENCODE_GOAL_US` for Clank! 2p)
and its ratio to the path-text walk. Run `python -m bench.lab [--quick] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import random
import zlib
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.engines import _cpu_rates, _forward_states
from referee.core.game import Game
from referee.games import all_specs
from referee.lab import pettingzoo_env
from referee.lab.encoding import OBS_BOUND, OBS_SIZE, encode_observation

#: steps (or encodings) in one timed unit
UNIT = 200
#: issue 27's aim for one Clank! 2p encoding, in µs
ENCODE_GOAL_US = 500.0


def path_text_encoding(observation: dict[str, Any]) -> npt.NDArray[np.float32]:
    """The reference: referee/lab/README.md's layout as the plain walk reads it (each leaf's path
    text built and hashed, numpy's scalar `+=`): the vector the lab's encoder must equal
    (tests/referee/test_lab.py holds the encoder to it)."""
    out = np.zeros(OBS_SIZE, dtype=np.float64)

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key in sorted(value):
                walk(value[key], f"{path}/{key}")
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value):
                walk(item, f"{path}/{i}")
        elif isinstance(value, bool | int | float):
            out[zlib.crc32(path.encode()) % OBS_SIZE] += float(value)
        elif isinstance(value, str):
            out[zlib.crc32(f"{path}={value}".encode()) % OBS_SIZE] += 1.0

    walk(observation, "")
    return np.clip(out, -OBS_BOUND, OBS_BOUND).astype(np.float32)


def _observations(origin: Game, seed: int) -> list[dict[str, Any]]:
    """UNIT observations of the pending seat along random play from `origin`."""
    game, rnd = origin.copy(), random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < UNIT:
        d = game.decision()
        if d is None:
            game = origin.copy()
            continue
        out.append(game.observe(d.seat))
        game.apply_index(rnd.randrange(len(d.actions)))
    return out


def lab_encoding(name: str, players: int, states: int = 6, rounds: int = 3) -> dict[str, float]:
    """The figures of one game at `players` (see the module's docstring)."""
    games = _forward_states(name, players, states)
    recorded = [_observations(g, i) for i, g in enumerate(games)]
    for observations in recorded:  # the fast encoder must give the reference's vector
        for o in observations[:20]:
            if not np.array_equal(encode_observation(o), path_text_encoding(o)):
                raise AssertionError(f"{name}: the lab's encoding differs from the path-text walk")

    def steps(i: int, observe: bool, encode: bool) -> int:
        game, rnd, done = games[i].copy(), random.Random(i), 0
        while done < UNIT:
            d = game.decision()
            if d is None:
                game = games[i].copy()
                continue
            if encode:
                encode_observation(game.observe(d.seat))
            elif observe:
                game.observe(d.seat)
            game.apply_index(rnd.randrange(len(d.actions)))
            done += 1
        return done

    def pettingzoo(i: int) -> int:
        env, rnd, done = pettingzoo_env(name, players), random.Random(i), 0
        env.reset(seed=7000 + i)
        while done < UNIT:
            if not env.agents:
                env.reset(seed=8000 + done)
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
        return done

    def encodings(i: int) -> int:
        for o in recorded[i]:
            encode_observation(o)
        return UNIT

    def path_text(i: int) -> int:
        for o in recorded[i]:
            path_text_encoding(o)
        return UNIT

    rates = _cpu_rates(
        {
            "plain_steps": lambda i: steps(i, False, False),
            "observed_steps": lambda i: steps(i, True, False),
            "encoded_steps": lambda i: steps(i, True, True),
            "pettingzoo_steps": pettingzoo,
            "encodings": encodings,
            "path_text_encodings": path_text,
        },
        range(len(games)),
        rounds,
    )
    return {
        **{f"{way}_per_s": rate for way, rate in rates.items()},
        "encode_us": 1e6 / rates["encodings"],
        "path_text_encode_us": 1e6 / rates["path_text_encodings"],
        "encoded_vs_plain": rates["encoded_steps"] / rates["plain_steps"],
        "encoding_speedup": rates["encodings"] / rates["path_text_encodings"],
    }


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer states (smoke run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = {f"lab_{spec.name}_2p": lab_encoding(spec.name, 2, 2 if args.quick else 6)
               for spec in all_specs()}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print("lab observation encoding (per CPU-second, interleaved, best of 3 rounds):")
    for key, row in figures.items():
        print(f"  {key}: plain steps {row['plain_steps_per_s']:,.0f}/s, observe+step "
              f"{row['observed_steps_per_s']:,.0f}/s, observe+encode+step "
              f"{row['encoded_steps_per_s']:,.0f}/s ({row['encoded_vs_plain']:.2f}x plain), "
              f"pettingzoo env steps {row['pettingzoo_steps_per_s']:,.0f}/s")
        goal = ""
        if key == "lab_clank_2p":
            ratio = row["encode_us"] / ENCODE_GOAL_US
            goal = (f"  goal <= {ENCODE_GOAL_US:.0f} us: {ratio:.2f}x of it, "
                    f"{'met' if ratio <= 1 else 'NOT met'}")
        print(f"    encode {row['encode_us']:.0f} us/observation vs path-text walk "
              f"{row['path_text_encode_us']:.0f} us ({row['encoding_speedup']:.1f}x faster){goal}")


if __name__ == "__main__":
    main()
