"""The parts of the greedy reference bot that Clank! and Clank! Legacy share.

Both games' greedy bots (`referee.games.clank.bots`, `referee.games.clank_legacy.bots`) group
the legal actions by kind, answer pending choices and play cards first (`opening`), value
effects alike (`effects_value`, from `RESOURCE_VALUE` and the game's own resources), pick the
artifact worth the trip (`best_target`) and the step towards it (`best_step`), buy the card and
fight the monster worth most (`buy_or_fight`); these functions do that, with the game's own
taste passed in (`distances_to`, the cheapest-way search, with the game's path costs). The
frame `GreedyBot.act` takes the wanted tokens and drinks when hurt before the game's `_turn`.
Each bot keeps what differs: its resource values, its board's path costs and risk, the tokens
and items it wants, and the order of its other actions.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from referee.core.effects import Effect, effects_from_json
from referee.core.game import Action

__all__ = [
    "RESOURCE_VALUE",
    "TRASH_ORDER",
    "GreedyBot",
    "GreedyCard",
    "best_buy",
    "best_fight",
    "best_step",
    "best_target",
    "buy_or_fight",
    "by_kind",
    "distances_to",
    "effects_value",
    "opening",
    "pending_choice",
    "preferred",
    "row_or_pile",
]

#: the starting cards a pending trash (the first two) or discard (the first) gets rid of, in order
TRASH_ORDER = ("stumble", "burgle", "sidestep")

EffectsValue = Callable[[Sequence[Effect]], float]

#: what a unit of each resource both games give is worth to the greedy bots (each adds its own)
RESOURCE_VALUE = {
    "skill": 1.0,
    "swords": 0.9,
    "boots": 1.2,
    "gold": 0.5,
    "draw": 1.1,
    "heal": 0.8,
    "teleport": 1.5,
    "clank": -0.6,
}


class GreedyCard(Protocol):
    """What the shared choices read of a card definition."""

    @property
    def cost(self) -> int:
        """Skill to acquire (Swords to defeat, for a monster)."""

    @property
    def defeat(self) -> tuple[Effect, ...]:
        """Effects of defeating the monster."""


CardT = TypeVar("CardT", bound=GreedyCard)


def by_kind(legal_actions: Sequence[Action]) -> dict[str, list[int]]:
    """The indices of the legal actions, by action kind (in their order)."""
    kinds: dict[str, list[int]] = {}
    for i, a in enumerate(legal_actions):
        kinds.setdefault(a.kind, []).append(i)
    return kinds


def row_or_pile(obs: dict[str, Any], action: Action) -> str:
    """The card an acquire / fight / buy_reserve action is about: a reserve pile's card, or the
    card in the row slot the action names."""
    if action.kind == "buy_reserve":
        return str(action.args[0])
    card = obs["row"][int(action.args[0])]
    assert card is not None
    return str(card)


def pending_choice(
    pending: dict[str, Any], legal_actions: Sequence[Action], effects_value: EffectsValue
) -> int:
    """The answer to a pending choice: trash (up to the second) or discard (only the first) of
    `TRASH_ORDER`, else skip; for choose (and a group vote), the option worth most by
    `effects_value`, the first on a tie."""
    kind = pending["kind"]
    if kind in ("trash", "discard"):
        for preferred in TRASH_ORDER[: 1 if kind == "discard" else 2]:
            for i, a in enumerate(legal_actions):
                if a.kind != "skip" and a.args[-1] == preferred:
                    return i
        return len(legal_actions) - 1  # skip is always last
    values = [effects_value(effects_from_json(o)) for o in pending["options"]]
    return max(range(len(legal_actions)), key=lambda i: (values[int(legal_actions[i].args[0])], -i))


def best_buy(
    obs: dict[str, Any],
    legal_actions: Sequence[Action],
    kinds: Mapping[str, list[int]],
    cards: Mapping[str, CardT],
    card_value: Callable[[CardT], float],
) -> int:
    """The acquire / buy_reserve action whose card is worth most (`card_value` plus 0.1 a point
    of cost), the first on a tie; -1 if none is worth more than 0."""
    best_i, best_v = -1, 0.0
    for i in kinds.get("acquire", []) + kinds.get("buy_reserve", []):
        card = cards[row_or_pile(obs, legal_actions[i])]
        value = card_value(card) + 0.1 * card.cost
        if value > best_v:
            best_i, best_v = i, value
    return best_i


def best_fight(
    obs: dict[str, Any],
    legal_actions: Sequence[Action],
    kinds: Mapping[str, list[int]],
    cards: Mapping[str, CardT],
    effects_value: EffectsValue,
) -> int:
    """The fight action whose monster is worth most (its defeat effects by `effects_value`, plus
    its cost), the first on a tie; -1 if none is worth more than -1."""
    best_i, best_v = -1, -1.0
    for i in kinds.get("fight", []):
        card = cards[row_or_pile(obs, legal_actions[i])]
        value = effects_value(card.defeat) + card.cost
        if value > best_v:
            best_i, best_v = i, value
    return best_i


def effects_value(effects: Sequence[Effect], values: Mapping[str, float], zero_counts_once: bool) -> float:
    """What effects are worth to the bot: an op of `values` that much per `n` (with
    `zero_counts_once`, an op whose `n` is 0, such as gaining an ability, counts once), a trash
    0.8, a discard-for half its reward, a choice its best option, a condition 0.4 of its reward."""
    total = 0.0
    for e in effects:
        if e.op in values:
            total += values[e.op] * (max(e.n, 1) if zero_counts_once else e.n)
        elif e.op == "trash":
            total += 0.8
        elif e.op == "discard_for":
            total += 0.5 * effects_value(e.then, values, zero_counts_once)
        elif e.op == "choose":
            total += max(effects_value(o, values, zero_counts_once) for o in e.options)
        elif e.op == "if":
            total += 0.4 * effects_value(e.then, values, zero_counts_once)
    return total


def distances_to(
    target: str, steps_into: Callable[[float, str], Iterable[tuple[str, float]]]
) -> dict[str, float]:
    """The cost of the cheapest way to `target` from every place (Dijkstra, walking the board
    backwards from `target`): `steps_into(d, place)` gives, for each place `prev` one can step
    from into `place`, (prev, its cost d + that step's), `d` being the cost from `place`."""
    dist = {target: 0.0}
    heap = [(0.0, target)]
    while heap:
        d, place = heapq.heappop(heap)
        if d > dist.get(place, 1e9):
            continue
        for prev, nd in steps_into(d, place):
            if nd < dist.get(prev, 1e9):
                dist[prev] = nd
                heapq.heappush(heap, (nd, prev))
    return dist


def best_target(
    artifacts: Mapping[str, int],
    home: str,
    here: str,
    distances: Callable[[str], dict[str, float]],
    risk: float,
) -> str:
    """Where to go for an artifact: the one whose value best outweighs `risk` times the way there
    (from `here`) and back `home`, by `distances` (place -> cost to reach it from every place);
    `home` if none is worth more than -1e9."""
    back_home = distances(home)
    best, best_score = home, -1e9
    for place, value in artifacts.items():
        there = distances(place).get(here, 1e9)
        back = back_home.get(place, 1e9)
        score = value - risk * (there + back)
        if score > best_score:
            best, best_score = place, score
    return best


def best_step(
    legal_actions: Sequence[Action],
    kinds: Mapping[str, list[int]],
    dist: Mapping[str, float],
    here: str,
    health: int,
    swords: int,
    edge: Callable[[int], tuple[int, str]],
) -> int:
    """The move (else the teleport) that brings the bot nearest its target by `dist`, if any
    brings it nearer than it is; -1 if none. `edge(i)` is (monster icons, far end from `here`)
    of tunnel or path `i`. A move is never taken into certain death, and spends Swords on the
    icons only when health is low (6 or less)."""
    for kind in ("move", "teleport"):
        best_i, best_d = -1, dist.get(here, 1e9)
        for i in kinds.get(kind, []):
            a = legal_actions[i]
            monsters, dest = edge(int(a.args[0]))
            d = dist.get(dest, 1e9)
            if kind == "move":
                damage = monsters - int(a.args[1])
                if damage >= health:
                    continue
                wants_spend = min(monsters, swords) if health <= 6 else 0
                if int(a.args[1]) != wants_spend:
                    continue
            if d < best_d:
                best_i, best_d = i, d
        if best_i >= 0:
            return best_i
    return -1


def opening(
    obs: dict[str, Any],
    legal_actions: Sequence[Action],
    kinds: Mapping[str, list[int]],
    effects_value: EffectsValue,
) -> int:
    """A greedy bot's first thought: answer a pending choice (`pending_choice`), else play the
    first card it may; -1 when neither applies."""
    pending = obs.get("pending")
    if pending is not None:
        return pending_choice(pending, legal_actions, effects_value)
    if "play" in kinds:
        return kinds["play"][0]
    return -1


def buy_or_fight(
    obs: dict[str, Any],
    legal_actions: Sequence[Action],
    kinds: Mapping[str, list[int]],
    cards: Mapping[str, CardT],
    card_value: Callable[[CardT], float],
    effects_value: EffectsValue,
) -> int:
    """The best buy (`best_buy`), else the best fight (`best_fight`); -1 if neither is worth it."""
    best_i = best_buy(obs, legal_actions, kinds, cards, card_value)
    if best_i >= 0:
        return best_i
    return best_fight(obs, legal_actions, kinds, cards, effects_value)


def preferred(
    legal_actions: Sequence[Action], kinds: Mapping[str, list[int]], kind: str, order: Sequence[str]
) -> int:
    """The `kind` action (take, buy_item...) whose argument comes first in `order`; -1 if none."""
    offered = {legal_actions[i].args[0]: i for i in kinds.get(kind, [])}
    for wanted in order:
        if wanted in offered:
            return offered[wanted]
    return -1


class GreedyBot:
    """The frame of both games' greedy bots: `act` answers a pending choice or plays a card
    (`opening`), takes the tokens the game's bot wants where it stands (`_wanted_tokens`),
    drinks a potion when hurt, then asks the game's `_turn` (moves, buys, fights, its own
    actions), and ends the turn when that finds nothing."""

    name = "greedy"

    def _effects_value(self, effects: Sequence[Effect]) -> float:
        """What effects are worth to this game's bot."""
        raise NotImplementedError

    def _wanted_tokens(self, me: dict[str, Any]) -> tuple[str, ...]:
        """The tokens to take where the bot stands, most wanted first."""
        raise NotImplementedError

    def _turn(
        self,
        obs: dict[str, Any],
        legal_actions: Sequence[Action],
        kinds: Mapping[str, list[int]],
        me: dict[str, Any],
    ) -> int:
        """The rest of a main turn's choice, -1 for none (the turn then ends); `me` is the bot's
        own player in the observation."""
        raise NotImplementedError

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        """Pick an action index (see the game's bot module for the plan)."""
        kinds = by_kind(legal_actions)
        first = opening(observation, legal_actions, kinds, self._effects_value)
        if first >= 0:
            return first
        me = observation["players"][observation["seat"]]
        best_i = preferred(legal_actions, kinds, "take", self._wanted_tokens(me))
        if best_i >= 0:
            return best_i
        if "drink" in kinds and me["damage"] >= 2:
            return kinds["drink"][0]
        best_i = self._turn(observation, legal_actions, kinds, me)
        if best_i >= 0:
            return best_i
        return kinds["end_turn"][0] if "end_turn" in kinds else 0
