"""Throw over 10,000 random and mutated messages at a referee, then play a normal match on it."""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Iterator

import grpc
import pytest
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2, common_pb2
from arena_bot.wire import ADMIN_SERVICE, BOT_SERVICE, bearer
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.replay import loads, verify
from referee.server.auth import FailedAuthLimiter

from .conftest import RANDOM_BOT, ThreadedReferee

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_METHODS = ("CreateMatch", "GetMatch", "GetReplay")


def mutate(data: bytes, rnd: random.Random) -> bytes:
    """Flip, insert, delete or truncate a few bytes."""
    buf = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        op = rnd.randrange(4)
        if op == 0 and buf:
            i = rnd.randrange(len(buf))
            buf[i] ^= 1 << rnd.randrange(8)
        elif op == 1:
            buf.insert(rnd.randrange(len(buf) + 1), rnd.randrange(256))
        elif op == 2 and buf:
            del buf[rnd.randrange(len(buf))]
        elif buf:
            del buf[rnd.randrange(len(buf)) :]
    return bytes(buf)


def valid_bot_messages(rnd: random.Random) -> list[bytes]:
    return [
        bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="fuzz", protocol=1)).SerializeToString(),
        bot_pb2.BotMessage(
            answer=bot_pb2.Answer(
                decision_id=rnd.randrange(5), index=rnd.randrange(-3, 40), note="n" * rnd.randrange(300)
            )
        ).SerializeToString(),
        bot_pb2.BotMessage(answer=bot_pb2.Answer(decision_id=-1, index=2**31 - 1)).SerializeToString(),
    ]


def garbage(rnd: random.Random) -> bytes:
    if rnd.random() < 0.5:
        return rnd.randbytes(rnd.randrange(0, 200))
    return mutate(rnd.choice(valid_bot_messages(rnd)), rnd)


def test_referee_survives_fuzzing_then_serves_a_normal_match() -> None:
    rnd = random.Random(20240601)
    # thousands of forged and missing tokens from one address: the failed-authentication limit
    # (test_security_limits.py) would refuse them all; this test is about what comes after
    ref = ThreadedReferee(auth_limiter=FailedAuthLimiter(max_failures=10**9))
    sent = 0
    try:
        with grpc.insecure_channel(ref.address) as ch:
            play = ch.stream_stream(f"/{BOT_SERVICE}/Play")  # raw bytes both ways
            create = ch.unary_unary(
                f"/{ADMIN_SERVICE}/CreateMatch",
                response_deserializer=admin_pb2.CreateMatchResponse.FromString,
            )
            patient = common_pb2.TimeControl(decision_ms=60_000, max_strikes=1000, connect_ms=600_000)

            def new_tokens() -> list[str]:
                request = admin_pb2.CreateMatchRequest(
                    game="clank",
                    seats=[admin_pb2.SeatSpec(name="f1"), admin_pb2.SeatSpec(name="f2")],
                    time_control=patient,
                )
                made = create(request.SerializeToString(), metadata=bearer(ref.admin_token), timeout=10)
                return list(made.seat_tokens)

            def run_stream(messages: list[bytes], token: str | None) -> None:
                metadata = bearer(token) if token is not None else None
                call = play(iter(messages), metadata=metadata, timeout=10)
                try:
                    for _ in call:
                        pass  # read until the referee ends the stream
                except grpc.RpcError as exc:
                    assert exc.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), exc

            # 1. first messages that are not a hello, with valid, forged and missing tokens
            tokens = new_tokens()
            for i in range(2500):
                token = rnd.choice([tokens[0], tokens[1], "forged", None])
                first = garbage(rnd)
                if first == valid_bot_messages(rnd)[0]:
                    continue
                try:
                    run_stream([first], token)
                except AssertionError:
                    raise
                sent += 1
                if i % 500 == 499:
                    tokens = new_tokens()  # a lucky valid hello may have used a token up

            # 2. long streams of garbage after a proper hello (the referee rules, never falls)
            for _ in range(12):
                for token in new_tokens():
                    hello = valid_bot_messages(rnd)[0]
                    messages = [hello] + [garbage(rnd) for _ in range(250)]

                    def cancel_later(
                        call_messages: list[bytes] = messages, tok: str = token
                    ) -> Iterator[bytes]:
                        yield from call_messages

                    call = play(cancel_later(), metadata=bearer(token), timeout=10)
                    try:
                        for n, _ in enumerate(call):
                            if n > 300:
                                call.cancel()
                    except grpc.RpcError as exc:
                        assert exc.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), exc
                    sent += len(messages)

            # 3. random and mutated admin requests
            valid = admin_pb2.CreateMatchRequest(
                game="clank",
                seats=[admin_pb2.SeatSpec(name="x")] * 2,
                time_control=common_pb2.TimeControl(connect_ms=100),
            )
            for _ in range(2000):
                method = rnd.choice(ADMIN_METHODS)
                call_unary = ch.unary_unary(f"/{ADMIN_SERVICE}/{method}")
                payload = mutate(valid.SerializeToString(), rnd) if rnd.random() < 0.6 else rnd.randbytes(60)
                try:
                    call_unary(payload, metadata=bearer(ref.admin_token), timeout=10)
                except grpc.RpcError as exc:
                    assert exc.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), exc
                sent += 1
        assert sent >= 10_000

        # the referee still serves: health, then a normal match between two real bots
        with grpc.insecure_channel(ref.address) as ch:
            status = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert status.status == health_pb2.HealthCheckResponse.SERVING
            create = ch.unary_unary(
                f"/{ADMIN_SERVICE}/CreateMatch",
                request_serializer=admin_pb2.CreateMatchRequest.SerializeToString,
                response_deserializer=admin_pb2.CreateMatchResponse.FromString,
            )
            made = create(
                admin_pb2.CreateMatchRequest(
                    game="clank", seed=3, seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")]
                ),
                metadata=bearer(ref.admin_token),
            )
            procs = [
                subprocess.Popen(
                    RANDOM_BOT, shell=True, env={**os.environ, "ARENA_REFEREE": ref.address, "ARENA_TOKEN": t}
                )
                for t in made.seat_tokens
            ]
            assert [p.wait(timeout=60) for p in procs] == [0, 0]
            get_replay = ch.unary_unary(
                f"/{ADMIN_SERVICE}/GetReplay",
                request_serializer=admin_pb2.GetMatchRequest.SerializeToString,
                response_deserializer=admin_pb2.Replay.FromString,
            )
            replay = loads(
                get_replay(
                    admin_pb2.GetMatchRequest(match_id=made.match_id), metadata=bearer(ref.admin_token)
                ).data
            )
            assert replay["ended_by"] == "game_over"
            verify(replay)
    finally:
        ref.close()
