"""The one class a bot author subclasses, and the loop that connects it to a referee."""

from __future__ import annotations

import argparse
import os
import queue
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import grpc
from google.protobuf.message import Message

from ._proto.arena.v1 import bot_pb2
from .actions import Action, decode_action
from .observations import unwrap
from .wire import PROTOCOL, bearer, channel_options, play_call

__all__ = ["Bot", "run"]

SDK = "arena-bot-python/0.1"
ENV_REFEREE = "ARENA_REFEREE"
ENV_TOKEN = "ARENA_TOKEN"


class Bot:
    """Subclass this and implement `act`.

    The SDK calls, in order: `on_game_start(start)` once, `act(observation, legal_actions)` for
    every decision asked of your seat (also outside your turn: check `self.request.context`),
    `on_notice(notice)` when the referee tells you about a strike, and `on_game_end(end)` once.
    Set `self.note` inside `act` to attach a short note to that answer (kept in the replay).
    """

    #: shown in replays (override it)
    name: str = "bot"
    version: str = "0"

    def __init__(self) -> None:
        self.start: bot_pb2.GameStart | None = None
        self.request: bot_pb2.DecisionRequest | None = None
        self.note: str = ""

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        """Index of the chosen action in `legal_actions`.

        `observation` is the game's typed message (`ClankObservation` for Clank!); pass it to
        `arena_bot.observation_dict` for the engine's plain-dict form.
        """
        raise NotImplementedError

    def on_game_start(self, start: bot_pb2.GameStart) -> None:
        """The game begins: `start.seat` is your seat, `start.time_control` your clock."""

    def on_notice(self, notice: bot_pb2.Notice) -> None:
        """The referee reports a timeout, a rejected answer or a forfeit (default: print it)."""
        print(f"[{self.name}] referee notice: {notice.code} {notice.message}", file=sys.stderr)

    def on_game_end(self, end: bot_pb2.GameEnd) -> None:
        """The game is over for you (`end.result` is unset if you were forfeited)."""


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="an Arena bot")
    parser.add_argument("--referee", default=os.environ.get(ENV_REFEREE), help=f"HOST:PORT (${ENV_REFEREE})")
    parser.add_argument("--token", default=os.environ.get(ENV_TOKEN), help=f"seat token (${ENV_TOKEN})")
    args = parser.parse_args(argv)
    if not args.referee or not args.token:
        parser.error(f"give --referee and --token (or set {ENV_REFEREE} and {ENV_TOKEN})")
    return args


def play(bot: Bot, referee: str, token: str) -> bot_pb2.GameEnd | None:
    """Play one match session; returns the GameEnd (None if the stream ended without one).

    Raises grpc.RpcError when the referee refuses the session or the stream breaks.
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
    with grpc.insecure_channel(referee, options=channel_options()) as channel:
        call = play_call(channel)(requests(), metadata=bearer(token))
        try:
            for msg in call:
                which = msg.WhichOneof("message")
                if which == "decision":
                    request = msg.decision
                    bot.request, bot.note = request, ""
                    actions = [decode_action(a) for a in request.legal_actions]
                    observation: Message | dict[str, Any] = unwrap(request.observation)
                    index = bot.act(observation, actions)
                    answer = bot_pb2.Answer(decision_id=request.decision_id, index=int(index), note=bot.note)
                    outbox.put(bot_pb2.BotMessage(answer=answer))
                elif which == "game_start":
                    bot.start = msg.game_start
                    bot.on_game_start(msg.game_start)
                elif which == "notice":
                    bot.on_notice(msg.notice)
                elif which == "game_end":
                    end = msg.game_end
                    bot.on_game_end(end)
        finally:
            outbox.put(None)
    return end


def run(bot: Bot, argv: Sequence[str] | None = None) -> int:
    """Command-line entry: `python my_bot.py --referee HOST:PORT --token T` (or the env vars).

    Returns the process exit code: 0 when the game ended normally.
    """
    args = _parse(argv)
    try:
        end = play(bot, args.referee, args.token)
    except grpc.RpcError as exc:
        code = exc.code() if isinstance(exc, grpc.Call) else None
        details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
        print(f"[{bot.name}] referee closed the session: {code}: {details}", file=sys.stderr)
        return 1
    if end is None:
        print(f"[{bot.name}] the stream ended before the game did", file=sys.stderr)
        return 1
    return 0
