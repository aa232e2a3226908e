"""The referee's messages on the wire (arena.v1): built from the game, the match and the rulings.

Nothing here decides anything: `referee.server.rulings` rules, `referee.server.session` plays;
this module only turns their values into protobuf messages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from referee.core.game import Decision, Game, Result, canonical_json
from referee.games.static_content import wire_content
from referee.server.codecs import encode_actions
from referee.server.config import TimeControl
from referee.server.rulings import Notice, NoticeKind
from referee.wire._proto.arena.v1 import bot_pb2, common_pb2
from referee.wire.codec import scalar_encoder, varint

__all__ = [
    "RequestParts",
    "decision_request",
    "decision_request_bytes",
    "game_start",
    "notice",
    "result_to_proto",
]

_NOTICE_KINDS = {
    NoticeKind.TIMEOUT: bot_pb2.Notice.TIMEOUT,
    NoticeKind.REJECTED: bot_pb2.Notice.REJECTED,
    NoticeKind.LATE: bot_pb2.Notice.LATE,
    NoticeKind.FORFEIT: bot_pb2.Notice.FORFEIT,
}


def result_to_proto(result: Result) -> common_pb2.GameResult:
    """The engine's Result on the wire."""
    msg = common_pb2.GameResult(
        scores=result.scores,
        places=result.places,
        outcomes=result.outcomes,
        details_json=canonical_json(dict(result.details)),
    )
    if result.team_won is not None:
        msg.team_won = result.team_won
    return msg


def notice(ruling: Notice, strikes: int, max_strikes: int) -> bot_pb2.RefereeMessage:
    """A ruling's Notice for a seat that has `strikes` strikes; its `decision_id` None leaves the
    field unset (ids start at 0, so a notice about no decision must not look like one about
    decision 0)."""
    msg = bot_pb2.Notice(
        kind=_NOTICE_KINDS[ruling.kind],
        code=ruling.code.name,
        message=ruling.message,
        strikes=strikes,
        max_strikes=max_strikes,
    )
    if ruling.decision_id is not None:
        msg.decision_id = ruling.decision_id
    if ruling.default_index is not None:
        msg.default_index = ruling.default_index
    return bot_pb2.RefereeMessage(notice=msg)


def game_start(
    game: Game,
    match_id: str,
    game_name: str,
    seat: int,
    seat_names: Sequence[str],
    config: dict[str, Any],
    time: TimeControl,
) -> bot_pb2.GameStart:
    """What a seat's bot is told when its session opens."""
    from referee.wire import PROTOCOL

    # the static content (PROTOCOL.md "Static content"): built once per game and board
    content = wire_content(game)
    return bot_pb2.GameStart(
        match_id=match_id,
        game=game_name,
        seat=seat,
        num_seats=len(seat_names),
        seat_names=list(seat_names),
        config_json=canonical_json(config),
        time_control=time.to_proto(),
        engine_version=game.engine_version,
        content_version=game.content_version,
        protocol=PROTOCOL,
        content_json=content.json,
        content_digest=content.digest,
    )


def _context(obs: dict[str, Any], d: Decision) -> bot_pb2.DecisionContext:
    active = obs.get("current", d.seat)
    context = bot_pb2.DecisionContext(active_seat=active, out_of_turn=active != d.seat)
    group = obs.get("group")
    if isinstance(group, dict):
        context.group.CopyFrom(
            common_pb2.GroupChoice(
                group_id=str(group.get("group_id", "")),
                members=group.get("members", []),
                votes=[
                    common_pb2.GroupVote(seat=v["seat"], action_text=v["text"])
                    for v in group.get("votes", [])
                ],
                tie_break=str(group.get("tie_break", "")),
            )
        )
    return context


def _clock(
    request: bot_pb2.DecisionRequest, time: TimeControl, cpu_bank_ms: int | None
) -> bot_pb2.DecisionRequest:
    if cpu_bank_ms is not None:
        request.cpu_deadline_ms = time.cpu_decision_ms
        request.cpu_bank_ms = cpu_bank_ms
    return request


def decision_request(
    game: Game,
    d: Decision,
    encode: Callable[[dict[str, Any]], bot_pb2.Observation],
    time: TimeControl,
    bank_ms: int,
    strikes: int,
    cpu_bank_ms: int | None,
) -> bot_pb2.RefereeMessage:
    """The request for decision `d`: the seat's observation (encoded by `encode`), the legal
    actions, the group choice in progress, the clock; `cpu_bank_ms` is the seat's CPU bank when it
    is on the CPU clock (None: the CPU fields stay unset). `decision_request_bytes` is the same
    message as bytes, built from parts kept between decisions (the referee's hot path)."""
    obs = game.observe(d.seat)
    request = bot_pb2.DecisionRequest(
        decision_id=d.id,
        seat=d.seat,
        kind=d.kind,
        prompt=d.prompt,
        observation=encode(obs),
        legal_actions=encode_actions(d.actions, game.name, obs),
        context=_context(obs, d),
        deadline_ms=time.decision_ms,
        time_bank_ms=bank_ms,
        strikes=strikes,
    )
    return bot_pb2.RefereeMessage(decision=_clock(request, time, cpu_bank_ms))


#: DecisionRequest's field numbers where the parts given as bytes go
_OBSERVATION = bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name["observation"].number
_DECISION = bot_pb2.RefereeMessage.DESCRIPTOR.fields_by_name["decision"].number
assert bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name["legal_actions"].number == _OBSERVATION + 1
#: their tags (length-delimited)
_OBSERVATION_TAG = varint((_OBSERVATION << 3) | 2)
_DECISION_TAG = varint((_DECISION << 3) | 2)


#: the direct encoders of DecisionRequest's decision_id and seat (`wire.scalar_encoder`)
_ID = scalar_encoder(bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name["decision_id"])
_SEAT = scalar_encoder(bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name["seat"])
#: decision kinds and prompts kept encoded (for every match); past this the cache starts over
PROMPTS_LIMIT = 1024
_prompts: dict[tuple[str, str], bytes] = {}


class RequestParts:
    """The encoded fields a match's decision requests repeat: a decision kind and prompt
    (fields 3-4, kept for every match), and per seat the context with the clock of its last
    request (fields 7-12: the same while the active seat, the bank and the strikes stay the
    same, which is every decision of a bot that answers in time). A group choice in progress is
    encoded every time."""

    __slots__ = ("_tails",)

    def __init__(self) -> None:
        #: seat -> (what its last tail encoded, the encoding)
        self._tails: dict[int, tuple[tuple[int, int, int, int, int, int | None], bytes]] = {}

    def head(self, d: Decision) -> bytes:
        """Fields 1-4 of the request for `d`."""
        key = (d.kind, d.prompt)
        prompt = _prompts.get(key)
        if prompt is None:
            prompt = bot_pb2.DecisionRequest(kind=d.kind, prompt=d.prompt).SerializeToString()
            if len(_prompts) >= PROMPTS_LIMIT:
                _prompts.clear()
            _prompts[key] = prompt
        assert _ID is not None and _SEAT is not None
        ids = _ID(d.id), _SEAT(d.seat)
        if ids[0] is None or ids[1] is None:  # out of range: protobuf rules on it
            return bot_pb2.DecisionRequest(decision_id=d.id, seat=d.seat).SerializeToString() + prompt
        return ids[0] + ids[1] + prompt

    def tail(
        self,
        obs: dict[str, Any],
        d: Decision,
        time: TimeControl,
        bank_ms: int,
        strikes: int,
        cpu_bank_ms: int | None,
    ) -> bytes:
        """Fields 7-12 of the request for `d`."""
        active = obs.get("current", d.seat)
        cacheable = "group" not in obs and type(active) is int
        key = (active, time.decision_ms, time.cpu_decision_ms, bank_ms, strikes, cpu_bank_ms)
        if cacheable:
            last = self._tails.get(d.seat)
            if last is not None and last[0] == key:
                return last[1]
        tail = bot_pb2.DecisionRequest(
            context=_context(obs, d), deadline_ms=time.decision_ms, time_bank_ms=bank_ms, strikes=strikes
        )
        encoded = _clock(tail, time, cpu_bank_ms).SerializeToString()
        if cacheable:
            self._tails[d.seat] = (key, encoded)
        return encoded


def decision_request_bytes(
    d: Decision,
    obs: dict[str, Any],
    observation: bytes,
    legal_actions: bytes,
    time: TimeControl,
    bank_ms: int,
    strikes: int,
    cpu_bank_ms: int | None,
    parts: RequestParts | None = None,
) -> bytes:
    """`decision_request`'s message, encoded: `observation` is the encoded Observation of
    `obs`, `legal_actions` the encoded records of field `legal_actions` (`wire.ActionCache`);
    fields 1-4 and 7-12 come from `parts` (a match's `RequestParts`; None: a fresh one). The
    parts go between them in field order."""
    parts = parts or RequestParts()
    head = parts.head(d)
    tail = parts.tail(obs, d, time, bank_ms, strikes, cpu_bank_ms)
    body = (head, _OBSERVATION_TAG, varint(len(observation)), observation, legal_actions, tail)
    # joined once: the message's bytes are copied once, not once per enclosing field
    return b"".join((_DECISION_TAG, varint(sum(map(len, body))), *body))
