"""Divisions' pure parts (ladder/RATINGS.md, "Divisions"): the bosses chosen (the strongest
built-in at the top), the ``--divisions`` text read or refused in one line, and the promotion
rule as the ladder's rating policy defines it."""

from __future__ import annotations

import shlex

import pytest
import sqlalchemy as sa

from ladder import divisions
from ladder.db import create_engine
from ladder.divisions import above_boss, default_bosses, divisions_of, parse_divisions, strongest_builtin
from ladder.errors import InvalidInput
from ladder.rating_policy import DEFAULT_POLICY, RatingPolicy
from ladder.schema import bots, ladder_entries, ladders
from ladder.skill import deviation_from_information
from referee.cli import main as cli_main
from tests.doc_blocks import walkthrough_blocks

from .conftest import make_roster


def test_the_top_boss_is_the_strongest_builtin_ismcts_where_the_game_has_it() -> None:
    assert strongest_builtin("clank") == "ismcts"
    assert default_bosses("clank", 5) == ["random", "random", "greedy", "greedy", "ismcts"]
    assert default_bosses("clank", 2) == ["random", "ismcts"]
    assert parse_divisions("default", "clank") == [
        ("Wood", "random"),
        ("Bronze", "random"),
        ("Silver", "greedy"),
        ("Gold", "greedy"),
        ("Legend", "ismcts"),
    ]


def test_without_ismcts_the_top_boss_is_greedy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(divisions, "available", lambda game: ["greedy", "random"])
    assert strongest_builtin("clank") == "greedy"
    assert default_bosses("clank", 3) == ["random", "random", "greedy"]
    assert default_bosses("clank", 2) == ["random", "greedy"]


def test_divisions_are_read_bottom_first_with_bosses_given_or_chosen() -> None:
    assert parse_divisions("Wood:random, Bronze:greedy,Gold", "clank") == [
        ("Wood", "random"),
        ("Bronze", "greedy"),
        ("Gold", "ismcts"),
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("Wood", r"^divisions: 2 to 10, bottom first \(e\.g\. Wood,Bronze,Gold\), got 'Wood'$"),
        ("Wood,wood", r"^divisions: 'wood' is named twice$"),
        ("Wood,<b>x", r"^divisions: '<b>x' is not a division name \(a letter, then up to 31 letters"),
        (
            "Wood,Gold:stockfish",
            r"^divisions: boss 'stockfish' of Gold: clank's built-in bots are greedy, ismcts, random$",
        ),
        (",".join(f"D{i}" for i in range(11)), r"^divisions: 2 to 10"),
    ],
)
def test_bad_divisions_are_one_line(text: str, error: str) -> None:
    with pytest.raises(InvalidInput, match=error):
        parse_divisions(text, "clank")


def test_promoted_when_the_low_end_of_the_interval_is_above_the_boss() -> None:
    information = 20 * 0.25  # twenty even games' worth
    half = DEFAULT_POLICY.z * deviation_from_information(information)
    assert half == pytest.approx(1.96 * 347.4 / (1 + 20) ** 0.5, rel=1e-3)
    assert above_boss(1600 + half + 0.01, information, 1600, DEFAULT_POLICY)
    assert not above_boss(1600 + half - 0.01, information, 1600, DEFAULT_POLICY)
    assert not above_boss(1650, information, 1600, DEFAULT_POLICY)  # above the boss, not surely
    # the ladder's policy says how sure: at 50% confidence the same rating is enough
    assert above_boss(1660, information, 1600, RatingPolicy(confidence=0.5))


def test_the_division_commands_in_ratings_md_run_as_printed(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena ladder create ... --divisions default` and `arena ladder divisions clank-2p ...`
    (RATINGS.md, "Divisions") on PostgreSQL: the divisions and their bosses, bottom first, every
    bot in the bottom one and each boss in its own."""
    monkeypatch.setenv("DATABASE_URL", pg_url)
    create_cmd, divide_cmd = walkthrough_blocks("ladder/RATINGS.md")["divisions"].splitlines()
    engine = create_engine(pg_url)
    try:
        roster = make_roster(engine)
        capsys.readouterr()
        assert cli_main(shlex.split(create_cmd)[1:]) == 0
        out = capsys.readouterr().out
        assert out.endswith(
            "divisions, bottom first: Wood (boss reference-clank-boss1-random), Bronze (boss "
            "reference-clank-boss2-random), Silver (boss reference-clank-boss3-greedy), Gold (boss "
            "reference-clank-boss4-greedy), Legend (boss reference-clank-boss5-ismcts); every bot starts "
            "in the bottom one\n"
        ), out
        assert cli_main(shlex.split(divide_cmd)[1:]) == 0
        assert capsys.readouterr().out == (
            f"ladder clank-2p (id {roster.ladder_id}): divisions, bottom first: Wood (boss "
            "reference-clank-boss1-random), Bronze (boss reference-clank-boss2-greedy), Gold (boss "
            "reference-clank-boss3-ismcts); every bot starts in the bottom one (ladder/RATINGS.md, "
            "Divisions)\n"
        )
        with engine.connect() as conn:
            tiers = divisions_of(conn, roster.ladder_id)
            placed = dict(
                conn.execute(
                    sa.select(bots.c.name, ladder_entries.c.division)
                    .join(bots, bots.c.id == ladder_entries.c.bot_id)
                    .where(ladder_entries.c.ladder_id == roster.ladder_id)
                ).all()
            )
            leagues = conn.execute(
                sa.select(ladders.c.id).where(ladders.c.name == "clank-leagues")
            ).scalar_one()
            on_leagues = len(divisions_of(conn, leagues))
    finally:
        engine.dispose()
    assert [(t["name"], t["boss_name"], t["bots"]) for t in tiers] == [
        ("Wood", "reference-clank-boss1-random", 5),
        ("Bronze", "reference-clank-boss2-greedy", 1),
        ("Gold", "reference-clank-boss3-ismcts", 1),
    ]
    assert placed == {
        "bot0": 0,
        "bot1": 0,
        "bot2": 0,
        "bot3": 0,
        "reference-clank-boss1-random": 0,
        "reference-clank-boss2-greedy": 1,
        "reference-clank-boss3-ismcts": 2,
    }
    assert on_leagues == 5
