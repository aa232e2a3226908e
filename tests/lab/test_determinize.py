"""Determinization (referee/games/<game>/DETERMINIZE.md): `sample_state(game, observation, seat,
rng)` gives engine states that play on, show the seat exactly its observation, and owe nothing
to the true hidden cards."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, cast

import pytest

from referee.core.game import Action, Game
from referee.games import all_specs, game_class
from referee.games.determinize import DeterminizeError, sample_state, sampler

#: (game, players) each determinizer is tested at
CASES = [("clank", 2), ("clank", 4), ("alien", 1), ("alien", 3), ("clank_legacy", 2), ("clank_legacy", 4)]
#: how often (in steps) the tests sample a random game: its games are short (alien) or long
EVERY = {"clank": 9, "alien": 2, "clank_legacy": 20}
#: those with another seat, whose hand is a hidden part (the independence test peeks at it)
SHARED = [("clank", 2), ("clank", 4), ("alien", 2), ("alien", 4), ("clank_legacy", 3)]


def _positions(game: str, players: int, seed: int, every: int) -> Iterator[Game]:
    """Copies of a random game (dealt by `seed`, random legal actions) every `every` steps."""
    cls = game_class(game)
    g = cls.new_game(cls.default_config(players), seed)
    picks = random.Random(seed)
    step = 0
    while not g.is_over():
        # every decision of Clank! Legacy's Epilogue too (group votes after play)
        if step % every == 0 or getattr(_state(g), "phase", "") == "epilogue":
            yield g.copy()
        d = g.decision()
        assert d is not None
        g.apply(d.actions[picks.randrange(len(d.actions))])
        step += 1


def _wire(observation: dict[str, Any]) -> dict[str, Any]:
    """The observation as a bot receives it: JSON text read back, sharing nothing with the game."""
    copied: dict[str, Any] = json.loads(json.dumps(observation))
    return copied


def _play_out(g: Game, picks: random.Random) -> int:
    steps = 0
    while not g.is_over():
        d = g.decision()
        assert d is not None and d.actions
        g.apply(d.actions[picks.randrange(len(d.actions))])
        steps += 1
    assert len(g.result().places) == g.num_seats
    return steps


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_sample_plays_on_to_the_end(game: str, players: int) -> None:
    """A sample is a state the engine accepts: it survives a JSON round trip (from_json) and
    random legal play from it reaches a result."""
    picks = random.Random(7)
    played = 0
    for seed in range(2):
        positions = list(_positions(game, players, seed, every=EVERY[game]))
        for g in positions[:: max(1, len(positions) // 4)]:
            d = g.decision()
            assert d is not None
            sample = sample_state(game, _wire(g.observe(d.seat)), d.seat, random.Random(played))
            rebuilt = type(sample).from_json(sample.to_json())
            assert rebuilt.digest() == sample.digest()
            _play_out(rebuilt, picks)
            played += 1
    assert played >= 6


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_sample_shows_the_seat_its_observation(game: str, players: int) -> None:
    """Every seat's observation of a sample is the observation it was made from (own hand, deck
    contents, sizes, piles, tokens, the pending choice...), and where the seat is to act it is
    offered the same legal actions as in the true game: exactly when the sample is also given
    those actions, else all but what one observation cannot tell (_comparable)."""
    compared = same_actions = after_play = 0
    for seed in range(3):
        for g in _positions(game, players, seed, every=EVERY[game]):
            after_play += getattr(_state(g), "phase", "") == "epilogue"
            d = g.decision()
            assert d is not None
            for seat in range(players):
                seen = g.observe(seat)
                sample = sample_state(game, _wire(seen), seat, random.Random(compared))
                assert sample.observe(seat) == seen, f"seed {seed} step {seen['step']} seat {seat}"
                compared += 1
                if d.seat == seat:
                    told = sample_state(game, _wire(seen), seat, random.Random(compared), d.actions)
                    assert told.observe(seat) == seen
                    td = told.decision()
                    assert td is not None and (td.seat, td.kind, td.actions) == (d.seat, d.kind, d.actions)
                    same_actions += 1
                if d.seat == seat and _new_in_hand(g, seat) == 0:
                    sd = sample.decision()
                    assert sd is not None and (sd.seat, sd.kind) == (d.seat, d.kind)
                    assert _comparable(game, sd.actions) == _comparable(game, d.actions)
    assert compared > 30 and same_actions > 10
    assert after_play > 0 or game != "clank_legacy"  # the Epilogue's votes were sampled too


def _comparable(game: str, actions: Sequence[Action]) -> list[Action]:
    """The legal actions a sample must offer as the true state does: all but Alien's "ask" (one
    observation does not say whether the active player asked since its last action)."""
    return [a for a in actions if not (game == "alien" and a.kind == "ask")]


def _new_in_hand(g: Game, seat: int) -> int:
    """Cards the seat acquired and redrew this turn in Clank! (they cannot be played; its
    observation does not mark them, DETERMINIZE.md; Clank! Legacy's shows them)."""
    return len(_state(g).players[seat].new_hand) if g.name == "clank" else 0


def _state(g: Game) -> Any:
    """An engine's state object (every engine here keeps it in `s`)."""
    return cast(Any, g).s


def _hidden_features(game: str, g: Game, seat: int) -> tuple[Hashable, ...]:
    """Categorical features of what `seat` cannot see in a state: one value per feature."""
    s = _state(g)
    if game == "clank":
        other = s.players[(seat + 1) % s.players_n]
        first_room = sorted(r for r, v in s.minor_secrets.items() if v)
        return (
            tuple(sorted(other.hand)),
            len([c for c in other.hand + other.deck if c == "burgle"]),
            s.dungeon_deck[-1] if s.dungeon_deck else None,
            s.minor_secrets[first_room[0]][0] if first_room else None,
        )
    if game == "clank_legacy":
        other = s.players[(seat + 1) % s.players_n]
        return (
            tuple(sorted(other.hand)),
            len([c for c in other.hand + other.deck if c == "burgle"]),
            s.adventure_deck[-1] if s.adventure_deck else None,
            s.bank_minor[-1] if s.bank_minor else None,
            s.bank_major[-1] if s.bank_major else None,
        )
    if game == "alien":
        other = s.players[(seat + 1) % s.players_n]
        face_down = [r["card"] for r in s.complex if r is not None and not r["up"]]
        return (
            tuple(sorted(other.hand)) if s.players_n > 1 else None,
            s.hive[-1] if s.hive else None,
            face_down[0] if face_down else None,
            s.barracks[-1] if s.barracks else None,
            s.strike_deck[-1] if s.strike_deck else None,
        )
    raise AssertionError(game)


def _chi2_p(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """p-value of a chi-square test that samples `a` and `b` come from one distribution
    (categories expected fewer than 5 times are pooled; Wilson-Hilferty approximation)."""
    ca, cb = Counter(a), Counter(b)
    na, nb = len(a), len(b)
    cells: list[tuple[int, int]] = []
    pooled = [0, 0]
    for value in set(ca) | set(cb):
        x, y = ca[value], cb[value]
        if (x + y) * min(na, nb) / (na + nb) < 5:
            pooled[0] += x
            pooled[1] += y
        else:
            cells.append((x, y))
    if sum(pooled):
        cells.append((pooled[0], pooled[1]))
    if len(cells) < 2:
        return 1.0
    stat = 0.0
    for x, y in cells:
        total = x + y
        for observed, n in ((x, na), (y, nb)):
            expected = total * n / (na + nb)
            stat += (observed - expected) ** 2 / expected
    k = len(cells) - 1
    z = ((stat / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _two_truths(game: str, players: int, seed: int, step_every: int) -> tuple[Game, Game, int]:
    """Two true states the seat to act cannot tell apart (the same observation and decision)
    whose hidden cards differ: a mid-game position and a re-deal of what that seat cannot see."""
    positions = list(_positions(game, players, seed, every=step_every))
    a = positions[len(positions) // 2]
    d = a.decision()
    assert d is not None
    for k in range(50):
        b = a.hidden_variant(d.seat, k)
        if _hidden_features(game, b, d.seat)[0] != _hidden_features(game, a, d.seat)[0]:
            assert b.observe(d.seat) == a.observe(d.seat)
            return a, b, d.seat
    raise AssertionError("no re-deal changed the hidden cards")


@pytest.mark.parametrize(("game", "players"), SHARED)
def test_samples_owe_nothing_to_the_hidden_cards(game: str, players: int) -> None:
    """From one observation, two true states with different hidden cards give the same samples
    for the same rng seed, and statistically indistinguishable samples of the hidden parts over
    300 seeds each (chi-square per feature, p > 0.001). The same test catches a sampler that
    peeks at the true opponent hand (p < 1e-6), so it has the power to see a leak."""
    a, b, seat = _two_truths(game, players, seed=3, step_every=5)
    obs_a, obs_b = _wire(a.observe(seat)), _wire(b.observe(seat))
    assert obs_a == obs_b and a.digest() != b.digest()
    sample = sampler(game)
    assert sample(obs_a, seat, random.Random(5)).digest() == sample(obs_b, seat, random.Random(5)).digest()

    Features = list[tuple[Hashable, ...]]

    def features(obs: dict[str, Any], first_seed: int, peek: Game | None = None) -> Features:
        """Hidden features of 300 samples (with `peek`: of a sampler that reads that state)."""
        out = []
        for k in range(300):
            s = sample(obs, seat, random.Random(first_seed + k))
            if peek is not None:  # a leaky sampler: the true hand of the next seat
                other = (seat + 1) % players
                theirs = _state(s).players[other]
                true_hand = list(_state(peek).players[other].hand)
                theirs.hand, theirs.deck = true_hand, sorted(theirs.deck + theirs.hand)[len(true_hand) :]
            out.append(_hidden_features(game, s, seat))
        return out

    fa, fb = features(obs_a, 0), features(obs_b, 10_000)
    for i in range(len(fa[0])):
        p = _chi2_p([f[i] for f in fa], [f[i] for f in fb])
        assert p > 0.001, f"feature {i}: p = {p}"
    leaky_a, leaky_b = features(obs_a, 0, peek=a), features(obs_b, 10_000, peek=b)
    assert _chi2_p([f[0] for f in leaky_a], [f[0] for f in leaky_b]) < 1e-6


@pytest.mark.parametrize(("game", "players"), CASES)
def test_same_seed_same_sample(game: str, players: int) -> None:
    """A sample is a function of (observation, seat, rng seed): bit for bit the same again, and
    another seed deals the hidden cards otherwise."""
    g = list(_positions(game, players, 4, every=3))[3]
    d = g.decision()
    assert d is not None
    obs = _wire(g.observe(d.seat))

    def dealt(k: int) -> str:
        """The sample of rng seed k, less its own game seed and streams."""
        data = sample_state(game, obs, d.seat, random.Random(k)).to_json()
        del data["seed"], data["rng"]
        return json.dumps(data, sort_keys=True)

    assert len({dealt(k) for k in (1, 1, 2, 3)}) == 3


def _determined(game: str, g: Game) -> tuple[Any, ...]:
    """Hidden parts one observation pins down exactly (DETERMINIZE.md): a sample must have them
    as the true state does."""
    s = _state(g)
    if game == "clank":
        # the artifacts set aside at setup; the crown points in all (who got which is a guess);
        # the unseen cards, wherever they are (with no card trashed)
        unseen = sorted(s.dungeon_deck + [c for p in s.players for c in p.hand + p.deck])
        return s.returned_artifacts, sum(p.crown_points for p in s.players), unseen
    if game == "alien":
        return s.hatchery, s.chestbursters, sorted(s.strike_deck), len(s.hive), s.players[0].role
    return sorted(s.adventure_deck + [c for p in s.players for c in p.hand + p.deck]), len(s.bank_major)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_what_the_observation_pins_down_the_sample_has_exactly(game: str, players: int) -> None:
    """Hidden parts that follow from the observation are not guessed: Clank!'s set-aside
    artifacts, crown points in all and unseen card multiset, Alien's Hatchery, Chestburster
    supply, Strike deck contents and Hive size, Legacy's unseen cards and Bank."""
    checked = 0
    for g in _positions(game, players, 2, every=EVERY[game]):
        d = g.decision()
        assert d is not None
        sample = sample_state(game, _wire(g.observe(d.seat)), d.seat, random.Random(checked))
        if game != "alien" and sum(p.trashed for p in _state(g).players):
            continue  # the trashed cards are a guess: the hidden pool then differs
        assert _determined(game, sample) == _determined(game, g)
        checked += 1
    assert checked >= 4


def test_clank_cards_acquired_and_redrawn_this_turn_are_read_off_the_legal_actions() -> None:
    """A card acquired this turn, shuffled back in and drawn again cannot be played; the
    observation does not mark it, the legal actions do: given them, the sample offers exactly
    the true actions (play, and end the turn once every card in hand is new)."""
    for seed, step in ((126, 24), (175, 32)):  # random games where that happened
        g = next(itertools.islice(_positions("clank", 2, seed, every=1), step, None))
        d = g.decision()
        assert d is not None and _new_in_hand(g, d.seat) > 0
        obs = _wire(g.observe(d.seat))
        told = sample_state("clank", obs, d.seat, random.Random(0), d.actions).decision()
        assert told is not None and told.actions == d.actions
        blind = sample_state("clank", obs, d.seat, random.Random(0)).decision()
        assert blind is not None and blind.actions != d.actions  # the observation cannot tell


def test_an_impossible_observation_is_refused() -> None:
    """An observation no state gives (another seat's, an extra card in hand, a wrong deck
    size) is a DeterminizeError, never a state that silently differs."""
    g = next(_positions("clank", 2, 1, every=1000))
    obs = _wire(g.observe(0))
    with pytest.raises(DeterminizeError, match="seat 1"):
        sample_state("clank", obs, 1, random.Random(0))
    extra = _wire(obs)
    extra["you"]["hand"] += ["burgle"] * 20
    with pytest.raises(DeterminizeError, match="burgle"):
        sample_state("clank", extra, 0, random.Random(0))
    sizes = _wire(obs)
    sizes["players"][1]["deck_size"] += 1
    with pytest.raises(DeterminizeError, match="unseen"):
        sample_state("clank", sizes, 0, random.Random(0))


def test_every_registered_game_has_a_determinizer_and_is_tested() -> None:
    names = {spec.name for spec in all_specs()}
    assert all(callable(sampler(name)) for name in names)
    assert {game for game, _ in CASES} == names == {game for game, _ in SHARED}


def test_unknown_game_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="unknown game"):
        sampler("no_such_game")

