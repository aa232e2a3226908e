"""Clank! determinization: a full game state consistent with one seat's observation.

`sample_state(observation, seat, rng)` reads only the observation dict (what `observe(seat)`
returned) and the game's fixed content; it never sees a game state, so it cannot read the true
hidden cards. The method is in DETERMINIZE.md beside this file.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.game import Action
from referee.games.clank.content import ClankContent, default_content
from referee.games.clank.engine import ClankGame
from referee.games.clank.state import ClankState, PlayerState
from referee.games.clank_core.determinize import (
    DeterminizeError,
    allocate_unseen,
    counter_minus,
    crown_points,
    deal_cards,
    fresh_seed,
    json_copy,
    own_cards,
    pending_stack,
)
from referee.games.clank_core.state import TurnPool

__all__ = ["DeterminizeError", "sample_state"]


def sample_state(
    observation: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    legal_actions: Sequence[Action] | None = None,
) -> ClankGame:
    """A Clank! game whose `observe(seat)` equals `observation`, its hidden parts dealt at random
    from what the seat cannot see (DETERMINIZE.md). `legal_actions` (the seat's, when it is to
    act) tells which cards in its hand it acquired this turn. Raises DeterminizeError when no
    state of this game gives the observation."""
    obs = json_copy(dict(observation))
    if obs.get("game") != "clank" or obs.get("seat") != seat:
        raise DeterminizeError(f"not a Clank! observation of seat {seat}")
    content = default_content()
    rules = content.rules
    n = len(obs["players"])
    you = obs["you"]

    # every card of the game (deal_cards takes out those the seat sees where they are)
    unseen: Counter[str] = Counter(content.starting * n)
    unseen.update(content.dungeon)
    for pile in content.reserve:
        unseen[pile] += content.cards[pile].count
    dungeon_deck, dealt = deal_cards(obs, seat, unseen, "dungeon", frozenset(content.dungeon), rng)

    crowns = crown_points(
        [p["items"].count("crown") for p in obs["players"]], rules["crown_points"], rng
    )
    players: list[PlayerState] = []
    for i, p in enumerate(obs["players"]):
        hand, deck = own_cards(you, rng) if i == seat else dealt[i]
        players.append(PlayerState(
            deck=deck,
            hand=hand,
            play=list(p["play"]),
            discard=list(p["discard"]),
            room=p["room"],
            damage=p["damage"],
            supply=p["supply"],
            gold=p["gold"],
            artifacts=list(p["artifacts"]),
            items=list(p["items"]),
            crown_points=crowns[i],
            idols=p["idols"],
            kept_secrets=list(p["secrets"]),
            potions=list(p["potions"]),
            status=p["status"],
            mastery=p["mastery"],
            forfeited=p["forfeited"],
            # only the seat's own flag is shown; another player's is False between its turns
            may_take=you["may_take"] if i == seat else False,
            trashed=p["trashed"],
        ))

    if legal_actions is not None and obs["pending"] is None and obs["current"] == seat:
        players[seat].new_hand = _new_in_hand(players[seat].hand, legal_actions)
    minor, major, unused = _secrets(obs, content, rng)
    state = ClankState(
        seed=fresh_seed(rng),
        players_n=n,
        board=obs["board"],
        content_version=content.version,
        players=players,
        step=obs["step"],
        round=obs["round"],
        current=obs["current"],
        pool=TurnPool(**obs["pool"]),
        dungeon_deck=dungeon_deck,
        dungeon_discard=list(obs["dungeon_discard"]),
        row=list(obs["row"]),
        reserve=dict(obs["reserve"]),
        clank_area=list(obs["clank_area"]),
        bag_black=obs["bag"]["black"],
        bag_cubes=list(obs["bag"]["cubes"]),
        rage=obs["rage"],
        artifacts=dict(obs["artifacts"]),
        returned_artifacts=_returned_artifacts(obs, content),
        minor_secrets=minor,
        major_secrets=major,
        unused_secrets=unused,
        idols=list(obs["idols"]),
        market=dict(obs["market"]),
        crowns_sold=obs["crowns_sold"],
        mastery_left=obs["mastery_left"],
        countdown=obs["countdown"],
        countdown_seat=obs["countdown_seat"],
        stack=pending_stack(obs["pending"], [p.play for p in players], content.cards),
        rng={},
        last_attack=dict(obs["last_attack"]),
        over=obs["over"],
    )
    return ClankGame(state, content)


def _new_in_hand(hand: Sequence[str], legal_actions: Sequence[Action]) -> list[str]:
    """The cards in hand acquired this turn (they cannot be played), read off the turn's legal
    actions: a card with no `play` action is new in every copy. (Where some copies of a card
    are new and some not, the new ones change nothing the seat may do now; the turn may end
    once no card is playable, which follows.)"""
    playable = {a.args[0] for a in legal_actions if a.kind == "play" and a.args}
    return [card for card in hand if card not in playable]


def _returned_artifacts(obs: Mapping[str, Any], content: ClankContent) -> list[int]:
    """The artifacts set aside unseen at setup: all of them less those on the board and carried
    (artifacts never leave the game otherwise), so no guess is needed."""
    left = Counter(content.artifacts)
    seen = list(obs["artifacts"].values()) + [a for p in obs["players"] for a in p["artifacts"]]
    for value in seen:
        if left[value] <= 0:
            raise DeterminizeError(f"artifact {value} seen more often than it exists")
        left[value] -= 1
    return sorted(v for v, k in left.items() for _ in range(k))


def _secrets(
    obs: Mapping[str, Any], content: ClankContent, rng: random.Random
) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """Face-down secrets: per size, every secret less those face up (kept for points, potions
    held), dealt at random over the rooms' face-down counts; the rest are the unused ones."""
    board = content.boards[obs["board"]]
    face_up = [x for p in obs["players"] for x in p["secrets"] + p["potions"]]
    rooms: dict[str, dict[str, list[str]]] = {"minor": {}, "major": {}}
    unused: list[str] = []
    for size, key in (("minor", "minor_secrets"), ("major", "major_secrets")):
        pool: Counter[str] = Counter(
            {s.id: s.count for s in content.secrets.values() if s.size == size}
        )
        counter_minus(pool, [x for x in face_up if content.secrets[x].size == size], "secrets")
        left = obs[key]
        wanted = [(room, left.get(room, 0)) for room in _secret_rooms(board.rooms.values(), size)]
        (dealt,), _, rest = allocate_unseen(pool, [(sum(k for _, k in wanted), frozenset(pool))], [], rng)
        for room, k in wanted:
            rooms[size][room], dealt = dealt[:k], dealt[k:]
        unused += rest
    return rooms["minor"], rooms["major"], sorted(unused)


def _secret_rooms(rooms: Any, size: str) -> list[str]:
    """The rooms that hold secrets of `size`, in setup order (the board's)."""
    if size == "minor":
        return [r.id for r in rooms if r.minor_secrets]
    return [r.id for r in rooms if r.major_secret]
