"""The ladder's side of remote bots: the bot-token check the referee's lobby is handed.

The referee knows nothing of the ladder's database (it is the lower layer): a referee started
with ``--db`` gets :func:`ladder_authenticator`'s function from the composition root
(``workers/main.py``) and calls it with each bot token that opens a lobby stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.server.lobby import Authenticator, RemoteIdentity

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["ladder_authenticator", "remote_refusal"]


def ladder_authenticator(db_url: str) -> Authenticator:
    """Bot tokens checked against the ladder database at `db_url` (`ladder.bots`); a bot the
    ladder would never seat on this connection gets a `refusal` (see `remote_refusal`)."""
    from ladder.bots import authenticate_bot
    from ladder.db import create_engine

    engine = create_engine(db_url)

    def authenticate(token: str) -> RemoteIdentity | None:
        found = authenticate_bot(engine, token)
        if found is None:
            return None
        return RemoteIdentity(found.bot_id, found.name, remote_refusal(engine, found.bot_id, found.name))

    return authenticate


def remote_refusal(engine: Engine, bot_id: int, name: str) -> str:
    """Why the matchmaker would never seat bot `bot_id` through a bot-token connection, as an
    instruction to its author; "" when it may be seated.

    The matchmaker plays a bot's newest seatable version on every ladder it joined
    (`workers.matchmaker`), so the bot needs a remote version, no newer hosted one, and a ladder.
    """
    import sqlalchemy as sa

    from ladder.bots import REMOTE
    from ladder.schema import bot_versions, ladder_entries

    qualified = (
        bot_versions.c.qualification == "passed"  # migration 0003: only these are played
        if "qualification" in bot_versions.c
        else sa.true()
    )
    with engine.connect() as conn:
        versions = conn.execute(
            sa.select(bot_versions.c.version, bot_versions.c.command, qualified.label("played"))
            .where(bot_versions.c.bot_id == bot_id)
            .order_by(bot_versions.c.id)
        ).all()
        ladders = conn.execute(
            sa.select(sa.func.count()).select_from(ladder_entries).where(ladder_entries.c.bot_id == bot_id)
        ).scalar_one()
    if not versions:
        return (
            f"bot {name} has no version: run `arena bot remote {name}` to add a remote version, "
            "then connect again"
        )
    if not any(v.command.strip() == REMOTE for v in versions):
        return (
            f"bot {name} has no remote version (its versions are hosted): run "
            f"`arena bot remote {name}` to add one, then connect again"
        )
    played = [v for v in versions if v.played]
    if played and played[-1].command.strip() != REMOTE:
        return (
            f"bot {name}'s newest version {played[-1].version!r} is hosted (the ladder plays that one, "
            f"not this connection): run `arena bot remote {name}` to add a remote version"
        )
    if not ladders:
        return (
            f"bot {name} is on no ladder: run `arena ladder join {name} LADDER` "
            "(`arena ladder list` shows the ladders), then connect again"
        )
    return ""
