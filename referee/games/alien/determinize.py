"""Alien determinization: a full game state consistent with one seat's observation.

`sample_state(observation, seat, rng)` reads only the observation dict (what `observe(seat)`
returned) and the game's fixed content, never a game state. Method: DETERMINIZE.md here.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.determinize import DeterminizeError
from referee.core.effects import Effect, effects_to_json
from referee.core.game import Action
from referee.games.alien.content import AlienContent, default_content
from referee.games.alien.engine import AlienGame
from referee.games.alien.state import ALIVE, AlienState, PlayerState
from referee.games.clank_core.determinize import allocate_unseen, counter_minus, expand, fresh_seed, json_copy

__all__ = ["DeterminizeError", "sample_state"]

#: the phases in which teammates are asked to Coordinate, and the prompt's name of each
_ASK_PHASES = {"hive_coordinate": "Hive", "coordinate": "Action", "strike_coordinate": "Strike"}


def sample_state(
    observation: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    legal_actions: Sequence[Action] | None = None,
) -> AlienGame:
    """An Alien game whose `observe(seat)` equals `observation`, its hidden parts dealt at
    random from what the seat cannot see (DETERMINIZE.md). `legal_actions` (the seat's, when it
    is to act) tells whether it may ask the team to Coordinate. Raises DeterminizeError when no
    state of this game gives the observation."""
    obs = json_copy(dict(observation))
    if obs.get("game") != "alien" or obs.get("seat") != seat:
        raise DeterminizeError(f"not an Alien observation of seat {seat}")
    content = default_content()
    n = len(obs["players"])
    you = obs["you"]
    hive_ids = content.hive_cards
    others = [i for i in range(n) if i != seat]
    roles = [content.roles[p["role"]].card for p in obs["players"]]

    # player cards: every one of the game, less those seen where they are
    unseen: Counter[str] = Counter(content.starting * n)
    unseen.update(roles)
    for char in list(content.characters)[: content.rules["barracks_characters"]]:
        unseen.update(content.characters[char])
    unseen.update(content.sergeants)
    seen_cards = [c for c in obs["hq"] if c is not None] + obs["dead_characters"]
    for p in obs["players"]:
        seen_cards += p["play"] + p["vigilant"] + p["set_aside"] + p["discard"]
    seen_cards += you["hand"] + expand(you["deck_contents"])
    counter_minus(unseen, [c for c in seen_cards if c not in hive_ids], "player cards")

    # Chestbursters unseen are in other players' decks (drawing one kills: never in a hand)
    bursters = len(content.chestbursters) - obs["chestbursters_left"]
    bursters -= sum(1 for c in seen_cards if c in hive_ids)
    deck_slots = [(i, k) for i in others for k in range(obs["players"][i]["deck_size"])]
    if not 0 <= bursters <= len(deck_slots):
        raise DeterminizeError(f"{bursters} Chestbursters unseen, {len(deck_slots)} deck places to hold them")
    burster_at = set(rng.sample(deck_slots, bursters))

    # a role card stays with its player: an unseen one is in that player's hand or deck
    hands: dict[int, list[str | None]] = {}
    decks: dict[int, list[str | None]] = {}
    for i in others:
        p = obs["players"][i]
        hands[i] = [None] * p["hand_size"]
        decks[i] = ["burster" if (i, k) in burster_at else None for k in range(p["deck_size"])]
        if unseen[roles[i]] > 0:
            unseen[roles[i]] -= 1
            free = [("h", k) for k in range(p["hand_size"])] + [
                ("d", k) for k in range(p["deck_size"]) if decks[i][k] is None
            ]
            if not free:
                raise DeterminizeError(f"seat {i}'s role card is unseen but it holds no hidden card")
            where, k = rng.choice(free)
            (hands[i] if where == "h" else decks[i])[k] = roles[i]
    burster_id = content.chestbursters[0] if content.chestbursters else "burster"
    holes = sum(x is None for i in others for x in hands[i] + decks[i])
    if sum(unseen.values()) != holes + obs["barracks_size"] + obs["sergeants_size"]:
        raise DeterminizeError(
            f"{sum(unseen.values())} player cards unseen, the hidden places hold "
            f"{holes + obs['barracks_size'] + obs['sergeants_size']}"
        )
    character_ids = frozenset(c for cards in content.characters.values() for c in cards)
    (barracks, sergeants), (dealt,), _ = allocate_unseen(
        unseen,
        [(obs["barracks_size"], character_ids), (obs["sergeants_size"], frozenset(content.sergeants))],
        [holes],
        rng,
    )
    players: list[PlayerState] = []
    for i, p in enumerate(obs["players"]):
        if i == seat:
            hand = list(you["hand"])
            deck = expand(you["deck_contents"])
            rng.shuffle(deck)
        else:
            hand = [x if x is not None else dealt.pop() for x in hands[i]]
            deck = [
                (burster_id if x == "burster" else x) if x is not None else dealt.pop() for x in decks[i]
            ]
        players.append(PlayerState(
            role=p["role"],
            health=p["health"],
            deck=deck,
            hand=hand,
            play=list(p["play"]),
            once_used=list(p["once_used"]),
            vigilant=list(p["vigilant"]),
            set_aside=list(p["set_aside"]),
            discard=list(p["discard"]),
            strikes=list(p["strikes"]),
            status=p["status"],
            forfeited=p["forfeited"],
            # read nowhere but the state's record; a dead seat died on some turn before this
            died_turn=0 if p["status"] == ALIVE else max(1, obs["turn"] - 1),
        ))

    complex_rooms, hive = _hive(obs, content, n, rng)
    state = AlienState(
        seed=fresh_seed(rng),
        players_n=n,
        content_version=content.version,
        characters=list(content.characters)[: content.rules["barracks_characters"]],
        players=players,
        step=obs["step"],
        turn=obs["turn"],
        round=obs["round"],
        current=obs["current"],
        phase=obs["phase"],
        attack=obs["pool"]["attack"],
        recruit=obs["pool"]["recruit"],
        strike_queue=list(obs["strike_queue"]),
        hive=hive,
        complex=complex_rooms,
        combat=list(obs["combat"]),
        facehuggers=[dict(f) for f in obs["facehuggers"]],
        hatchery=_hatchery(obs, content),
        chestbursters=list(content.chestbursters[: obs["chestbursters_left"]]),
        strike_deck=_strike_deck(obs, content, rng),
        strike_discard=list(obs["strike_discard"]),
        sergeants=sergeants,
        barracks=barracks,
        hq=list(obs["hq"]),
        hive_discard=list(obs["hive_discard"]),
        dead_enemies=list(obs["dead_enemies"]),
        dead_characters=list(obs["dead_characters"]),
        objective=obs["objective"],
        met=list(obs["met"]),
        hazards_used=obs["hazards_used"],
        strike_log=[dict(x) for x in obs["strike_log"]],
        rng={},
        over=obs["over"],
        won=obs["won"],
        ended_by="",
    )
    _pending(state, obs, content)
    to_act = obs["to_act"]
    if legal_actions is not None and to_act == {"seat": seat, "kind": "turn"}:
        state.can_ask = any(a.kind == "ask" for a in legal_actions)
    return AlienGame(state, content)


def _hatchery(obs: Mapping[str, Any], content: AlienContent) -> list[str]:
    """The Hatchery is face up in its printed order, taken from the front: its last cards."""
    size = obs["hatchery_size"]
    left = list(content.hatchery[len(content.hatchery) - size :]) if size else []
    if (left[0] if left else None) != obs["hatchery_top"]:
        raise DeterminizeError("the Hatchery's top card is not the printed order's")
    return left


def _strike_deck(obs: Mapping[str, Any], content: AlienContent, rng: random.Random) -> list[str]:
    """Every Strike card less the discarded and those held: the deck, in random order."""
    left = Counter(content.strike_deck)
    counter_minus(left, obs["strike_discard"] + [x for p in obs["players"] for x in p["strikes"]], "strikes")
    deck = expand(left)
    if len(deck) != obs["strike_deck_size"]:
        raise DeterminizeError(f"{len(deck)} Strike cards unseen, the deck holds {obs['strike_deck_size']}")
    rng.shuffle(deck)
    return deck


def _hive(
    obs: Mapping[str, Any], content: AlienContent, n: int, rng: random.Random
) -> tuple[list[dict[str, Any] | None], list[str]]:
    """The face-down Complex cards and the Hive deck. The Hive was built as one mini-deck per
    Objective (its cards plus one random Drone per player), Objective 1's on top: the mini-decks
    not yet reached are dealt as such (their cards, Drones from those unseen), the one being
    drawn from and the face-down rooms share what is left; Drones never dealt are out of the
    game."""
    objective_cards: Counter[str] = Counter()
    for o in content.objectives:
        objective_cards.update(o.deck)
    unseen = objective_cards + Counter(content.drones)
    shown = [r["card"] for r in obs["complex"] if r is not None and r["up"]]
    shown += obs["combat"] + [f["card"] for f in obs["facehuggers"]]
    shown += obs["hive_discard"] + obs["dead_enemies"]
    counter_minus(unseen, [c for c in shown if c in unseen or c in objective_cards], "Hive cards")
    drone_ids = frozenset(content.drones)

    sizes = [len(o.deck) + n for o in content.objectives]
    hive_size = obs["hive_size"]
    untouched: list[list[str]] = []  # bottom first, as the Hive list holds them
    below = hive_size
    for k in reversed(range(len(sizes))):
        if below < sizes[k]:
            break
        below -= sizes[k]
        layer = list(content.objectives[k].deck)
        counter_minus(unseen, layer, "Hive cards")
        untouched.append(layer)
    # `below` cards are left of the mini-deck being drawn from
    face_down = [i for i, r in enumerate(obs["complex"]) if r is not None and not r["up"]]
    drones_untouched = n * len(untouched)
    out_of_game = sum(unseen.values()) - len(face_down) - below - drones_untouched
    if out_of_game < 0:
        raise DeterminizeError("more face-down Hive cards than the Hive had")
    # out of the game and in the mini-decks not yet reached: only Drones
    (_gone, extra_drones), (rooms, partial), _ = allocate_unseen(
        unseen, [(out_of_game, drone_ids), (drones_untouched, drone_ids)], [len(face_down), below], rng
    )
    hive: list[str] = []
    for j, layer in enumerate(untouched):
        layer += extra_drones[j * n : (j + 1) * n]
        rng.shuffle(layer)
        hive += layer
    rng.shuffle(partial)
    hive += partial
    complex_rooms: list[dict[str, Any] | None] = [
        None if r is None else {"card": r["card"], "up": True} if r["up"] else None for r in obs["complex"]
    ]
    for i, card in zip(face_down, rooms, strict=True):
        complex_rooms[i] = {"card": card, "up": False}
    return complex_rooms, hive


def _teammates(state: AlienState) -> list[int]:
    """The other living players in turn order from the active player's left (the engine's)."""
    seats = ((state.current + k) % state.players_n for k in range(1, state.players_n))
    return [i for i in seats if state.players[i].status == ALIVE]


def _pending(state: AlienState, obs: Mapping[str, Any], content: AlienContent) -> None:
    """The pending choice, the Coordinate queue and whether the active player may ask, rebuilt
    from `to_act` and `pending` (the seat's own choice shows its options; another seat's shows
    only its kind)."""
    to_act, pending = obs["to_act"], obs["pending"]
    phase = obs["phase"]
    if phase == "action":
        # "ask" is re-armed by any main action and spent by asking; one observation does not
        # say which came last: armed once the active player has played a card this turn
        state.can_ask = bool(state.players[state.current].play)
    if to_act is None or to_act["kind"] == "turn":
        return
    kind, who = to_act["kind"], to_act["seat"]
    top: dict[str, Any] = {"kind": kind, "seat": who}
    if pending is not None:
        top["prompt"] = pending["prompt"]
    if kind == "coordinate":
        top.setdefault("prompt", f"coordinate a card for seat {state.current} ({_ASK_PHASES[phase]} phase)?")
        if phase in _ASK_PHASES:
            mates = _teammates(state)
            state.coordinate_queue = mates[mates.index(who) + 1 :] if who in mates else []
    elif kind == "discard":
        top.setdefault("prompt", "discard a card")
    elif kind == "scan_free":
        top.setdefault("prompt", "scan a room for free")
    elif kind == "heal_target":
        top["n"] = pending["n"] if pending is not None else _heal_amount(state, content)
        top.setdefault("prompt", f"heal {top['n']}: whom?")
    elif kind == "choose":
        options = pending["options"] if pending is not None else None
        source, in_play, options = _choice_source(state, content, options)
        top.update({"source": source, "in_play": in_play, "options": options})
        top.setdefault("prompt", "choose one")
    else:
        raise DeterminizeError(f"unknown pending choice {kind!r}")
    state.stack = [top]


def _choices(effects: Sequence[Effect]) -> list[list[list[dict[str, Any]]]]:
    """The option lists of every choose effect in `effects` (inside conditions too)."""
    out = []
    for e in effects:
        if e.op == "choose":
            out.append([effects_to_json(o) for o in e.options])
        out += _choices(e.then)
    return out


def _choice_source(
    state: AlienState, content: AlienContent, options: list[Any] | None
) -> tuple[str, bool, list[Any]]:
    """The card whose effect offers the choice (read by `played_*` conditions) and whether it is
    in play: the latest card in the active player's play area with that choice, else a card set
    aside to Coordinate or sacrificed. Another seat's choice shows no options: those of that
    card's first choice are taken."""
    p = state.players[state.current]
    candidates: list[tuple[str, bool, Sequence[Effect]]] = []
    for c in reversed(p.play):
        card = content.cards[c]
        candidates += [(c, True, card.play), (c, True, card.once)]
    for q in state.players:
        candidates += [(c, False, content.cards[c].play) for c in reversed(q.set_aside)]
    candidates += [(c, False, content.cards[c].sacrifice) for c in reversed(state.dead_characters)]
    for source, in_play, effects in candidates:
        for found in _choices(effects):
            if options is None or found == options:
                return source, in_play, found
    if options is None:
        raise DeterminizeError("another seat's choice with no card that offers one")
    return "", False, options


def _heal_amount(state: AlienState, content: AlienContent) -> int:
    """How much another seat's pending heal is: the latest played card's heal_any amount."""
    for c in reversed(state.players[state.current].play):
        card = content.cards[c]
        for e in card.play + card.once:
            if e.op == "heal_any":
                return e.n
    return 1
