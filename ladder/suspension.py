"""A bot version that keeps forfeiting its rated matches is suspended from matchmaking.

Qualification (``workers.qualification``) checks a version before it is rated, and its games
look like rated ones to the bot; this is the check after: a version that passed and then
forfeits rated matches anyway (it crashes, exits, never connects, times out past its bank,
floods) costs its opponents their games. The rule:

* **the window** — a version's last :data:`WINDOW` (5) finished matches on the matchmaker's
  ladders (not a competition's or a campaign's own ladder), newest first;
* **the limit** — if its own seat forfeited in :data:`LIMIT` (3) of them, whatever the
  forfeit's kind, the version is suspended: ``bot_versions.suspended_at`` and ``suspension``
  (the reason: the count and each forfeited match with its ruling) are set once, for good;
* **what follows** — the matchmaker never seats a suspended version again; its bot plays its
  newest version that passed and is not suspended (its last good one), or sits out if it has
  none. Its matches still queued (not yet claimed) are removed in the same transaction, so no
  more of its forfeits are played. The owner reads the reason in ``arena bot status`` and
  ``GET /api/bots/{id}`` (``versions[].suspension``); a new upload is a new version, which
  qualifies and plays.

Forfeits are read from the result's reason as the executors write it (``forfeit: seat 1
crashed: exit code 1; seat 3 never connected``, :func:`forfeited_seats`); the replay holds the
same rulings. :func:`suspend_forfeiting_versions` runs at the start of every matchmaker pass
(``workers.matchmaker.fill_queues``), over the :data:`SCAN` most recent finished matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.db import write_transaction
from ladder.schema import bot_versions, campaigns, competitions, ladders, matches, results

__all__ = [
    "LIMIT",
    "SCAN",
    "WINDOW",
    "Verdict",
    "forfeited_seats",
    "matchmaker_ladders",
    "suspend_forfeiting_versions",
    "verdicts",
]

#: a version's most recent finished matches looked at
WINDOW: Final = 5
#: forfeits of its own seat among them that suspend it
LIMIT: Final = 3
#: finished matches (newest first, all matchmaker ladders) each pass reads
SCAN: Final = 1000

_SEAT: Final = re.compile(r"(?:^forfeit: |; )seat (\d+) ")


def forfeited_seats(reason: str) -> dict[int, str]:
    """Seat -> ruling of every forfeit in a result's reason (empty for ``finished``)."""
    if not reason.startswith("forfeit: "):
        return {}
    marks = list(_SEAT.finditer(reason))
    found: dict[int, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(reason)
        found.setdefault(int(mark.group(1)), reason[mark.end() : end])
    return found


@dataclass(frozen=True, slots=True)
class Verdict:
    """A version to suspend: its forfeited matches (id, ruling) among the last `games`."""

    version_id: int
    games: int
    forfeits: tuple[tuple[int, str], ...]

    def reason(self) -> str:
        """The sentence its owner reads."""
        which = "; ".join(f"match {m}: {why}"[:160] for m, why in self.forfeits)
        return (
            f"suspended from matchmaking: it forfeited {len(self.forfeits)} of its last {self.games} "
            f"rated matches ({which}); its bot plays its newest good version instead, if it has "
            "one. Fix the bot and upload a new version"
        )


def verdicts(
    finished: Iterable[tuple[int, Sequence[int], str]], *, window: int = WINDOW, limit: int = LIMIT
) -> list[Verdict]:
    """The versions to suspend, from finished matches (id, version per seat, result reason),
    newest first: those whose own seat forfeited in `limit` of their last `window`."""
    seen: dict[int, list[tuple[int, str | None]]] = {}
    for match_id, seats, reason in finished:
        forfeits = forfeited_seats(reason)
        for seat, version in enumerate(seats):
            games = seen.setdefault(int(version), [])
            if len(games) < window:
                games.append((match_id, forfeits.get(seat)))
    found = []
    for version, games in sorted(seen.items()):
        bad = tuple((m, why) for m, why in games if why is not None)
        if len(bad) >= limit:
            found.append(Verdict(version, len(games), bad))
    return found


def matchmaker_ladders() -> sa.Select[tuple[int]]:
    """The ids of the ladders the matchmaker plays (not a competition's or campaign's own)."""
    return sa.select(ladders.c.id).where(
        ladders.c.id.not_in(sa.select(competitions.c.ladder_id)),
        ladders.c.id.not_in(sa.select(campaigns.c.ladder_id)),
        ladders.c.kind != "campaign",
    )


def suspend_forfeiting_versions(
    engine: Engine, *, now: datetime | None = None, scan: int = SCAN
) -> list[int]:
    """Suspend every version that forfeited :data:`LIMIT` of its last :data:`WINDOW` finished
    matches (read from the `scan` newest), and remove its still-queued matches; the ids of the
    versions suspended now (one already suspended is left as it is)."""
    now = now or datetime.now(UTC)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(matches.c.id, matches.c.seats, results.c.reason)
            .join(results, results.c.match_id == matches.c.id)
            .where(matches.c.status == "done", matches.c.ladder_id.in_(matchmaker_ladders()))
            .order_by(matches.c.id.desc())
            .limit(scan)
        ).all()
    found = verdicts((int(r.id), [int(v) for v in r.seats], str(r.reason)) for r in rows)
    if not found:
        return []
    suspended = []
    with write_transaction(engine) as conn:
        open_ = {
            int(r.id)
            for r in conn.execute(
                sa.select(bot_versions.c.id).where(
                    bot_versions.c.id.in_([v.version_id for v in found]),
                    bot_versions.c.suspended_at.is_(None),
                )
            )
        }
        for verdict in found:
            if verdict.version_id not in open_:
                continue
            changed = conn.execute(
                sa.update(bot_versions)
                .where(bot_versions.c.id == verdict.version_id, bot_versions.c.suspended_at.is_(None))
                .values(suspended_at=now, suspension=verdict.reason())
            ).rowcount
            if changed == 1:
                suspended.append(verdict.version_id)
        if suspended:
            _drop_queued(conn, suspended)
    return suspended


def _drop_queued(conn: sa.Connection, versions: Sequence[int]) -> None:
    """Remove the still-queued matchmaker matches seating any of `versions` (a worker claims a
    match by moving it from queued to running, so a claimed one is never removed)."""
    wanted = set(versions)
    queued = conn.execute(
        sa.select(matches.c.id, matches.c.seats).where(
            matches.c.status == "queued", matches.c.ladder_id.in_(matchmaker_ladders())
        )
    ).all()
    doomed = [int(r.id) for r in queued if wanted & {int(v) for v in r.seats}]
    if doomed:
        conn.execute(sa.delete(matches).where(matches.c.id.in_(doomed), matches.c.status == "queued"))

