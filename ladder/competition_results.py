"""A competition's results table from its games: standings, crosstable, seat-order effect.

Pure (no I/O). The input is the competition's format, its entrants' names and its games
(:class:`ladder.formats.GameRecord`, with places once played); the output is JSON-able.

Standings rows (best first) hold ``rank``, ``bot``, ``score`` (the format's points, see below),
``elo`` with its 95% interval ``elo_low``/``elo_high`` (maximum-likelihood Bradley-Terry over
every game, the interval bootstrapped over duplicate sets: ``ladder.skill``), ``los_next`` (the
likelihood of superiority over the next row: the share of bootstrap resamples that rate this
bot above it; near 1 the order is sure, near 0.5 it is a coin toss), ``wins``/``draws``/``losses``
and ``games``. A win is a sole first place, a draw a shared first place (a 0-0 game two bots
both "won" is a draw for both), anything else a loss. A forfeited seat is placed after every
seat that played on (``ladder.formats.forfeit_places``, applied as games are loaded), so it never
shares a place, nor a draw, with one.

An entrant that never played -- every game of its own forfeited by all its seats (a bot that
never started) or failed -- is not ranked: it is listed in ``withdrawn`` with its counts (the
caller adds why, ``ladder.competitions.competition_results``). Its games still count for its
opponents, who won them.

Scores, their order and the columns they add are the format's (``ladder.formats``: each
format module's docstring and its ``rank``): pairwise points by default, Swiss points and
Buchholz, the knockout round reached, the co-op team win rate by its Wilson interval.

The seat table counts, for each seat, the games and the first places (a first place shared by
k seats counts 1/k to each), with a Wilson interval on the rate: with every entrant in every
seat equally often (duplicate sets), any difference between seats is the seat's, not the bots'.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ladder import formats, skill
from ladder.formats import GameRecord, RankInput

__all__ = ["results_table", "standings_csv"]


def _wdl(game: GameRecord, seat: int) -> str:
    assert game.places is not None
    if game.team_won is not None:
        return "W" if game.team_won else "L"
    best = min(game.places)
    if game.places[seat] != best:
        return "L"
    return "W" if game.places.count(best) == 1 else "D"


def _seat_table(games: Sequence[GameRecord]) -> list[dict[str, Any]]:
    played = [g for g in games if g.places is not None and g.team_won is None]
    if not played:
        return []
    seats = max(len(g.seats) for g in played)
    rows = []
    for seat in range(seats):
        at = [g for g in played if seat < len(g.seats)]
        firsts = 0.0
        for g in at:
            assert g.places is not None
            best = min(g.places)
            if g.places[seat] == best:
                firsts += 1.0 / g.places.count(best)
        low, high = skill.wilson_interval(firsts, len(at))
        rows.append(
            {
                "seat": seat,
                "games": len(at),
                "firsts": round(firsts, 3),
                "first_rate": round(firsts / len(at), 4) if at else 0.0,
                "low": round(low, 4),
                "high": round(high, 4),
                "fair_share": round(1.0 / seats, 4),
            }
        )
    return rows


def _crosstable(names: Sequence[str], games: Sequence[GameRecord]) -> dict[str, Any]:
    score: defaultdict[tuple[int, int], float] = defaultdict(float)
    count: defaultdict[tuple[int, int], float] = defaultdict(float)
    for g in games:
        if g.places is None or g.team_won is not None:
            continue
        n = len(g.seats)
        for i, j in itertools.permutations(range(n), 2):
            a, b = g.seats[i], g.seats[j]
            if a == b:
                continue
            pa, pb = g.places[i], g.places[j]
            score[(a, b)] += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
            count[(a, b)] += 1.0
    rows = []
    for a, name in enumerate(names):
        cells: dict[str, Any] = {}
        for b, other in enumerate(names):
            if (a, b) in count:
                cells[other] = {"score": score[(a, b)], "games": int(count[(a, b)])}
        rows.append({"bot": name, "against": cells})
    return {"bots": list(names), "rows": rows}


def _withdrawn(n: int, games: Sequence[GameRecord]) -> dict[int, dict[str, int]]:
    """The entrants that never played: every game of theirs is over and each was either
    forfeited by all their seats (a bot that never started, or crashed every time) or failed
    (the platform could not play it). entrant -> {games, forfeited, failed}."""
    out: dict[int, dict[str, int]] = {}
    for e in range(n):
        mine = [g for g in games if e in g.seats]
        if not mine or any(g.places is None and not g.failed for g in mine):
            continue  # nothing scheduled yet, or games still to play: not decided
        failed = sum(1 for g in mine if g.failed)
        forfeited = sum(
            1 for g in mine
            if g.places is not None
            and all(seat in g.forfeited for seat, who in enumerate(g.seats) if who == e)
        )
        if forfeited + failed == len(mine):
            out[e] = {"games": len(mine), "forfeited": forfeited, "failed": failed}
    return out


def results_table(
    fmt: str,
    names: Sequence[str],
    players: int,
    games: Sequence[GameRecord],
    *,
    seed: int = 0,
    scenario_labels: Sequence[str] = (),
    bootstrap_samples: int = skill.BOOTSTRAP_SAMPLES,
) -> dict[str, Any]:
    """The results of a competition: ``standings``, ``withdrawn`` (the entrants that never
    played, left out of the standings: see :func:`_withdrawn`), ``crosstable``, ``seats`` (the
    seat-order effect), the format's own blocks (``scenarios`` for co-op) and ``games`` counts
    (played, failed, pending). Raises ValueError for an unknown format."""
    format_ = formats.get(fmt)
    n = len(names)
    played = [g for g in games if g.places is not None]
    wdl: dict[int, dict[str, int]] = {e: {"W": 0, "D": 0, "L": 0} for e in range(n)}
    for g in played:
        for seat, entrant in enumerate(g.seats):
            if g.team_won is not None and seat > 0:
                break  # a team of one entrant: its game counts once
            wdl[entrant][_wdl(g, seat)] += 1
    blocks: defaultdict[tuple[int, int, int], list[list[tuple[int, int]]]] = defaultdict(list)
    for g in played:
        if g.team_won is None:
            assert g.places is not None
            blocks[(g.round, g.table, g.set_no)].append(list(zip(g.seats, g.places, strict=True)))
    fit = skill.bootstrap(list(range(n)), list(blocks.values()), samples=bootstrap_samples, seed=seed)
    ranking = format_.rank(
        RankInput(n, players, games, played, formats.table_points(played), wdl, fit.elo)
    )
    apart = _withdrawn(n, games)
    order = sorted((e for e in range(n) if e not in apart), key=lambda e: ranking.key[e])
    standings = []
    for rank, e in enumerate(order, start=1):
        nxt = order[rank] if rank < len(order) else None
        row: dict[str, Any] = {
            "rank": rank,
            "bot": names[e],
            "score": round(ranking.score[e], 4),
            "games": wdl[e]["W"] + wdl[e]["D"] + wdl[e]["L"],
            "wins": wdl[e]["W"],
            "draws": wdl[e]["D"],
            "losses": wdl[e]["L"],
        }
        if format_.strength == "elo":
            row.update(
                elo=round(fit.elo[e], 1),
                elo_low=round(fit.low[e], 1),
                elo_high=round(fit.high[e], 1),
                los_next=None if nxt is None or not fit.los else round(fit.los[(e, nxt)], 3),
            )
        row.update(ranking.extra.get(e, {}))
        standings.append(row)
    table: dict[str, Any] = {
        "standings": standings,
        "withdrawn": [
            {"slot": e, "bot": names[e], **counts} for e, counts in sorted(apart.items())
        ],
        "crosstable": _crosstable(names, played),
        "seats": _seat_table(played),
        "games": {
            "played": len(played),
            "failed": sum(1 for g in games if g.failed),
            "pending": sum(1 for g in games if g.places is None and not g.failed),
        },
    }
    table.update(format_.extra_results(names, scenario_labels, played))
    return table


def standings_csv(standings: Sequence[dict[str, Any]]) -> str:
    """The standings rows as CSV: a header, then one row per bot, best first."""
    columns: list[str] = []
    for row in standings:
        columns.extend(k for k in row if k not in columns)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(standings)
    return buf.getvalue()
