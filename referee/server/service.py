"""The gRPC face of the referee: BotService.Play and the AdminService, with their status codes.

Status codes (readable messages always say what to fix):
    UNAUTHENTICATED      no token, an unknown token, a token already used (bot or admin)
    FAILED_PRECONDITION  a second connection for a seat, a finished match, a replay not ready
    INVALID_ARGUMENT     a first message that is not a hello, a bad match request
    RESOURCE_EXHAUSTED   too many matches or calls; a seat forfeited for strikes
    NOT_FOUND            an unknown match id (admin)
    UNAVAILABLE          a seat forfeited after a disconnect (its stream is already gone)
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError

from bots.python.arena_bot._proto.arena.v1 import admin_pb2, bot_pb2
from bots.python.arena_bot.wire import ADMIN_SERVICE, BOT_SERVICE, PROTOCOL
from referee.server.config import MatchSpec, TimeControl
from referee.server.referee import MatchLimitReached, Referee, SpecError, parse_config
from referee.server.session import Close, MatchSession, SeatState, State

__all__ = ["AdminService", "BotService", "bearer_token", "handlers"]

log = logging.getLogger("arena.referee")


def _decode(raw: object) -> bot_pb2.BotMessage | None:
    if not isinstance(raw, bytes):
        return None
    try:
        return bot_pb2.BotMessage.FromString(raw)
    except DecodeError:
        return None


def bearer_token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The token of `authorization: Bearer <token>` metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None


async def _abort(
    context: grpc.aio.ServicerContext[Any, Any], code: grpc.StatusCode, message: str
) -> NoReturn:
    await context.abort(code, message)
    raise AssertionError("unreachable")  # abort raises


class BotService:
    """BotService.Play: one match session per stream."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def _open(
        self, context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage]
    ) -> tuple[MatchSession, SeatState]:
        token = bearer_token(context)
        if not token:
            await _abort(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                "missing 'authorization: Bearer <seat token>' metadata",
            )
        found = self.referee.tokens.get(token)
        if found is None:
            await _abort(context, grpc.StatusCode.UNAUTHENTICATED, "unknown seat token")
        session, seat = found
        if seat.connected:
            await _abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"seat {seat.seat} of match {session.match_id} already has a connected bot",
            )
        if seat.used or seat.forfeited:
            await _abort(
                context, grpc.StatusCode.UNAUTHENTICATED, "seat token already used (tokens are one-time)"
            )
        if session.state is State.FINISHED:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, f"match {session.match_id} is over")
        try:
            first: object = await asyncio.wait_for(
                context.read(), self.referee.limits.hello_timeout_ms / 1000
            )
        except TimeoutError:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "no hello in time")
        message = _decode(first)
        if message is None or not message.HasField("hello"):
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a hello")
        hello = message.hello
        if hello.protocol not in (0, PROTOCOL):
            await _abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol {hello.protocol} is not spoken here (this referee speaks {PROTOCOL})",
            )
        # the hello wait yielded: look again before taking the seat
        if seat.used or seat.forfeited or session.finished:
            await _abort(
                context, grpc.StatusCode.FAILED_PRECONDITION, f"seat {seat.seat} was taken or closed"
            )
        session.attach(seat, hello)
        return session, seat

    async def Play(
        self,
        request_iterator: Any,
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
    ) -> None:
        """One bot session (see PROTOCOL.md)."""
        session, seat = await self._open(context)
        reader = asyncio.create_task(self._read(context, session, seat))
        close = Close(grpc.StatusCode.OK, "")
        try:
            while True:
                item = await seat.outbox.get()
                if isinstance(item, Close):
                    close = item
                    break
                await context.write(item)
        except asyncio.CancelledError:
            session.lost(seat, "the stream was cancelled")
            raise
        except Exception as exc:  # a write to a broken stream
            session.lost(seat, f"stream error: {type(exc).__name__}")
            return
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        seat.connected = False
        if close.code is not grpc.StatusCode.OK:
            await context.abort(close.code, close.message)

    @staticmethod
    async def _read(
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
        session: MatchSession,
        seat: SeatState,
    ) -> None:
        try:
            while True:
                message: object = await context.read()
                if message is grpc.aio.EOF:
                    session.lost(seat, "the bot closed its stream")
                    return
                decoded = _decode(message)
                if decoded is None:
                    session.receive(seat, bot_pb2.BotMessage())  # ruled on as a bad message
                else:
                    session.receive(seat, decoded)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            session.lost(seat, f"stream error: {type(exc).__name__}")


class AdminService:
    """AdminService: create matches, their status, their events, their replays."""

    def __init__(self, referee: Referee, admin_token: str | None) -> None:
        self.referee = referee
        self.admin_token = admin_token

    async def _check(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if self.admin_token is None:
            return
        token = bearer_token(context)
        if token is None or not hmac.compare_digest(token, self.admin_token):
            await _abort(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                "admin calls need 'authorization: Bearer <admin token>'",
            )

    async def _find(
        self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> MatchSession:
        await self._check(context)
        session = self.referee.get(request.match_id)
        if session is None:
            await _abort(context, grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        return session

    async def CreateMatch(
        self, request: admin_pb2.CreateMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> admin_pb2.CreateMatchResponse:
        await self._check(context)
        try:
            spec = MatchSpec(
                game=request.game,
                seat_names=tuple(s.name or f"seat{i}" for i, s in enumerate(request.seats)),
                seed=request.seed,
                config=dict(c) if (c := parse_config(request.config_json)) is not None else None,
                time_control=TimeControl.from_proto(request.time_control),
                match_id=request.match_id,
            )
            session = self.referee.create(spec)
        except (SpecError, ValueError) as exc:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except MatchLimitReached as exc:
            await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        return admin_pb2.CreateMatchResponse(
            match_id=session.match_id, seat_tokens=[s.token for s in session.seats]
        )

    async def GetMatch(
        self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> admin_pb2.MatchStatus:
        return (await self._find(request, context)).status()

    async def WatchMatch(
        self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[admin_pb2.MatchEvent]:
        session = await self._find(request, context)
        async for event in session.watch():
            yield event

    async def GetReplay(
        self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> admin_pb2.Replay:
        session = await self._find(request, context)
        if session.replay_bytes is None:
            await _abort(
                context, grpc.StatusCode.FAILED_PRECONDITION, f"match {session.match_id} is not over yet"
            )
        return admin_pb2.Replay(match_id=session.match_id, data=session.replay_bytes)


def handlers(referee: Referee, admin_token: str | None) -> list[grpc.GenericRpcHandler]:
    """The generic handlers of both services."""
    bots = BotService(referee)
    admin = AdminService(referee, admin_token)

    def unary(fn: Any, req: Any, resp: Any) -> grpc.RpcMethodHandler[Any, Any]:
        async def parsed(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            try:
                request = req.FromString(raw)
            except DecodeError:
                await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"not a {req.DESCRIPTOR.full_name}")
            return await fn(request, context)

        return grpc.unary_unary_rpc_method_handler(parsed, response_serializer=resp.SerializeToString)

    async def watch(
        raw: bytes, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[admin_pb2.MatchEvent]:
        try:
            request = admin_pb2.GetMatchRequest.FromString(raw)
        except DecodeError:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "not an arena.v1.GetMatchRequest")
        async for event in admin.WatchMatch(request, context):
            yield event

    return [
        grpc.method_handlers_generic_handler(
            BOT_SERVICE,
            {
                # requests arrive as bytes: a message that does not parse gets a ruling, not INTERNAL
                "Play": grpc.stream_stream_rpc_method_handler(
                    bots.Play, response_serializer=bot_pb2.RefereeMessage.SerializeToString
                )
            },
        ),
        grpc.method_handlers_generic_handler(
            ADMIN_SERVICE,
            {
                "CreateMatch": unary(
                    admin.CreateMatch, admin_pb2.CreateMatchRequest, admin_pb2.CreateMatchResponse
                ),
                "GetMatch": unary(admin.GetMatch, admin_pb2.GetMatchRequest, admin_pb2.MatchStatus),
                "GetReplay": unary(admin.GetReplay, admin_pb2.GetMatchRequest, admin_pb2.Replay),
                "WatchMatch": grpc.unary_stream_rpc_method_handler(
                    watch, response_serializer=admin_pb2.MatchEvent.SerializeToString
                ),
            },
        ),
    ]
