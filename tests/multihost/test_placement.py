"""Placement with several referees: a match's remote bots always share one referee."""

from __future__ import annotations

import random

from workers.matchmaker import Entrant, plan_matches


def _entrants() -> list[Entrant]:
    sites = ["r1:1", "r1:1", "r2:1", "r2:1", "r2:1", None, None]
    return [Entrant(i + 1, 100 + i, 1500.0 + 10 * i, 10, site) for i, site in enumerate(sites)]


def test_remote_bots_on_different_referees_are_never_seated_together() -> None:
    entrants = _entrants()
    site = {e.bot_id: e.site for e in entrants}
    planned = plan_matches(entrants, 2, 300, random.Random(7))
    assert len(planned) == 300
    for match in planned:
        assert len({site[b] for b in match.bots} - {None}) <= 1, match
    # every pairing allowed still happens: remote with remote on its referee, with hosted bots
    kinds = {tuple(sorted(str(site[b]) for b in m.bots)) for m in planned}
    assert {("r1:1", "r1:1"), ("r2:1", "r2:1"), ("None", "r1:1"), ("None", "r2:1"), ("None", "None")} <= kinds


def test_a_bot_alone_on_its_referee_waits_and_the_others_still_play() -> None:
    entrants = [Entrant(1, 11, 1500.0, 0, "r1:1"), Entrant(2, 12, 1500.0, 0, "r2:1"),
                Entrant(3, 13, 1500.0, 0, "r2:1")]
    planned = plan_matches(entrants, 2, 5, random.Random(1))
    assert planned and all(set(m.bots) == {2, 3} for m in planned)


def test_three_seats_share_one_referee() -> None:
    entrants = _entrants()
    site = {e.bot_id: e.site for e in entrants}
    planned = plan_matches(entrants, 3, 200, random.Random(3))
    assert planned
    for match in planned:
        assert len({site[b] for b in match.bots} - {None}) <= 1, match
