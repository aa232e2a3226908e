"""Clank! observation dict -> `arena.v1.ClankObservation`, and engine actions -> `arena.v1.ClankAction`
(see clank.proto, beside this file).

The inverses live in the SDK (`arena_bot.observation_dict`, `arena_bot.typed_kind_args`); tests
check both round trips on every decision of whole games, so a field added to the engine's
observation or a new action kind forgotten here fails a test.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from referee.core.game import Action
from referee.games.clank.content import default_content
from referee.wire._proto.arena.v1 import bot_pb2, clank_pb2
from referee.wire.codec import Each, Fields, ObservationTable, Volatile

__all__ = [
    "OBSERVATION",
    "OBSERVATION_FIELDS",
    "action_context",
    "encode_action",
    "encode_effects",
    "encode_observation",
]


def encode_effects(effects: Sequence[Mapping[str, Any]]) -> list[clank_pb2.ClankEffect]:
    """Effect dicts (content JSON) -> ClankEffect messages."""
    return [
        clank_pb2.ClankEffect(
            op=e["op"],
            n=e.get("n", 0),
            cond=e.get("cond", ""),
            arg=e.get("arg", ""),
            then=encode_effects(e.get("then", ())),
            options=[clank_pb2.ClankEffectList(effects=encode_effects(o)) for o in e.get("options", ())],
        )
        for e in effects
    ]


def _you(you: Mapping[str, Any] | None) -> clank_pb2.ClankYou | None:
    if you is None:
        return None
    return clank_pb2.ClankYou(hand=you["hand"], deck_contents=you["deck_contents"], may_take=you["may_take"])


def _pending(pending: Mapping[str, Any] | None) -> clank_pb2.ClankPending | None:
    if pending is None:
        return None
    return clank_pb2.ClankPending(
        kind=pending["kind"],
        seat=pending["seat"],
        prompt=pending["prompt"],
        options=[clank_pb2.ClankEffectList(effects=encode_effects(o)) for o in pending["options"]],
        then=encode_effects(pending["then"]),
    )


#: how ClankObservation's fields that are not plain are made from the observation (a plain
#: field, a scalar or a list or map of them, is sent as it is: `wire.ObservationTable`)
OBSERVATION_FIELDS: Mapping[str, Any] = {
    # given as dicts of their messages' fields: encoded, and reused, field by field
    "you": Fields(clank_pb2.ClankYou, _you),
    "players": Each(Fields(clank_pb2.ClankPlayer)),
    "pool": Fields(clank_pb2.ClankPool),
    # its options are the engine's own effect lists: encoded every time
    "pending": Volatile(_pending),
    "row": lambda row: [card or "" for card in row],
    "bag": lambda bag: clank_pb2.ClankBag(black=bag["black"], cubes=bag["cubes"]),
    "last_attack": lambda attack: clank_pb2.ClankAttack(**attack) if attack else None,
}

#: ClankObservation field by field (`wire.ObservationTable`): the referee encodes a seat's
#: observation once per field and reuses the fields that did not change
OBSERVATION = ObservationTable(clank_pb2.ClankObservation, "clank", OBSERVATION_FIELDS)


def encode_observation(obs: Mapping[str, Any]) -> bot_pb2.Observation:
    """The typed Clank! observation, wrapped in the Observation oneof."""
    return OBSERVATION.observation(obs)


def _wrap(kind: str, message: Message) -> clank_pb2.ClankAction:
    """The action message with its field `kind` (the action kind's name) set to `message`."""
    wrapped = clank_pb2.ClankAction()
    getattr(wrapped, kind).CopyFrom(message)
    return wrapped


def encode_action(action: Action, obs: Mapping[str, Any]) -> clank_pb2.ClankAction:
    """One engine action as a ClankAction; `obs` is the deciding seat's observation dict, from
    which the informative fields (a move's destination and damage, a row slot's card) are read.

    ValueError for an action kind without a typed message (the referee then sends `args` only).
    """
    kind, args = action.kind, action.args
    if kind == "play":
        return clank_pb2.ClankAction(play=clank_pb2.ClankPlay(card=str(args[0])))
    if kind in ("fight", "acquire"):
        slot = int(args[0])
        row = clank_pb2.ClankRowCard(slot=slot, card=obs["row"][slot] or "")
        return _wrap(kind, row)
    if kind == "buy_reserve":
        return clank_pb2.ClankAction(buy_reserve=clank_pb2.ClankBuyReserve(card=str(args[0])))
    if kind == "fight_goblin":
        return clank_pb2.ClankAction(fight_goblin=clank_pb2.ClankFightGoblin())
    if kind in ("move", "teleport"):
        board = default_content().boards[obs["board"]]
        tunnel_index = int(args[0])
        here = obs["players"][obs["current"]]["room"]
        to_room = board.other_end(tunnel_index, here)
        if kind == "teleport":
            teleport = clank_pb2.ClankTeleport(tunnel_index=tunnel_index, to_room=to_room)
            return clank_pb2.ClankAction(teleport=teleport)
        spent = int(args[1])
        move = clank_pb2.ClankMove(
            tunnel_index=tunnel_index,
            swords_spent=spent,
            to_room=to_room,
            damage=board.tunnels[tunnel_index].monsters - spent,
        )
        return clank_pb2.ClankAction(move=move)
    if kind == "take":
        return clank_pb2.ClankAction(take=clank_pb2.ClankTake(token=str(args[0])))
    if kind == "buy_item":
        return clank_pb2.ClankAction(buy_item=clank_pb2.ClankBuyItem(item=str(args[0])))
    if kind == "drink":
        return clank_pb2.ClankAction(drink=clank_pb2.ClankDrink(potion=str(args[0])))
    if kind == "end_turn":
        return clank_pb2.ClankAction(end_turn=clank_pb2.ClankEndTurn())
    if kind == "trash":
        return clank_pb2.ClankAction(trash=clank_pb2.ClankTrash(zone=str(args[0]), card=str(args[1])))
    if kind == "skip":
        return clank_pb2.ClankAction(skip=clank_pb2.ClankSkip())
    if kind == "discard":
        return clank_pb2.ClankAction(discard=clank_pb2.ClankDiscard(card=str(args[0])))
    if kind == "choose":
        return clank_pb2.ClankAction(choose=clank_pb2.ClankChoose(option=int(args[0])))
    raise ValueError(f"clank action kind {kind!r} has no typed message")


def action_context(action: Action, obs: Mapping[str, Any]) -> Hashable:
    """What `encode_action` reads from the observation for `action` (the referee reuses an
    action's encoding while this is unchanged): a row slot's card, or the board and the room
    the active player moves from."""
    kind = action.kind
    if kind in ("fight", "acquire"):
        card: Hashable = obs["row"][int(action.args[0])]
        return card
    if kind in ("move", "teleport"):
        return (obs["board"], obs["players"][obs["current"]]["room"])
    return None
