"""Ladders of more than two seats: a newcomer is seated with the reference bots at once, and a
ladder that cannot make a match says why (the ladder page, ``ladder.waiting``)."""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from cli.client import add_reference_bots, create_ladder_with_reference_bots
from cli.main import main
from ladder.accounts import create_account
from ladder.api import create_app
from ladder.bots import add_bot_version, register_bot
from ladder.ladders import join_ladder
from ladder.schema import bot_versions, bots, ladder_entries, matches
from ladder.waiting import why_no_match
from workers.match_execution import run_match
from workers.matchmaker import fill_queues
from workers.qualification import reference_bots


def _newcomer(engine: Engine, name: str, *, qualification: str = "passed") -> tuple[int, int]:
    """An account's bot (not a reference bot) with one version; (bot id, version id)."""
    account = create_account(engine, f"{name}-owner")
    bot = register_bot(engine, name, f"{name}-owner", account_id=account.account_id, game="clank")
    version = add_bot_version(engine, bot.bot_id, "1", "builtin:greedy")
    with engine.begin() as conn:
        conn.execute(
            sa.update(bot_versions).where(bot_versions.c.id == version).values(qualification=qualification)
        )
    return bot.bot_id, version


def test_a_newcomer_on_a_four_seat_ladder_plays_a_rated_match_with_reference_bots(
    engine: Engine, db_url: str
) -> None:
    """`arena ladder create --players 4 --reference-bots` puts three reference bots on it (with
    two strategies: random, greedy, random-2), so the first bot that joins fills a
    table with them; the match is played and rated. With one reference bot per strategy (the
    old rule) there were three bots for four seats and nothing ever started."""
    ladder_id = create_ladder_with_reference_bots(
        engine, "clank-4p", "clank", 4, decision_ms=1000, bank_ms=30_000, max_strikes=3,
        # the game's strategies but the search bot (its rated game would take a minute here;
        # what is tested is the seat count: test_qualification_opponents seats it)
        reference=("random", "greedy"),
    )  # fmt: skip
    assert fill_queues(engine, lambda _m: None, target_depth=2, rng=random.Random(3)) == []
    bot_id, version = _newcomer(engine, "newcomer")
    join_ladder(engine, ladder_id, bot_id)
    with engine.connect() as conn:
        assert why_no_match(conn, ladder_id) is None
    made = fill_queues(engine, lambda _m: None, target_depth=2, rng=random.Random(3))
    assert len(made) == 2
    with engine.connect() as conn:
        seatings = [list(map(int, s)) for s in conn.execute(sa.select(matches.c.seats)).scalars()]
        names = set(
            conn.execute(
                sa.select(bots.c.name)
                .join(ladder_entries, ladder_entries.c.bot_id == bots.c.id)
                .where(ladder_entries.c.ladder_id == ladder_id)
            ).scalars()
        )
    assert names == {
        "newcomer", "reference-clank-random", "reference-clank-greedy", "reference-clank-random-2"
    }
    assert all(len(seats) == 4 and version in seats for seats in seatings), seatings
    assert run_match(db_url, made[0]).status == "recorded"
    with engine.connect() as conn:
        games = conn.execute(
            sa.select(ladder_entries.c.games).where(
                ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot_id
            )
        ).scalar_one()
    assert games == 1


def test_a_ladder_short_of_seats_says_why_on_its_page_until_reference_bots_are_added(
    engine: Engine, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 4-seat ladder holding two reference bots (as `--reference-bots` made it before): the
    page says what is missing, at each stage; `arena ladder reference-bots` adds the third and
    the ladder plays."""
    from ladder.ladders import create_ladder

    ladder_id = create_ladder(engine, "clank-4p", "clank", 4, decision_ms=1000, bank_ms=30_000, max_strikes=3)
    assert add_reference_bots(engine, ladder_id, "clank", 2, ("random", "greedy")) == [
        "reference-clank-random",
        "reference-clank-greedy",
    ]

    def why() -> str | None:
        with engine.connect() as conn:
            return why_no_match(conn, ladder_id)

    def page() -> str:
        with TestClient(create_app(engine)) as client:
            answer = client.get(f"/ladders/{ladder_id}")
        assert answer.status_code == 200
        return answer.text

    assert why() == (
        "no match yet: no bot on it has a qualified version (reference bots never play each other alone)"
    )
    bot_id, version = _newcomer(engine, "newcomer", qualification="pending")
    join_ladder(engine, ladder_id, bot_id)
    assert str(why()).endswith("alone); 1 bot still qualifying")
    with engine.begin() as conn:
        conn.execute(
            sa.update(bot_versions).where(bot_versions.c.id == version).values(qualification="passed")
        )
    short = (
        "no match can start: it needs 4 seats and has 1 bot + 2 reference bots ready; an operator "
        "adds reference bots with `arena ladder reference-bots clank-4p`, or wait for 1 more bot to "
        "join and qualify"
    )
    assert why() == short
    html = page()
    assert "Why no match:" in html and "arena ladder reference-bots clank-4p" in html
    assert fill_queues(engine, lambda _m: None, target_depth=2, rng=random.Random(1)) == []

    assert main(["ladder", "reference-bots", "clank-4p", "--db", db_url]) == 0
    out = capsys.readouterr().out
    # the game's strategies now include the search bot: the third seat is it
    assert "reference bots added: reference-clank-ismcts" in out
    assert why() is None
    assert "Why no match:" not in page()
    assert len(fill_queues(engine, lambda _m: None, target_depth=2, rng=random.Random(1))) == 2


def test_a_newcomer_on_a_four_seat_campaign_ladder_starts_a_campaign_with_reference_bots(
    engine: Engine,
) -> None:
    """The same on a 4-seat campaign ladder: `arena beat`'s campaign step starts a campaign
    seating the newcomer and the ladder's three reference bots (with two there were three bots
    for four seats: no campaign, and the ladder said nothing)."""
    from ladder.schema import campaigns
    from workers.campaign_ladders import tick_campaign_ladders

    ladder_id = create_ladder_with_reference_bots(
        engine, "legacy-4p", "clank_legacy", 4, decision_ms=1000, bank_ms=30_000, max_strikes=3,
        reference=reference_bots("clank_legacy"),
    )  # fmt: skip
    rng = random.Random(4)
    assert tick_campaign_ladders(engine, lambda _m: None, per_ladder=1, games=1, rng=rng).started == []
    account = create_account(engine, "legacy-owner")
    bot = register_bot(engine, "legacy-newcomer", "legacy-owner", account_id=account.account_id,
                       game="clank_legacy")  # fmt: skip
    version = add_bot_version(engine, bot.bot_id, "1", "builtin:greedy")
    join_ladder(engine, ladder_id, bot.bot_id)
    with engine.connect() as conn:
        assert why_no_match(conn, ladder_id) is None
    tick = tick_campaign_ladders(engine, lambda _m: None, per_ladder=1, games=1, rng=rng)
    assert len(tick.started) == 1 and len(tick.dispatched) == 1
    with engine.connect() as conn:
        seats = conn.execute(
            sa.select(campaigns.c.seats).where(campaigns.c.id == tick.started[0])
        ).scalar_one()
    assert len(seats) == 4 and version in [s["version_id"] for s in seats]
    assert sorted(s["bot"] for s in seats) == [
        "legacy-newcomer", "reference-clank_legacy-greedy", "reference-clank_legacy-ismcts",
        "reference-clank_legacy-random",
    ]
