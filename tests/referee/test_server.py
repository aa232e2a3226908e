"""The referee server: health, reflection, admin status codes, limits, many matches at once."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import grpc
import pytest
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2, common_pb2
from arena_bot.wire import ADMIN_SERVICE, BOT_SERVICE, bearer, channel_options, play_call
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from referee.replay import loads, verify
from referee.server.config import ServerLimits

from .conftest import CLOCK, RANDOM_BOT, ThreadedReferee

pytestmark = pytest.mark.integration


def _unary(channel: grpc.Channel, name: str, resp: type) -> grpc.UnaryUnaryMultiCallable:  # type: ignore[type-arg]
    return channel.unary_unary(
        f"/{ADMIN_SERVICE}/{name}",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=resp.FromString,
    )


@pytest.fixture
def channel(referee_server: ThreadedReferee) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(referee_server.address, options=channel_options()) as ch:
        yield ch


def create(channel: grpc.Channel, token: str, **fields: object) -> admin_pb2.CreateMatchResponse:
    request = admin_pb2.CreateMatchRequest(**fields)  # type: ignore[arg-type]
    result: admin_pb2.CreateMatchResponse = _unary(channel, "CreateMatch", admin_pb2.CreateMatchResponse)(
        request, metadata=bearer(token), timeout=10
    )
    return result


def code_of(fn, *args, **kwargs) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        fn(*args, **kwargs)
    return info.value.code()  # type: ignore[no-any-return, attr-defined]


def test_health_and_reflection(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", BOT_SERVICE, ADMIN_SERVICE):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {s.name for r in replies for s in r.list_services_response.service}
    assert {BOT_SERVICE, ADMIN_SERVICE, "grpc.health.v1.Health"} <= names


def test_admin_status_codes(channel: grpc.Channel, referee_server: ThreadedReferee) -> None:
    token = referee_server.admin_token
    seats = [admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")]
    assert code_of(create, channel, "wrong", game="clank", seats=seats) == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(create, channel, token, game="chess", seats=seats) == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(create, channel, token, game="clank", seats=[]) == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(create, channel, token, game="clank", seats=seats, config_json="{") == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    bad_clock = common_pb2.TimeControl(decision_ms=-5)
    assert code_of(create, channel, token, game="clank", seats=seats, time_control=bad_clock) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    get = _unary(channel, "GetMatch", admin_pb2.MatchStatus)
    assert code_of(get, admin_pb2.GetMatchRequest(match_id="nope"), metadata=bearer(token)) == (
        grpc.StatusCode.NOT_FOUND
    )
    made = create(channel, token, game="clank", seats=seats)
    replay = _unary(channel, "GetReplay", admin_pb2.Replay)
    assert code_of(replay, admin_pb2.GetMatchRequest(match_id=made.match_id), metadata=bearer(token)) == (
        grpc.StatusCode.FAILED_PRECONDITION
    )
    status = get(admin_pb2.GetMatchRequest(match_id=made.match_id), metadata=bearer(token))
    assert status.state == admin_pb2.MatchStatus.WAITING


def test_bot_stream_without_token_and_oversized_messages(
    channel: grpc.Channel, referee_server: ThreadedReferee
) -> None:
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x", protocol=1))
    assert code_of(lambda: list(play_call(channel)(iter([hello])))) == grpc.StatusCode.UNAUTHENTICATED
    made = create(
        channel,
        referee_server.admin_token,
        game="clank",
        seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")],
    )
    with grpc.insecure_channel(referee_server.address) as big:  # no client-side send cap
        for size in (200_000, 2_000_000):  # over the referee's limit; over gRPC's own limit too
            huge = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x" * size, protocol=1))
            with pytest.raises(grpc.RpcError) as refused:
                list(play_call(big)(iter([huge]), metadata=bearer(made.seat_tokens[0])))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
            if size == 200_000:
                assert "message too large" in refused.value.details()  # type: ignore[attr-defined]
    old = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x", protocol=99))
    code = code_of(lambda: list(play_call(channel)(iter([old]), metadata=bearer(made.seat_tokens[0]))))
    assert code == grpc.StatusCode.FAILED_PRECONDITION


def test_match_limit_is_resource_exhausted() -> None:
    ref = ThreadedReferee(ServerLimits(max_matches=2))
    try:
        with grpc.insecure_channel(ref.address) as ch:
            seats = [admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")]
            create(ch, ref.admin_token, game="clank", seats=seats)
            create(ch, ref.admin_token, game="clank", seats=seats)
            assert code_of(create, ch, ref.admin_token, game="clank", seats=seats) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED
            )
    finally:
        ref.close()


def test_seats_that_never_connect_are_forfeited(
    channel: grpc.Channel, referee_server: ThreadedReferee
) -> None:
    made = create(
        channel,
        referee_server.admin_token,
        game="clank",
        seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")],
        time_control=common_pb2.TimeControl(connect_ms=200),
    )
    replay_call = _unary(channel, "GetReplay", admin_pb2.Replay)
    deadline = time.monotonic() + 10
    while True:
        try:
            data = replay_call(
                admin_pb2.GetMatchRequest(match_id=made.match_id), metadata=bearer(referee_server.admin_token)
            ).data
            break
        except grpc.RpcError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    replay = loads(data)
    verify(replay)
    assert [s["forfeit"] for s in replay["seats"]] == ["never connected", "never connected"]


@pytest.mark.slow
def test_many_matches_at_once_in_one_referee(channel: grpc.Channel, referee_server: ThreadedReferee) -> None:
    import os

    matches = [
        create(
            channel,
            referee_server.admin_token,
            game="clank",
            seed=i,
            seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")],
            time_control=CLOCK.to_proto(),  # twelve processes start at once: a generous clock
        )
        for i in range(6)
    ]
    procs = [
        subprocess.Popen(
            RANDOM_BOT,
            shell=True,
            env={**os.environ, "ARENA_REFEREE": referee_server.address, "ARENA_TOKEN": token},
        )
        for m in matches
        for token in m.seat_tokens
    ]
    try:
        assert [p.wait(timeout=120) for p in procs] == [0] * len(procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    replay_call = _unary(channel, "GetReplay", admin_pb2.Replay)
    for m in matches:
        replay = loads(
            replay_call(
                admin_pb2.GetMatchRequest(match_id=m.match_id),
                metadata=bearer(referee_server.admin_token),
                timeout=10,
            ).data
        )
        assert replay["ended_by"] == "game_over"
        verify(replay)
