"""Stored campaigns on SQLite and PostgreSQL: scheduling a game once per index, writing its
outcome and the new state in one idempotent transaction, and rating a finished campaign once on
a campaign ladder (the formula of ladder/RATINGS.md, "Campaign ladders")."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot
from ladder.campaigns import (
    campaign_places,
    campaign_row,
    create_campaign,
    game_seed,
    load_campaign_games,
    rate_campaign,
    record_game,
    schedule_game,
)
from ladder.db import create_engine, downgrade, upgrade
from ladder.elo import rating_deltas
from ladder.errors import InvalidInput, NotFound
from ladder.ladders import create_ladder, join_ladder
from ladder.queries import standings
from ladder.schema import campaign_ratings, ladder_entries, matches
from ladder.skill import Z95, elo_deviation
from referee.core.effects import Effect
from referee.games.clank_legacy.campaign import (
    CampaignState,
    MissionReport,
    apply_permanent,
    close_game,
    new_campaign,
)
from tests.ladder.conftest import make_roster
from workers.matchmaker import load_ladder_views


def _versions(engine: Engine, n: int) -> list[int]:
    out = []
    for i in range(n):
        reg = register_bot(engine, f"legacy{i}", f"owner{i}")
        out.append(add_bot_version(engine, reg.bot_id, "1.0", f"builtin:{'greedy' if i % 2 else 'random'}"))
    return out


def _seats(versions: list[int]) -> list[dict[str, Any]]:
    return [{"version_id": v, "bot": f"bot{i}", "name": f"Name {i}"} for i, v in enumerate(versions)]


def _after(state: CampaignState, scores: tuple[int, ...]) -> CampaignState:
    """The state after game `state.game_index` with these scores (as an engine would leave it)."""
    g = state.game_index
    nxt = apply_permanent(state, Effect(op="next_game", n=101 + g))
    mvp = max(range(len(scores)), key=lambda s: (scores[s], -s))
    return close_game(nxt, MissionReport(g, 100 + g, 150 + g, g, scores, (mvp,), (), mvp, (), state.digest()))


def test_campaign_ladder_kind_is_accepted_and_checked(engine: Engine) -> None:
    ladder_id = create_ladder(
        engine,
        "legacy-campaigns",
        "clank_legacy",
        2,
        decision_ms=1000,
        bank_ms=1000,
        max_strikes=3,
        kind="campaign",
    )
    assert ladder_id > 0
    with pytest.raises(InvalidInput, match="campaign ladders are for clank_legacy"):
        create_ladder(
            engine, "c2", "clank", 2, decision_ms=1000, bank_ms=1000, max_strikes=3, kind="campaign"
        )
    with engine.begin() as conn, pytest.raises(sa.exc.IntegrityError):
        conn.execute(sa.text("UPDATE ladders SET kind = 'league' WHERE id = :i"), {"i": ladder_id})


def test_schedule_is_once_per_index_and_carries_the_state(engine: Engine) -> None:
    versions = _versions(engine, 2)
    state = new_campaign(2)
    cid = create_campaign(engine, players=2, seats=_seats(versions), seed=7, games=10, state=state.to_json())
    first = schedule_game(engine, cid)
    again = schedule_game(engine, cid)
    assert first is not None and again is not None
    assert (again.match_id, again.index, again.seed) == (first.match_id, 1, game_seed(7, 1))
    assert first.state_before == state.digest()
    with engine.connect() as conn:
        match = conn.execute(sa.select(matches).where(matches.c.id == first.match_id)).one()
        assert match.config == {"players": 2, "campaign": state.to_json()}
        assert list(match.seats) == versions and match.seed == game_seed(7, 1)
        assert len(load_campaign_games(conn, cid)) == 1
    assert game_seed(7, 1) != game_seed(7, 2) != game_seed(8, 2)


def test_record_game_is_one_idempotent_step(engine: Engine) -> None:
    versions = _versions(engine, 2)
    state = new_campaign(2)
    cid = create_campaign(engine, players=2, seats=_seats(versions), seed=1, games=2, state=state.to_json())
    with pytest.raises(InvalidInput, match="never scheduled"):
        record_game(engine, cid, 1, state.to_json(), scores=[1, 2], outcomes=["", ""], over=False)
    schedule_game(engine, cid)
    after = _after(state, (12, 30))
    assert record_game(
        engine, cid, 1, after.to_json(), scores=[12, 30], outcomes=["knocked_out", "escaped"], over=False
    )
    # a retried game (same index) is not counted again, whatever it carries
    assert not record_game(engine, cid, 1, state.to_json(), scores=[99, 0], outcomes=["", ""], over=False)
    with engine.connect() as conn:
        row = campaign_row(conn, cid)
        assert (row.next_index, row.status, row.state_digest) == (2, "running", after.digest())
        assert CampaignState.from_json(row.state) == after
        (game,) = load_campaign_games(conn, cid)
        assert (game.state_before, game.state_after, game.scores) == (
            state.digest(),
            after.digest(),
            (12, 30),
        )
    with pytest.raises(InvalidInput, match="not its next game"):
        record_game(engine, cid, 3, after.to_json(), scores=[0, 0], outcomes=["", ""], over=False)
    second = schedule_game(engine, cid)
    assert second is not None and second.index == 2 and second.state_before == after.digest()
    final = _after(after, (5, 1))
    assert record_game(engine, cid, 2, final.to_json(), scores=[5, 1], outcomes=["", ""], over=False)
    with engine.connect() as conn:
        assert campaign_row(conn, cid).status == "finished"  # its two games are played
    assert schedule_game(engine, cid) is None


def test_a_finished_campaign_is_rated_once_by_its_totals(engine: Engine) -> None:
    ladder = create_ladder(
        engine, "legacy-3p", "clank_legacy", 3, decision_ms=1000, bank_ms=1000, max_strikes=3, kind="campaign"
    )
    versions = _versions(engine, 3)
    # a campaign rated on a ladder is played among its bots, at its time control
    with engine.connect() as conn:
        for v in versions:
            join_ladder(engine, ladder, conn.execute(
                sa.text("SELECT bot_id FROM bot_versions WHERE id = :v"), {"v": v}
            ).scalar_one())  # fmt: skip
    state = new_campaign(3)
    cid = create_campaign(
        engine,
        players=3,
        seats=_seats(versions),
        seed=3,
        games=2,
        state=state.to_json(),
        decision_ms=1000,
        bank_ms=1000,
        max_strikes=3,
        rating_ladder_id=ladder,
    )
    assert rate_campaign(engine, cid).changes == {}  # not finished yet: nothing
    totals = [0, 0, 0]
    for scores in ((10, 40, 20), (50, 5, 20)):
        schedule_game(engine, cid)
        after = _after(state, scores)
        record_game(
            engine, cid, state.game_index, after.to_json(), scores=scores, outcomes=["", "", ""], over=False
        )
        state = after
        totals = [a + b for a, b in zip(totals, scores, strict=True)]
    assert totals == [60, 45, 40] and campaign_places(totals) == (1, 2, 3)
    rated = rate_campaign(engine, cid)
    expected = rating_deltas([1500.0] * 3, (1, 2, 3), [40.0] * 3)
    with engine.connect() as conn:
        bot_ids = [
            conn.execute(sa.text("SELECT bot_id FROM bot_versions WHERE id = :v"), {"v": v}).scalar_one()
            for v in versions
        ]
    assert rated.changes == pytest.approx(dict(zip(bot_ids, expected, strict=True)))
    again = rate_campaign(engine, cid)
    assert again.already_rated and again.changes == {}
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(
                ladder_entries.c.bot_id,
                ladder_entries.c.rating,
                ladder_entries.c.games,
                ladder_entries.c.wins,
            )
            .where(ladder_entries.c.ladder_id == ladder)
            .order_by(ladder_entries.c.bot_id)
        ).all()
        assert [r.games for r in rows] == [1, 1, 1]
        assert sum(r.wins for r in rows) == 1
        assert {r.bot_id: r.rating - 1500.0 for r in rows} == pytest.approx(rated.changes)
        assert conn.execute(sa.select(sa.func.count()).select_from(campaign_ratings)).scalar_one() == 3
        # the standings' intervals count the campaign as one game of the three bots
        page = standings(conn, ladder)
        assert page is not None
        prior = 2 * Z95 * elo_deviation(1500.0, [])
        for row in page["standings"]:
            width = row["rating_high"] - row["rating_low"]
            assert width < prior - 1.0


def test_a_campaign_rated_on_a_ladder_is_played_at_its_time_control_among_its_bots(engine: Engine) -> None:
    """insert_campaign refuses a rating ladder's campaign at another time control, or seating
    a bot that is not on the ladder (rating it would have added the bot)."""
    ladder = create_ladder(
        engine, "legacy-2p", "clank_legacy", 2, decision_ms=1000, bank_ms=1000, max_strikes=3, kind="campaign"
    )
    versions = _versions(engine, 2)
    common: dict[str, Any] = {
        "players": 2, "seats": _seats(versions), "seed": 1, "games": 1,
        "state": new_campaign(2).to_json(), "rating_ladder_id": ladder,
    }  # fmt: skip
    with pytest.raises(InvalidInput, match=r"ladder .* plays at 1000 ms a decision, a 1000 ms bank"):
        create_campaign(engine, **common)  # the old default: 10,000 ms a decision
    with pytest.raises(InvalidInput, match=r"seats: .* are not on ladder"):
        create_campaign(engine, decision_ms=1000, bank_ms=1000, max_strikes=3, **common)


def test_shared_totals_share_a_place() -> None:
    assert campaign_places([30, 30, 10, 40]) == (2, 2, 4, 1)


def test_rating_ladder_must_be_a_campaign_ladder(engine: Engine) -> None:
    versions = _versions(engine, 2)
    roster = make_roster(engine)  # a free-for-all Clank! ladder
    with pytest.raises(InvalidInput, match="not a 2-player clank_legacy campaign ladder"):
        create_campaign(
            engine, players=2, seats=_seats(versions), seed=1, games=3,
            state=new_campaign(2).to_json(), rating_ladder_id=roster.ladder_id,
        )  # fmt: skip
    with pytest.raises(NotFound):
        create_campaign(
            engine,
            players=2,
            seats=_seats([versions[0], 10**6]),
            seed=1,
            games=3,
            state=new_campaign(2).to_json(),
        )


def test_the_matchmaker_leaves_campaign_ladders_alone(engine: Engine) -> None:
    roster = make_roster(engine)
    create_ladder(
        engine, "legacy-c", "clank_legacy", 2, decision_ms=1000, bank_ms=1000, max_strikes=3, kind="campaign"
    )
    cid = create_campaign(
        engine,
        players=2,
        seats=_seats(list(roster.version_ids[:2])),
        seed=1,
        games=3,
        state=new_campaign(2).to_json(),
    )
    with engine.connect() as conn:
        own = campaign_row(conn, cid).ladder_id
    seen = {v.ladder_id for v in load_ladder_views(engine)}
    assert roster.ladder_id in seen and own not in seen
    assert len(seen) == 1


def test_migration_0006_keeps_existing_ladders_on_sqlite(tmp_path: Any) -> None:
    """Widening ladders.kind's CHECK must not rebuild (and cascade-delete through) ladders."""
    url = f"sqlite:///{tmp_path}/m.db"
    upgrade(url, "0005")
    engine = create_engine(url)
    try:
        # the rows as revision 0005 has them, in its own columns: today's ladder.* writes
        # columns added later (ladders.engine_version, 0008), which 0005 does not have
        with engine.begin() as conn:
            now = {"now": "2026-01-01 00:00:00"}
            ladder_id = conn.execute(
                sa.text(
                    "INSERT INTO ladders (name, game, players, decision_ms, bank_ms, max_strikes, created_at)"
                    " VALUES ('clank-2p', 'clank', 2, 1000, 30000, 3, :now) RETURNING id"
                ),
                now,
            ).scalar_one()
            for i in range(4):
                bot_id = conn.execute(
                    sa.text(
                        "INSERT INTO bots (name, owner, token_hash, created_at)"
                        " VALUES (:name, 'tests', :hash, :now) RETURNING id"
                    ),
                    {"name": f"bot{i}", "hash": f"{i:064x}", **now},
                ).scalar_one()
                conn.execute(
                    sa.text(
                        "INSERT INTO ladder_entries (ladder_id, bot_id, rating, games, wins,"
                        " joined_at, updated_at)"
                        " VALUES (:ladder, :bot, 1500, 0, 0, :now, :now)"
                    ),
                    {"ladder": ladder_id, "bot": bot_id, **now},
                )

        def entries() -> int:
            with engine.connect() as conn:
                return int(
                    conn.execute(
                        sa.select(sa.func.count())
                        .select_from(ladder_entries)
                        .where(ladder_entries.c.ladder_id == ladder_id)
                    ).scalar_one()
                )

        upgrade(url)
        assert entries() == 4
        assert create_ladder(
            engine, "after", "clank_legacy", 2, decision_ms=1, bank_ms=1, max_strikes=1, kind="campaign"
        )
        with pytest.raises(RuntimeError, match="1 campaign ladders exist"):
            downgrade(url, "0005")
        with engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM ladders WHERE kind = 'campaign'"))
        downgrade(url, "0005")
        assert entries() == 4
        with engine.begin() as conn, pytest.raises(sa.exc.IntegrityError):
            conn.execute(sa.text("UPDATE ladders SET kind = 'campaign'"))
    finally:
        engine.dispose()
