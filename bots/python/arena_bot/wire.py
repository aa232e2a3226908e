"""The two RPC endpoints as typed callables, plus the channel settings both ends agree on.

Generated `*_pb2_grpc.py` modules exist for authors who want them; the SDK uses these small typed
wrappers instead (the generated gRPC modules carry no type information). The referee states the
same constants in `referee/wire` (it does not import the SDK); a test checks the two agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from ._proto.arena.v1 import admin_pb2, bot_pb2

__all__ = [
    "ADMIN_SERVICE",
    "BOT_SERVICE",
    "KEEPALIVE_TIMEOUT_MS",
    "KEEPALIVE_TIME_MS",
    "LOBBY_METADATA",
    "MAX_BOT_MESSAGE",
    "MAX_REFEREE_MESSAGE",
    "NOTE_LIMIT",
    "PROTOCOL",
    "TLS_CA_ENV",
    "TLS_ENV",
    "Tls",
    "admin_calls",
    "aio_channel",
    "bearer",
    "channel",
    "channel_options",
    "play_call",
]

#: protocol version of arena.v1 spoken by this SDK
PROTOCOL = 1
BOT_SERVICE = "arena.v1.BotService"
#: initial metadata of a bot-token stream: the bot id the referee took the token for
LOBBY_METADATA = "arena-bot-id"
ADMIN_SERVICE = "arena.v1.AdminService"
#: the referee refuses bigger bot messages (an answer is a few bytes; notes are capped)
MAX_BOT_MESSAGE = 64 * 1024
#: an answer's note is cut to this many characters (the referee keeps no more in the replay)
NOTE_LIMIT = 256
#: observations of the largest game state stay far below this
MAX_REFEREE_MESSAGE = 4 * 1024 * 1024


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying `token`."""
    return (("authorization", f"Bearer {token}"),)


#: Keepalive (PROTOCOL.md, "Keepalive"): ping the referee every 30 s while a stream is open,
#: also when nothing else is sent for minutes (a remote bot waiting in the lobby), and give up
#: on a connection whose ping is not answered in 10 s. The referee accepts a ping every 10 s at
#: most; pinging more often gets the connection closed (GOAWAY "too_many_pings").
KEEPALIVE_TIME_MS = 30_000
KEEPALIVE_TIMEOUT_MS = 10_000


def channel_options() -> list[tuple[str, Any]]:
    """Client channel options: message limits and a keepalive the referee accepts."""
    return [
        ("grpc.max_receive_message_length", MAX_REFEREE_MESSAGE),
        ("grpc.max_send_message_length", MAX_BOT_MESSAGE),
        ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
        ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
        # no pings without a call: a bot holds its Play stream whenever it needs the connection
        ("grpc.keepalive_permit_without_calls", 0),
        # keep pinging while the stream is idle (gRPC's default stops after 2 pings without data,
        # then throttles): a dead connection in the lobby is found within 40 s
        ("grpc.http2.max_pings_without_data", 0),
    ]


#: "1" (or "true", "yes"): connect with TLS, trusting the system's CAs
TLS_ENV = "ARENA_TLS"
#: a PEM file of the CA(s) to trust instead of the system's; setting it turns TLS on
TLS_CA_ENV = "ARENA_CA"


@dataclass(frozen=True, slots=True)
class Tls:
    """How a client reaches the referee: plaintext (`enabled` False) or TLS, trusting the CAs
    in the PEM file `ca` (None: the system's roots)."""

    enabled: bool = False
    ca: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Tls:
        """From $ARENA_TLS / $ARENA_CA."""
        environ = os.environ if env is None else env
        ca = environ.get(TLS_CA_ENV) or None
        on = (environ.get(TLS_ENV) or "").strip().lower() in ("1", "true", "yes", "on")
        return cls(on or ca is not None, Path(ca) if ca else None)

    def credentials(self) -> grpc.ChannelCredentials:
        """gRPC channel credentials (TLS only). Raises OSError if the CA file cannot be read."""
        roots = self.ca.read_bytes() if self.ca is not None else None
        return grpc.ssl_channel_credentials(root_certificates=roots)


def channel(
    address: str, tls: Tls | None = None, options: list[tuple[str, Any]] | None = None
) -> grpc.Channel:
    """A blocking channel to `address`, over TLS if `tls.enabled`."""
    opts = channel_options() if options is None else options
    if tls is not None and tls.enabled:
        return grpc.secure_channel(address, tls.credentials(), options=opts)
    return grpc.insecure_channel(address, options=opts)


def aio_channel(
    address: str, tls: Tls | None = None, options: list[tuple[str, Any]] | None = None
) -> grpc.aio.Channel:
    """An asyncio channel to `address`, over TLS if `tls.enabled`."""
    if tls is not None and tls.enabled:
        return grpc.aio.secure_channel(address, tls.credentials(), options=options)
    return grpc.aio.insecure_channel(address, options=options)


def play_call(channel: grpc.Channel) -> grpc.StreamStreamMultiCallable:  # type: ignore[type-arg]
    """BotService.Play on `channel`."""
    return channel.stream_stream(
        f"/{BOT_SERVICE}/Play",
        request_serializer=bot_pb2.BotMessage.SerializeToString,
        response_deserializer=bot_pb2.RefereeMessage.FromString,
    )


def admin_calls(channel: grpc.aio.Channel) -> dict[str, Any]:
    """AdminService methods on an asyncio channel, by name."""
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
