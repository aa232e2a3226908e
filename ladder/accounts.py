"""Accounts and their API keys.

An account has a name, an operator flag and API keys. A key (``arena_`` + 43 url-safe characters,
256 random bits) is shown once, when it is made; the database keeps its SHA-256 (a fast hash is
right for a random 256-bit secret: there is nothing to guess, so a slow password hash would only
slow every request), its first characters (``prefix``, to tell keys apart in a listing), its
scopes, its rate limit and when it was last used. A revoked key stops working at once.

An account holds at most :data:`MAX_KEYS_PER_ACCOUNT` live keys, and the API's rate limit counts
per account: every key of an account draws from the same bucket (``ladder.api``).

Scopes (space-separated in ``api_keys.scopes``):

``bots``      create bots, upload versions, join ladders, read the logs of the account's own bots
``operator``  operator actions: create accounts, act on any bot, read any bot's logs (operator
              accounts only)
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

# pydantic (behind FastAPI) needs this TypedDict on Python < 3.12 to build response schemas
from typing_extensions import TypedDict

from ladder.db import write_transaction
from ladder.errors import Conflict, Forbidden, InvalidInput, NotFound
from ladder.schema import accounts, api_keys

__all__ = [
    "DEFAULT_RATE_PER_MINUTE",
    "KEY_PREFIX",
    "MAX_KEYS_PER_ACCOUNT",
    "NAME_PATTERN",
    "SCOPES",
    "AccountInfo",
    "Identity",
    "KeyInfo",
    "NewAccount",
    "NewKey",
    "account_info",
    "authenticate_key",
    "create_account",
    "create_key",
    "hash_key",
    "identity_of",
    "parse_scopes",
    "revoke_key",
    "rotate_key",
]

KEY_PREFIX: Final = "arena_"
KEY_BYTES: Final = 32
#: characters of a key kept in clear (``api_keys.prefix``): "arena_" and 6 random characters
SHOWN_PREFIX: Final = 12
#: requests a minute a new key may make to the calls that need a key (see ladder.api)
DEFAULT_RATE_PER_MINUTE: Final = 60
#: live (not revoked) keys an account may hold: its rate limit is the account's, whatever the
#: number of keys, and this bounds what a leaked key can mint
MAX_KEYS_PER_ACCOUNT: Final = 10
#: every scope there is
SCOPES: Final = ("bots", "operator")
#: account (and bot) names: 1-64 letters, digits, '_', '.', '-', starting with a letter or digit
NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
_NAME: Final = re.compile(NAME_PATTERN)
#: ``last_used_at`` is written at most this often per key (not one write per request)
_LAST_USED_RESOLUTION: Final = timedelta(seconds=60)


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a valid API key belongs to, and what it may do."""

    key_id: int
    account_id: int
    account_name: str
    is_operator: bool
    scopes: frozenset[str]
    rate_per_minute: int

    def has(self, scope: str) -> bool:
        """True if the key carries `scope`."""
        return scope in self.scopes


@dataclass(frozen=True, slots=True)
class NewKey:
    """A new key: `api_key` is shown this once and never stored."""

    key_id: int
    api_key: str


@dataclass(frozen=True, slots=True)
class NewAccount:
    """A new account with its first key (shown this once)."""

    account_id: int
    name: str
    is_operator: bool
    key_id: int
    api_key: str


class KeyInfo(TypedDict):
    """One of an account's keys, as listed (never the key or its hash)."""

    id: int
    prefix: str
    scopes: str
    created_at: str
    last_used_at: str | None


class AccountInfo(TypedDict):
    """An account and its live keys."""

    id: int
    name: str
    is_operator: bool
    keys: list[KeyInfo]


def hash_key(key: str) -> str:
    """The SHA-256 hex digest stored in place of `key`."""
    return hashlib.sha256(key.encode()).hexdigest()


def check_name(name: str, what: str = "name") -> None:
    """InvalidInput unless `name` follows :data:`NAME_PATTERN`."""
    if not _NAME.fullmatch(name):
        raise InvalidInput(
            f"{what}: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )


def parse_scopes(scopes: str, *, is_operator: bool) -> str:
    """`scopes` checked and in canonical order; Forbidden for "operator" on a non-operator."""
    wanted = set(scopes.split())
    unknown = wanted - set(SCOPES)
    if unknown or not wanted:
        raise InvalidInput(f"scopes: space-separated, from {', '.join(SCOPES)}")
    if "operator" in wanted and not is_operator:
        raise Forbidden("scopes: only operator accounts may hold the 'operator' scope")
    return " ".join(s for s in SCOPES if s in wanted)


def _insert_key(conn: sa.Connection, account_id: int, scopes: str, rate: int, now: datetime) -> NewKey:
    key = KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)
    key_id: int = conn.execute(
        sa.insert(api_keys)
        .values(
            account_id=account_id,
            key_hash=hash_key(key),
            prefix=key[:SHOWN_PREFIX],
            scopes=scopes,
            rate_per_minute=rate,
            created_at=now,
        )
        .returning(api_keys.c.id)
    ).scalar_one()
    return NewKey(key_id=key_id, api_key=key)


def create_account(
    engine: Engine,
    name: str,
    *,
    is_operator: bool = False,
    rate_per_minute: int = DEFAULT_RATE_PER_MINUTE,
    now: datetime | None = None,
) -> NewAccount:
    """Create account `name` with a first key (scopes "bots", plus "operator" for an operator).

    Raises InvalidInput for a bad name, Conflict if the name is taken.
    """
    check_name(name)
    if rate_per_minute < 1:
        raise InvalidInput("rate_per_minute: at least 1")
    now = now or datetime.now(UTC)
    scopes = "bots operator" if is_operator else "bots"
    try:
        with engine.begin() as conn:
            account_id: int = conn.execute(
                sa.insert(accounts)
                .values(name=name, is_operator=is_operator, created_at=now)
                .returning(accounts.c.id)
            ).scalar_one()
            key = _insert_key(conn, account_id, scopes, rate_per_minute, now)
    except IntegrityError as exc:
        raise Conflict(f"an account named {name!r} already exists") from exc
    return NewAccount(account_id, name, is_operator, key.key_id, key.api_key)


def create_key(
    engine: Engine,
    account_id: int,
    scopes: str = "bots",
    *,
    rate_per_minute: int = DEFAULT_RATE_PER_MINUTE,
    now: datetime | None = None,
) -> NewKey:
    """A new key for account `account_id` with `scopes` (see :func:`parse_scopes`).

    Raises NotFound for an unknown account, InvalidInput for unknown scopes, Forbidden for
    "operator" on a non-operator account.
    """
    if rate_per_minute < 1:
        raise InvalidInput("rate_per_minute: at least 1")
    with write_transaction(engine) as conn:
        # the account row locked (PostgreSQL; SQLite's BEGIN IMMEDIATE serialises writers): two
        # keys made at once cannot both pass the count
        account = conn.execute(
            sa.select(accounts.c.name, accounts.c.is_operator)
            .where(accounts.c.id == account_id)
            .with_for_update()
        ).one_or_none()
        if account is None:
            raise NotFound(f"no account {account_id}")
        canonical = parse_scopes(scopes, is_operator=bool(account.is_operator))
        live = conn.execute(
            sa.select(sa.func.count()).select_from(api_keys).where(
                api_keys.c.account_id == account_id, api_keys.c.revoked_at.is_(None)
            )
        ).scalar_one()
        if live >= MAX_KEYS_PER_ACCOUNT:
            raise Conflict(
                f"account {account.name} already holds {live} live keys, the most an account may: "
                "revoke one first (DELETE /api/keys/{key_id})"
            )
        return _insert_key(conn, account_id, canonical, rate_per_minute, now or datetime.now(UTC))


def authenticate_key(engine: Engine, key: str, *, now: datetime | None = None) -> Identity | None:
    """The identity behind `key`, or None for an unknown, revoked or malformed key.

    Notes the key's use in ``last_used_at`` (at most once a minute per key, so reads cost no write).
    """
    if not key.startswith(KEY_PREFIX) or len(key) > 128:
        return None
    now = now or datetime.now(UTC)
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(
                api_keys.c.id,
                api_keys.c.scopes,
                api_keys.c.rate_per_minute,
                api_keys.c.last_used_at,
                accounts.c.id.label("account_id"),
                accounts.c.name,
                accounts.c.is_operator,
            )
            .join(accounts, accounts.c.id == api_keys.c.account_id)
            .where(api_keys.c.key_hash == hash_key(key), api_keys.c.revoked_at.is_(None))
        ).one_or_none()
    if row is None:
        return None
    if row.last_used_at is None or now - row.last_used_at >= _LAST_USED_RESOLUTION:
        with engine.begin() as conn:
            conn.execute(sa.update(api_keys).where(api_keys.c.id == row.id).values(last_used_at=now))
    return identity_of(row.id, row)


def identity_of(key_id: int, row: Any) -> Identity:
    """The :class:`Identity` of key `key_id` from a row with the key's ``scopes`` and
    ``rate_per_minute`` and its account's ``account_id``, ``name`` and ``is_operator``."""
    scopes = frozenset(row.scopes.split())
    if not row.is_operator:  # an operator flag taken away takes the scope with it
        scopes -= {"operator"}
    return Identity(
        key_id=key_id,
        account_id=row.account_id,
        account_name=row.name,
        is_operator=bool(row.is_operator),
        scopes=scopes,
        rate_per_minute=row.rate_per_minute,
    )


def revoke_key(engine: Engine, account_id: int, key_id: int, *, now: datetime | None = None) -> None:
    """Revoke key `key_id` of account `account_id`; NotFound unless it is that account's live key."""
    with engine.begin() as conn:
        done = conn.execute(
            sa.update(api_keys)
            .where(
                api_keys.c.id == key_id,
                api_keys.c.account_id == account_id,
                api_keys.c.revoked_at.is_(None),
            )
            .values(revoked_at=now or datetime.now(UTC))
        )
    if done.rowcount != 1:
        raise NotFound(f"no key {key_id} on this account")


def account_info(engine: Engine, account_id: int) -> AccountInfo:
    """The account and its live (not revoked) keys; NotFound for an unknown account."""
    with engine.connect() as conn:
        account = conn.execute(
            sa.select(accounts).where(accounts.c.id == account_id)
        ).one_or_none()
        if account is None:
            raise NotFound(f"no account {account_id}")
        keys: list[KeyInfo] = [
            {
                "id": row.id,
                "prefix": row.prefix,
                "scopes": row.scopes,
                "created_at": row.created_at.isoformat(),
                "last_used_at": None if row.last_used_at is None else row.last_used_at.isoformat(),
            }
            for row in conn.execute(
                sa.select(api_keys)
                .where(api_keys.c.account_id == account_id, api_keys.c.revoked_at.is_(None))
                .order_by(api_keys.c.id)
            )
        ]
    return {"id": account.id, "name": account.name, "is_operator": bool(account.is_operator), "keys": keys}


def rotate_key(engine: Engine, account_id: int, key_id: int, *, now: datetime | None = None) -> NewKey:
    """Replace live key `key_id` of account `account_id` by a new one with its scopes and rate
    limit, in one transaction: the old key stops working as the new one starts (an account at
    :data:`MAX_KEYS_PER_ACCOUNT` can rotate). NotFound unless it is that account's live key."""
    now = now or datetime.now(UTC)
    with write_transaction(engine) as conn:
        old = conn.execute(
            sa.select(api_keys.c.scopes, api_keys.c.rate_per_minute)
            .where(
                api_keys.c.id == key_id,
                api_keys.c.account_id == account_id,
                api_keys.c.revoked_at.is_(None),
            )
            .with_for_update()
        ).one_or_none()
        if old is None:
            raise NotFound(f"no key {key_id} on this account")
        conn.execute(sa.update(api_keys).where(api_keys.c.id == key_id).values(revoked_at=now))
        return _insert_key(conn, account_id, old.scopes, old.rate_per_minute, now)
