"""Alien observation dict -> `arena.v1.AlienObservation`, and engine actions -> `arena.v1.AlienAction`
(see proto/arena/v1/alien.proto).

The inverses live in the SDK (`arena_bot.observation_dict`, `arena_bot.typed_kind_args`); tests
check both round trips on every decision of whole games, so a field added to the engine's
observation or a new action kind forgotten here fails a test. The dict's Nones become explicit:
an empty room is `AlienRoom(empty=True)`, a face-down card and an empty HQ slot are "", and
`hatchery_top` / `objective_id` stay unset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from referee.core.game import Action
from referee.wire._proto.arena.v1 import alien_pb2, bot_pb2

__all__ = ["encode_action", "encode_effects", "encode_observation"]

_KEYS = frozenset(alien_pb2.AlienObservation.DESCRIPTOR.fields_by_name)


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


def encode_observation(obs: Mapping[str, Any]) -> bot_pb2.Observation:
    """The typed Alien observation, wrapped in the Observation oneof.

    KeyError if the dict has a key the message lacks (the referee then sends JSON)."""
    unknown = set(obs) - _KEYS
    if unknown:
        raise KeyError(f"alien observation keys without a typed field: {sorted(unknown)}")
    you = obs["you"]
    to_act = obs["to_act"]
    pending = obs["pending"]
    msg = alien_pb2.AlienObservation(
        game=obs["game"],
        seat=obs["seat"],
        step=obs["step"],
        turn=obs["turn"],
        round=obs["round"],
        current=obs["current"],
        phase=obs["phase"],
        over=obs["over"],
        won=obs["won"],
        you=alien_pb2.AlienYou(hand=you["hand"], deck_contents=you["deck_contents"])
        if you is not None
        else None,
        players=[alien_pb2.AlienPlayer(**p) for p in obs["players"]],
        pool=alien_pb2.AlienPool(**obs["pool"]),
        to_act=alien_pb2.AlienToAct(**to_act) if to_act is not None else None,
        pending=_pending(pending) if pending is not None else None,
        complex=[_room(r) for r in obs["complex"]],
        scan_costs=obs["scan_costs"],
        combat=obs["combat"],
        facehuggers=[alien_pb2.AlienFacehugger(**f) for f in obs["facehuggers"]],
        strike_queue=obs["strike_queue"],
        strike_log=[alien_pb2.AlienStrike(**x) for x in obs["strike_log"]],
        hq=[card or "" for card in obs["hq"]],
        barracks_size=obs["barracks_size"],
        hive_size=obs["hive_size"],
        strike_deck_size=obs["strike_deck_size"],
        strike_discard=obs["strike_discard"],
        sergeants_size=obs["sergeants_size"],
        hatchery_top=obs["hatchery_top"],
        hatchery_size=obs["hatchery_size"],
        chestbursters_left=obs["chestbursters_left"],
        location=obs["location"],
        hazards_used=obs["hazards_used"],
        objective=obs["objective"],
        objective_id=obs["objective_id"],
        met=obs["met"],
        hive_discard=obs["hive_discard"],
        dead_enemies=obs["dead_enemies"],
        dead_characters=obs["dead_characters"],
    )
    return bot_pb2.Observation(alien=msg)


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
