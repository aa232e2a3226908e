"""What a match keeps for its whole length is compact: WatchMatch's events (actions as numbers,
built into messages when read) and a seat's issued decision ids (one bit each) read back as
what was put in."""

from __future__ import annotations

import random

from referee.server.seat import DecisionIds
from referee.server.session import _EventLog
from referee.wire._proto.arena.v1 import admin_pb2


def test_events_read_back_as_the_messages_in_order() -> None:
    log = _EventLog()
    expected: list[admin_pb2.MatchEvent] = []
    rng = random.Random(3)
    for i in range(300):
        sequence = len(expected) + 1
        if i % 37 == 5:
            strike = admin_pb2.StrikeGiven(seat=1, decision_id=i, reason="timeout", strikes=2)
            event = admin_pb2.MatchEvent(sequence=sequence, strike=strike)
            log.other(event)
        else:
            cpu = None if i % 3 else rng.randrange(1_000)
            reason = rng.choice(["", "", "timeout", "cpu_time", "forfeited"])
            played = admin_pb2.ActionPlayed(
                decision_id=i, seat=i % 3, index=rng.randrange(40), text=f"play card {i}",
                millis=rng.randrange(100_000), reason=reason,
            )
            if cpu is not None:
                played.cpu_ms = cpu
            event = admin_pb2.MatchEvent(sequence=sequence, action=played)
            log.action(played.decision_id, played.seat, played.index, played.text, played.millis, reason, cpu)
        expected.append(event)
    assert len(log) == len(expected)
    assert [log[i] for i in range(len(log))] == expected
    # an unset cpu_ms stays unset (0 is a measured zero)
    assert not log[1].action.HasField("cpu_ms") and log[0].action.HasField("cpu_ms")


def test_decision_ids_are_a_set() -> None:
    ids, reference = DecisionIds(), set()
    rng = random.Random(7)
    for _ in range(2_000):
        n = rng.randrange(6_000)
        ids.add(n)
        reference.add(n)
    assert set(ids) == reference and len(ids) == len(reference)
    assert all((n in ids) == (n in reference) for n in range(-2, 6_100))
    stranger: object = "1"
    assert stranger not in ids and 2**80 not in ids
    ids.clear()
    assert len(ids) == 0 and 5 not in ids
