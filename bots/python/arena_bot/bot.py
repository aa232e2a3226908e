"""The one class a bot author subclasses, and the loop that connects it to a referee."""

from __future__ import annotations

import argparse
import os
import queue
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import Message

from ._proto.arena.v1 import bot_pb2
from .actions import Action, decode_action
from .content import game_content
from .observations import unwrap
from .wire import LOBBY_METADATA, NOTE_LIMIT, PROTOCOL, TLS_CA_ENV, TLS_ENV, Tls, bearer, channel, play_call

__all__ = ["Bot", "play", "run", "serve"]

SDK = "arena-bot-python/0.1"
ENV_REFEREE = "ARENA_REFEREE"
ENV_TOKEN = "ARENA_TOKEN"
ENV_BOT_TOKEN = "ARENA_BOT_TOKEN"


class Bot:
    """Subclass this and implement `act`.

    The SDK calls, in order: `on_game_start(start)` once, `act(observation, legal_actions)` for
    every decision asked of your seat (also outside your turn: check `self.request.context`),
    `on_notice(notice)` when the referee tells you about a strike, and `on_game_end(end)` once.
    After a REJECTED notice (an index out of range) the decision is still open: `act` is called
    again at once for the same request, so return a valid index the second time.
    Set `self.note` inside `act` to attach a short note to that answer (kept in the replay; cut
    to 256 characters).
    """

    #: shown in replays (override it)
    name: str = "bot"
    version: str = "0"

    def __init__(self) -> None:
        self.start: bot_pb2.GameStart | None = None
        #: the game's static content from GameStart (cards, board, scenario; PROTOCOL.md
        #: "Static content"), parsed; None before the first game or from a referee sending none
        self.content: dict[str, Any] | None = None
        self.request: bot_pb2.DecisionRequest | None = None
        self.note: str = ""

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        """Index of the chosen action in `legal_actions`.

        `observation` is the game's typed message (`ClankObservation` for Clank!, `AlienObservation`
        for Alien); pass it to `arena_bot.observation_dict` for the engine's plain-dict form.
        """
        raise NotImplementedError

    def on_game_start(self, start: bot_pb2.GameStart) -> None:
        """The game begins: `start.seat` is your seat, `start.time_control` your clock, and
        `self.content` the game's static content (cards, board, scenario) already parsed."""

    def on_notice(self, notice: bot_pb2.Notice) -> None:
        """The referee reports a timeout, a rejected answer or a forfeit (default: print it)."""
        print(f"[{self.name}] referee notice: {notice.code} {notice.message}", file=sys.stderr)

    def on_game_end(self, end: bot_pb2.GameEnd) -> None:
        """The game is over for you (`end.result` is unset if you were forfeited)."""


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="an Arena bot")
    parser.add_argument(
        "--referee", default=os.environ.get(ENV_REFEREE),
        help=f"HOST:PORT (${ENV_REFEREE}); with --bot-token, several comma-separated: "
        "reconnect to the next when the stream is lost",
    )
    parser.add_argument("--token", default=os.environ.get(ENV_TOKEN), help=f"seat token (${ENV_TOKEN})")
    parser.add_argument(
        "--bot-token",
        default=os.environ.get(ENV_BOT_TOKEN),
        help=f"bot token: stay connected and play every match the ladder seats you in (${ENV_BOT_TOKEN})",
    )
    parser.add_argument(
        "--games", type=int, default=None, help="with --bot-token: stop after this many games"
    )
    parser.add_argument(
        "--tls", action="store_true", default=None, help=f"connect with TLS (${TLS_ENV}=1)"
    )
    parser.add_argument(
        "--ca", default=None, metavar="FILE",
        help=f"trust the CA certificate(s) in this PEM file (implies --tls; ${TLS_CA_ENV})",
    )
    args = parser.parse_args(argv)
    from_env = Tls.from_env()
    ca = args.ca or from_env.ca
    if ca is not None and not os.access(ca, os.R_OK):
        parser.error(f"cannot read the CA file {ca} (--ca / ${TLS_CA_ENV})")
    args.tls_options = Tls(bool(args.tls) or from_env.enabled or ca is not None, Path(ca) if ca else None)
    if not args.referee or not (args.token or args.bot_token):
        parser.error(
            f"give --referee and --token or --bot-token "
            f"(or set {ENV_REFEREE} and {ENV_TOKEN} or {ENV_BOT_TOKEN})"
        )
    return args


def _log(bot: Bot, text: str) -> None:
    print(f"[{bot.name}] {text}", file=sys.stderr, flush=True)


def _stream(
    bot: Bot,
    referee: str,
    token: str,
    *,
    max_games: int | None = None,
    lobby: bool = False,
    tls: Tls | None = None,
) -> tuple[int, bot_pb2.GameEnd | None]:
    """Hold one Play stream until the referee ends it (or `max_games` games have ended).

    Returns the number of games that ended on it and the last GameEnd. Raises grpc.RpcError
    when the referee refuses the stream or it breaks.
    """
    outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
    outbox.put(
        bot_pb2.BotMessage(
            hello=bot_pb2.Hello(bot_name=bot.name, bot_version=bot.version, sdk=SDK, protocol=PROTOCOL)
        )
    )

    def requests() -> Iterator[bot_pb2.BotMessage]:
        while (message := outbox.get()) is not None:
            yield message

    end: bot_pb2.GameEnd | None = None
    games = 0
    with channel(referee, tls) as opened:
        call = play_call(opened)(requests(), metadata=bearer(token))
        try:
            if lobby:
                joined = {key: str(value) for key, value in call.initial_metadata() or ()}
                if LOBBY_METADATA in joined:
                    _log(bot, f"connected to {referee} as bot {joined[LOBBY_METADATA]}; waiting for matches")
            #: the decision asked and not yet settled (a rejected answer leaves it open)
            pending: bot_pb2.DecisionRequest | None = None
            for msg in call:
                which = msg.WhichOneof("message")
                if which == "decision":
                    pending = msg.decision
                    outbox.put(_answer(bot, pending))
                elif which == "game_start":
                    bot.start = msg.game_start
                    bot.content = game_content(msg.game_start)
                    bot.on_game_start(msg.game_start)
                elif which == "notice":
                    notice = msg.notice
                    bot.on_notice(notice)
                    if pending is not None and _names(notice, pending):
                        if notice.kind == bot_pb2.Notice.REJECTED:
                            # the decision is still open and its clock runs on: ask again now
                            # rather than let it wait out the whole time bank
                            outbox.put(_answer(bot, pending))
                        else:  # TIMEOUT: settled by the default action
                            pending = None
                    elif notice.kind == bot_pb2.Notice.FORFEIT:
                        pending = None
                elif which == "game_end":
                    pending = None
                    end = msg.game_end
                    games += 1
                    bot.on_game_end(end)
                    if max_games is not None and games >= max_games:
                        break
        finally:
            outbox.put(None)
            call.cancel()
    return games, end


def _answer(bot: Bot, request: bot_pb2.DecisionRequest) -> bot_pb2.BotMessage:
    """Ask `bot.act` about `request` (again, after a rejected answer) and wrap its choice."""
    bot.request, bot.note = request, ""
    actions = [decode_action(a) for a in request.legal_actions]
    observation: Message | dict[str, Any] = unwrap(request.observation)
    index = bot.act(observation, actions)
    # the referee keeps NOTE_LIMIT characters; a longer note could exceed the message size
    # limit and end the session
    note = str(bot.note or "")[:NOTE_LIMIT]
    return bot_pb2.BotMessage(
        answer=bot_pb2.Answer(decision_id=request.decision_id, index=int(index), note=note)
    )


def _names(notice: bot_pb2.Notice, request: bot_pb2.DecisionRequest) -> bool:
    """Is the notice about `request` (a notice about no decision, such as FORFEIT or a bad
    message, leaves `decision_id` unset)?"""
    return notice.HasField("decision_id") and notice.decision_id == request.decision_id


def play(bot: Bot, referee: str, token: str, *, tls: Tls | None = None) -> bot_pb2.GameEnd | None:
    """Play one match session; returns the GameEnd (None if the stream ended without one).

    `tls`: connect with TLS (`Tls(True, ca=Path(...))`); default plaintext.
    Raises grpc.RpcError when the referee refuses the session or the stream breaks.
    """
    return _stream(bot, referee, token, tls=tls)[1]


#: status codes after which reconnecting cannot help (a bad token, another protocol, ...)
FATAL_CODES = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)


def referee_addresses(referee: str) -> list[str]:
    """The HOST:PORT addresses in a comma-separated list (``ARENA_REFEREE=h1:p,h2:p``)."""
    addresses = [a.strip() for a in referee.split(",") if a.strip()]
    if not addresses:
        raise ValueError(f"no referee address in {referee!r}")
    return addresses


def serve(
    bot: Bot,
    referee: str,
    bot_token: str,
    *,
    max_games: int | None = None,
    backoff_s: float = 1.0,
    max_backoff_s: float = 30.0,
    tls: Tls | None = None,
) -> int:
    """Stay connected with a bot token and play every match the referee seats this bot in.

    `referee` is one HOST:PORT or several, comma-separated (``ARENA_REFEREE=h1:p,h2:p``): the
    bot holds one stream to one of them, and the ladder places its matches on that referee.
    The stream carries one game after another (GameStart ... GameEnd, then the next GameStart).
    When it drops (network, referee restart, the referee's host lost) it reconnects to the next
    address in the list (round robin) after `backoff_s`, doubling up to
    `max_backoff_s` (with jitter; back to `backoff_s` once a stream has lasted a minute or played
    a game). It gives up on a refusal reconnecting cannot fix (`FATAL_CODES`, e.g. an unknown
    token: UNAUTHENTICATED). Returns the process exit code: 0 after `max_games` games, else 1.
    """
    played = 0
    delay = backoff_s
    addresses = referee_addresses(referee)
    turn = 0
    while True:
        opened = time.monotonic()
        address = addresses[turn % len(addresses)]
        turn += 1  # the next attempt goes to the next referee: this one may be gone for good
        try:
            games, _ = _stream(
                bot,
                address,
                bot_token,
                max_games=None if max_games is None else max_games - played,
                lobby=True,
                tls=tls,
            )
            played += games
            why, hint = "the referee closed the stream", ""
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
            if code in FATAL_CODES:
                _log(bot, f"referee refused the bot: {code}: {details}")
                return 1
            games = 0
            why, hint = f"{code}: {details}", _plaintext_hint(code, tls)
        if max_games is not None and played >= max_games:
            return 0
        if games or time.monotonic() - opened > 60:
            delay = backoff_s
        wait = delay * random.uniform(0.5, 1.0)
        _log(bot, f"disconnected from {address} ({why}){hint}; reconnecting in {wait:.1f} s "
                  f"to {addresses[turn % len(addresses)]}")
        time.sleep(wait)
        delay = min(max_backoff_s, delay * 2)


def _plaintext_hint(code: grpc.StatusCode | None, tls: Tls | None) -> str:
    """What to try when a plaintext connection fails at the transport: a referee that serves TLS
    closes a plaintext client's socket, which gRPC reports only as UNAVAILABLE."""
    if code is grpc.StatusCode.UNAVAILABLE and (tls is None or not tls.enabled):
        return " (connected without TLS: if the referee serves TLS, add --tls, or --ca FILE for its own CA)"
    return ""


def run(bot: Bot, argv: Sequence[str] | None = None) -> int:
    """Command-line entry: `python my_bot.py --referee HOST:PORT --token T` (or the env vars).

    With `--bot-token` (or ARENA_BOT_TOKEN) instead of a seat token, the bot is a remote ladder
    bot: see `serve`. Returns the process exit code: 0 when the game ended normally.
    """
    args = _parse(argv)
    if not args.token:
        return serve(bot, args.referee, args.bot_token, max_games=args.games, tls=args.tls_options)
    try:
        end = play(bot, args.referee, args.token, tls=args.tls_options)
    except grpc.RpcError as exc:
        code = exc.code() if isinstance(exc, grpc.Call) else None
        details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
        hint = _plaintext_hint(code, args.tls_options)
        print(f"[{bot.name}] referee closed the session: {code}: {details}{hint}", file=sys.stderr)
        return 1
    if end is None:
        print(f"[{bot.name}] the stream ended before the game did", file=sys.stderr)
        return 1
    return 0
