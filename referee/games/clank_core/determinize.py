"""Determinization pieces Clank! and Clank! Legacy share (each game's `determinize.py` uses them).

Everything here reads an observation (a JSON-able dict) and content, never a game state: see
`referee/games/clank/DETERMINIZE.md` for the method.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from referee.core.determinize import DeterminizeError
from referee.core.effects import Effect, effects_to_json

__all__ = [
    "DeterminizeError",
    "allocate_unseen",
    "counter_minus",
    "crown_points",
    "deal_cards",
    "expand",
    "fresh_seed",
    "json_copy",
    "own_cards",
    "pending_stack",
]


def fresh_seed(rng: random.Random) -> int:
    """A new game seed for a sample: its random streams (future shuffles, draws from the bag)
    owe nothing to the true game's seed, which no seat sees."""
    return rng.getrandbits(63)


def expand(counts: Mapping[str, int]) -> list[str]:
    """A multiset given as id -> copies, as a sorted list of ids."""
    return [card for card in sorted(counts) for _ in range(counts[card])]


def counter_minus(total: Counter[str], seen: Iterable[str], what: str) -> None:
    """Take the `seen` ids out of `total` in place; a card seen more often than it exists means
    the observation is inconsistent (DeterminizeError naming `what`)."""
    for card in seen:
        if total[card] <= 0:
            raise DeterminizeError(f"{what}: more {card!r} seen than the game has")
        total[card] -= 1


def allocate_unseen(
    unseen: Counter[str],
    restricted: Sequence[tuple[int, frozenset[str]]],
    free: Sequence[int],
    rng: random.Random,
) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """Deal the unseen card instances at random over hidden places of known sizes.

    `restricted` places (size, allowed ids) are filled first, each with a uniform random subset
    of the unseen instances it may hold (in a random order); `free` places (sizes) then get a
    uniform random deal of what is left, and the remainder is returned as the cards no place
    holds (trashed cards: they left the game, nobody knows which). Filling the restricted places
    first is still uniform over all valid deals: every choice for them leaves the same number of
    ways to deal the rest."""
    pool = expand(unseen)
    out_restricted: list[list[str]] = []
    for size, allowed in restricted:
        eligible = [i for i, card in enumerate(pool) if card in allowed]
        if len(eligible) < size:
            raise DeterminizeError(f"a hidden pile of {size} cards, only {len(eligible)} unseen cards fit it")
        chosen = rng.sample(eligible, size)
        out_restricted.append([pool[i] for i in chosen])
        taken = set(chosen)
        pool = [card for i, card in enumerate(pool) if i not in taken]
    rng.shuffle(pool)
    out_free: list[list[str]] = []
    for size in free:
        if len(pool) < size:
            raise DeterminizeError(f"a hidden place holds {size} cards, only {len(pool)} unseen cards remain")
        out_free.append(pool[:size])
        pool = pool[size:]
    return out_restricted, out_free, pool


def deal_cards(
    obs: Mapping[str, Any],
    seat: int,
    unseen: Counter[str],
    deck: str,
    deck_ids: frozenset[str],
    rng: random.Random,
) -> tuple[list[str], dict[int, tuple[list[str], list[str]]]]:
    """Deal the cards `seat` cannot see: `unseen` holds every card of the game (changed in
    place), less those it sees where they are (the row, the `{deck}_discard` pile, the Reserve,
    cards in play and discarded, its hand and deck). They fill the `{deck}_deck` (cards of
    `deck_ids` only) and the other seats' hands and decks; the rest were trashed. Returns that
    deck and each other seat's (hand, deck). Raises DeterminizeError when the counts disagree."""
    you = obs["you"]
    seen_cards: list[str] = [c for c in obs["row"] if c is not None]
    seen_cards += obs[f"{deck}_discard"] + expand(obs["reserve"])
    for p in obs["players"]:
        seen_cards += p["play"] + p["discard"]
    seen_cards += you["hand"] + expand(you["deck_contents"])
    counter_minus(unseen, seen_cards, "cards")
    others = [i for i in range(len(obs["players"])) if i != seat]
    sizes = [(obs["players"][i]["hand_size"], obs["players"][i]["deck_size"]) for i in others]
    trashed = sum(p["trashed"] for p in obs["players"])
    deck_size = obs[f"{deck}_deck_size"]
    hidden = deck_size + sum(h + d for h, d in sizes) + trashed
    if sum(unseen.values()) != hidden:
        raise DeterminizeError(
            f"{sum(unseen.values())} cards unseen but the hidden places and the trashed hold {hidden}"
        )
    (deck_cards,), dealt, _gone = allocate_unseen(
        unseen, [(deck_size, deck_ids)], [x for hd in sizes for x in hd], rng
    )
    return deck_cards, {i: (dealt[2 * k], dealt[2 * k + 1]) for k, i in enumerate(others)}


def own_cards(you: Mapping[str, Any], rng: random.Random) -> tuple[list[str], list[str]]:
    """The seat's own hand, and its deck in a random order (the owner knows what its deck
    holds, not the order)."""
    hand, deck = list(you["hand"]), expand(you["deck_contents"])
    rng.shuffle(deck)
    return hand, deck


def crown_points(crowns_per_seat: Sequence[int], values: Sequence[int], rng: random.Random) -> list[int]:
    """Each seat's points from the crowns it bought. A crown's value depends on how many were
    sold before it, and an observation shows who holds crowns but not in which order they were
    bought: a random order consistent with the counts is drawn (a seat with all crowns sold gets
    exactly the first values)."""
    order = [seat for seat, n in enumerate(crowns_per_seat) for _ in range(n)]
    rng.shuffle(order)
    points = [0] * len(crowns_per_seat)
    for k, seat in enumerate(order):
        points[seat] += values[k]
    return points


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (lists and dicts), so a sample shares nothing with its input."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


class Card(Protocol):
    """What `pending_stack` reads of a card: its play effects (both games' CardDef)."""

    @property
    def play(self) -> Sequence[Effect]: ...


def pending_stack(
    pending: Mapping[str, Any] | None, plays: Sequence[Sequence[str]], cards: Mapping[str, Card]
) -> list[dict[str, Any]]:
    """The stack of pending card choices rebuilt from an observation's `pending` (a card's
    trash, discard or choose): a card effect never pushes a second choice while one waits, so
    the top is the whole stack. `plays` is each seat's cards in play and `cards` the game's cards by
    id: the entry's source (read by `played_tag` conditions) is the latest
    card in play whose effects push this very choice, "" when none (a secret or a device)."""
    if pending is None:
        return []
    entry: dict[str, Any] = {"kind": pending["kind"], "seat": pending["seat"], "prompt": pending["prompt"]}
    if pending["kind"] == "trash":
        return [entry]
    if pending["kind"] == "discard":
        entry["then"] = pending["then"]
    elif pending["kind"] == "choose":
        entry["options"] = pending["options"]
    else:
        raise DeterminizeError(f"unknown pending choice {pending['kind']!r}")
    in_play = reversed(plays[pending["seat"]])
    entry["source"] = next((card for card in in_play if _pushes(cards[card].play, pending)), "")
    return [entry]


def _pushes(effects: Sequence[Effect], pending: Mapping[str, Any]) -> bool:
    """Whether resolving `effects` pushes the pending choice (its text, not just its kind)."""
    kind = pending["kind"]
    for e in effects:
        if e.op == "discard_for" and kind == "discard" and effects_to_json(e.then) == pending["then"]:
            return True
        if (
            e.op == "choose"
            and kind == "choose"
            and [effects_to_json(o) for o in e.options] == pending["options"]
        ):
            return True
        if e.op == "if" and _pushes(e.then, pending):
            return True
    return False
