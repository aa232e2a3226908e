"""The engine conformance suite, importable and run for every game.

Each check takes a game class, a config and seeds, plays random legal actions and raises
`ConformanceError` with a readable message on the first violation. Tests call them per game;
a new game gets the whole suite by adding one parametrisation.

Checks:
- determinism: same seed + actions => same digest after every step, also via from_json;
- copy independence: a copy and its original never affect each other;
- serialisation: from_json(to_json()) has the same digest and plays on identically;
- legal actions: every legal action applies (on a copy) without error;
- illegal actions: a made-up or stale action raises IllegalAction and changes nothing;
- termination: random games end within a step budget;
- hidden information: what a seat is sent (its observation, and its decision's prompt and legal
  actions) is unchanged when everything that seat may not know is re-dealt.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.core.game import Action, Game, IllegalAction, canonical_json

__all__ = [
    "ConformanceError",
    "GameStats",
    "check_copy_independence",
    "check_determinism",
    "check_illegal_actions_rejected",
    "check_legal_actions_apply",
    "check_no_hidden_leak",
    "check_serialisation",
    "play_random",
]

MAX_STEPS = 20_000


class ConformanceError(AssertionError):
    """A game broke the engine contract."""


@dataclass(frozen=True, slots=True)
class GameStats:
    """What a random game did."""

    steps: int
    digests: tuple[str, ...]
    actions: tuple[Action, ...]


def play_random(
    cls: type[Game],
    config: Mapping[str, Any],
    seed: int,
    policy_seed: int,
    max_steps: int = MAX_STEPS,
    digests: bool = True,
) -> tuple[Game, GameStats]:
    """Play a game with uniformly random legal actions; fail if it does not end in `max_steps`.

    With `digests=False` the per-step digests are skipped (cheaper when only actions matter)."""
    game = cls.new_game(config, seed)
    rnd = random.Random(policy_seed)
    digest_list = [game.digest()]
    actions: list[Action] = []
    while not game.is_over():
        if len(actions) >= max_steps:
            raise ConformanceError(f"{cls.name} seed {seed}: game did not end within {max_steps} steps")
        d = game.decision()
        if d is None or not d.actions:
            raise ConformanceError(f"{cls.name} seed {seed}: not over but no legal action")
        action = d.actions[rnd.randrange(len(d.actions))]
        game.apply(action)
        actions.append(action)
        if digests:
            digest_list.append(game.digest())
    if game.decision() is not None:
        raise ConformanceError(f"{cls.name} seed {seed}: over but still asks for a decision")
    result = game.result()
    if len(result.places) != game.num_seats:
        raise ConformanceError(f"{cls.name} seed {seed}: result has {len(result.places)} places")
    return game, GameStats(len(actions), tuple(digest_list), tuple(actions))


def check_determinism(cls: type[Game], config: Mapping[str, Any], seed: int, policy_seed: int) -> None:
    """Replaying the same actions from the same seed gives the same digest after every step."""
    _, first = play_random(cls, config, seed, policy_seed)
    game = cls.new_game(config, seed)
    if game.digest() != first.digests[0]:
        raise ConformanceError(f"{cls.name} seed {seed}: initial states differ")
    for step, action in enumerate(first.actions, start=1):
        game.apply(action)
        if game.digest() != first.digests[step]:
            raise ConformanceError(f"{cls.name} seed {seed}: digests differ after step {step}")


def check_serialisation(cls: type[Game], config: Mapping[str, Any], seed: int, policy_seed: int) -> None:
    """A state rebuilt from JSON text (at sampled steps) has the same digest and plays on alike."""
    _, stats = play_random(cls, config, seed, policy_seed)
    game = cls.new_game(config, seed)
    every = max(1, stats.steps // 10)
    for step, action in enumerate(stats.actions, start=1):
        game.apply(action)
        if step % every == 0:
            text = canonical_json(game.to_json())
            rebuilt = cls.from_json(json.loads(text))
            if rebuilt.digest() != game.digest():
                raise ConformanceError(f"{cls.name} seed {seed}: from_json changed the state at step {step}")
            game = rebuilt
        if game.digest() != stats.digests[step]:
            raise ConformanceError(f"{cls.name} seed {seed}: resumed game diverged at step {step}")


def check_copy_independence(cls: type[Game], config: Mapping[str, Any], seed: int, policy_seed: int) -> None:
    """Advancing a copy leaves the original alone, and the other way round."""
    rnd = random.Random(policy_seed)
    game = cls.new_game(config, seed)
    while not game.is_over():
        d = game.decision()
        assert d is not None
        if rnd.random() < 0.05:
            before = game.digest()
            clone = game.copy()
            if clone.digest() != before:
                raise ConformanceError(f"{cls.name} seed {seed}: copy has a different digest")
            for _ in range(20):
                cd = clone.decision()
                if cd is None:
                    break
                clone.apply(cd.actions[rnd.randrange(len(cd.actions))])
            if game.digest() != before:
                raise ConformanceError(f"{cls.name} seed {seed}: playing a copy changed the original")
            snapshot = clone.digest()
            game.apply(d.actions[rnd.randrange(len(d.actions))])
            if clone.digest() != snapshot:
                raise ConformanceError(f"{cls.name} seed {seed}: playing the original changed a copy")
            continue
        game.apply(d.actions[rnd.randrange(len(d.actions))])


def check_legal_actions_apply(
    cls: type[Game], config: Mapping[str, Any], seed: int, policy_seed: int, sample_every: int = 1
) -> int:
    """Every legal action applies without error (each on its own copy). Returns actions tried."""
    rnd = random.Random(policy_seed)
    game = cls.new_game(config, seed)
    tried = 0
    step = 0
    while not game.is_over():
        d = game.decision()
        assert d is not None
        if step % sample_every == 0:
            if len(set(d.actions)) != len(d.actions):
                raise ConformanceError(f"{cls.name} seed {seed}: duplicate legal actions at step {step}")
            for action in d.actions:
                clone = game.copy()
                try:
                    clone.apply(action)
                except Exception as exc:  # any failure of a legal action is a bug
                    raise ConformanceError(
                        f"{cls.name} seed {seed} step {step}: legal action {action.text!r} failed: {exc!r}"
                    ) from exc
                tried += 1
        game.apply(d.actions[rnd.randrange(len(d.actions))])
        step += 1
    return tried


def check_illegal_actions_rejected(
    cls: type[Game], config: Mapping[str, Any], seed: int, policy_seed: int
) -> None:
    """Made-up actions, stale actions and bad indices raise IllegalAction and change nothing."""
    rnd = random.Random(policy_seed)
    game = cls.new_game(config, seed)
    previous: tuple[Action, ...] = ()
    while not game.is_over():
        d = game.decision()
        assert d is not None
        before = game.digest()
        legal = set(d.actions)
        candidates = [Action("no_such_action", (1,)), Action(d.actions[0].kind, (99_999, "x"))]
        candidates += [a for a in previous if a not in legal][:3]
        for bad in candidates:
            try:
                game.apply(bad)
            except IllegalAction:
                pass
            else:
                raise ConformanceError(f"{cls.name} seed {seed}: illegal action {bad} was accepted")
            if game.digest() != before:
                raise ConformanceError(f"{cls.name} seed {seed}: rejected action {bad} changed the state")
        for index in (-1, len(d.actions)):
            try:
                game.apply_index(index)
            except IllegalAction:
                pass
            else:
                raise ConformanceError(f"{cls.name} seed {seed}: index {index} was accepted")
        previous = d.actions
        game.apply(d.actions[rnd.randrange(len(d.actions))])
    try:
        game.apply(Action("end_turn"))
    except IllegalAction:
        return
    raise ConformanceError(f"{cls.name} seed {seed}: an action was accepted after the end")


def _what_seat_is_sent(game: Game, seat: int) -> str:
    """The observation, plus the prompt and legal actions when the decision is that seat's: all
    a bot receives, so all of it must be free of what the seat may not know."""
    d = game.decision()
    sent: dict[str, Any] = {"observation": game.observe(seat)}
    if d is not None and d.seat == seat:
        sent["decision"] = [d.kind, d.prompt, [[a.kind, list(a.args), a.text] for a in d.actions]]
    return canonical_json(sent)


def check_no_hidden_leak(
    cls: type[Game],
    config: Mapping[str, Any],
    seed: int,
    policy_seed: int,
    samples: int = 25,
    variants: int = 2,
) -> int:
    """At sampled steps, for every seat, re-deal the hidden information and compare observations.

    Returns the number of (step, seat, variant) comparisons made.
    """
    _, stats = play_random(cls, config, seed, policy_seed, digests=False)
    chosen = set(random.Random(policy_seed).sample(range(stats.steps + 1), min(samples, stats.steps + 1)))
    game = cls.new_game(config, seed)
    compared = 0
    for step in range(stats.steps + 1):
        if step in chosen:
            for seat in range(game.num_seats):
                seen = _what_seat_is_sent(game, seat)
                for k in range(variants):
                    variant = game.hidden_variant(seat, seed * 1000 + step * 10 + k)
                    if _what_seat_is_sent(variant, seat) != seen:
                        raise ConformanceError(
                            f"{cls.name} seed {seed} step {step}: what seat {seat} is sent (observation, "
                            "or its decision's prompt and legal actions) depends on information that "
                            "seat may not know"
                        )
                    compared += 1
        if step < stats.steps:
            game.apply(stats.actions[step])
    return compared
