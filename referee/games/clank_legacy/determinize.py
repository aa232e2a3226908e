"""Clank! Legacy determinization: a full game state consistent with one seat's observation.

`sample_state(observation, seat, rng)` reads only the observation dict (what `observe(seat)`
returned) and the fixed content, never a game state. Method: DETERMINIZE.md here.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.determinize import DeterminizeError
from referee.core.effects import Effect, effects_to_json
from referee.core.game import Action
from referee.games.clank_core.determinize import (
    allocate_unseen,
    counter_minus,
    deal_cards,
    fresh_seed,
    json_copy,
    own_cards,
    pending_stack,
)
from referee.games.clank_legacy.campaign import CampaignState, adventure_deck, starting_deck
from referee.games.clank_legacy.content import LegacyContent
from referee.games.clank_legacy.engine import VOTE, ClankLegacyGame
from referee.games.clank_legacy.state import (
    PHASE_PLAY,
    PHASE_PROLOGUE,
    PLAYING,
    LegacyPlayer,
    LegacyState,
    TurnLog,
    TurnPool,
)

__all__ = ["DeterminizeError", "sample_state"]


def sample_state(
    observation: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    legal_actions: Sequence[Action] | None = None,
) -> ClankLegacyGame:
    """A Clank! Legacy game whose `observe(seat)` equals `observation`, its hidden parts dealt
    at random from what the seat cannot see (DETERMINIZE.md). `legal_actions` adds nothing here
    (the observation shows the seat's new cards). Raises DeterminizeError when no state of this
    game gives the observation."""
    del legal_actions
    obs = json_copy(dict(observation))
    if obs.get("game") != "clank_legacy" or obs.get("seat") != seat:
        raise DeterminizeError(f"not a Clank! Legacy observation of seat {seat}")
    content = ClankLegacyGame.game_content()
    if obs["phase"] == PHASE_PROLOGUE:
        return _prologue(obs, content, rng)
    if obs["phase"] != PHASE_PLAY:
        return _epilogue(obs, seat, content, rng)
    return _play(obs, seat, content, rng)


def _campaign(obs: Mapping[str, Any], key: str, content: LegacyContent) -> CampaignState:
    try:
        return CampaignState.from_json(obs[key], content)
    except ValueError as exc:
        raise DeterminizeError(f"observation's {key}: {exc}") from None


def _vote(game: ClankLegacyGame, option: int) -> None:
    game.apply(Action("vote", (option,)))


def _prologue(obs: Mapping[str, Any], content: LegacyContent, rng: random.Random) -> ClankLegacyGame:
    """Before setup nothing is hidden: the game is set up again from the campaign (a fresh seed)
    and the group choices made so far and the votes cast in the pending one are replayed, each
    choice as every voter's vote."""
    n = len(obs["players"])
    game = ClankLegacyGame.new_game({"players": n, "campaign": obs["campaign"]}, fresh_seed(rng))
    for choice in obs["choices"]:
        before = len(game.s.choices)
        while len(game.s.choices) == before:
            d = game.decision()
            if d is None or d.kind != VOTE:
                raise DeterminizeError("the observation's group choices do not replay")
            _vote(game, choice)
    pending = obs["pending"]
    for vote in pending["votes"] if pending is not None and pending["kind"] == VOTE else []:
        if vote >= 0:
            _vote(game, vote)
    return game


def _epilogue(
    obs: Mapping[str, Any], seat: int, content: LegacyContent, rng: random.Random
) -> ClankLegacyGame:
    """After play: the cards are dealt as in play, and the Epilogue's passage is replayed on a
    scratch copy (its choices made after the Prologue's) to find the effects still queued and the
    pending vote; the scratch's own changes (gold, campaign) are not kept."""
    # the Prologue again, from the campaign before the game: the campaign the cards were dealt
    # from (the Epilogue may have changed it since) and how many choices the Prologue made
    prologue = _prologue({**obs, "choices": [], "pending": None}, content, random.Random(0))
    game = _play(obs, seat, content, rng, prologue.campaign_now())
    s = game.s
    s.phase = obs["phase"]
    if obs["over"]:
        return game
    k = 0
    while prologue.s.phase == PHASE_PROLOGUE and k < len(obs["choices"]):
        before = len(prologue.s.choices)
        while len(prologue.s.choices) == before and prologue.s.phase == PHASE_PROLOGUE:
            _vote(prologue, obs["choices"][k])
        k += 1
    scratch = game.copy()
    scratch.s.choices = list(obs["choices"][:k])
    scratch.s.passage = {"id": s.epilogue, "queue": effects_to_json(content.passages[s.epilogue].effects)}
    scratch.s.stack = []
    scratch._run_passage()
    for choice in obs["choices"][k:]:
        before = len(scratch.s.choices)
        while len(scratch.s.choices) == before:
            _vote(scratch, choice)
    pending = obs["pending"]
    for vote in pending["votes"] if pending is not None else []:
        if vote >= 0:
            _vote(scratch, vote)
    s.passage = scratch.s.passage
    s.stack = scratch.s.stack
    s.choices = list(obs["choices"])
    game._decision = None
    return game


def _play(
    obs: Mapping[str, Any],
    seat: int,
    content: LegacyContent,
    rng: random.Random,
    dealt_from: CampaignState | None = None,
) -> ClankLegacyGame:
    """A state of the play phase (or after it): every piece shown as shown, the hidden cards
    and tokens dealt. The cards are those of the campaign `dealt_from` (in play: the campaign
    now, which only Prologues and Epilogues change)."""
    n = len(obs["players"])
    you = obs["you"]
    campaign_now = dealt_from if dealt_from is not None else _campaign(obs, "campaign_now", content)

    # every card of the game (deal_cards takes out those the seat sees where they are)
    unseen: Counter[str] = Counter(adventure_deck(campaign_now, content))
    for i in range(n):
        unseen.update(starting_deck(campaign_now, i, content))
    unseen.update(content.reserve)
    adventure_ids = frozenset(adventure_deck(campaign_now, content))
    adventure, dealt = deal_cards(obs, seat, unseen, "adventure", adventure_ids, rng)

    first, turns = _first_and_turns(obs, rng)
    players: list[LegacyPlayer] = []
    for i, p in enumerate(obs["players"]):
        hand, deck = own_cards(you, rng) if i == seat else dealt[i]
        new_hand = list(you["new_in_hand"]) if i == seat else []
        players.append(LegacyPlayer(
            deck=deck,
            hand=hand,
            play=list(p["play"]),
            discard=list(p["discard"]),
            space=p["space"],
            damage=p["damage"],
            supply=p["supply"],
            gold=p["gold"],
            artifacts=list(p["artifacts"]),
            items=list(p["items"]),
            kept_secrets=list(p["secrets"]),
            potions=list(p["potions"]),
            fruit=p["fruit"],
            fruit_expended=p["fruit_expended"],
            mug=p["mug"],
            status=p["status"],
            forfeited=p["forfeited"],
            may_take=you["may_take"] if i == seat else False,
            visited=list(p["visited"]),
            turns=turns[i],
            new_hand=new_hand,
            trashed=p["trashed"],
        ))
    majors, bank_minor, bank_major = _secrets(obs, content, rng)
    turn = obs["turn"]
    state = LegacyState(
        seed=fresh_seed(rng),
        players_n=n,
        content_version=content.version,
        campaign=obs["campaign"],
        campaign_now=obs["campaign_now"],
        prologue=obs["prologue"],
        epilogue=obs["epilogue"],
        players=players,
        phase=obs["phase"],
        board=obs["board"],
        open_paths=list(obs["open_paths"]),
        step=obs["step"],
        round=obs["round"],
        first=first,
        current=obs["current"],
        pool=TurnPool(**obs["pool"]),
        turn=TurnLog(
            acquired=turn["acquired"],
            defeated=turn["defeated"],
            patron_used=turn["patron_used"],
            deferred=_deferred(obs, content, turn["waiting_conditions"]),
        ),
        adventure_deck=adventure,
        adventure_discard=list(obs["adventure_discard"]),
        row=list(obs["row"]),
        reserve=dict(obs["reserve"]),
        patrons=list(obs["patrons"]),
        contracts=list(obs["contracts"]),
        claimed=dict(obs["claimed_contracts"]),
        clank_area=list(obs["clank_area"]),
        bag_black=obs["bag"]["black"],
        bag_cubes=list(obs["bag"]["cubes"]),
        rage=obs["rage"],
        artifacts=dict(obs["artifacts"]),
        major_secrets=majors,
        bank_minor=bank_minor,
        bank_major=bank_major,
        fruit_spaces=list(obs["fruit_spaces"]),
        fruit_supply=obs["fruit_supply"],
        market=dict(obs["market"]),
        mugs=obs["mugs_left"],
        stack=_stack(obs, players, content),
        choices=list(obs["choices"]),
        rng={},
        last_attack=dict(obs["last_attack"]),
        end_reason=obs["end_reason"],
        mvp=obs["mvp"],
    )
    return ClankLegacyGame(state, content)


def _first_and_turns(obs: Mapping[str, Any], rng: random.Random) -> tuple[int, list[int]]:
    """The round's first player and each seat's turns begun (first-turn abilities read it), not
    shown. In round 1 the seats that have played are those with cards in play or discarded
    (everyone starts with an empty discard pile), counted back from the active one; later the
    first player is drawn at random (it moves only the round counter)."""
    n, current, players = len(obs["players"]), obs["current"], obs["players"]
    if obs["round"] == 1:
        first = current
        for back in range(1, n):
            j = (current - back) % n
            if not (players[j]["discard"] or players[j]["play"] or players[j]["status"] != PLAYING):
                break
            first = j
    else:
        first = rng.randrange(n)
    turns = [
        obs["round"] if (i - first) % n <= (current - first) % n else obs["round"] - 1 for i in range(n)
    ]
    return first, turns


def _secrets(
    obs: Mapping[str, Any], content: LegacyContent, rng: random.Random
) -> tuple[dict[str, list[str]], list[str], list[str]]:
    """Face-down secrets: per size, every secret less those face up (kept, potions held) is the
    pool; the spaces' major secrets and the Bank's take random ones, the rest were used."""
    face_up = [x for p in obs["players"] for x in p["secrets"] + p["potions"]]
    pools: dict[str, Counter[str]] = {}
    for size in ("minor", "major"):
        pools[size] = Counter({x.id: x.count for x in content.secrets.values() if x.size == size})
        counter_minus(pools[size], [x for x in face_up if content.secrets[x].size == size], "secrets")
    spaces = obs["major_secrets"]
    on_spaces = sum(spaces.values())
    (major_dealt, bank_major), _, _ = allocate_unseen(
        pools["major"],
        [(on_spaces, frozenset(pools["major"])), (obs["bank"]["major_secrets"], frozenset(pools["major"]))],
        [],
        rng,
    )
    (bank_minor,), _, _ = allocate_unseen(
        pools["minor"], [(obs["bank"]["minor_secrets"], frozenset(pools["minor"]))], [], rng
    )
    majors: dict[str, list[str]] = {}
    board = content.boards[obs["board"]] if obs["board"] else None
    names = [sp.id for sp in board.spaces.values() if sp.major_secret] if board is not None else []
    for space in names + [sp for sp in sorted(spaces) if sp not in names]:
        k = spaces.get(space, 0)
        majors[space], major_dealt = major_dealt[:k], major_dealt[k:]
    return majors, bank_minor, bank_major


def _stack(
    obs: Mapping[str, Any], players: Sequence[LegacyPlayer], content: LegacyContent
) -> list[dict[str, Any]]:
    """The pending card choice rebuilt from `pending` (clank_core's `pending_stack`). Votes
    belong to the Prologue and Epilogue."""
    pending = obs["pending"]
    if pending is not None and pending["kind"] == VOTE:
        return []
    return pending_stack(pending, [p.play for p in players], content.cards)


def _deferred(obs: Mapping[str, Any], content: LegacyContent, waiting: list[Any]) -> list[dict[str, Any]]:
    """The card conditions waiting this turn: shown as effects; their seat is the active
    player's and their source the latest card in play holding that effect."""
    out = []
    current = obs["current"]
    play = obs["players"][current]["play"]
    for effect in waiting:
        source = ""
        for card_id in reversed(play):
            if _holds(content.cards[card_id].play, effect):
                source = card_id
                break
        out.append({"seat": current, "source": source, "effect": effect})
    return out


def _holds(effects: Sequence[Effect], effect: Any) -> bool:
    for e in effects:
        if effects_to_json([e]) == effect:
            return True
        if e.op == "if" and _holds(e.then, effect):
            return True
    return False
