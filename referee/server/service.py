"""The gRPC face of the referee: BotService.Play and the AdminService, with their status codes.

Status codes (readable messages always say what to fix):
    UNAUTHENTICATED      no token, an unknown token, a token already used (bot or admin)
    FAILED_PRECONDITION  a second connection for a seat, a finished match, a replay not ready,
                         a remote bot with no version or on no ladder
    ALREADY_EXISTS       a second bot-token stream for a bot that has one open
    INVALID_ARGUMENT     a first message that is not a hello, a bad match request
    RESOURCE_EXHAUSTED   too many matches or calls; a message too large; a seat forfeited for
                         strikes, flooding or not reading its stream; too many failed
                         authentications from the caller's address (referee.server.auth)
    NOT_FOUND            an unknown match id (admin)
    UNAVAILABLE          a seat forfeited after a disconnect (its stream is already gone)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError

from referee.server import metrics
from referee.server.auth import FailedAuthLimiter, peer_address, same_token
from referee.server.config import MatchSpec, TimeControl
from referee.server.lobby import AlreadyConnected, RemoteBot
from referee.server.referee import MatchLimitReached, Referee, SpecError, parse_config
from referee.server.seat import Outgoing
from referee.server.session import Close, MatchSession, Outbox, SeatState, State
from referee.wire import ADMIN_SERVICE, BOT_SERVICE, LOBBY_METADATA, PROTOCOL
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2

__all__ = ["AdminService", "BotService", "bearer_token", "handlers"]

log = logging.getLogger("arena.referee")


def _decode(raw: object) -> bot_pb2.BotMessage | None:
    if not isinstance(raw, bytes):
        return None
    try:
        return bot_pb2.BotMessage.FromString(raw)
    except DecodeError:
        return None


def _referee_message(message: bot_pb2.RefereeMessage | bytes) -> bytes:
    """A Play stream's serializer: decision requests come already encoded."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def _too_large(raw: object, limit: int) -> str | None:
    """The ruling on a message over the size limit, or None."""
    if isinstance(raw, bytes) and len(raw) > limit:
        return f"message too large: {len(raw)} bytes (the limit is {limit})"
    return None


class _Writer:
    """Writes an outbox's items to a stream one at a time, driven by the outbox (`attach`): an
    idle writer starts the next write inside `Outbox.put`, on the caller's stack, so a request
    reaches gRPC without waking a writer task. A write gRPC has to finish is resumed from its
    completion's callback, as a task would be, only when something waits behind it; otherwise
    the next `put` finishes it (`settle`): gRPC is done with it long before the next request
    is built, and an unwatched completion costs no event-loop turn. `result` is done with the
    Close that ends the stream, or with the exception of a write that failed (a broken stream)."""

    def __init__(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        outbox: Outbox,
        on_close: Callable[[Close], bool],
    ) -> None:
        self.context = context
        self.outbox = outbox
        self.on_close = on_close
        self.result: asyncio.Future[Close] = asyncio.get_running_loop().create_future()
        self._write: Coroutine[Any, Any, None] | None = None  # the write in flight
        self._waiting: asyncio.Future[Any] | None = None  # what that write waits for
        self._watched = False  # `_wakeup` is called back when `_waiting` is done

    def offer(self, item: Outgoing | None) -> None:
        """Take `item` (the outbox's sink): write it, or end the stream on a Close."""
        while item is not None:
            if isinstance(item, Close):
                if item is self.outbox.abort_close or self.on_close(item):
                    if not self.result.done():
                        self.result.set_result(item)
                    return  # the outbox stays busy: nothing more is written
                item = self.outbox.written()
                continue
            if self.result.done():
                return
            try:
                self._write = self.context.write(item)
            except Exception as exc:  # a stream that cannot take a write is broken
                self._fail(exc)
                return
            self._step(None)
            return

    def _step(self, error: BaseException | None) -> None:
        write = self._write
        assert write is not None
        try:
            yielded = write.send(None) if error is None else write.throw(error)
        except StopIteration:
            self._write = None
            self.offer(self.outbox.written())
            return
        except BaseException as exc:  # the write failed, or was given up (`cancel`)
            self._write = None
            self._fail(exc)
            return
        if asyncio.isfuture(yielded) and getattr(yielded, "_asyncio_future_blocking", False):
            yielded._asyncio_future_blocking = False  # the awaiting side's handshake, as a Task does
            self._waiting = yielded
            if len(self.outbox):  # more to write: go on as soon as gRPC is done with this
                self._watch()
        elif yielded is None:  # a bare yield: go on at the next turn
            asyncio.get_running_loop().call_soon(self._step, None)
        else:
            self._step(RuntimeError(f"a gRPC write yielded {yielded!r}"))

    def _watch(self) -> None:
        if self._waiting is not None and not self._watched:
            self._watched = True
            self._waiting.add_done_callback(self._wakeup)

    def settle(self) -> None:
        """Called by `Outbox.put` while a write is in flight: finish it if gRPC is done with it
        (the writer is then free for the new item), else be woken when it is."""
        waiting = self._waiting
        if waiting is None or self._watched:
            return  # nothing to finish here, or its callback is on its way
        if waiting.done():
            self._waiting = None
            self._resume(waiting)
        else:
            self._watch()

    def _wakeup(self, waited: asyncio.Future[Any]) -> None:
        if waited is not self._waiting:
            return  # finished or given up already
        self._waiting = None
        self._watched = False
        self._resume(waited)

    def _resume(self, waited: asyncio.Future[Any]) -> None:
        if self._write is None:
            return
        try:
            waited.result()
        except BaseException as exc:  # handed to the write, as a Task does
            self._step(exc)
        else:
            self._step(None)

    def _fail(self, exc: BaseException) -> None:
        if self.result.done():
            return  # given up already (`cancel`)
        if isinstance(exc, asyncio.CancelledError):  # gRPC gave the write up: the stream is gone
            exc = ConnectionError("the write was cancelled")
        self.result.set_exception(exc)

    def cancel(self) -> None:
        """Give up the write in flight (a stuck write: the bot does not read its stream)."""
        if not self.result.done():
            self.result.cancel()  # first: what the given-up write raises is not a failure
        waiting = self._waiting
        if waiting is not None:
            self._waiting = None
            self._watched = False
            if waiting.done():  # gRPC is done with it: finish it
                self._resume(waiting)
            else:  # as a Task's cancel: the future is cancelled, the write gets CancelledError
                waiting.cancel()
                self._step(asyncio.CancelledError())
        elif self._write is not None:
            self._write.close()
            self._write = None


async def _pump(
    context: grpc.aio.ServicerContext[Any, Any],
    outbox: Outbox,
    on_close: Callable[[Close], bool] = lambda _close: True,
) -> Close:
    """Write the outbox to the stream until a Close that `on_close` says ends it (or the
    outbox's abort), and return that Close. An abort ends it even while a write is stuck
    because the bot does not read its stream: the write is given up. Raises if a write fails
    (a broken stream)."""
    writer = _Writer(context, outbox, on_close)
    outbox.attach(writer.offer, writer.settle)
    try:
        await asyncio.wait((writer.result, outbox.aborted()), return_when=asyncio.FIRST_COMPLETED)
    finally:
        outbox.detach()
        done = writer.result.done() and not writer.result.cancelled()
        if not done:  # aborted (or this call is cancelled): give the writes up
            writer.cancel()
    if not done:
        assert outbox.abort_close is not None
        return outbox.abort_close
    return writer.result.result()


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


PlayContext = grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage]


class Gate:
    """Failed authentications, counted per peer address. A credential that verifies is accepted
    whatever its address's count (someone else's guesses from a shared address must not lock a
    bot or the operator out); one that does not, from an address past the limit, is answered
    RESOURCE_EXHAUSTED instead of UNAUTHENTICATED until its window has moved on, so a guesser
    there is told nothing about its guesses."""

    def __init__(self, limiter: FailedAuthLimiter, max_streams_per_address: int = 256) -> None:
        self.limiter = limiter
        self.max_streams_per_address = max_streams_per_address
        #: Play streams open now per client address (only addresses with one open)
        self.streams: dict[str, int] = {}

    async def enter(self, context: grpc.aio.ServicerContext[Any, Any]) -> str:
        """The caller's address (its failures are weighed only if its credential fails)."""
        return peer_address(context.peer())

    async def open_stream(self, context: grpc.aio.ServicerContext[Any, Any]) -> str:
        """The address of a new Play stream, counted until :meth:`close_stream`; aborts it with
        RESOURCE_EXHAUSTED if its address already has `max_streams_per_address` open (an
        exempt address, see FailedAuthLimiter, is not counted)."""
        address = peer_address(context.peer())
        if self.limiter.exempted(address):
            return address
        open_now = self.streams.get(address, 0)
        if open_now >= self.max_streams_per_address:
            await _abort(
                context, grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many streams from your address ({open_now} open, the most one address may hold)",
            )
        self.streams[address] = open_now + 1
        return address

    def close_stream(self, address: str) -> None:
        """A Play stream of `address` ended."""
        left = self.streams.get(address, 0) - 1
        if left > 0:
            self.streams[address] = left
        else:
            self.streams.pop(address, None)

    async def refuse(
        self, context: grpc.aio.ServicerContext[Any, Any], address: str, kind: str, message: str
    ) -> NoReturn:
        """End the call of a credential that did not verify (`kind`: admin, seat, token, none):
        RESOURCE_EXHAUSTED if its address is past the limit, else count the failure and answer
        UNAUTHENTICATED."""
        wait = self.limiter.retry_after(address)
        if wait is not None:
            metrics.AUTH_REFUSED.inc()
            await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, self.limiter.message(wait))
        self.limiter.failed(address)
        metrics.AUTH_FAILURES.labels(kind=kind).inc()
        log.warning("failed authentication from %s: %s", address, message)
        await _abort(context, grpc.StatusCode.UNAUTHENTICATED, message)


class BotService:
    """BotService.Play: one match session per stream (seat token), or a remote bot's stream
    across matches (bot token, see referee.server.lobby)."""

    def __init__(self, referee: Referee, gate: Gate) -> None:
        self.referee = referee
        self.gate = gate

    async def _hello(self, context: PlayContext) -> bot_pb2.Hello:
        try:
            first: object = await asyncio.wait_for(
                context.read(), self.referee.limits.hello_timeout_ms / 1000
            )
        except TimeoutError:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "no hello in time")
        if (too_large := _too_large(first, self.referee.limits.max_receive_bytes)) is not None:
            await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, too_large)
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
        return hello

    async def _open(
        self, context: PlayContext, token: str, address: str
    ) -> tuple[MatchSession, SeatState]:
        found = self.referee.tokens.get(token)
        if found is None:
            await self.gate.refuse(context, address, "seat", "unknown seat token")
        session, seat = found
        if seat.connected:
            await _abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"seat {seat.seat} of match {session.match_id} already has a connected bot",
            )
        if seat.used or seat.forfeited:
            await self.gate.refuse(context, address, "seat", "seat token already used (tokens are one-time)")
        if session.state is State.FINISHED:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, f"match {session.match_id} is over")
        hello = await self._hello(context)
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
        address = await self.gate.open_stream(context)
        try:
            await self._play(context, address)
        finally:
            self.gate.close_stream(address)

    async def _play(
        self,
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
        address: str,
    ) -> None:
        token = bearer_token(context)
        if not token:
            await self.gate.refuse(
                context, address, "none", "missing 'authorization: Bearer <seat token or bot token>' metadata"
            )
        if token not in self.referee.tokens and self.referee.authenticator is not None:
            await self._play_remote(context, token, address)
            return
        session, seat = await self._open(context, token, address)
        outbox = seat.outbox
        reader = asyncio.create_task(self._read(context, session, seat))
        try:
            close = await _pump(context, outbox)
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
            outbox.clear()  # nothing more is written to this stream: keep nothing for it
        seat.connected = False
        if close.code is not grpc.StatusCode.OK:
            await context.abort(close.code, close.message)

    async def _play_remote(self, context: PlayContext, token: str, address: str) -> None:
        """A bot-token stream: the bot waits in the lobby and plays every match it is seated in."""
        authenticator = self.referee.authenticator
        assert authenticator is not None
        try:
            identity = await asyncio.to_thread(authenticator, token)
        except Exception:
            log.exception("checking a bot token failed")
            await _abort(context, grpc.StatusCode.UNAVAILABLE, "cannot check the bot token now; retry")
        if identity is None:
            await self.gate.refuse(
                context, address, "token", "unknown token (neither a seat token nor a bot token)"
            )
        if identity.refusal:
            # a valid token, but the ladder would never seat this bot: say why, do not wait
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, identity.refusal)
        hello = await self._hello(context)
        lobby = self.referee.lobby
        bot = RemoteBot(identity, hello, outbox=Outbox(self.referee.limits.max_outbox))
        try:
            lobby.join(bot)
        except AlreadyConnected as exc:
            await _abort(context, grpc.StatusCode.ALREADY_EXISTS, f"{exc}: one stream per bot")
        try:
            # tells the bot it is in: a lobby stream may stay silent until the bot is seated
            await context.send_initial_metadata(((LOBBY_METADATA, str(bot.bot_id)),))
        except Exception:
            lobby.drop(bot, "the stream broke at once")
            raise
        log.info("bot %d (%s) joined the lobby", bot.bot_id, identity.name)
        reader = asyncio.create_task(self._read_remote(context, bot))
        outbox = bot.outbox

        def on_close(_close: Close) -> bool:
            if bot.broken:
                return True
            lobby.game_over(bot)  # a game ended (or the seat was forfeited): stay open
            return False

        try:
            close = await _pump(context, outbox, on_close)
        except asyncio.CancelledError:
            lobby.drop(bot, "the stream was cancelled")
            raise
        except Exception as exc:  # a write to a broken stream
            lobby.drop(bot, f"stream error: {type(exc).__name__}")
            return
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            lobby.drop(bot, "the stream ended")
            outbox.clear()
            log.info("bot %d (%s) left the lobby after %d games", bot.bot_id, identity.name, bot.games)
        if close.code is not grpc.StatusCode.OK:
            await context.abort(close.code, close.message)

    async def _read_remote(self, context: PlayContext, bot: RemoteBot) -> None:
        lobby = self.referee.lobby
        limits = self.referee.limits
        try:
            while True:
                message: object = await context.read()
                if message is grpc.aio.EOF:
                    lobby.drop(bot, "the bot closed its stream")
                    return
                if (too_large := _too_large(message, limits.max_receive_bytes)) is not None:
                    lobby.fault(bot, too_large)
                    return
                if bot.outbox.abort_close is not None:
                    return  # the stream is ending
                decoded = _decode(message)
                if bot.current is not None:
                    if bot.current[0].receive(bot.current[1], decoded):
                        await asyncio.sleep(0)  # the match's loop sends its next request first (_read)
                    continue
                # between two games: nothing is asked, everything is ignored (and counted)
                bot.idle_messages += 1
                if bot.idle_messages > limits.max_bad_messages:
                    lobby.fault(
                        bot,
                        f"flood: more than {limits.max_bad_messages} messages between two games",
                    )
                    return
                if decoded is not None and decoded.HasField("answer"):  # an answer to the last game
                    notice = _between_games(
                        bot_pb2.Notice.LATE,
                        decoded.answer.decision_id,
                        "FAILED_PRECONDITION",
                        f"decision {decoded.answer.decision_id} is already settled; answer ignored",
                    )
                else:
                    notice = _between_games(
                        bot_pb2.Notice.REJECTED, None, "INVALID_ARGUMENT", "expected an answer; ignored"
                    )
                if not bot.outbox.put(notice):
                    lobby.fault(
                        bot, f"not reading: more than {bot.outbox.limit} messages waiting to be written"
                    )
                    return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            lobby.drop(bot, f"stream error: {type(exc).__name__}")

    @staticmethod
    async def _read(
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
        session: MatchSession,
        seat: SeatState,
    ) -> None:
        limit = session.limits.max_receive_bytes
        try:
            while not seat.faulted:
                message: object = await context.read()
                if message is grpc.aio.EOF:
                    session.lost(seat, "the bot closed its stream")
                    return
                if (too_large := _too_large(message, limit)) is not None:
                    session.fault(seat, too_large)
                    return
                # None (does not parse): a bad message
                if session.receive(seat, _decode(message)):
                    # the loop was waiting for this answer: let it rule, apply and send the next
                    # request first; asking gRPC for the next message (a call into its core)
                    # would otherwise sit between the answer and the next request
                    await asyncio.sleep(0)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            session.lost(seat, f"stream error: {type(exc).__name__}")


def _between_games(
    kind: bot_pb2.Notice.Kind, decision_id: int | None, code: str, message: str
) -> bot_pb2.RefereeMessage:
    notice = bot_pb2.Notice(kind=kind, code=code, message=message)
    if decision_id is not None:  # unset: about no decision (PROTOCOL.md, "Notices")
        notice.decision_id = decision_id
    return bot_pb2.RefereeMessage(notice=notice)


class AdminService:
    """AdminService: create matches, their status, their events, their replays.

    Every call needs the admin token (an operator's service: matches in play, seat bindings,
    connected bots); without one (an `insecure` referee) every call is open. The public reads of
    finished matches and replays are the ladder's HTTP API.
    """

    def __init__(self, referee: Referee, admin_token: str | None, gate: Gate) -> None:
        self.referee = referee
        self.admin_token = admin_token
        self.gate = gate

    async def _check(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if self.admin_token is None:
            return
        address = await self.gate.enter(context)
        if not same_token(bearer_token(context), self.admin_token):
            await self.gate.refuse(
                context, address, "admin", "admin calls need 'authorization: Bearer <admin token>'"
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
                engine_version=request.engine_version,
                seat_bot_ids=tuple(s.bot_id for s in request.seats) if any(s.bot_id for s in request.seats)
                else (),
            )
            session = self.referee.create(spec)
        except (SpecError, ValueError) as exc:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except MatchLimitReached as exc:
            await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        return admin_pb2.CreateMatchResponse(
            match_id=session.match_id,
            seat_tokens=[s.token if s.bot_id is None else "" for s in session.seats],
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

    async def ListBots(
        self, request: admin_pb2.ListBotsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> admin_pb2.ListBotsResponse:
        await self._check(context)
        return self.referee.lobby.listing(request.bot_id)

    async def CancelMatch(
        self, request: admin_pb2.CancelMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> admin_pb2.MatchStatus:
        session = await self._find(admin_pb2.GetMatchRequest(match_id=request.match_id), context)
        session.cancel(request.reason)
        return session.status()

    async def GetReplay(
        self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> admin_pb2.Replay:
        session = await self._find(request, context)
        if session.replay_bytes is None:
            await _abort(
                context, grpc.StatusCode.FAILED_PRECONDITION, f"match {session.match_id} is not over yet"
            )
        return admin_pb2.Replay(match_id=session.match_id, data=session.replay_bytes)


def handlers(
    referee: Referee, admin_token: str | None, limiter: FailedAuthLimiter | None = None
) -> list[grpc.GenericRpcHandler]:
    """The generic handlers of both services (`admin_token` None: admin calls are open)."""
    gate = Gate(limiter or FailedAuthLimiter(), referee.limits.max_streams_per_address)
    bots = BotService(referee, gate)
    admin = AdminService(referee, admin_token, gate)

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
                "Play": grpc.stream_stream_rpc_method_handler(bots.Play, response_serializer=_referee_message)
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
                "ListBots": unary(admin.ListBots, admin_pb2.ListBotsRequest, admin_pb2.ListBotsResponse),
                "CancelMatch": unary(admin.CancelMatch, admin_pb2.CancelMatchRequest, admin_pb2.MatchStatus),
                "WatchMatch": grpc.unary_stream_rpc_method_handler(
                    watch, response_serializer=admin_pb2.MatchEvent.SerializeToString
                ),
            },
        ),
    ]
