"""Pairing logic: placement first, close ratings, no immediate rematch, seat rotation."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from workers.matchmaker import Entrant, plan_matches


def entrants(ratings: dict[int, float], games: int = 30) -> list[Entrant]:
    return [Entrant(bot_id=b, version_id=100 + b, rating=r, games=games) for b, r in ratings.items()]


def test_too_few_bots_gives_no_match() -> None:
    assert plan_matches(entrants({1: 1500}), 2, 5, random.Random(1)) == []
    assert plan_matches(entrants({1: 1500, 2: 1500, 3: 1500}), 4, 5, random.Random(1)) == []


def test_matches_pair_close_ratings_and_name_versions() -> None:
    clusters = {1: 1000, 2: 1010, 3: 1020, 4: 1500, 5: 1510, 6: 1520, 7: 2000, 8: 2010, 9: 2020}
    planned = plan_matches(entrants(clusters), 2, 45, random.Random(3))
    assert len(planned) == 45
    within = sum(1 for m in planned if (m.bots[0] - 1) // 3 == (m.bots[1] - 1) // 3)
    assert within >= 40, [m.bots for m in planned]
    for m in planned:
        assert m.versions == tuple(100 + b for b in m.bots)
        assert 0 <= m.seed < 2**62
    assert len({m.seed for m in planned}) == 45
    played = Counter(b for m in planned for b in m.bots)
    assert max(played.values()) - min(played.values()) <= 2


def test_new_bot_gets_placement_games_first() -> None:
    field = [*entrants({1: 1500, 2: 1490, 3: 1510, 4: 1505}), Entrant(9, 109, 1500.0, 0)]
    planned = plan_matches(field, 2, 5, random.Random(7), placement_games=5)
    assert all(9 in m.bots for m in planned)
    assert 9 not in plan_matches(field, 2, 1, random.Random(7), pending={9: 5}, history=[(9, 1)] * 5)[0].bots


def test_no_immediate_rematch() -> None:
    field = entrants({1: 1500, 2: 1500, 3: 1900, 4: 1900})
    planned = plan_matches(field, 2, 30, random.Random(11), history=[(1, 2)])
    groups = [{1, 2}] + [set(m.bots) for m in planned]
    assert all(a != b for a, b in itertools.pairwise(groups)), groups
    for bot in range(1, 5):  # nobody meets the same opponent twice in a row
        opponents = [g - {bot} for g in groups if bot in g]
        assert all(a != b for a, b in itertools.pairwise(opponents)), (bot, opponents)


def test_seats_rotate() -> None:
    field = entrants({1: 1500, 2: 1500})
    planned = plan_matches(field, 2, 20, random.Random(5), history=[(1, 2), (1, 2)])
    firsts = Counter(m.bots[0] for m in planned)
    assert firsts[2] == 11 and firsts[1] == 9  # bot 2 catches up on the first seat, then they alternate


def test_four_player_matches_spread_games() -> None:
    field = entrants({b: 1500 + 10 * b for b in range(1, 9)}, games=0)
    planned = plan_matches(field, 4, 40, random.Random(2))
    assert all(len(set(m.bots)) == 4 for m in planned)
    played = Counter(b for m in planned for b in m.bots)
    assert max(played.values()) - min(played.values()) <= 3
    seats = Counter((b, s) for m in planned for s, b in enumerate(m.bots))
    for b in range(1, 9):
        assert max(seats[(b, s)] for s in range(4)) - min(seats[(b, s)] for s in range(4)) <= 2


def test_reference_bots_are_opponents_never_a_table_of_their_own() -> None:
    def reference(bot_id: int) -> Entrant:
        return Entrant(bot_id=bot_id, version_id=100 + bot_id, rating=1500.0, games=30, reference=True)

    only_reference = [reference(1), reference(2), reference(3)]
    assert plan_matches(only_reference, 2, 5, random.Random(1)) == []
    newcomer = Entrant(bot_id=9, version_id=109, rating=1500.0, games=30)
    for players in (2, 4):
        planned = plan_matches([*only_reference, newcomer], players, 12, random.Random(2))
        assert len(planned) == 12
        assert all(9 in m.bots for m in planned), [m.bots for m in planned]
        assert {b for m in planned for b in m.bots} == {1, 2, 3, 9}  # the references all play


def test_pairings_stay_within_a_division_and_its_overlap() -> None:
    # three divisions of six bots each (ratings overlapping across the borders, so "closest
    # rating" alone would cross them), a boss (reference bot) in each
    field = [
        Entrant(
            bot_id=10 * d + i,
            version_id=100 + 10 * d + i,
            rating=1400 + 60 * d + 20 * i,
            games=30,
            division=d,
        )
        for d in range(3)
        for i in range(6)
    ] + [
        Entrant(bot_id=90 + d, version_id=190 + d, rating=1500 + 60 * d, games=30, reference=True, division=d)
        for d in range(3)
    ]
    by_bot = {e.bot_id: e for e in field}
    planned = plan_matches(field, 2, 300, random.Random(4))
    assert len(planned) == 300
    crossing = Counter()
    for m in planned:
        a, b = (by_bot[x] for x in m.bots)
        if a.division == b.division:
            continue
        low, high = sorted((a, b), key=lambda e: e.division)
        # across a border: the 2 best of the lower division and the 2 lowest of the upper, no boss
        assert high.division == low.division + 1 and not low.reference and not high.reference, m.bots
        assert low.bot_id % 10 in (4, 5) and high.bot_id % 10 in (0, 1), m.bots
        crossing[(low.bot_id, high.bot_id)] += 1
    assert crossing, "the overlap is never used"
    assert {low // 10 for low, _ in crossing} == {0, 1}  # at both borders


def test_a_ladder_without_divisions_pairs_across_the_whole_field() -> None:
    # the same ratings, every bot in division 0: the close-ratings rule alone decides
    field = [Entrant(bot_id=b, version_id=100 + b, rating=1400 + 20 * b, games=30) for b in range(18)]
    planned = plan_matches(field, 2, 200, random.Random(4))
    far = [m for m in planned if abs(m.bots[0] - m.bots[1]) >= 5]
    assert far  # pairs a division border would have kept apart
