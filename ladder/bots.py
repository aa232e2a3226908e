"""Bot accounts: registration, bot tokens, versions.

A bot's token is shown once, at registration; only its SHA-256 is stored. The token carries 256
random bits, so looking it up by hash needs no salt or slow hash: nothing about it can be
guessed from the hash, and a leaked database does not let anyone connect as the bot.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import sqlalchemy as sa
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from ladder.errors import Conflict, InvalidInput, NotFound
from ladder.schema import bot_versions, bots

__all__ = [
    "REMOTE",
    "BotIdentity",
    "Registration",
    "add_bot_version",
    "authenticate_bot",
    "hash_token",
    "register_bot",
]

#: the `command` of a bot version that runs on its author's machine and connects by itself
REMOTE: Final = "remote"
TOKEN_PREFIX: Final = "arena_"
TOKEN_BYTES: Final = 32
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True, slots=True)
class Registration:
    """A newly registered bot, with its token (shown this once, never stored)."""

    bot_id: int
    name: str
    owner: str
    token: str


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """The bot a token belongs to."""

    bot_id: int
    name: str
    owner: str


def hash_token(token: str) -> str:
    """The SHA-256 hex digest stored in place of `token`."""
    return hashlib.sha256(token.encode()).hexdigest()


def register_bot(
    engine: Engine, name: str, owner: str, *, now: datetime | None = None
) -> Registration:
    """Create bot `name` owned by `owner` and return it with a fresh random token.

    Names are 1-64 characters of letters, digits, '_', '.', '-' (starting with a letter or
    digit). Raises InvalidInput for a bad name or empty owner, Conflict if the name is taken.
    """
    if not _NAME.fullmatch(name):
        raise InvalidInput(
            "name: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    owner = owner.strip()
    if not owner or len(owner) > 128:
        raise InvalidInput("owner: 1-128 characters")
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    row = {
        "name": name,
        "owner": owner,
        "token_hash": hash_token(token),
        "created_at": now or datetime.now(UTC),
    }
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.insert(bots).values(row).returning(bots.c.id)).scalar_one()
    except IntegrityError as exc:
        raise Conflict(f"a bot named {name!r} already exists") from exc
    return Registration(bot_id=bot_id, name=name, owner=owner, token=token)


def authenticate_bot(engine: Engine, token: str) -> BotIdentity | None:
    """The bot whose token is `token`, or None if no bot has it."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(bots.c.id, bots.c.name, bots.c.owner).where(
                bots.c.token_hash == hash_token(token)
            )
        ).one_or_none()
    if row is None:
        return None
    return BotIdentity(bot_id=row.id, name=row.name, owner=row.owner)


def add_bot_version(
    engine: Engine,
    bot_id: int,
    version: str,
    command: str = REMOTE,
    *,
    now: datetime | None = None,
) -> int:
    """Add `version` of bot `bot_id` and return its id.

    `command` launches a hosted bot; :data:`REMOTE` marks a bot that connects by itself.
    Raises NotFound for an unknown bot, Conflict if the version exists.
    """
    if not version or len(version) > 64:
        raise InvalidInput("version: 1-64 characters")
    row = {
        "bot_id": bot_id,
        "version": version,
        "command": command,
        "created_at": now or datetime.now(UTC),
    }
    try:
        with engine.begin() as conn:
            if conn.execute(sa.select(bots.c.id).where(bots.c.id == bot_id)).first() is None:
                raise NotFound(f"no bot {bot_id}")
            stmt = sa.insert(bot_versions).values(row).returning(bot_versions.c.id)
            version_id: int = conn.execute(stmt).scalar_one()
    except IntegrityError as exc:
        raise Conflict(f"bot {bot_id} already has a version {version!r}") from exc
    return version_id
