"""Checking a ladder's books (every result counted once, ratings equal a replay over them),
and the platform's reserved names (:func:`reserved_name_problems`, what ``arena audit`` prints).

Free-for-all ladders replay pairwise Elo; cooperative ladders replay team-vs-scenario ratings;
both with the ladder's own rating policy (``ladder.rating_policy``: its K-factors and starting
rating), never a module constant, so a ladder created with another K audits clean and a
recording that used the wrong K is caught.

Used by the integration tests and the benchmark; cheap enough to run on a live ladder.
Results are replayed in recording order (the order of their ``rating_history`` rows, which
recording inserts while it holds the seated bots' row locks).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder import coop_rating, elo, skill
from ladder.rating_policy import RatingPolicy, policy_of
from ladder.schema import (
    bot_versions,
    campaign_ratings,
    campaigns,
    ladder_entries,
    ladder_periods,
    ladders,
    matches,
    rating_history,
    results,
    scenario_rating_history,
)

__all__ = ["audit_ladder", "replayed_information", "reserved_name_problems"]


def reserved_name_problems(engine: Engine, db_hint: str = "") -> list[str]:
    """One line per bot that is not the platform's but holds a name reserved for the platform's
    bots (``ladder.bots.reserved_name_reason``: taken before names were reserved, or made with
    an operator's own tool), with the ladders it sits on and the commands that fix it: rename it
    (``arena bot rename``), then seat the real reference bots (``arena ladder reference-bots``).
    `db_hint` is appended to each command (e.g. `` --db URL``)."""
    from ladder.bots import REFERENCE_OWNER, reserved_name_reason
    from ladder.schema import bots

    problems = []
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(bots.c.id, bots.c.name, bots.c.owner, bots.c.account_id).order_by(bots.c.id)
        ).all()
        for row in rows:
            platform = row.owner == REFERENCE_OWNER and row.account_id is None
            reason = None if platform else reserved_name_reason(row.name)
            if reason is None:
                continue
            on = conn.execute(
                sa.select(ladders.c.name)
                .join(ladder_entries, ladder_entries.c.ladder_id == ladders.c.id)
                .where(ladder_entries.c.bot_id == row.id)
                .order_by(ladders.c.id)
            ).scalars().all()
            new_name = f"{row.owner}-{row.name}"[:64]
            if reserved_name_reason(new_name) is not None or not new_name[0].isalnum():
                new_name = f"renamed-bot-{row.id}"
            fix = f"arena bot rename {row.name} {new_name}{db_hint}"
            where = f"; it sits on ladder {', '.join(on)}" if on else ""
            then = "".join(f", then arena ladder reference-bots {ladder}{db_hint}" for ladder in on)
            problems.append(
                f"bot {row.id} {row.name!r} of {row.owner} holds a reserved name ({reason}){where}. "
                f"Fix: {fix}{then}"
            )
    return problems


def audit_ladder(engine: Engine, ladder_id: int, *, tolerance: float = 1e-6) -> list[str]:
    """The problems found on ladder `ladder_id` (empty when its books are right).

    Checks: each done match has one result and one rating row per seated bot (none for a match
    played at another engine version than its rating period's: recorded, not rated), and no
    other match has any; each bot's rating rows chain (``before`` = the previous ``after``); the
    ratings, games and wins in ``ladder_entries`` equal Elo replayed over the results, the games
    counted from zero again after each closed rating period (``ladder_periods``; ratings carry);
    and each bot's stored information (``ladder_entries.information``) equals
    :func:`replayed_information`. Read it while no result is being recorded on the ladder (else
    it may see half a picture).
    """
    problems: list[str] = []
    with engine.connect() as conn:
        done_rows = conn.execute(
            sa.select(matches.c.id, matches.c.seats, matches.c.engine_version, matches.c.finished_at).where(
                matches.c.ladder_id == ladder_id, matches.c.status == "done"
            )
        ).all()
        done = {row.id: row.seats for row in done_rows}
        periods = conn.execute(
            sa.select(ladder_periods)
            .where(ladder_periods.c.ladder_id == ladder_id)
            .order_by(ladder_periods.c.id)
        ).all()
        current = str(
            conn.execute(sa.select(ladders.c.engine_version).where(ladders.c.id == ladder_id)).scalar_one()
        )
        places_of = dict(
            conn.execute(
                sa.select(results.c.match_id, results.c.places)
                .join(matches, matches.c.id == results.c.match_id)
                .where(matches.c.ladder_id == ladder_id)
            ).all()
        )
        bot_of = dict(conn.execute(sa.select(bot_versions.c.id, bot_versions.c.bot_id)).all())
        history = conn.execute(
            sa.select(rating_history)
            .where(rating_history.c.ladder_id == ladder_id)
            .order_by(rating_history.c.id)
        ).all()
        entries = conn.execute(sa.select(ladder_entries).where(ladder_entries.c.ladder_id == ladder_id)).all()
        ladder_row = conn.execute(sa.select(ladders).where(ladders.c.id == ladder_id)).one()
        information = replayed_information(conn, ladder_id)
        kind = ladder_row.kind
        policy = policy_of(ladder_row)
        coop: dict[int, tuple[bool, int, float]] | None = None
        if kind == "coop":
            coop = {
                row.match_id: (bool(row.team_won), row.scenario_id, float(row.before))
                for row in conn.execute(
                    sa.select(
                        results.c.match_id,
                        results.c.team_won,
                        scenario_rating_history.c.scenario_id,
                        scenario_rating_history.c.before,
                    ).join(scenario_rating_history, scenario_rating_history.c.match_id == results.c.match_id)
                )
            }
    if set(places_of) != set(done):
        problems.append(
            f"results without a done match or done matches without a result: "
            f"{sorted(set(places_of) ^ set(done))}"
        )
    def period_version(finished: Any) -> str:
        """The engine version of the rating period a match was recorded in."""
        return next((str(p.engine_version) for p in periods if finished < p.ended_at), current)

    unrated = {
        row.id
        for row in done_rows
        if row.engine_version is not None and row.engine_version != period_version(row.finished_at)
    }
    per_match: defaultdict[int, list[int]] = defaultdict(list)
    first_row: dict[int, int] = {}
    order: list[int] = []
    last: dict[int, float] = {}
    chain_ends = list(periods)
    for h in history:
        while chain_ends and h.id > chain_ends[0].last_rating_id:
            _carry(last, chain_ends.pop(0), policy.initial_rating)
        if h.match_id not in per_match:
            order.append(h.match_id)
            first_row[h.match_id] = h.id
        per_match[h.match_id].append(h.bot_id)
        if abs(last.get(h.bot_id, policy.initial_rating) - h.before) > tolerance:
            problems.append(
                f"rating_history {h.id}: bot {h.bot_id} starts at {h.before}, "
                f"its previous change ended at {last.get(h.bot_id)}"
            )
        last[h.bot_id] = h.after
    for match_id, seats in done.items():
        expected = [] if match_id in unrated else sorted({bot_of[int(v)] for v in seats})
        if sorted(per_match.get(match_id, [])) != expected:
            problems.append(
                f"match {match_id}: rating rows for {sorted(per_match.get(match_id, []))}, "
                f"expected {expected}"
            )
    stray = sorted(set(per_match) - set(done))
    if stray:
        problems.append(f"rating rows for matches that are not done: {stray}")
    rating: defaultdict[int, float] = defaultdict(lambda: policy.initial_rating)
    games: defaultdict[int, int] = defaultdict(int)
    wins: defaultdict[int, int] = defaultdict(int)
    draws: defaultdict[int, int] = defaultdict(int)
    # where each closed period ends: the games counts restart after it, the ratings carry (a
    # season shrinks them toward its mean: RATINGS.md, "Seasons")
    ends = list(periods)

    def close(period: Any) -> None:
        for entry in period.standings.get("bots", []):
            b = int(entry["bot_id"])
            if abs(rating[b] - float(entry["rating"])) > tolerance:
                problems.append(
                    f"period {period.id}: bot {b} archived at {float(entry['rating']):.6f}, "
                    f"replayed {rating[b]:.6f}"
                )
        _carry(rating, period, policy.initial_rating)
        for counts in (games, wins, draws):
            counts.clear()

    def new_period(match_id: int) -> bool:
        if ends and first_row[match_id] > ends[0].last_rating_id:
            while ends and first_row[match_id] > ends[0].last_rating_id:
                close(ends.pop(0))
            return True
        return False

    if coop is not None:
        _replay_coop(order, done, bot_of, coop, rating, games, wins, problems, tolerance, new_period, policy)
        order = []  # the free-for-all replay below does not apply
    for match_id in order:
        new_period(match_id)
        if match_id not in done or match_id not in places_of:
            continue
        seat_bots = [bot_of[int(v)] for v in done[match_id]]
        places = [int(p) for p in places_of[match_id]]
        bots = sorted(set(seat_bots))
        deltas = elo.rating_deltas(
            [rating[b] for b in seat_bots], places, [policy.k_factor(games[b]) for b in seat_bots]
        )
        delta_of: defaultdict[int, float] = defaultdict(float)
        best: dict[int, int] = {}
        for b, d, p in zip(seat_bots, deltas, places, strict=True):
            delta_of[b] += d
            best[b] = min(p, best.get(b, p))
        first = [b for b in bots if best[b] == 1]  # a shared first place is a draw (recording)
        for b in bots:
            rating[b] += delta_of[b]
            games[b] += 1
            wins[b] += first == [b]
            draws[b] += b in first and len(first) > 1
    while ends:  # periods closed after the last rated match
        close(ends.pop(0))
    for entry in entries:
        b = entry.bot_id
        stored = (entry.games, entry.wins, entry.draws)
        if abs(entry.rating - rating[b]) > tolerance or stored != (games[b], wins[b], draws[b]):
            problems.append(
                f"bot {b}: stored rating {entry.rating:.6f}, {entry.games} games, {entry.wins} wins, "
                f"{entry.draws} draws; replayed {rating[b]:.6f}, {games[b]} games, {wins[b]} wins, "
                f"{draws[b]} draws"
            )
        if abs(float(entry.information) - information.get(b, 0.0)) > tolerance:
            problems.append(
                f"bot {b}: stored information {float(entry.information):.9f}, "
                f"replayed from its history {information.get(b, 0.0):.9f}"
            )
    return problems


def replayed_information(conn: sa.Connection, ladder_id: int) -> dict[int, float]:
    """bot id -> the Fisher information of its rated games on the ladder, recomputed from the
    recorded history (``ladder/RATINGS.md``, "Ladder standings"): what recording should have
    accumulated in ``ladder_entries.information``.

    Every game counts at the ratings it was recorded at (the history's ``before`` columns): a
    free-for-all match's pairs of different bots, weight 1/(N-1); a cooperative match as one
    game of each bot against its scenario; a rated campaign as one free-for-all game of its bots
    (each pair once, weight 1/(players-1)). Matches that moved no rating (another engine
    version) have no history and count nothing.
    """
    kind = conn.execute(sa.select(ladders.c.kind).where(ladders.c.id == ladder_id)).scalar_one()
    out: defaultdict[int, float] = defaultdict(float)
    if kind == "campaign":
        rated: defaultdict[int, list[tuple[int, float, int]]] = defaultdict(list)
        for row in conn.execute(
            sa.select(campaign_ratings.c.campaign_id, campaign_ratings.c.bot_id, campaign_ratings.c.before,
                      campaigns.c.players)
            .join(campaigns, campaigns.c.id == campaign_ratings.c.campaign_id)
            .where(campaign_ratings.c.ladder_id == ladder_id)
        ):
            rated[int(row.campaign_id)].append((int(row.bot_id), float(row.before), int(row.players)))
        for rows in rated.values():
            for a, rating, players in rows:
                for b, opponent, _ in rows:
                    if a != b:
                        out[a] += skill.game_information(rating, opponent, 1.0 / (players - 1))
        return dict(out)
    before: defaultdict[int, dict[int, float]] = defaultdict(dict)
    for match_id, bot_id, value in conn.execute(
        sa.select(rating_history.c.match_id, rating_history.c.bot_id, rating_history.c.before).where(
            rating_history.c.ladder_id == ladder_id
        )
    ):
        before[int(match_id)][int(bot_id)] = float(value)
    bot_of = dict(conn.execute(sa.select(bot_versions.c.id, bot_versions.c.bot_id)).all())
    seats_of = dict(
        conn.execute(
            sa.select(matches.c.id, matches.c.seats).where(matches.c.ladder_id == ladder_id)
        ).all()
    )
    scenario_before: dict[int, float] = {}
    if kind == "coop":
        scenario_before = {
            int(m): float(r)
            for m, r in conn.execute(
                sa.select(scenario_rating_history.c.match_id, scenario_rating_history.c.before).where(
                    scenario_rating_history.c.match_id.in_(sa.select(matches.c.id).where(
                        matches.c.ladder_id == ladder_id))
                )
            )
        }
    for match_id, ratings in before.items():
        seat_bots = [int(bot_of[int(v)]) for v in seats_of.get(match_id, [])]
        if kind == "coop":
            if match_id in scenario_before:
                for b, rating in ratings.items():
                    out[b] += skill.game_information(rating, scenario_before[match_id])
            continue
        if any(b not in ratings for b in seat_bots):
            continue  # the chain check reports a match whose rows do not fit its seats
        gained = skill.free_for_all_information(seat_bots, [ratings[b] for b in seat_bots])
        for b, value in gained.items():
            out[b] += value
    return dict(out)


def _carry(rating: dict[int, float], period: Any, initial: float) -> None:
    """Carry `rating` (bot -> rating) over closed `period`: rating' = mean + carry x (rating -
    mean) for the bots on the ladder when it closed (its archive); a bot not in `rating` yet
    stood at the ladder's initial rating."""
    carry = float(period.carry)
    if carry == 1 or period.mean is None:
        return
    mean = float(period.mean)
    for entry in period.standings.get("bots", []):
        b = int(entry["bot_id"])
        rating[b] = mean + carry * (rating.get(b, initial) - mean)


def _replay_coop(
    order: list[int],
    done: dict[int, Any],
    bot_of: dict[int, int],
    coop: dict[int, tuple[bool, int, float]],
    rating: defaultdict[int, float],
    games: defaultdict[int, int],
    wins: defaultdict[int, int],
    problems: list[str],
    tolerance: float,
    new_period: Callable[[int], bool],
    policy: RatingPolicy,
) -> None:
    """Replay cooperative ratings (team vs scenario) over the recorded results, in order;
    `new_period(match_id)` restarts the games counts (the scenarios' too) at a period's start;
    the bots' K comes from the ladder's `policy`."""
    scenario_rating: defaultdict[int, float] = defaultdict(lambda: coop_rating.INITIAL_SCENARIO_RATING)
    scenario_games: defaultdict[int, int] = defaultdict(int)
    for match_id in order:
        if new_period(match_id):
            scenario_games.clear()
        if match_id not in done or match_id not in coop:
            problems.append(f"match {match_id}: no cooperative result or scenario history")
            continue
        team_won, scenario_id, recorded_before = coop[match_id]
        if abs(scenario_rating[scenario_id] - recorded_before) > tolerance:
            problems.append(
                f"match {match_id}: scenario {scenario_id} recorded at {recorded_before}, "
                f"replayed {scenario_rating[scenario_id]}"
            )
        seat_bots = [bot_of[int(v)] for v in done[match_id]]
        deltas = coop_rating.coop_deltas(
            [rating[b] for b in seat_bots],
            [policy.k_factor(games[b]) for b in seat_bots],
            scenario_rating[scenario_id],
            coop_rating.scenario_k_factor(scenario_games[scenario_id]),
            team_won,
        )
        delta_of = dict(zip(seat_bots, deltas.members, strict=True))
        for b in sorted(set(seat_bots)):
            rating[b] += delta_of[b]
            games[b] += 1
            wins[b] += team_won
        scenario_rating[scenario_id] += deltas.scenario
        scenario_games[scenario_id] += 1
