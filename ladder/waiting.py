"""Why a ladder plays no match: the sentence the ladder page and ``arena bot status`` show.

The matchmaker (``workers.matchmaker``) makes a match around a bot that is not a reference bot,
filling the other seats with the bots nearest in rating, reference bots included; a campaign
ladder's campaigns are seated the same way (``workers.campaign_ladders``). So a ladder of
``players`` seats plays once it has at least one **ready** bot that is not a reference bot and
``players`` ready bots in all. A bot is ready when it has a version that passed qualification
and is not suspended (``ladder.suspension``). :func:`why_no_match` says which of the two is
missing, with the counts and what fixes it; it reads the database only (a remote bot that is
ready here still plays only while it is connected to a referee).
"""

from __future__ import annotations

from typing import Final

import sqlalchemy as sa
from sqlalchemy import Connection

from ladder.bots import REFERENCE_OWNER
from ladder.schema import bot_versions, bots, ladder_entries, ladders

__all__ = ["REFERENCE_BOTS_COMMAND", "why_no_match"]

#: how an operator puts the game's reference bots on an existing ladder (``cli.client``)
REFERENCE_BOTS_COMMAND: Final = "arena ladder reference-bots {ladder}"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def why_no_match(conn: Connection, ladder_id: int) -> str | None:
    """Why ladder `ladder_id` can make no match now, and what is missing; None when it can
    (or there is no such ladder)."""
    ladder = conn.execute(
        sa.select(ladders.c.name, ladders.c.players, ladders.c.kind).where(ladders.c.id == ladder_id)
    ).one_or_none()
    if ladder is None:
        return None
    rows = conn.execute(
        sa.select(
            ladder_entries.c.bot_id,
            sa.and_(bots.c.owner == REFERENCE_OWNER, bots.c.account_id.is_(None)).label("reference"),
            bot_versions.c.qualification,
            bot_versions.c.suspended_at,
        )
        .join(bots, bots.c.id == ladder_entries.c.bot_id)
        .join(bot_versions, bot_versions.c.bot_id == ladder_entries.c.bot_id, isouter=True)
        .where(ladder_entries.c.ladder_id == ladder_id)
    ).all()
    reference: dict[int, bool] = {}
    ready: set[int] = set()
    qualifying: set[int] = set()
    for row in rows:
        reference[row.bot_id] = bool(row.reference)
        if row.qualification == "passed" and row.suspended_at is None:
            ready.add(row.bot_id)
        elif row.qualification in ("pending", "running"):
            qualifying.add(row.bot_id)
    bots_ready = sum(1 for b in ready if not reference[b])
    refs_ready = sum(1 for b in ready if reference[b])
    still = len(qualifying - ready)
    players = int(ladder.players)
    if bots_ready >= 1 and bots_ready + refs_ready >= players:
        return None
    what = "campaign" if ladder.kind == "campaign" else "match"
    waiting = f"; {_count(still, 'bot')} still qualifying" if still else ""
    if bots_ready == 0:
        return (
            f"no {what} yet: no bot on it has a qualified version (reference bots never play "
            f"each other alone){waiting}"
        )
    missing = players - bots_ready - refs_ready
    add = REFERENCE_BOTS_COMMAND.format(ladder=ladder.name)
    return (
        f"no {what} can start: it needs {players} seats and has {_count(bots_ready, 'bot')} + "
        f"{_count(refs_ready, 'reference bot')} ready{waiting}; an operator adds reference bots "
        f"with `{add}`, or wait for {missing} more {'bot' if missing == 1 else 'bots'} to join "
        "and qualify"
    )
