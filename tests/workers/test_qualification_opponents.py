"""Qualification seats the ladder's search bot under its name, played by its heuristic (issue 27).

`builtin:ismcts` is one of the reference bots ladders seat, but its games take minutes (a
250 ms search a decision): in a qualification game, which checks that a bot plays without a
fault, its seat keeps its name, ids and version and its moves are made by its stand-in (the
heuristic it falls back on), so the opponents are those of the ladder's rated matches
(tests/workers/test_qualification_disguise.py plays the games and compares what the bot sees).
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
from workers.qualification import _specs, qualification_stand_in, reference_bots


def test_every_game_seats_ismcts_on_its_ladders_and_qualification_plays_it_by_its_heuristic() -> None:
    for game, heuristic in (("clank", "greedy"), ("clank_legacy", "greedy"), ("alien", "coop")):
        assert "ismcts" in reference_bots(game)
        assert qualification_stand_in(game, "ismcts") == heuristic
        assert all(qualification_stand_in(game, b) == b for b in reference_bots(game) if b != "ismcts")


@pytest.mark.parametrize(("game", "players"), [("clank", 2), ("clank", 4), ("alien", 3)])
def test_qualification_seats_the_ladders_reference_bots_the_search_bot_by_its_stand_in(
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
            if other.bot_name == search:
                assert other.command.raw == f"builtin:{qualification_stand_in(game, 'ismcts')}", other
            else:
                assert other.command.raw == command, other
            seated.add(other.bot_name)
    # every reference bot of the ladder is met in turn, the search bot's name among them
    assert seated == set(on_ladder)
