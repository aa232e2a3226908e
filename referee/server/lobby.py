"""Remote bots: bots connected with their bot token, waiting in the lobby between matches.

A remote bot opens one `Play` stream with its *bot token* (checked by the `Authenticator` the
server was started with: a plain function, token -> bot or None; the ladder's, which reads its
database, is `ladder.remote_bots.ladder_authenticator`, handed over by `cli/main.py`, so the
referee never imports the ladder) and keeps it open. A match created with a
seat bound to the bot's id (`SeatSpec.bot_id`) is queued on that bot; the bot plays its queued
seats one at a time, in the order the matches were created: GameStart ... GameEnd, then the
next GameStart on the same stream. (Creation order is one order for every bot, so two matches
can never wait for each other's bots.)

A seat waits for its bot as a seat-token seat waits for its connection (`connect_ms`), and
longer while the bot is connected but busy (`ServerLimits.remote_queue_ms`); if the bot drops,
the seat it is playing is forfeited like any disconnect, and the seats still queued for it wait
for it to reconnect until their own `connect_ms` runs out.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from referee.server.session import Close, MatchSession, Outbox, SeatState
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2

__all__ = [
    "AlreadyConnected",
    "Authenticator",
    "Lobby",
    "RemoteBot",
    "RemoteIdentity",
]


@dataclass(frozen=True, slots=True)
class RemoteIdentity:
    """The ladder bot a bot token belongs to."""

    bot_id: int
    name: str
    #: why the ladder would never seat this bot (no version, on no ladder, ...): the referee
    #: refuses its stream with FAILED_PRECONDITION and this message instead of letting it wait
    refusal: str = ""


#: bot token -> the bot, or None for an unknown token (may block: it is run in a thread)
Authenticator = Callable[[str], RemoteIdentity | None]


class AlreadyConnected(RuntimeError):
    """The bot already has a lobby stream open."""


@dataclass(eq=False)
class RemoteBot:
    """One bot-token stream: the bot, its hello, what it is playing, and its outbox."""

    identity: RemoteIdentity
    hello: bot_pb2.Hello
    connection_id: str = field(default_factory=lambda: secrets.token_hex(6))
    connected_at_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    #: everything written to the stream; each seat's outbox is this one while it plays
    outbox: Outbox = field(default_factory=Outbox)
    current: tuple[MatchSession, SeatState] | None = None
    games: int = 0
    #: messages received since its last game ended (all ignored; too many end the stream)
    idle_messages: int = 0
    #: the stream is gone: the next Close in the outbox ends it
    broken: bool = False

    @property
    def bot_id(self) -> int:
        return self.identity.bot_id


class Lobby:
    """Connected remote bots and the seats waiting for them."""

    def __init__(self) -> None:
        self.bots: dict[int, RemoteBot] = {}
        self.pending: dict[int, deque[tuple[MatchSession, SeatState]]] = {}

    def present(self, bot_id: int) -> bool:
        """True while the bot has a stream open."""
        return bot_id in self.bots

    def join(self, bot: RemoteBot) -> None:
        """A bot opened its stream. Raises AlreadyConnected if it has one open already."""
        if bot.bot_id in self.bots:
            raise AlreadyConnected(f"bot {bot.bot_id} is already connected")
        self.bots[bot.bot_id] = bot
        self._seat_next(bot)

    def bind(self, session: MatchSession, seat: SeatState, bot_id: int) -> None:
        """Queue `seat` for the bot; it is seated at once if it is connected and free."""
        queue = self.pending.setdefault(bot_id, deque())
        # seats of matches that ended without the bot (it never came back) are dropped here
        live = [(m, s) for m, s in queue if not (m.finished or s.forfeited)]
        if len(live) != len(queue):
            queue.clear()
            queue.extend(live)
        queue.append((session, seat))
        bot = self.bots.get(bot_id)
        if bot is not None and bot.current is None and not bot.broken:
            self._seat_next(bot)

    def game_over(self, bot: RemoteBot) -> None:
        """The bot's current game ended (its last message is written): seat it again if due."""
        if bot.current is not None:
            bot.current[1].connected = False
            bot.current = None
        if not bot.broken:
            self._seat_next(bot)

    def drop(self, bot: RemoteBot, reason: str) -> None:
        """The bot's stream ended or broke: it leaves; its current seat is lost (forfeited)."""
        if bot.broken:
            return
        bot.broken = True
        if self.bots.get(bot.bot_id) is bot:
            del self.bots[bot.bot_id]
        if bot.current is not None and bot.current[1].connected:
            session, seat = bot.current
            session.lost(seat, reason)  # puts the Close that ends the stream
        else:
            bot.outbox.put(Close(grpc.StatusCode.UNAVAILABLE, reason))

    def fault(self, bot: RemoteBot, reason: str) -> None:
        """The bot broke a limit (`reason`: "flood: ...", ...): its stream ends now with
        RESOURCE_EXHAUSTED; a seat it is playing is forfeited with this reason."""
        if bot.current is not None and bot.current[1].connected:
            session, seat = bot.current
            session.fault(seat, reason)  # aborts this bot's outbox: the stream ends
        else:
            bot.outbox.abort(Close(grpc.StatusCode.RESOURCE_EXHAUSTED, reason))

    def _seat_next(self, bot: RemoteBot) -> None:
        queue = self.pending.get(bot.bot_id)
        while queue:
            session, seat = queue.popleft()
            if session.finished or seat.forfeited or seat.used or session.cancel_reason:
                continue
            seat.outbox = bot.outbox
            bot.current = (session, seat)
            bot.games += 1
            bot.idle_messages = 0
            session.attach(seat, bot.hello)  # writes its GameStart
            break
        if queue is not None and not queue:
            del self.pending[bot.bot_id]

    def queued(self, bot_id: int) -> int:
        """Seats waiting for the bot (matches not over)."""
        return sum(
            1
            for session, seat in self.pending.get(bot_id, ())
            if not (session.finished or seat.forfeited or seat.used)
        )

    def listing(self, bot_id: int = 0) -> admin_pb2.ListBotsResponse:
        """The admin view: every connected bot (or only `bot_id`)."""
        out = admin_pb2.ListBotsResponse()
        for bot in sorted(self.bots.values(), key=lambda b: b.bot_id):
            if bot_id and bot.bot_id != bot_id:
                continue
            out.bots.append(
                admin_pb2.LobbyBot(
                    bot_id=bot.bot_id,
                    name=bot.identity.name,
                    bot_name=bot.hello.bot_name,
                    connection_id=bot.connection_id,
                    connected_at_ms=bot.connected_at_ms,
                    games=bot.games,
                    match_id=bot.current[0].match_id if bot.current is not None else "",
                    queued=self.queued(bot.bot_id),
                )
            )
        return out
