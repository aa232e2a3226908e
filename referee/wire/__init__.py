"""The referee's side of the wire contract `arena.v1`: its generated stubs and its constants.

`referee/wire/_proto/` holds the stubs `proto/generate.py` writes (a byte-identical copy of the
Python SDK's, see proto/README.md), so the referee speaks the protocol without importing the
SDK under `bots/`. The constants below are the referee's own statement of the contract; the SDK
states the same ones in `bots/python/arena_bot/wire.py`, and `tests/referee/test_proto_stubs.py`
fails if the two disagree.
"""

from __future__ import annotations

from typing import Any, Final

import grpc

from ._proto.arena.v1 import admin_pb2

__all__ = ["ADMIN_SERVICE", "BOT_SERVICE", "LOBBY_METADATA", "PROTOCOL", "admin_calls", "bearer"]

#: protocol version of arena.v1 this referee speaks (sent in GameStart, checked against Hello)
PROTOCOL: Final = 1
#: full gRPC name of the service bots call
BOT_SERVICE: Final = "arena.v1.BotService"
#: full gRPC name of the operators' service
ADMIN_SERVICE: Final = "arena.v1.AdminService"
#: initial metadata of a bot-token stream: the bot id the referee took the token for
LOBBY_METADATA: Final = "arena-bot-id"


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying `token` (an admin credential, a seat or bot token)."""
    return (("authorization", f"Bearer {token}"),)


def admin_calls(channel: grpc.aio.Channel) -> dict[str, Any]:
    """AdminService methods on an asyncio channel, by name (the generated `*_pb2_grpc` modules
    carry no types; these callables are what the referee's own clients use)."""
    unary: dict[str, tuple[Any, Any]] = {
        "CreateMatch": (admin_pb2.CreateMatchRequest, admin_pb2.CreateMatchResponse),
        "GetMatch": (admin_pb2.GetMatchRequest, admin_pb2.MatchStatus),
        "GetReplay": (admin_pb2.GetMatchRequest, admin_pb2.Replay),
        "ListBots": (admin_pb2.ListBotsRequest, admin_pb2.ListBotsResponse),
        "CancelMatch": (admin_pb2.CancelMatchRequest, admin_pb2.MatchStatus),
    }
    calls: dict[str, Any] = {
        name: channel.unary_unary(
            f"/{ADMIN_SERVICE}/{name}",
            request_serializer=req.SerializeToString,
            response_deserializer=resp.FromString,
        )
        for name, (req, resp) in unary.items()
    }
    calls["WatchMatch"] = channel.unary_stream(
        f"/{ADMIN_SERVICE}/WatchMatch",
        request_serializer=admin_pb2.GetMatchRequest.SerializeToString,
        response_deserializer=admin_pb2.MatchEvent.FromString,
    )
    return calls
