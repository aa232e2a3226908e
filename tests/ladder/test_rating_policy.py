"""A ladder's rating policy (``ladder.rating_policy``): set by `arena ladder create`, stored on
the ladder, and read by everything that rates or re-checks its ratings -- recording, campaign
rating, the audit and the standings -- on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from statistics import NormalDist

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from cli.main import main
from ladder.bots import add_bot_version, register_bot
from ladder.campaigns import create_campaign, rate_campaign, record_game, schedule_game
from ladder.db import create_engine, upgrade
from ladder.elo import rating_deltas
from ladder.ladders import create_ladder, join_ladder, ladder_policy
from ladder.match_queue import claim_match, enqueue_match
from ladder.queries import standings
from ladder.rating_policy import DEFAULT_POLICY, RatingPolicy
from ladder.recording import record_result
from ladder.schema import ladders, rating_history
from ladder.skill import deviation_from_information, game_information
from referee.core.game import Result
from referee.games.clank_legacy.campaign import new_campaign
from tests.ladder.test_campaign_storage import _after, _seats, _versions
from workers.audit import audit_ladder


def _create(capsys: pytest.CaptureFixture[str], db_url: str, name: str, *options: str) -> int:
    """`arena ladder create NAME --game clank OPTIONS --db URL`; the new ladder's id."""
    code = main(["ladder", "create", name, "--game", "clank", *options, "--db", db_url])
    out, err = capsys.readouterr()
    assert code == 0, err
    return int(out.split("(id ")[1].split(")")[0])


def test_the_same_match_moves_ratings_by_each_ladders_k_and_each_audits_clean(
    db_url: str, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    """One match, the same two bots and places, recorded on a K=16 ladder, a K=32 ladder and a
    ladder with today's defaults: the winner gains K/2 on each (8, 16, and the provisional 20),
    and each ladder's audit, which replays with the ladder's policy, finds its books right."""
    k16 = _create(capsys, db_url, "clank-k16", "--k-factor", "16", "--initial-rating", "1200")
    k32 = _create(capsys, db_url, "clank-k32", "--k-factor", "32", "--confidence", "0.8")
    plain = _create(capsys, db_url, "clank-plain")
    with engine.connect() as conn:
        assert ladder_policy(conn, k16) == RatingPolicy(
            k_established=16, k_provisional=16, initial_rating=1200
        )
        assert ladder_policy(conn, k32) == RatingPolicy(k_established=32, k_provisional=32, confidence=0.8)
        assert ladder_policy(conn, plain) == DEFAULT_POLICY
    bots, versions = [], []
    for name in ("alpha", "beta"):
        reg = register_bot(engine, name, "tests")
        bots.append(reg.bot_id)
        versions.append(add_bot_version(engine, reg.bot_id, "1", f"python {name}.py"))
    result = Result(scores=(30, 10), places=(1, 2), outcomes=("escaped", "knocked_out"))
    gained = {}
    for ladder_id in (k16, k32, plain):
        for match_no in range(2):  # a second match: the ratings are apart, the audit replays E
            match_id = enqueue_match(engine, ladder_id, versions, seed=5 + match_no)
            assert claim_match(engine, match_id, "w", 60)
            rec = record_result(engine, match_id, result, b"{}", "finished")
            if match_no == 0:
                gained[ladder_id] = [(c.before, round(c.after - c.before, 9)) for c in rec.changes]
        assert audit_ladder(engine, ladder_id) == []
    assert gained == {
        k16: [(1200.0, 8.0), (1200.0, -8.0)],  # bots enter at the ladder's initial rating
        k32: [(1500.0, 16.0), (1500.0, -16.0)],
        plain: [(1500.0, 20.0), (1500.0, -20.0)],  # today's K 40 (provisional): nothing changed
    }
    # the standings' interval is the ladder's confidence: 80% on the K=32 ladder
    with engine.connect() as conn:
        table = standings(conn, k32)
        assert table is not None
        top = table["standings"][0]
        befores = list(
            conn.execute(
                sa.select(rating_history.c.before)
                .where(rating_history.c.ladder_id == k32, rating_history.c.bot_id == bots[0])
                .order_by(rating_history.c.id)
            ).scalars()
        )
    assert len(befores) == 2
    # each game at the ratings it was played at (equal K: the two changes cancel, so the
    # opponent stood at 3000 - before)
    information = sum(game_information(b, 2 * 1500.0 - b) for b in befores)
    half = NormalDist().inv_cdf(0.9) * deviation_from_information(information)
    assert top["rating_high"] - top["rating"] == pytest.approx(half, abs=0.11)


def test_the_audit_catches_a_rating_recorded_with_another_ladders_k(db_url: str, engine: Engine) -> None:
    """A K=16 ladder whose stored policy is later made to say K=32 (as if recording and audit
    disagreed): the audit replays with the stored policy and reports every bot."""
    ladder_id = create_ladder(
        engine, "clank-k16", "clank", 2, decision_ms=1000, bank_ms=1000, max_strikes=3,
        policy=RatingPolicy(k_established=16, k_provisional=16),
    )  # fmt: skip
    versions = []
    for name in ("alpha", "beta"):
        reg = register_bot(engine, name, "tests")
        versions.append(add_bot_version(engine, reg.bot_id, "1", f"python {name}.py"))
    match_id = enqueue_match(engine, ladder_id, versions, seed=1)
    assert claim_match(engine, match_id, "w", 60)
    result = Result(scores=(3, 1), places=(1, 2), outcomes=("", ""))
    record_result(engine, match_id, result, b"{}", "finished")
    assert audit_ladder(engine, ladder_id) == []
    with engine.begin() as conn:
        conn.execute(sa.update(ladders).where(ladders.c.id == ladder_id).values(k_provisional=32.0))
    problems = audit_ladder(engine, ladder_id)
    assert len(problems) == 2, problems
    assert "stored rating 1508.000000" in problems[0] + problems[1]
    assert "replayed 1516.000000" in problems[0] + problems[1]


def test_a_campaign_is_rated_with_its_ladders_k(engine: Engine) -> None:
    """Campaign rating reads the campaign ladder's policy: K 10 for everyone, from 1000."""
    policy = RatingPolicy(k_established=10, k_provisional=10, initial_rating=1000)
    ladder = create_ladder(
        engine, "legacy-2p", "clank_legacy", 2, decision_ms=1000, bank_ms=1000, max_strikes=3,
        kind="campaign", policy=policy,
    )  # fmt: skip
    versions = _versions(engine, 2)
    with engine.connect() as conn:
        bot_ids = [
            conn.execute(sa.text("SELECT bot_id FROM bot_versions WHERE id = :v"), {"v": v}).scalar_one()
            for v in versions
        ]
    for bot_id in bot_ids:
        join_ladder(engine, ladder, bot_id)
    state = new_campaign(2)
    cid = create_campaign(
        engine, players=2, seats=_seats(versions), seed=3, games=1, state=state.to_json(),
        decision_ms=1000, bank_ms=1000, max_strikes=3, rating_ladder_id=ladder,
    )  # fmt: skip
    schedule_game(engine, cid)
    after = _after(state, (9, 4))
    record_game(engine, cid, state.game_index, after.to_json(), scores=[9, 4], outcomes=["", ""], over=False)
    rated = rate_campaign(engine, cid)
    expected = rating_deltas([1000.0, 1000.0], (1, 2), [10.0, 10.0])
    assert rated.changes == pytest.approx(dict(zip(bot_ids, expected, strict=True)))
    assert expected == pytest.approx((5.0, -5.0))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--k-factor", "0"], "error: --k-factor: above 0, at most 400, got 0"),
        (["--k-factor", "nan"], "error: --k-factor: a finite number, got nan"),
        (["--k-provisional", "1e9"], "error: --k-provisional: above 0, at most 400"),
        (["--provisional-games", "-1"], "error: --provisional-games: 0 to 10000, got -1"),
        (["--confidence", "1"], "error: --confidence: at least 0.5, below 1, got 1"),
        (["--prior-games", "0"], "error: --prior-games: above 0"),
        (["--initial-rating", "inf"], "error: --initial-rating: a finite number"),
    ],
)
def test_a_bad_policy_option_is_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], words: str
) -> None:
    db = f"sqlite:///{tmp_path}/p.db"
    upgrade(db)
    code = main(["ladder", "create", "x", "--game", "clank", *options, "--db", db])
    _, err = capsys.readouterr()
    assert code == 1 and err.startswith(words), err
    assert err.count("\n") == 1 and "Traceback" not in err
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(ladders)).scalar_one() == 0
    finally:
        engine.dispose()


def test_a_cooperative_ladder_rates_its_bots_with_its_k(engine: Engine) -> None:
    """A team ladder with K 10: a fresh team beating a fresh scenario (E = 0.5) gains 5 per bot,
    the scenario keeps its own K (32: -16), and the audit's co-op replay agrees."""
    ladder_id = create_ladder(
        engine, "alien-k10", "alien", 2, decision_ms=1000, bank_ms=1000, max_strikes=3, kind="coop",
        policy=RatingPolicy(k_established=10, k_provisional=10),
    )  # fmt: skip
    versions = []
    for name in ("crew-a", "crew-b"):
        reg = register_bot(engine, name, "tests")
        versions.append(add_bot_version(engine, reg.bot_id, "1", f"python {name}.py"))
    match_id = enqueue_match(engine, ladder_id, versions, seed=1)
    won = Result((2, 2), (1, 1), ("survived", "survived"), team_won=True)
    rec = record_result(engine, match_id, won, b"{}", "finished")
    assert [c.delta for c in rec.changes] == pytest.approx([5.0, 5.0])
    assert rec.scenario is not None and rec.scenario.after - rec.scenario.before == pytest.approx(-16.0)
    assert audit_ladder(engine, ladder_id) == []
