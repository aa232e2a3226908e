"""Divisions (leagues): a ladder's bots in tiers, each guarded by a boss (ladder/RATINGS.md,
"Divisions").

A ladder may have divisions, bottom (position 0, e.g. Wood) to top (e.g. Legend), set once by
``arena ladder create --divisions`` or ``arena ladder divisions``. Each has a **boss**: a
reference bot (a built-in strategy, owner ``arena``) that plays in that division; the top one's
is the strongest built-in the game offers (:func:`default_bosses`). Every bot starts in the
bottom division (``ladder_entries.division`` 0).

**Promotion** (:func:`promote_past_bosses`, run by the matchmaker before each pass): a bot whose
rating's interval lies wholly above its division's boss's rating, i.e.
``rating - z x deviation > boss rating`` (z and the deviation as the ladder's rating policy
defines them, the low end the standings rank by: :func:`above_boss`), moves up one division.
Nothing ever moves a bot down: within a season a promotion stands, and a season close
(``ladder.seasons``) carries every bot's division into the next season as it is (its rating and
the bosses' are shrunk toward the mean alike, so the order between them is unchanged).

**Pairing** (``workers.matchmaker``): a bot meets the bots of its own division, and across a
border only in the overlap (:func:`may_meet`): the :data:`DIVISION_OVERLAP` best-rated bots of a
division may meet the :data:`DIVISION_OVERLAP` lowest-rated of the division above (bosses and
other reference bots stay in their own division).

Pure except for the functions taking a connection or an engine.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Connection, Engine

# pydantic (behind FastAPI) needs this TypedDict on Python < 3.12 to build response schemas
from typing_extensions import TypedDict

from ladder.errors import InvalidInput, NotFound
from ladder.rating_policy import RatingPolicy, policy_of
from ladder.schema import bots, ladder_divisions, ladder_entries, ladders
from ladder.skill import deviation_from_information
from referee.bots import available

__all__ = [
    "DEFAULT_DIVISIONS",
    "DIVISION_OVERLAP",
    "MAX_DIVISIONS",
    "STRENGTH_ORDER",
    "DivisionInfo",
    "Promotion",
    "above_boss",
    "check_can_divide",
    "default_bosses",
    "divisions_of",
    "may_meet",
    "parse_divisions",
    "promote_past_bosses",
    "set_divisions",
    "strongest_builtin",
]

#: the divisions `arena ladder create --divisions default` makes, bottom to top (CodinGame's)
DEFAULT_DIVISIONS: Final = ("Wood", "Bronze", "Silver", "Gold", "Legend")
#: the bots at each edge of a division that may meet those at the facing edge of the next
DIVISION_OVERLAP: Final = 2
MAX_DIVISIONS: Final = 10
#: the built-in bots from weakest to strongest, as measured (referee/bots/ISMCTS.md: ismcts
#: beats greedy; greedy beats random); a game's other built-ins rank between random and ismcts
STRENGTH_ORDER: Final = ("random", "greedy", "coop", "ismcts")
_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")


class DivisionInfo(TypedDict):
    """One division of a ladder, with its boss's standing there."""

    #: 0 = the bottom division, where every bot starts
    position: int
    name: str
    #: the boss: a reference bot playing in this division; a bot rated above it moves up
    boss_bot_id: int
    boss_name: str
    boss_rating: float
    #: bots in the division (its boss included)
    bots: int


@dataclass(frozen=True, slots=True)
class Promotion:
    """A bot moved up one division by :func:`promote_past_bosses`."""

    ladder_id: int
    bot_id: int
    #: the divisions' positions and names
    from_position: int
    to_position: int
    to_name: str


def _strength(name: str) -> int:
    return STRENGTH_ORDER.index(name) if name in STRENGTH_ORDER else 1


def strongest_builtin(game: str) -> str:
    """The strongest built-in bot the platform seats for `game`: ``ismcts`` where the game has
    it, else ``greedy``, else the strongest of the rest (:data:`STRENGTH_ORDER`)."""
    return max(available(game), key=lambda b: (_strength(b), b))


def default_bosses(game: str, count: int) -> list[str]:
    """The boss strategies of `count` divisions, bottom to top: the game's built-ins from
    weakest to strongest spread evenly over the divisions below the top, the bottom one the
    weakest; the top one's is the strongest (:func:`strongest_builtin`)."""
    ranked = sorted(available(game), key=lambda b: (_strength(b), b))
    below = [ranked[min(len(ranked) - 1, i * len(ranked) // count)] for i in range(count - 1)]
    return [*below, ranked[-1]]


def parse_divisions(text: str, game: str) -> list[tuple[str, str]]:
    """(name, boss strategy) per division, bottom to top, from ``--divisions``: "default"
    (:data:`DEFAULT_DIVISIONS`), or comma-separated names, each optionally ``NAME:BUILTIN``
    (a boss left out: :func:`default_bosses`). InvalidInput, one line, for anything else."""
    text = text.strip()
    parts = list(DEFAULT_DIVISIONS) if text == "default" else [p.strip() for p in text.split(",")]
    if not 2 <= len(parts) <= MAX_DIVISIONS:
        raise InvalidInput(
            f"divisions: 2 to {MAX_DIVISIONS}, bottom first (e.g. Wood,Bronze,Gold), got {text!r}"
        )
    names: list[str] = []
    given: list[str | None] = []
    known = available(game)
    for part in parts:
        name, _, boss = part.partition(":")
        if not _NAME.fullmatch(name):
            raise InvalidInput(
                f"divisions: {name!r} is not a division name "
                "(a letter, then up to 31 letters, digits, _ or -)"
            )
        if name.lower() in (n.lower() for n in names):
            raise InvalidInput(f"divisions: {name!r} is named twice")
        if boss and boss not in known:
            raise InvalidInput(
                f"divisions: boss {boss!r} of {name}: {game}'s built-in bots are {', '.join(known)}"
            )
        names.append(name)
        given.append(boss or None)
    defaults = default_bosses(game, len(names))
    return [(n, b or d) for n, b, d in zip(names, given, defaults, strict=True)]


def above_boss(rating: float, information: float, boss_rating: float, policy: RatingPolicy) -> bool:
    """The promotion rule: the low end of the bot's interval (rating - z x deviation, the
    ladder's policy's z and prior) is above the boss's rating."""
    return low_end(rating, information, policy) > boss_rating


def low_end(rating: float, information: float, policy: RatingPolicy) -> float:
    """The low end of a rating's interval, as the standings show it and rank by."""
    return rating - policy.z * deviation_from_information(information, prior_games=policy.prior_games)


def may_meet(
    division: Mapping[int, int],
    rating: Mapping[int, float],
    reference: Mapping[int, bool],
    *,
    overlap: int = DIVISION_OVERLAP,
) -> dict[int, frozenset[int]]:
    """bot -> the bots it may be paired with (itself left out): the bots of its division, and
    across a border only between the `overlap` best-rated non-reference bots of a division and
    the `overlap` lowest-rated non-reference bots of the division above."""
    members: dict[int, list[int]] = {}
    for bot, d in division.items():
        members.setdefault(d, []).append(bot)
    top: dict[int, set[int]] = {}
    bottom: dict[int, set[int]] = {}
    for d, bots_in in members.items():
        players = sorted((b for b in bots_in if not reference[b]), key=lambda b: (rating[b], b))
        bottom[d] = set(players[:overlap]) if overlap > 0 else set()
        top[d] = set(players[-overlap:]) if overlap > 0 else set()
    reach: dict[int, frozenset[int]] = {}
    for bot, d in division.items():
        allowed = set(members[d])
        if bot in top[d]:
            allowed |= bottom.get(d + 1, set())
        if bot in bottom[d]:
            allowed |= top.get(d - 1, set())
        allowed.discard(bot)
        reach[bot] = frozenset(allowed)
    return reach


def divisions_of(conn: Connection, ladder_id: int) -> list[DivisionInfo]:
    """Ladder `ladder_id`'s divisions, bottom first (empty: it has none)."""
    rows = conn.execute(
        sa.select(
            ladder_divisions.c.position,
            ladder_divisions.c.name,
            ladder_divisions.c.boss_bot_id,
            bots.c.name.label("boss_name"),
            ladder_entries.c.rating,
        )
        .join(bots, bots.c.id == ladder_divisions.c.boss_bot_id)
        .join(
            ladder_entries,
            sa.and_(
                ladder_entries.c.ladder_id == ladder_divisions.c.ladder_id,
                ladder_entries.c.bot_id == ladder_divisions.c.boss_bot_id,
            ),
        )
        .where(ladder_divisions.c.ladder_id == ladder_id)
        .order_by(ladder_divisions.c.position)
    ).all()
    if not rows:
        return []
    counts: dict[int, int] = dict(
        conn.execute(
            sa.select(ladder_entries.c.division, sa.func.count())
            .where(ladder_entries.c.ladder_id == ladder_id)
            .group_by(ladder_entries.c.division)
        ).all()
    )
    return [
        {
            "position": int(r.position),
            "name": str(r.name),
            "boss_bot_id": int(r.boss_bot_id),
            "boss_name": str(r.boss_name),
            "boss_rating": round(float(r.rating), 1),
            "bots": int(counts.get(r.position, 0)),
        }
        for r in rows
    ]


def check_can_divide(conn: Connection, ladder_id: int, *, lock: bool = False) -> Any:
    """Ladder `ladder_id`'s row if it may be given divisions: NotFound for no such ladder;
    InvalidInput (one line) for one that has them already (set once: changing them mid-season
    would move bots down) or a cooperative or campaign ladder (the matchmaker pairs neither by
    rating)."""
    query = sa.select(ladders).where(ladders.c.id == ladder_id)
    ladder = conn.execute(query.with_for_update() if lock else query).one_or_none()
    if ladder is None:
        raise NotFound(f"no ladder {ladder_id}")
    if ladder.kind != "ffa":
        raise InvalidInput(
            f"ladder {ladder.name} is kind {ladder.kind!r}: only free-for-all ladders have divisions"
        )
    if conn.execute(
        sa.select(ladder_divisions.c.position).where(ladder_divisions.c.ladder_id == ladder_id)
    ).first():
        raise InvalidInput(f"ladder {ladder.name} has its divisions already (they are set once)")
    return ladder


def set_divisions(engine: Engine, ladder_id: int, divisions: Sequence[tuple[str, int]]) -> None:
    """Give ladder `ladder_id` its divisions: (name, boss bot id) bottom to top, each boss a bot
    on the ladder already (``arena ladder divisions`` makes them). Every other bot on it is put
    in the bottom division; each boss in its own. Set once: InvalidInput for a ladder that has
    divisions, a cooperative or campaign ladder (:func:`check_can_divide`), or a boss not on
    the ladder; NotFound for no such ladder."""
    from ladder.db import write_transaction

    with write_transaction(engine) as conn:
        ladder = check_can_divide(conn, ladder_id, lock=True)
        on = set(
            conn.execute(
                sa.select(ladder_entries.c.bot_id).where(ladder_entries.c.ladder_id == ladder_id)
            ).scalars()
        )
        bosses = [b for _, b in divisions]
        if len(set(bosses)) != len(bosses) or not set(bosses) <= on:
            raise InvalidInput(f"ladder {ladder.name}: each division needs its own boss, a bot on the ladder")
        conn.execute(
            sa.update(ladder_entries).where(ladder_entries.c.ladder_id == ladder_id).values(division=0)
        )
        for position, (name, boss) in enumerate(divisions):
            conn.execute(
                sa.insert(ladder_divisions).values(
                    ladder_id=ladder_id, position=position, name=name, boss_bot_id=boss
                )
            )
            conn.execute(
                sa.update(ladder_entries)
                .where(ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == boss)
                .values(division=position)
            )


def _promotions(
    entries: Sequence[Any], bosses: Mapping[int, tuple[int, float]], top: int, policy: RatingPolicy
) -> list[tuple[int, int]]:
    """(bot id, its division) of each entry to move up one division (bosses never move)."""
    boss_ids = {b for b, _ in bosses.values()}
    moving = []
    for e in entries:
        if e.bot_id in boss_ids or e.division >= top or e.games == 0:
            continue
        _, boss_rating = bosses[e.division]
        if above_boss(float(e.rating), float(e.information), boss_rating, policy):
            moving.append((int(e.bot_id), int(e.division)))
    return moving


def promote_past_bosses(engine: Engine, ladder_ids: Sequence[int] | None = None) -> list[Promotion]:
    """Move up one division every bot rated above its division's boss (:func:`above_boss`), on
    each ladder with divisions (of `ladder_ids`, default all). A bot that played no game there
    is not moved. Never moves a bot down. Returns what moved."""
    from ladder.db import write_transaction

    done: list[Promotion] = []
    with write_transaction(engine) as conn:
        query = sa.select(ladders).where(ladders.c.id.in_(sa.select(ladder_divisions.c.ladder_id)))
        if ladder_ids is not None:
            query = query.where(ladders.c.id.in_(list(ladder_ids)))
        for ladder in conn.execute(query.order_by(ladders.c.id)).all():
            tiers = conn.execute(
                sa.select(
                    ladder_divisions.c.position, ladder_divisions.c.name, ladder_divisions.c.boss_bot_id
                )
                .where(ladder_divisions.c.ladder_id == ladder.id)
                .order_by(ladder_divisions.c.position)
            ).all()
            entries = conn.execute(
                sa.select(
                    ladder_entries.c.bot_id,
                    ladder_entries.c.division,
                    ladder_entries.c.rating,
                    ladder_entries.c.games,
                    ladder_entries.c.information,
                ).where(ladder_entries.c.ladder_id == ladder.id)
            ).all()
            rating = {e.bot_id: float(e.rating) for e in entries}
            bosses = {
                t.position: (t.boss_bot_id, rating[t.boss_bot_id]) for t in tiers if t.boss_bot_id in rating
            }
            if len(bosses) != len(tiers):  # a boss taken off the ladder: nobody is measured by it
                continue
            names = {t.position: str(t.name) for t in tiers}
            for bot_id, position in _promotions(entries, bosses, len(tiers) - 1, policy_of(ladder)):
                # only ever up, and only from where it was read (a concurrent pass moved it once)
                moved = conn.execute(
                    sa.update(ladder_entries)
                    .where(
                        ladder_entries.c.ladder_id == ladder.id,
                        ladder_entries.c.bot_id == bot_id,
                        ladder_entries.c.division == position,
                    )
                    .values(division=position + 1)
                ).rowcount
                if moved:
                    done.append(Promotion(ladder.id, bot_id, position, position + 1, names[position + 1]))
    return done
