"""Clank! Legacy observation dict -> `arena.v1.ClankLegacyObservation`, and engine actions ->
`arena.v1.ClankLegacyAction` (see clank_legacy.proto, beside this file).

The inverses live in the SDK (`arena_bot.observation_dict`, `arena_bot.typed_kind_args`);
tests/referee/test_clank_legacy_wire.py checks both round trips on every decision of whole
games, so a key added to the engine's observation or a new action kind forgotten here fails a
test (and the referee, meanwhile, sends the observation as JSON and the action untyped).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from referee.core.game import Action
from referee.games.clank.codec import encode_effects
from referee.games.clank_legacy.content import default_content
from referee.wire._proto.arena.v1 import bot_pb2, clank_legacy_pb2, clank_pb2
from referee.wire.codec import Each, ObservationTable, Volatile

__all__ = ["OBSERVATION", "action_context", "encode_action", "encode_campaign", "encode_observation"]

_pb = clank_legacy_pb2


def _effect_lists(options: Sequence[Sequence[Mapping[str, Any]]]) -> list[clank_pb2.ClankEffectList]:
    return [clank_pb2.ClankEffectList(effects=encode_effects(o)) for o in options]


def _you(you: Mapping[str, Any] | None) -> clank_legacy_pb2.ClankLegacyYou | None:
    if you is None:
        return None
    return _pb.ClankLegacyYou(**you)


def _turn(turn: Mapping[str, Any]) -> clank_legacy_pb2.ClankLegacyTurn:
    return _pb.ClankLegacyTurn(
        acquired=turn["acquired"],
        defeated=turn["defeated"],
        patron_used=turn["patron_used"],
        waiting_conditions=_effect_lists(turn["waiting_conditions"]),
    )


def _pending(pending: Mapping[str, Any] | None) -> clank_legacy_pb2.ClankLegacyPending | None:
    if pending is None:
        return None
    return _pb.ClankLegacyPending(
        kind=pending["kind"],
        seat=pending["seat"],
        prompt=pending["prompt"],
        options=_effect_lists(pending["options"]),
        then=encode_effects(pending["then"]),
        votes=pending["votes"],
    )


def encode_campaign(campaign: Mapping[str, Any]) -> clank_legacy_pb2.ClankLegacyCampaign:
    """A campaign state's JSON (`CampaignState.to_json`) as its message."""
    fields = dict(campaign)
    fields["promotions"] = [_pb.ClankLegacyNames(names=p) for p in campaign["promotions"]]
    fields["reports"] = [_pb.ClankLegacyReport(**r) for r in campaign["reports"]]
    return _pb.ClankLegacyCampaign(**fields)


#: ClankLegacyObservation field by field (`wire.ObservationTable`): the referee encodes a seat's
#: observation once per field and reuses the fields that did not change
OBSERVATION = ObservationTable(
    _pb.ClankLegacyObservation,
    "clank_legacy",
    {
        "you": _you,
        "players": Each(lambda p: _pb.ClankLegacyPlayer(**p)),
        "pool": lambda pool: clank_pb2.ClankPool(**pool),
        # the waiting conditions and a pending choice's options are the engine's own effect
        # lists (shared with its state, which may change them in place): encoded every time
        "turn": Volatile(_turn),
        "pending": Volatile(_pending),
        "row": lambda row: [card or "" for card in row],
        "bag": lambda bag: clank_pb2.ClankBag(black=bag["black"], cubes=bag["cubes"]),
        "bank": lambda bank: _pb.ClankLegacyBank(**bank),
        "last_attack": lambda attack: clank_pb2.ClankAttack(**attack) if attack else None,
        "campaign": encode_campaign,
        "campaign_now": encode_campaign,
    },
    # a key the message lacks (the engine grew one) is refused, so the seat gets the whole
    # observation as JSON rather than a typed one with a field silently missing
    strict=True,
)


def encode_observation(obs: Mapping[str, Any]) -> bot_pb2.Observation:
    """The typed Clank! Legacy observation, wrapped in the Observation oneof."""
    return OBSERVATION.observation(obs)


def _far_end(obs: Mapping[str, Any], path_index: int) -> str:
    """The space at the other end of path `path_index` from the active player's space."""
    path = default_content().boards[obs["board"]].paths[path_index]
    here = obs["players"][obs["current"]]["space"]
    return path.b if path.a == here else path.a


def encode_action(action: Action, obs: Mapping[str, Any]) -> clank_legacy_pb2.ClankLegacyAction:
    """One engine action as a ClankLegacyAction; `obs` is the deciding seat's observation dict,
    from which the informative fields (a move's destination and damage, a coach's price, a row
    slot's card) are read.

    ValueError for an action kind without a typed message (the referee then sends `args` only).
    """
    kind, args = action.kind, action.args
    out = _pb.ClankLegacyAction()
    if kind == "play":
        out.play.card = str(args[0])
    elif kind in ("fight", "acquire"):
        slot = int(args[0])
        getattr(out, kind).CopyFrom(clank_pb2.ClankRowCard(slot=slot, card=obs["row"][slot] or ""))
    elif kind == "buy_reserve":
        out.buy_reserve.card = str(args[0])
    elif kind == "fight_cultist":
        out.fight_cultist.SetInParent()
    elif kind == "patron":
        out.patron.patron = str(args[0])
    elif kind == "move":
        path_index, spent = int(args[0]), int(args[1])
        monsters = default_content().boards[obs["board"]].paths[path_index].monsters
        out.move.CopyFrom(
            _pb.ClankLegacyMove(
                path_index=path_index,
                swords_spent=spent,
                to_space=_far_end(obs, path_index),
                damage=monsters - spent,
            )
        )
    elif kind == "coach":
        to_space = str(args[0])
        spaces = default_content().boards[obs["board"]].spaces
        here = obs["players"][obs["current"]]["space"]
        price = spaces[here].coach + spaces[to_space].coach
        out.coach.CopyFrom(_pb.ClankLegacyCoach(to_space=to_space, gold=price))
    elif kind == "teleport":
        path_index = int(args[0])
        to_space = _far_end(obs, path_index)
        out.teleport.CopyFrom(_pb.ClankLegacyTeleport(path_index=path_index, to_space=to_space))
    elif kind == "take":
        out.take.token = str(args[0])
    elif kind == "buy_item":
        out.buy_item.item = str(args[0])
    elif kind == "expend_fruit":
        out.expend_fruit.SetInParent()
    elif kind == "drink":
        out.drink.potion = str(args[0])
    elif kind == "end_turn":
        out.end_turn.SetInParent()
    elif kind == "trash":
        out.trash.CopyFrom(clank_pb2.ClankTrash(zone=str(args[0]), card=str(args[1])))
    elif kind == "skip":
        out.skip.SetInParent()
    elif kind == "discard":
        out.discard.card = str(args[0])
    elif kind == "choose":
        out.choose.option = int(args[0])
    elif kind == "vote":
        out.vote.option = int(args[0])
    else:
        raise ValueError(f"clank_legacy action kind {kind!r} has no typed message")
    return out


def action_context(action: Action, obs: Mapping[str, Any]) -> Hashable:
    """What `encode_action` reads from the observation for `action` (the referee reuses an
    action's encoding while this is unchanged): a row slot's card, or the board side and the
    space the active player moves from."""
    kind = action.kind
    if kind in ("fight", "acquire"):
        card: Hashable = obs["row"][int(action.args[0])]
        return card
    if kind in ("move", "teleport", "coach"):
        return (obs["board"], obs["players"][obs["current"]]["space"])
    return None
