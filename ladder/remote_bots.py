"""The ladder's side of remote bots: the bot-token check the referee's lobby is handed, and the
referee's public address the API gives bot authors.

The referee knows nothing of the ladder's database (it is the lower layer): a referee started
with ``--db`` gets :func:`ladder_authenticator`'s function from the composition root
(``cli/main.py``) and calls it with each bot token that opens a lobby stream.

Where a remote bot connects is the operator's to say: ``$ARENA_PUBLIC_REFEREE`` (HOST:PORT, as
the bots' machines reach it) and ``$ARENA_PUBLIC_REFEREE_TLS`` (default 1). :func:`public_referee`
reads them; the API answers them (``GET /api/referee``, a remote version's creation, a bot's
profile) and ``arena bot remote`` prints the command to run. Unset, the answer says so: the
workers' ``ARENA_REFEREE_ADDR`` is the referee as the workers reach it (often a private address),
never something to guess a bot's address from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

# pydantic (behind FastAPI) needs this TypedDict on Python < 3.12 to build response schemas
from typing_extensions import TypedDict

from referee import settings
from referee.server.lobby import Authenticator, RemoteIdentity

if TYPE_CHECKING:
    from collections.abc import Mapping

    from sqlalchemy import Engine

__all__ = [
    "PUBLIC_REFEREE_ENV",
    "PUBLIC_REFEREE_TLS_ENV",
    "PublicReferee",
    "RefereeInfo",
    "ladder_authenticator",
    "public_referee",
    "remote_refusal",
]

PUBLIC_REFEREE_ENV: Final = "ARENA_PUBLIC_REFEREE"
PUBLIC_REFEREE_TLS_ENV: Final = "ARENA_PUBLIC_REFEREE_TLS"


class RefereeInfo(TypedDict):
    """Where remote bots connect, as the API answers it."""

    #: False: the operator has not published the address (``message`` says so)
    configured: bool
    #: HOST:PORT as a bot's machine reaches it, or None
    address: str | None
    #: the referee serves TLS (the bot connects with ``--tls``, or ``--ca FILE``), or None
    tls: bool | None
    #: the SDK's arguments to reach it (``--referee HOST:PORT --tls``), or None
    sdk_args: str | None
    #: one sentence for a person
    message: str


@dataclass(frozen=True, slots=True)
class PublicReferee:
    """The long-lived referee as remote bots reach it; `address` None: not published."""

    address: str | None
    tls: bool = True

    def info(self) -> RefereeInfo:
        """The API's answer (see :class:`RefereeInfo`)."""
        if self.address is None:
            return {
                "configured": False,
                "address": None,
                "tls": None,
                "sdk_args": None,
                "message": (
                    "the operator has not published the referee's address "
                    f"(${PUBLIC_REFEREE_ENV} on the API server): ask them where remote bots connect"
                ),
            }
        args = f"--referee {self.address}" + (" --tls" if self.tls else "")
        how = "over TLS (--tls; --ca FILE if its certificate is not from a public CA)" if self.tls else (
            "in plaintext (no --tls)"
        )
        return {
            "configured": True,
            "address": self.address,
            "tls": self.tls,
            "sdk_args": args,
            "message": f"remote bots connect to {self.address} {how}, with their bot token",
        }


def public_referee(environ: Mapping[str, str] | None = None) -> PublicReferee:
    """``$ARENA_PUBLIC_REFEREE`` / ``$ARENA_PUBLIC_REFEREE_TLS``; ValueError naming the variable
    for a value that is not HOST:PORT, or not 0/1."""
    parsed = settings.current() if environ is None else settings.Settings.from_env(environ)
    return PublicReferee(parsed.public_referee, parsed.public_referee_tls)


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

    The matchmaker plays a bot's newest qualified version on every ladder it joined
    (`workers.matchmaker`), so the bot needs a remote version, no newer hosted one, and a ladder.
    A remote version still to qualify counts: its qualification games are played on this
    connection (`workers.qualification`), so the bot is let in to play them. A remote version
    that failed is refused with its reason, unless an older remote one passed (that one plays on).
    """
    import json

    import sqlalchemy as sa

    from ladder.bots import REMOTE
    from ladder.schema import bot_versions, ladder_entries

    has_state = "qualification" in bot_versions.c
    qualified = (
        bot_versions.c.qualification == "passed"  # migration 0003: only these are played
        if has_state
        else sa.true()
    )
    state = bot_versions.c.qualification if has_state else sa.literal("passed")
    detail = bot_versions.c.qualification_detail if has_state else sa.literal(None)
    with engine.connect() as conn:
        versions = conn.execute(
            sa.select(
                bot_versions.c.id,
                bot_versions.c.version,
                bot_versions.c.command,
                qualified.label("played"),
                state.label("state"),
                detail.label("detail"),
            )
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
    remote = [v for v in versions if v.command.strip() == REMOTE]
    if not remote:
        return (
            f"bot {name} has no remote version (its versions are hosted): run "
            f"`arena bot remote {name}` to add one, then connect again"
        )
    played = [v for v in versions if v.played]
    # its qualification games are waiting for this very connection
    qualifying = remote[-1] if remote[-1].state in ("pending", "running") else None
    newest_played = played[-1] if played else None
    if (
        newest_played is not None
        and newest_played.command.strip() != REMOTE
        and (qualifying is None or qualifying.id < newest_played.id)
    ):
        return (
            f"bot {name}'s newest version {played[-1].version!r} is hosted (the ladder plays that one, "
            f"not this connection): run `arena bot remote {name}` to add a remote version"
        )
    if not played and qualifying is None:
        failed = remote[-1]
        try:
            why = str(json.loads(failed.detail or "{}").get("reason") or "")
        except (ValueError, AttributeError):
            why = ""
        return (
            f"bot {name}'s remote version {failed.version!r} failed qualification"
            + (f" ({why[:300]})" if why else "")
            + f": fix the bot, run `arena bot remote {name}` for a new version (and token), then "
            "connect again to play its qualification games"
        )
    if not ladders:
        return (
            f"bot {name} is on no ladder: run `arena ladder join {name} LADDER` "
            "(`arena ladder list` shows the ladders), then connect again"
        )
    return ""
