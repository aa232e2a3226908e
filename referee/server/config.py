"""Configuration values of the referee: a match's time control and the server's limits.

Small frozen value classes with module-level defaults; `PROTOCOL.md` documents every default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.wire._proto.arena.v1 import common_pb2

__all__ = [
    "DEFAULT_BANK_MS",
    "DEFAULT_CONNECT_MS",
    "DEFAULT_DECISION_MS",
    "DEFAULT_MAX_STRIKES",
    "MatchSpec",
    "ServerLimits",
    "TimeControl",
]

DEFAULT_DECISION_MS = 1_000
DEFAULT_BANK_MS = 30_000
DEFAULT_MAX_STRIKES = 3
DEFAULT_CONNECT_MS = 15_000
#: upper bounds accepted in a match config (a day-long clock is a mistake, not a setting)
MAX_DECISION_MS = 600_000
MAX_BANK_MS = 3_600_000
MAX_CONNECT_MS = 600_000
#: the CPU clock's bounds: as the wall clock's (0 turns it off)
MAX_CPU_DECISION_MS = MAX_DECISION_MS
MAX_CPU_BANK_MS = MAX_BANK_MS


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-decision allowance, per-seat time bank, strikes that forfeit, connect wait; and the
    optional CPU clock (`cpu_decision_ms` > 0): a per-decision CPU allowance and a per-seat CPU
    bank, applied to seats whose launcher measures the bot's CPU time (PROTOCOL.md, "CPU time").

    New fields go at the end: callers build this positionally.
    """

    decision_ms: int = DEFAULT_DECISION_MS
    bank_ms: int = DEFAULT_BANK_MS
    max_strikes: int = DEFAULT_MAX_STRIKES
    connect_ms: int = DEFAULT_CONNECT_MS
    #: per-decision CPU allowance; 0: no CPU clock
    cpu_decision_ms: int = 0
    #: per-seat CPU bank for the match (needs `cpu_decision_ms`)
    cpu_bank_ms: int = 0

    def __post_init__(self) -> None:
        for name, value, lowest, top in (
            ("decision_ms", self.decision_ms, 1, MAX_DECISION_MS),
            ("bank_ms", self.bank_ms, 0, MAX_BANK_MS),
            ("connect_ms", self.connect_ms, 1, MAX_CONNECT_MS),
            ("max_strikes", self.max_strikes, 1, 1000),
            ("cpu_decision_ms", self.cpu_decision_ms, 0, MAX_CPU_DECISION_MS),
            ("cpu_bank_ms", self.cpu_bank_ms, 0, MAX_CPU_BANK_MS),
        ):
            if not lowest <= value <= top:
                raise ValueError(f"time_control.{name} must be in {lowest}..{top}, got {value}")
        if self.cpu_bank_ms and not self.cpu_decision_ms:
            # a bank with no allowance is a mistake (the CPU clock is off), not a setting
            raise ValueError("time_control.cpu_bank_ms needs cpu_decision_ms (0 turns the CPU clock off)")

    @property
    def cpu_clock(self) -> bool:
        """True if the CPU clock is on (for the seats that are measured)."""
        return self.cpu_decision_ms > 0

    @classmethod
    def from_proto(cls, msg: common_pb2.TimeControl) -> TimeControl:
        """Zero fields take the defaults (the CPU fields: 0 is off); `bank_ms` takes its default
        only when unset, an explicit 0 is no bank. Raises ValueError for values out of range."""
        return cls(
            decision_ms=msg.decision_ms or DEFAULT_DECISION_MS,
            bank_ms=msg.bank_ms if msg.HasField("bank_ms") else DEFAULT_BANK_MS,
            max_strikes=msg.max_strikes or DEFAULT_MAX_STRIKES,
            connect_ms=msg.connect_ms or DEFAULT_CONNECT_MS,
            cpu_decision_ms=msg.cpu_decision_ms,
            cpu_bank_ms=msg.cpu_bank_ms,
        )

    def to_proto(self) -> common_pb2.TimeControl:
        """The wire form (`bank_ms` always set, so that 0 reads as no bank)."""
        return common_pb2.TimeControl(
            decision_ms=self.decision_ms,
            bank_ms=self.bank_ms,
            max_strikes=self.max_strikes,
            connect_ms=self.connect_ms,
            cpu_decision_ms=self.cpu_decision_ms,
            cpu_bank_ms=self.cpu_bank_ms,
        )

    def to_json(self) -> dict[str, int]:
        """For the replay (the CPU fields only when the CPU clock is on)."""
        doc = {
            "decision_ms": self.decision_ms,
            "bank_ms": self.bank_ms,
            "max_strikes": self.max_strikes,
            "connect_ms": self.connect_ms,
        }
        if self.cpu_clock:
            doc["cpu_decision_ms"] = self.cpu_decision_ms
            doc["cpu_bank_ms"] = self.cpu_bank_ms
        return doc


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """What a match is: the game, who sits where, the seed, the config and the clock."""

    game: str
    seat_names: tuple[str, ...]
    seed: int
    config: dict[str, Any] | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    match_id: str = ""
    #: per seat, the ladder bot id of a remote bot bound to it (0: a seat-token seat); empty:
    #: no seat is bound
    seat_bot_ids: tuple[int, ...] = ()
    #: the engine version played ("clank-1", a ladder's pinned rules, a rerun's replay's); empty:
    #: the build's current one
    engine_version: str = ""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """Limits that keep one referee process up whatever its clients do."""

    #: matches held at once (finished ones included until evicted); more: RESOURCE_EXHAUSTED
    max_matches: int = 1024
    #: finished matches kept for GetMatch / GetReplay before the oldest are dropped
    keep_finished: int = 256
    #: RPCs in flight at once in the whole server; more: RESOURCE_EXHAUSTED
    max_concurrent_rpcs: int = 8192
    #: HTTP/2 streams at once on one connection
    max_streams_per_connection: int = 256
    #: TCP connections open at once in the whole server (gRPC's connection quota); one more is
    #: closed as it is accepted. Per client address they are capped by the kernel, not here
    #: (deploy/referee-connlimit.nft: gRPC cannot count them; PROTOCOL.md, "Connections")
    max_connections: int = 4096
    #: BotService.Play streams open at once from one client address (Unix-socket clients and
    #: `--auth-limit-exempt` networks excepted); one more is RESOURCE_EXHAUSTED
    max_streams_per_address: int = 256
    #: a connection must finish its handshake (TLS, the HTTP/2 preface) this soon, or it is
    #: closed: a raw TCP connection that says nothing is dropped after this long
    handshake_timeout_ms: int = 10_000
    #: a connection that carries no RPC for this long is told to go away (GOAWAY) and closed; a
    #: bot playing or waiting in the lobby always has its stream open, a client reconnects
    #: by itself for its next call
    max_connection_idle_ms: int = 60_000
    #: largest message the referee accepts (a bot's answer is a few bytes); a bigger one forfeits
    #: the seat ("message too large"), or refuses a hello
    max_receive_bytes: int = 64 * 1024
    #: what gRPC itself accepts: above `max_receive_bytes` so that the referee sees an oversize
    #: message and rules on it; above this gRPC cuts the stream (the referee sees a disconnect)
    max_transport_receive_bytes: int = 1024 * 1024
    #: largest message the referee sends (observations; replays through GetReplay)
    max_send_bytes: int = 32 * 1024 * 1024
    #: The keepalive policy (PROTOCOL.md, "Keepalive"); the SDKs' settings must respect it
    #: (`bots/python/arena_bot/wire.py` KEEPALIVE_*, `bots/javascript/arena_bot.js`
    #: CHANNEL_OPTIONS; tests/referee/test_lifecycle.py checks both against these numbers).
    #: The referee pings an idle connection this often, and drops it if no pong comes in time:
    keepalive_time_ms: int = 60_000
    keepalive_timeout_ms: int = 20_000
    #: clients may ping this often at most (the SDKs ping every 30 s), even on a stream that
    #: carries no data for hours (a remote bot in the lobby); a ping sooner than this after the
    #: last one is a "ping strike"
    min_client_ping_interval_ms: int = 10_000
    #: ping strikes tolerated: one more and the connection is closed (GOAWAY ENHANCE_YOUR_CALM
    #: "too_many_pings", which the bot sees as UNAVAILABLE)
    max_ping_strikes: int = 2
    #: a bot must send its hello this soon after opening the stream
    hello_timeout_ms: int = 10_000
    #: a game still running after this many decisions is stopped (an engine bug, not a bot's)
    max_decisions: int = 200_000
    #: a seat bound to a remote bot that is connected but busy in other matches waits for it
    #: this long (past `connect_ms`) before it is forfeited
    remote_queue_ms: int = 900_000
    #: messages from one seat in one match that are not answers to its open decision (empty,
    #: unparseable, a second hello, a repeated late answer, a rejected answer): one more forfeits
    #: the seat "flood: ..." and ends its stream (a remote bot: between two games, its stream)
    max_bad_messages: int = 100
    #: answers waiting for the referee to read them, per seat (a bot has one open decision)
    max_inbox: int = 64
    #: messages waiting to be written to one stream; one more forfeits the seat "not reading"
    max_outbox: int = 256
    #: incidents kept per seat in the replay; later ones are only counted (`incidents_omitted`)
    max_incidents: int = 50

    def grpc_options(self) -> list[tuple[str, Any]]:
        """Channel arguments for grpc.aio.server."""
        return [
            ("grpc.max_receive_message_length", self.max_transport_receive_bytes),
            ("grpc.max_send_message_length", self.max_send_bytes),
            ("grpc.max_concurrent_streams", self.max_streams_per_connection),
            ("grpc.keepalive_time_ms", self.keepalive_time_ms),
            ("grpc.keepalive_timeout_ms", self.keepalive_timeout_ms),
            ("grpc.keepalive_permit_without_calls", 1),
            # gRPC core's name for the minimum interval between a client's pings. (A name gRPC
            # does not know is ignored silently: the default, 5 minutes, then applies, and a
            # bot idle in the lobby pinging every 30 s was cut off after about 2.5 minutes.)
            ("grpc.http2.min_ping_interval_without_data_ms", self.min_client_ping_interval_ms),
            ("grpc.http2.max_ping_strikes", self.max_ping_strikes),
            # keep pinging an idle stream (the default stops after 2 pings without data), so a
            # lobby bot that vanished without closing its connection is noticed
            ("grpc.http2.max_pings_without_data", 0),
            ("grpc.so_reuseport", 0),
            # connections that sit idle (raw TCP, or an HTTP/2 preface and nothing after) were
            # kept forever: 300 of 300 stayed open
            ("grpc.server_handshake_timeout_ms", self.handshake_timeout_ms),
            ("grpc.max_connection_idle_ms", self.max_connection_idle_ms),
            ("grpc.max_allowed_incoming_connections", self.max_connections),
        ]
