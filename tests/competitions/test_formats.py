"""Pairing rules of the competition formats, and the results table, on made-up games."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from ladder.competition_results import results_table
from ladder.formats import (
    TIEBREAK_SETS,
    GameRecord,
    next_round,
    plan_games,
    rotations,
    set_seed,
    swiss_pairing,
)

Referee = Callable[[GameRecord], tuple[int, ...]]


def by_strength(strength: Sequence[float]) -> Referee:
    """Places by a fixed strength per entrant (equal strength: a shared place)."""

    def play(game: GameRecord) -> tuple[int, ...]:
        values = [strength[e] for e in game.seats]
        return tuple(1 + sum(v > mine for v in values) for mine in values)

    return play


def run(fmt: str, n: int, players: int, referee: Referee, **kw: int) -> list[GameRecord]:
    """Play a whole competition through next_round with `referee` deciding every game."""
    games: list[GameRecord] = []
    for _ in range(50):
        plan = next_round(fmt, n, players, games, **kw)
        if plan is None:
            return games
        assert plan, "a complete round must lead to a new round or the end"
        for table in plan:
            for g in plan_games(table):
                places = referee(g)
                games.append(
                    GameRecord(g.round, g.table, g.set_no, g.rotation, g.seats, places, scenario=g.scenario)
                )
    raise AssertionError("the competition did not end")


def test_rotations_give_every_entrant_every_seat() -> None:
    rots = rotations((7, 8, 9))
    assert rots == [(7, 8, 9), (8, 9, 7), (9, 7, 8)]
    for seat in range(3):
        assert sorted(r[seat] for r in rots) == [7, 8, 9]


def test_set_seeds_are_stable_and_distinct() -> None:
    seeds = {set_seed(1, r, t, s) for r in range(3) for t in range(5) for s in range(10)}
    assert len(seeds) == 150
    assert set_seed(1, 0, 0, 0) == set_seed(1, 0, 0, 0) != set_seed(2, 0, 0, 0)


@pytest.mark.parametrize(("n", "players"), [(4, 2), (5, 2), (4, 3), (5, 4)])
def test_round_robin_every_table_once_per_set(n: int, players: int) -> None:
    games = run("round-robin", n, players, by_strength(range(n)), sets=3)
    tables = Counter(frozenset(g.seats) for g in games)
    expected = {frozenset(c) for c in itertools.combinations(range(n), players)}
    assert set(tables) == expected
    # each table: 3 sets x one game per rotation, and each entrant in each seat once per set
    assert set(tables.values()) == {3 * players}
    for table in expected:
        seats = Counter((g.seats.index(e), e) for g in games if frozenset(g.seats) == table for e in table)
        assert set(seats.values()) == {3}
    # all games of one set share a seed (same deal), different sets differ
    per_set = {(g.table, g.set_no) for g in games}
    assert len(per_set) == 3 * len(expected)


def test_gauntlet_seats_the_challenger_everywhere() -> None:
    games = run("gauntlet", 4, 2, by_strength(range(4)), sets=2)
    assert all(0 in g.seats for g in games)
    assert Counter(frozenset(g.seats) for g in games) == {frozenset((0, k)): 4 for k in (1, 2, 3)}


def test_swiss_avoids_rematches_while_possible_and_gives_byes_to_the_lowest() -> None:
    games = run("swiss", 7, 2, by_strength([7, 6, 5, 4, 3, 2, 1]), rounds=5)
    pairs = Counter(frozenset(g.seats) for g in games if g.rotation == 0)
    assert max(pairs.values()) == 1  # 7 entrants, 5 rounds: no rematch is ever needed
    # one bye a round, never twice to the same entrant, the lowest score without one gets it
    byes = []
    for r in range(5):
        seated = {e for g in games if g.round == r for e in g.seats}
        (bye,) = set(range(7)) - seated
        byes.append(bye)
    assert len(set(byes)) == 5
    assert byes[0] == 6  # all on 0 points: the lowest seed


def test_swiss_bye_goes_to_the_lowest_score_without_one() -> None:
    tables, byes = swiss_pairing([3, 0, 4, 1, 2], 2, met=set(), byes={2})
    assert byes == [1]  # 2 is last but had its bye; 1 is the lowest without
    assert sorted(e for t in tables for e in t) == [0, 2, 3, 4]


def test_swiss_rematch_only_when_unavoidable() -> None:
    everyone_met = {frozenset(p) for p in itertools.combinations(range(4), 2)} - {frozenset((0, 3))}
    tables, byes = swiss_pairing([0, 1, 2, 3], 2, met=everyone_met, byes=set())
    # (0, 3) is the only new pair; the other table must be a rematch, and only one
    assert (0, 3) in tables and byes == []
    met = {frozenset((0, 1))}
    tables, _ = swiss_pairing([0, 1, 2, 3], 2, met=met, byes=set())
    assert (0, 1) not in tables and (0, 2) in tables  # top down: 0 with the next it has not met


def test_swiss_tables_of_three() -> None:
    games = run("swiss", 9, 3, by_strength(range(9)), rounds=2)
    pairs = Counter(
        frozenset(p) for g in games if g.rotation == 0 for p in itertools.combinations(g.seats, 2)
    )
    assert max(pairs.values()) == 1


def test_knockout_two_players_byes_to_top_seeds() -> None:
    games = run("knockout", 5, 2, by_strength([5, 4, 3, 2, 1]), sets=1)
    first = {frozenset(g.seats) for g in games if g.round == 0}
    assert first == {frozenset((3, 4))}  # 8-bracket: seeds 0, 1, 2 have byes
    assert max(g.round for g in games) == 2
    table = results_table("knockout", list("abcde"), 2, games, bootstrap_samples=20)
    assert [r["bot"] for r in table["standings"]][:2] == ["a", "b"]


def test_knockout_tie_plays_tiebreak_sets_then_the_better_seed_goes_through() -> None:
    games = run("knockout", 2, 2, by_strength([1, 1]), sets=1)
    assert len({g.set_no for g in games}) == 1 + TIEBREAK_SETS
    table = results_table("knockout", ["x", "y"], 2, games, bootstrap_samples=20)
    assert table["standings"][0]["bot"] == "x" and table["standings"][0]["draws"] == 2 * (1 + TIEBREAK_SETS)


def test_knockout_heats_of_four() -> None:
    strength = list(range(8, 0, -1))
    games = run("knockout", 8, 4, by_strength(strength), sets=1)
    rounds = sorted({g.round for g in games})
    assert rounds == [0, 1]
    assert len({g.table for g in games if g.round == 0}) == 2
    final = {e for g in games if g.round == 1 for e in g.seats}
    assert final == {0, 1, 2, 3}  # the strongest two of each snake-seeded heat
    table = results_table("knockout", [str(e) for e in range(8)], 4, games, bootstrap_samples=20)
    assert table["standings"][0]["bot"] == "0"


def test_scenarios_each_entrant_against_each_scenario() -> None:
    plan = next_round("scenarios", 3, 2, [], sets=4, scenarios=2)
    assert plan is not None and len(plan) == 6
    games = [g for t in plan for g in plan_games(t)]
    assert len(games) == 24 and all(len(set(g.seats)) == 1 for g in games)
    played = [
        GameRecord(g.round, g.table, g.set_no, 0, g.seats, (1, 1), team_won=g.seats[0] == 0 or g.set_no == 0,
                   scenario=g.scenario)
        for g in games
    ]
    table = results_table("scenarios", ["a", "b", "c"], 2, played, scenario_labels=["s0", "s1"])
    top = table["standings"][0]
    assert top["bot"] == "a" and top["wins"] == 8 and top["games"] == 8
    assert 0 < top["win_rate_low"] < 1 == top["score"]
    assert len(table["scenarios"]) == 6


def test_round_robin_table_scores_elo_and_seat_effect() -> None:
    # the first seat always wins, whoever sits there: every bot scores the same
    def first_seat_wins(game: GameRecord) -> tuple[int, ...]:
        return (1, 2)

    games = run("round-robin", 4, 2, first_seat_wins, sets=5)
    table = results_table("round-robin", list("abcd"), 2, games, bootstrap_samples=50)
    assert {r["score"] for r in table["standings"]} == {15.0}
    assert {r["wins"] for r in table["standings"]} == {15}
    assert table["seats"][0]["first_rate"] == 1.0 and table["seats"][1]["first_rate"] == 0.0
    assert table["seats"][0]["low"] > 0.9
    # a clear order: each bot's rating interval, the LOS of the order
    games = run("round-robin", 4, 2, by_strength([4, 3, 2, 1]), sets=5)
    table = results_table("round-robin", list("abcd"), 2, games, bootstrap_samples=50)
    assert [r["bot"] for r in table["standings"]] == list("abcd")
    for row in table["standings"]:
        assert row["elo_low"] <= row["elo"] <= row["elo_high"]
    assert table["standings"][0]["los_next"] > 0.9
    assert table["crosstable"]["rows"][0]["against"]["b"] == {"score": 10.0, "games": 10}
    assert table["games"] == {"played": 60, "failed": 0, "pending": 0}


def test_a_shared_first_place_is_a_draw_not_a_win() -> None:
    games = [GameRecord(0, 0, 0, r, s, (1, 1)) for r, s in enumerate(rotations((0, 1)))]
    table = results_table("round-robin", ["a", "b"], 2, games, bootstrap_samples=10)
    for row in table["standings"]:
        assert (row["wins"], row["draws"], row["losses"]) == (0, 2, 0)
    assert table["standings"][0]["elo"] == pytest.approx(1500)


def test_next_round_waits_for_the_round_and_refuses_bad_input() -> None:
    pending = [GameRecord(0, 0, 0, 0, (0, 1))]
    assert next_round("swiss", 4, 2, pending) == []
    with pytest.raises(ValueError):
        next_round("ladder", 4, 2, [])
    with pytest.raises(ValueError):
        next_round("round-robin", 2, 3, [])


def test_swiss_search_is_bounded_when_every_pair_has_met() -> None:
    # an attacker's worst case: 64 entrants at tables of 4, all pairs already met; the search
    # is cut off (a node budget) and still seats everyone, with as few rematches as it found
    met = {frozenset(p) for p in itertools.combinations(range(64), 2)}
    tables, byes = swiss_pairing(list(range(64)), 4, met, set())
    assert byes == [] and sorted(e for t in tables for e in t) == list(range(64))


# --- forfeits: never a shared place, an entrant that never played is apart -----------------------


def test_a_forfeited_seat_is_placed_after_every_seat_that_played() -> None:
    """The issue's case: a crashed seat at 0 points tied first with a seat knocked out on 0."""
    from ladder.formats import forfeit_places

    assert forfeit_places((1, 1), (0,)) == (2, 1)
    assert forfeit_places((1, 1, 3, 4), (1,)) == (1, 4, 2, 3)
    assert forfeit_places((1, 1, 1), (0, 2)) == (2, 1, 2)  # two forfeits still share theirs
    assert forfeit_places((2, 1), ()) == (2, 1)


def test_an_entrant_that_forfeited_every_game_is_listed_apart_not_ranked() -> None:
    """Entrant 2 forfeited both of its games (the places as loaded: after the seat that played);
    entrant 0 beat entrant 1 twice. Two ranked, one apart, no draw anywhere."""
    games = [
        GameRecord(0, 0, 0, 0, (0, 1), (1, 2)),
        GameRecord(0, 0, 0, 1, (1, 0), (2, 1)),
        GameRecord(0, 1, 0, 0, (0, 2), (1, 2), forfeited=(1,)),
        GameRecord(0, 2, 0, 0, (2, 1), (2, 1), forfeited=(0,)),
    ]
    table = results_table("round-robin", ["a", "b", "dead"], 2, games, bootstrap_samples=20)
    assert [(r["rank"], r["bot"]) for r in table["standings"]] == [(1, "a"), (2, "b")]
    assert table["withdrawn"] == [{"slot": 2, "bot": "dead", "games": 2, "forfeited": 2, "failed": 0}]
    assert all(r["draws"] == 0 for r in table["standings"])
    # one game still to play: not decided yet, still ranked
    pending = [*games[:3], GameRecord(0, 2, 0, 0, (2, 1))]
    table = results_table("round-robin", ["a", "b", "dead"], 2, pending, bootstrap_samples=20)
    assert table["withdrawn"] == [] and len(table["standings"]) == 3
