"""The two clients of tests/deploy/test_referee_connlimit.py, each run in its own network namespace
(`ip netns exec NS python connlimit_client.py ...`), so each has an address of its own.

``flood HOST:PORT N``: the attacker. Opens N TCP connections, each sending the HTTP/2 preface and
an empty SETTINGS frame (so the referee keeps it until its idle timeout, not just its handshake
timeout), and prints one JSON line: how many were accepted, refused (a TCP reset), failed
otherwise, and how many of the accepted ones the referee answered with HTTP/2 frames (the referee
itself holds them, not only the kernel). Then holds them all until its standard input closes.

``play HOST:PORT``: an honest author. Creates a two-seat Clank! match with the admin token
($ARENA_ADMIN_TOKEN), plays it with the Python SDK's example bot in both seats (two processes,
two connections), and prints the match's status as one JSON line.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "bots" / "python" / "examples" / "random_bot.py"
#: the client's connection preface and an empty SETTINGS frame (RFC 9113, 3.4)
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes.fromhex("000000040000000000")


def flood(address: str, count: int) -> None:
    host, port = address.rsplit(":", 1)
    held: list[socket.socket] = []
    refused = failed = 0
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(5)
        try:
            sock.connect((host, int(port)))
            sock.sendall(PREFACE)
        except ConnectionRefusedError:
            refused += 1
            sock.close()
            continue
        except OSError:
            failed += 1
            sock.close()
            continue
        held.append(sock)
    answered = 0
    for sock in held:  # the referee's own SETTINGS frame: it has the connection
        with contextlib.suppress(OSError):
            answered += bool(sock.recv(9))
    print(json.dumps({"accepted": len(held), "refused": refused, "failed": failed, "answered": answered}),
          flush=True)
    select.select([sys.stdin], [], [])  # hold them until told to let go
    for sock in held:
        sock.close()


def play(address: str) -> None:
    from arena_bot._proto.arena.v1 import admin_pb2
    from arena_bot.wire import ADMIN_SERVICE, Tls, bearer, channel

    token = os.environ["ARENA_ADMIN_TOKEN"]

    def admin(method: str, request: Any, response: Any) -> Any:
        with channel(address, Tls()) as ch:
            call = ch.unary_unary(
                f"/{ADMIN_SERVICE}/{method}",
                request_serializer=request.SerializeToString,
                response_deserializer=response.FromString,
            )
            return call(request, metadata=bearer(token), timeout=20)

    made = admin("CreateMatch", admin_pb2.CreateMatchRequest(
        game="clank", seats=[admin_pb2.SeatSpec(name="first"), admin_pb2.SeatSpec(name="second")],
    ), admin_pb2.CreateMatchResponse)
    bots = [
        subprocess.Popen([sys.executable, str(EXAMPLE), "--referee", address, "--token", seat_token],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for seat_token in made.seat_tokens
    ]
    errors = [bot.communicate(timeout=120)[1].decode(errors="replace")[-500:] for bot in bots]
    deadline = time.monotonic() + 30  # a wait for the referee to close the match, not a measure
    while True:
        status = admin("GetMatch", admin_pb2.GetMatchRequest(match_id=made.match_id),
                       admin_pb2.MatchStatus)
        if status.state == admin_pb2.MatchStatus.FINISHED or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    print(json.dumps({
        "state": admin_pb2.MatchStatus.State.Name(status.state),
        "ended_by": status.ended_by,
        "decisions": status.decisions,
        "forfeited": [s.forfeited for s in status.seats],
        "bot_exits": [bot.returncode for bot in bots],
        "bot_errors": [e for e in errors if e],
    }), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "flood":
        flood(sys.argv[2], int(sys.argv[3]))
    else:
        play(sys.argv[2])
