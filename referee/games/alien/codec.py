"""Alien observation dict -> `arena.v1.AlienObservation`, and engine actions -> `arena.v1.AlienAction`
(see alien.proto, beside this file).

The inverses live in the SDK (`arena_bot.observation_dict`, `arena_bot.typed_kind_args`); tests
check both round trips on every decision of whole games, so a field added to the engine's
observation or a new action kind forgotten here fails a test. The dict's Nones become explicit:
an empty room is `AlienRoom(empty=True)`, a face-down card and an empty HQ slot are "", and
`hatchery_top` / `objective_id` stay unset.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from referee.core.game import Action
from referee.wire._proto.arena.v1 import alien_pb2, bot_pb2
from referee.wire.codec import Each, ObservationTable, Volatile

__all__ = ["OBSERVATION", "action_context", "encode_action", "encode_effects", "encode_observation"]


def encode_effects(effects: Sequence[Mapping[str, Any]]) -> list[alien_pb2.AlienEffect]:
    """Effect dicts (content JSON) -> AlienEffect messages."""
    return [
        alien_pb2.AlienEffect(
            op=e["op"],
            n=e.get("n", 0),
            cond=e.get("cond", ""),
            arg=e.get("arg", ""),
            then=encode_effects(e.get("then", ())),
            options=[alien_pb2.AlienEffectList(effects=encode_effects(o)) for o in e.get("options", ())],
        )
        for e in effects
    ]


def _room(room: Mapping[str, Any] | None) -> alien_pb2.AlienRoom:
    if room is None:
        return alien_pb2.AlienRoom(empty=True)
    return alien_pb2.AlienRoom(card=room["card"] or "", up=room["up"])


def _pending(pending: Mapping[str, Any]) -> alien_pb2.AlienPending:
    return alien_pb2.AlienPending(
        kind=pending["kind"],
        prompt=pending["prompt"],
        options=[alien_pb2.AlienEffectList(effects=encode_effects(o)) for o in pending["options"]],
        n=pending["n"],
    )


def _you(you: Mapping[str, Any] | None) -> alien_pb2.AlienYou | None:
    if you is None:
        return None
    return alien_pb2.AlienYou(hand=you["hand"], deck_contents=you["deck_contents"])


#: AlienObservation field by field (`wire.ObservationTable`): the referee encodes a seat's
#: observation once per field and reuses the fields that did not change
OBSERVATION = ObservationTable(
    alien_pb2.AlienObservation,
    "alien",
    {
        "you": _you,
        "players": Each(lambda p: alien_pb2.AlienPlayer(**p)),
        "pool": lambda pool: alien_pb2.AlienPool(**pool),
        "to_act": lambda to_act: alien_pb2.AlienToAct(**to_act) if to_act is not None else None,
        # its options are the engine's own effect lists: encoded every time
        "pending": Volatile(lambda pending: _pending(pending) if pending is not None else None),
        "complex": Each(_room),
        "facehuggers": Each(lambda f: alien_pb2.AlienFacehugger(**f)),
        "strike_log": Each(lambda x: alien_pb2.AlienStrike(**x)),
        "hq": lambda hq: [card or "" for card in hq],
    },
    strict=True,
)


def encode_observation(obs: Mapping[str, Any]) -> bot_pb2.Observation:
    """The typed Alien observation, wrapped in the Observation oneof.

    KeyError if the dict has a key the message lacks (the referee then sends JSON)."""
    return OBSERVATION.observation(obs)


def _fight_card(obs: Mapping[str, Any], zone: str, index: int) -> str:
    if zone == "room":
        card: str | None = obs["complex"][index]["card"]  # face up: fights are only legal then
        return card or ""
    if zone == "combat":
        return str(obs["combat"][index])
    if zone == "facehugger":
        return str(obs["facehuggers"][index]["card"])
    raise ValueError(f"alien fight zone {zone!r} is unknown")


def _wrap(kind: str, message: Message) -> alien_pb2.AlienAction:
    """The action message with its field `kind` (the action kind's name) set to `message`."""
    wrapped = alien_pb2.AlienAction()
    getattr(wrapped, kind).CopyFrom(message)
    return wrapped


def encode_action(action: Action, obs: Mapping[str, Any]) -> alien_pb2.AlienAction:
    """One engine action as an AlienAction; `obs` is the deciding seat's observation dict, from
    which the informative fields (the card at an index) are read.

    ValueError for an action kind without a typed message (the referee then sends `args` only).
    """
    kind, args = action.kind, action.args
    me = obs["players"][obs["current"]]  # main-turn actions are the active player's
    if kind == "play":
        return alien_pb2.AlienAction(play=alien_pb2.AlienPlay(card=str(args[0])))
    if kind in ("use_once", "sacrifice"):
        i = int(args[0])
        return _wrap(kind, alien_pb2.AlienPlayedCard(play_index=i, card=me["play"][i]))
    if kind == "release":
        i = int(args[0])
        return alien_pb2.AlienAction(release=alien_pb2.AlienRelease(vigilant_index=i, card=me["vigilant"][i]))
    if kind == "recruit":
        slot = int(args[0])
        return alien_pb2.AlienAction(recruit=alien_pb2.AlienRecruit(hq_slot=slot, card=obs["hq"][slot] or ""))
    if kind == "recruit_sergeant":
        return alien_pb2.AlienAction(recruit_sergeant=alien_pb2.AlienRecruitSergeant())
    if kind in ("scan", "scan_free"):
        return _wrap(kind, alien_pb2.AlienScan(room=int(args[0])))
    if kind == "fight":
        zone, index = str(args[0]), int(args[1])
        fight = alien_pb2.AlienFight(zone=zone, index=index, card=_fight_card(obs, zone, index))
        return alien_pb2.AlienAction(fight=fight)
    if kind == "complete":
        return alien_pb2.AlienAction(complete=alien_pb2.AlienComplete(objective=int(args[0])))
    if kind == "ask":
        return alien_pb2.AlienAction(ask=alien_pb2.AlienAsk())
    if kind == "end_turn":
        return alien_pb2.AlienAction(end_turn=alien_pb2.AlienEndTurn())
    if kind == "coordinate":
        return alien_pb2.AlienAction(coordinate=alien_pb2.AlienCoordinate(card=str(args[0])))
    if kind == "pass":
        return _wrap("pass", alien_pb2.AlienPass())
    if kind == "discard":
        return alien_pb2.AlienAction(discard=alien_pb2.AlienDiscard(card=str(args[0])))
    if kind == "choose":
        return alien_pb2.AlienAction(choose=alien_pb2.AlienChoose(option=int(args[0])))
    if kind == "heal_target":
        return alien_pb2.AlienAction(heal_target=alien_pb2.AlienHealTarget(seat=int(args[0])))
    raise ValueError(f"alien action kind {kind!r} has no typed message")


def action_context(action: Action, obs: Mapping[str, Any]) -> Hashable:
    """What `encode_action` reads from the observation for `action` (the referee reuses an
    action's encoding while this is unchanged): the card at the index the action names."""
    kind, args = action.kind, action.args
    read: Hashable = None
    if kind in ("use_once", "sacrifice"):
        read = obs["players"][obs["current"]]["play"][int(args[0])]
    elif kind == "release":
        read = obs["players"][obs["current"]]["vigilant"][int(args[0])]
    elif kind == "recruit":
        read = obs["hq"][int(args[0])]
    elif kind == "fight":
        read = _fight_card(obs, str(args[0]), int(args[1]))
    return read
