"""Qualification seats the ladder's search bot as its rated matches do (issues 24 and 27).

`builtin:ismcts` is one of the reference bots ladders seat. In a qualification game its seat
keeps its name, ids, version and command, and it searches for ``ARENA_SEARCH_MS`` a decision as
in rated play: a stand-in that answered at once would let a candidate tell qualification from
rated play by its opponent's timing (tests/workers/test_qualification_disguise.py plays the
games and compares what the bot sees).
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from cli.client import create_ladder_with_reference_bots
from ladder.accounts import create_account
from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine
from ladder.ladders import join_ladder
from ladder.schema import bot_versions, bots, ladder_entries
from referee.bots import make_bot
from referee.bots.ismcts import IsmctsBot
from workers.qualification import _specs, reference_bots


def test_every_game_seats_ismcts_on_its_ladders_searching_the_operators_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for game in ("clank", "clank_legacy", "alien"):
        assert "ismcts" in reference_bots(game)
        for budget in ("10", "250"):
            monkeypatch.setenv("ARENA_SEARCH_MS", budget)
            bot = make_bot(game, "ismcts", 1)
            assert isinstance(bot, IsmctsBot) and bot.time_ms == int(budget)


@pytest.mark.parametrize(("game", "players"), [("clank", 2), ("clank", 4), ("alien", 3)])
def test_qualification_seats_the_ladders_reference_bots_the_search_bot_as_itself(
    sqlite_url: str, game: str, players: int
) -> None:
    sqlite_engine = create_engine(sqlite_url)
    try:
        _check(sqlite_engine, game, players)
    finally:
        sqlite_engine.dispose()


def _check(sqlite_engine: Engine, game: str, players: int) -> None:
    ladder_id = create_ladder_with_reference_bots(
        sqlite_engine, f"{game}-{players}p", game, players, decision_ms=1000, bank_ms=30_000, max_strikes=3,
        reference=reference_bots(game),
    )  # fmt: skip
    account = create_account(sqlite_engine, "newcomer-owner")
    bot = register_bot(sqlite_engine, "newcomer", "newcomer-owner", account_id=account.account_id, game=game)
    join_ladder(sqlite_engine, ladder_id, bot.bot_id)
    version = add_bot_version(sqlite_engine, bot.bot_id, "1", "python main.py")
    with sqlite_engine.connect() as conn:
        on_ladder = {
            str(row.name): (int(row.id), str(row.command))
            for row in conn.execute(
                sa.select(bots.c.name, bot_versions.c.id, bot_versions.c.command)
                .join(bot_versions, bot_versions.c.bot_id == bots.c.id)
                .join(ladder_entries, ladder_entries.c.bot_id == bots.c.id)
                .where(ladder_entries.c.ladder_id == ladder_id, bots.c.id != bot.bot_id)
            )
        }
    search = f"reference-{game}-ismcts"
    assert on_ladder[search][1] == "builtin:ismcts"  # rated matches seat the search bot itself
    seated: set[str] = set()
    for spec, seat, _opponents in _specs(sqlite_engine, version, 6):
        assert len(spec.seats) == players and spec.seats[seat].version_id == version
        for other in spec.seats:
            if other.seat == seat:
                continue
            # a bot of the ladder under its name and version, as its rated matches seat it
            version_id, command = on_ladder[other.bot_name]
            assert other.version_id == version_id, other
            assert other.command.raw == command, other  # the search bot too: no stand-in
            seated.add(other.bot_name)
    # every reference bot of the ladder is met in turn, the search bot's name among them
    assert seated == set(on_ladder)
