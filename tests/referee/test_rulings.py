"""The referee's rulings as values (referee/server/rulings.py), without asyncio or a server.

The session applies these values; tests/referee/test_misbehaviour.py, test_cpu_clock.py and
test_flood.py check the same rulings end to end against real bots.
"""

from __future__ import annotations

import grpc
import pytest

from referee.core.game import Action, Decision
from referee.games import all_specs, game_class, game_spec
from referee.server import rulings
from referee.server.rulings import (
    Accepted,
    Banks,
    DecisionClock,
    Forfeit,
    ForfeitKind,
    Late,
    NoticeKind,
    Rejected,
    StrikeKind,
)
from referee.server.seat import SeatPhase, SeatState


def clock(
    wall_bank: int = 1000,
    cpu_bank: int = 500,
    *,
    cpu_decision_ms: int = 0,
    cpu_ruled: bool = False,
) -> DecisionClock:
    return DecisionClock(
        200,
        Banks(wall_bank, cpu_bank),
        cpu_decision_ms,
        cpu_clock=cpu_decision_ms > 0,
        cpu_ruled=cpu_ruled,
    )


# --- answers -------------------------------------------------------------------------------


def test_an_answer_to_the_pending_decision_in_range_is_accepted() -> None:
    assert rulings.rule_answer(7, 3, 7, 2, {5, 6, 7}, set()) == Accepted()


def test_an_index_out_of_range_is_rejected_with_invalid_argument() -> None:
    for index in (3, -1):
        ruling = rulings.rule_answer(7, 3, 7, index, {7}, set())
        assert ruling == Rejected(StrikeKind.INDEX_OUT_OF_RANGE, f"index {index} is out of range 0..2")
        assert isinstance(ruling, Rejected)
        assert ruling.kind.code is grpc.StatusCode.INVALID_ARGUMENT


def test_an_answer_to_a_decision_never_sent_is_rejected_with_failed_precondition() -> None:
    ruling = rulings.rule_answer(7, 3, 99, 0, {5, 6, 7}, set())
    assert ruling == Rejected(StrikeKind.UNKNOWN_DECISION, "answer names decision 99, the pending one is 7")
    assert ruling.kind.code is grpc.StatusCode.FAILED_PRECONDITION


def test_the_first_late_answer_to_a_timed_out_decision_is_expected_a_repeat_is_a_bad_message() -> None:
    expected = rulings.rule_answer(7, 3, 6, 0, {6, 7}, {6})
    assert expected == Late(6, expected=True)
    assert isinstance(expected, Late) and expected.bad_message is None
    repeated = rulings.rule_answer(7, 3, 5, 0, {5, 6, 7}, {6})
    assert repeated == Late(5, expected=False)
    assert isinstance(repeated, Late)
    assert repeated.bad_message == "a repeated answer to decision 5"
    notice = rulings.late_notice(5)
    assert (notice.kind, notice.decision_id, notice.code) == (
        NoticeKind.LATE,
        5,
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert notice.message == "decision 5 is already settled; answer ignored"


def test_a_rejected_answer_notice_counts_the_strike_and_keeps_the_decision_open() -> None:
    rejected = Rejected(StrikeKind.INDEX_OUT_OF_RANGE, "index 9 is out of range 0..2")
    notice = rulings.rejected_notice(rejected, 4, 2, 3)
    assert notice.kind is NoticeKind.REJECTED and notice.decision_id == 4
    assert notice.code is grpc.StatusCode.INVALID_ARGUMENT
    assert notice.message == ("index 9 is out of range 0..2; strike 2 of 3, the decision is still open")
    # a message that is no answer is about no decision (not decision 0)
    bad = rulings.bad_message_notice("a second hello")
    assert bad.decision_id is None and bad.code is grpc.StatusCode.INVALID_ARGUMENT
    assert bad.message == "expected an answer, got a second hello; ignored"


# --- the clock -----------------------------------------------------------------------------


def test_an_answer_spends_the_time_bank_beyond_the_decision_time_only() -> None:
    c = clock(wall_bank=1000)
    assert c.allowance_s == 1.2
    assert c.answered(150, None) == Banks(1000, 500)  # within the decision time: nothing
    assert c.answered(450, None) == Banks(750, 500)
    assert c.answered(5000, None) == Banks(0, 500)  # never below 0


def test_an_answer_spends_the_cpu_bank_only_with_the_cpu_clock_on_and_a_reading() -> None:
    on = clock(cpu_bank=500, cpu_decision_ms=100, cpu_ruled=True)
    assert on.cpu_allowance_ms == 600
    assert on.answered(100, 80) == Banks(1000, 500)
    assert on.answered(100, 300) == Banks(1000, 300)
    assert on.answered(100, None) == Banks(1000, 500)  # the meter could not be read
    off = clock(cpu_bank=500)
    assert off.answered(100, 300) == Banks(1000, 500)  # CPU time only recorded


def test_cpu_spent_only_on_a_cpu_ruled_decision_past_its_allowance() -> None:
    ruled = clock(cpu_bank=500, cpu_decision_ms=100, cpu_ruled=True)
    assert not ruled.cpu_spent(600) and ruled.cpu_spent(601)
    assert not ruled.cpu_spent(None)
    assert not clock(cpu_bank=500, cpu_decision_ms=100, cpu_ruled=False).cpu_spent(10_000)


def test_the_cpu_meter_is_read_sooner_as_the_allowance_runs_out() -> None:
    ruled = clock(cpu_bank=500, cpu_decision_ms=100, cpu_ruled=True)
    assert ruled.poll_wait(1.0, 0, 0.015, 0.002, 2) == 0.015
    assert ruled.poll_wait(1.0, 590, 0.015, 0.002, 2) == pytest.approx(0.005)
    assert ruled.poll_wait(1.0, 600, 0.015, 0.002, 2) == 0.002
    assert ruled.poll_wait(0.001, 0, 0.015, 0.002, 2) == 0.001  # the wall deadline is sooner
    assert ruled.poll_wait(1.0, None, 0.015, 0.002, 2) == 1.0
    assert clock().poll_wait(1.0, 0, 0.015, 0.002, 2) == 1.0


def test_a_wall_timeout_empties_the_time_bank_charges_cpu_and_plays_the_default() -> None:
    c = clock(wall_bank=1000, cpu_bank=500, cpu_decision_ms=100, cpu_ruled=True)
    ruling = rulings.time_out(c, StrikeKind.TIMEOUT, 4, 1203, 250, 1, "end the turn")
    assert ruling.banks == Banks(0, 350)
    assert (ruling.index, ruling.elapsed_ms, ruling.cpu_ms) == (1, 1203, 250)
    assert ruling.detail == "no answer in 1203 ms; played 'end the turn'"
    n = ruling.notice
    assert (n.kind, n.decision_id, n.code, n.default_index) == (
        NoticeKind.TIMEOUT,
        4,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        1,
    )
    assert n.message == "no answer in time; played index 1 (end the turn)"


def test_a_cpu_timeout_empties_the_cpu_bank_and_charges_the_wall_bank() -> None:
    c = clock(wall_bank=1000, cpu_bank=500, cpu_decision_ms=100, cpu_ruled=True)
    ruling = rulings.time_out(c, StrikeKind.CPU_TIME, 4, 700, 601, 0, "trash nothing")
    assert ruling.banks == Banks(500, 0)
    assert ruling.detail == "601 ms of CPU in 700 ms; played 'trash nothing'"
    assert ruling.notice.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert ruling.notice.message == "out of CPU time (601 ms used); played index 0 (trash nothing)"
    with pytest.raises(ValueError, match="not a clock"):
        rulings.time_out(c, StrikeKind.UNKNOWN_DECISION, 4, 700, 601, 0, "x")


# --- forfeits ------------------------------------------------------------------------------


def test_strikes_forfeit_at_max_strikes_naming_the_last_rejection() -> None:
    assert rulings.strikes_forfeit(2, 3) is None
    assert rulings.strikes_forfeit(3, 3) == Forfeit(ForfeitKind.STRIKES, "3 of 3")
    last = rulings.strikes_forfeit(3, 3, StrikeKind.INDEX_OUT_OF_RANGE)
    assert last is not None
    assert last.reason == "strikes: 3 of 3 (last: index_out_of_range)"
    assert last.code is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_strike_counting_forfeits_from_the_max_th_strike_on() -> None:
    forfeits = [rulings.strikes_forfeit(n, 3, StrikeKind.UNKNOWN_DECISION) for n in range(1, 5)]
    assert forfeits[:2] == [None, None]
    assert forfeits[2] == Forfeit(ForfeitKind.STRIKES, "3 of 3 (last: unknown_decision)")
    assert forfeits[3] == Forfeit(ForfeitKind.STRIKES, "4 of 3 (last: unknown_decision)")


def test_bad_messages_forfeit_past_the_budget_as_a_flood() -> None:
    assert rulings.bad_message_forfeit(100, 100, "an empty message") is None
    forfeit = rulings.bad_message_forfeit(101, 100, "an empty message")
    assert forfeit is not None and forfeit.kind is ForfeitKind.FLOOD
    assert forfeit.reason == (
        "flood: more than 100 messages that were not answers to the open decision (last: an empty message)"
    )


@pytest.mark.parametrize(
    ("forfeit", "reason", "code"),
    [
        (Forfeit(ForfeitKind.NEVER_CONNECTED), "never connected", grpc.StatusCode.UNAVAILABLE),
        (Forfeit.crashed(3), "crashed: exit code 3", grpc.StatusCode.UNAVAILABLE),
        (Forfeit.crashed(0), "exited before the game ended", grpc.StatusCode.UNAVAILABLE),
        (
            Forfeit(ForfeitKind.DISCONNECTED, "the bot closed its stream"),
            "disconnected: the bot closed its stream",
            grpc.StatusCode.UNAVAILABLE,
        ),
        (
            Forfeit(ForfeitKind.TOO_LARGE, "70000 bytes (the limit is 65536)"),
            "message too large: 70000 bytes (the limit is 65536)",
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        ),
        (
            Forfeit(ForfeitKind.NOT_READING, "more than 256 messages"),
            "not reading: more than 256 messages",
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        ),
    ],
)
def test_forfeit_reasons_and_codes(forfeit: Forfeit, reason: str, code: grpc.StatusCode) -> None:
    assert forfeit.reason == reason
    assert forfeit.code is code
    assert Forfeit.parse(reason) == forfeit  # the text names the same value back


def test_a_reason_that_names_no_forfeit_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="not a forfeit reason"):
        Forfeit.parse("bored: the bot left")
    assert ForfeitKind.of("bored: the bot left") is None
    assert ForfeitKind.of("flooded") is None  # a kind's name must end the text or come before ": "


# --- the seat's phase ----------------------------------------------------------------------


def seat() -> SeatState:
    return SeatState(0, "bot", "seat_x", 1000, {"incidents": []})


def test_a_lost_seat_waits_for_its_forfeit_and_a_faulted_one_stays_faulted_after_it() -> None:
    assert seat().phase is SeatPhase.IN_GAME
    s = seat()
    assert s.pending is None and not s.forfeited and not s.faulted
    s.lose(Forfeit(ForfeitKind.DISCONNECTED, "x"))
    assert s.phase is SeatPhase.LOST and s.pending is not None and not s.faulted
    assert s.forfeit_reason == ""  # not forfeited yet
    s.out(s.pending)
    assert s.forfeited and s.pending is None and s.forfeit_reason == "disconnected: x"

    f = seat()
    f.fault(Forfeit(ForfeitKind.FLOOD, "too many"))
    assert f.phase is SeatPhase.FAULTED and f.faulted
    f.out(Forfeit(ForfeitKind.FLOOD, "too many"))
    assert f.faulted and f.forfeit_reason == "flood: too many"


# --- the default action --------------------------------------------------------------------


def decision(*actions: Action) -> Decision:
    return Decision(0, 0, "test", "", actions)


def test_clank_plays_end_turn_then_skip_then_the_first_action() -> None:
    game = game_class("clank").new_game(game_class("clank").default_config(2), 1)
    assert game.default_index(decision(Action("play", ("x",)), Action("end_turn"))) == 1
    assert game.default_index(decision(Action("trash", ("play", "x")), Action("skip"))) == 1
    assert game.default_index(decision(Action("skip"), Action("end_turn"))) == 1
    assert game.default_index(decision(Action("choose", (0,)), Action("choose", (1,)))) == 0


def test_alien_plays_end_turn_then_pass_so_a_timeout_lends_nothing() -> None:
    game = game_class("alien").new_game(game_class("alien").default_config(2), 1)
    assert game.default_index(decision(Action("coordinate", ("card",)), Action("pass"))) == 1
    assert game.default_index(decision(Action("pass"), Action("end_turn"))) == 1
    assert game.default_index(decision(Action("attack", (0,)), Action("recruit", (1,)))) == 0


@pytest.mark.parametrize("name", [spec.name for spec in all_specs()])
def test_a_game_played_by_default_actions_takes_the_passive_one_each_time(name: str) -> None:
    """Every registered game: a seat that never answers plays the first of its spec's passive
    kinds that is legal, else the first action."""
    spec = game_spec(name)
    assert spec.passive_kinds, "a game names the actions a silent seat plays"
    cls = game_class(name)
    game = cls.new_game(cls.default_config(max(2, spec.min_players)), 7)
    for _ in range(300):
        d = game.decision()
        if d is None:
            break
        kinds = [a.kind for a in d.actions]
        passive = [k for k in spec.passive_kinds if k in kinds]
        index = game.default_index(d)
        assert index == (kinds.index(passive[0]) if passive else 0), (d.kind, kinds)
        game.apply_index(index)
