"""Browser sessions of account owners (``web_sessions``): what ``/signin`` makes.

An owner signs in with an API key (checked by :func:`ladder.accounts.authenticate_key`, as the
API checks it). The browser then holds an opaque session id (``arena_session`` cookie: 256
random bits, url-safe), never the key; the database keeps the id's SHA-256 (as for keys: a
random 256-bit secret needs no slow hash), the account, the key signed in with and the expiry.

* A session lives :data:`SESSION_LIFETIME` from sign-in, and no longer than its key: a revoked
  key's sessions are refused (and deleted) at their next request.
* Signing in always makes a new id, and deletes the session the browser held before (no
  session fixation: an id planted before sign-in is never the signed-in one).
* Forms that change something carry :func:`csrf_token`, derived from the session id by HMAC:
  a page of another site cannot read the cookie (HttpOnly) nor the page (same-origin policy),
  so it cannot know the token, and another session's token does not fit this one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.accounts import Identity, identity_of
from ladder.schema import accounts, api_keys, web_sessions

__all__ = [
    "COOKIE",
    "SESSION_LIFETIME",
    "Session",
    "csrf_matches",
    "csrf_token",
    "end_session",
    "move_session",
    "session_for",
    "start_session",
]

#: the cookie's name
COOKIE: Final = "arena_session"
#: a session's life from sign-in (then: sign in again)
SESSION_LIFETIME: Final = timedelta(days=7)
#: random bytes of a session id (43 url-safe characters)
SESSION_BYTES: Final = 32
#: a cookie value longer than this is no session id (read no further)
_MAX_ID: Final = 64


@dataclass(frozen=True, slots=True)
class Session:
    """A live session: whose, with which key, and until when."""

    row_id: int
    identity: Identity
    expires_at: datetime


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def csrf_token(session_id: str) -> str:
    """The CSRF token of the forms of session `session_id` (HMAC-SHA256 keyed by the id)."""
    return hmac.new(session_id.encode(), b"arena-csrf-v1", hashlib.sha256).hexdigest()


def csrf_matches(session_id: str, given: str) -> bool:
    """True if `given` is session `session_id`'s CSRF token (compared in constant time)."""
    return hmac.compare_digest(csrf_token(session_id).encode(), given.encode())


def start_session(
    engine: Engine, identity: Identity, *, replacing: str | None = None, now: datetime | None = None
) -> tuple[str, datetime]:
    """A new session for `identity` (signed in with its key): (the id for the cookie, its expiry).

    Deletes the session `replacing` (the id the browser held, if any) and every expired one.
    """
    now = now or datetime.now(UTC)
    session_id = secrets.token_urlsafe(SESSION_BYTES)
    expires = now + SESSION_LIFETIME
    with engine.begin() as conn:
        conn.execute(sa.delete(web_sessions).where(web_sessions.c.expires_at <= now))
        if replacing:
            conn.execute(sa.delete(web_sessions).where(web_sessions.c.token_hash == _hash(replacing)))
        conn.execute(
            sa.insert(web_sessions).values(
                token_hash=_hash(session_id),
                account_id=identity.account_id,
                key_id=identity.key_id,
                created_at=now,
                expires_at=expires,
            )
        )
    return session_id, expires


def session_for(engine: Engine, session_id: str, *, now: datetime | None = None) -> Session | None:
    """The live session behind cookie value `session_id`, or None: unknown, expired (deleted),
    or its key revoked (deleted)."""
    if not session_id or len(session_id) > _MAX_ID:
        return None
    now = now or datetime.now(UTC)
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(
                web_sessions.c.id,
                web_sessions.c.expires_at,
                api_keys.c.id.label("key_id"),
                api_keys.c.scopes,
                api_keys.c.rate_per_minute,
                api_keys.c.revoked_at,
                accounts.c.id.label("account_id"),
                accounts.c.name,
                accounts.c.is_operator,
            )
            .join(api_keys, api_keys.c.id == web_sessions.c.key_id)
            .join(accounts, accounts.c.id == web_sessions.c.account_id)
            .where(web_sessions.c.token_hash == _hash(session_id))
        ).one_or_none()
    if row is None:
        return None
    if row.expires_at <= now or row.revoked_at is not None:
        with engine.begin() as conn:
            conn.execute(sa.delete(web_sessions).where(web_sessions.c.id == row.id))
        return None
    identity = identity_of(row.key_id, row)  # as authenticate_key builds it
    return Session(row_id=row.id, identity=identity, expires_at=row.expires_at)


def move_session(engine: Engine, session: Session, key_id: int) -> None:
    """Let `session` go on under key `key_id` (the key it signed in with was rotated to it)."""
    with engine.begin() as conn:
        conn.execute(sa.update(web_sessions).where(web_sessions.c.id == session.row_id).values(key_id=key_id))


def end_session(engine: Engine, session_id: str) -> None:
    """Delete the session behind cookie value `session_id` (sign-out); nothing if there is none."""
    if session_id and len(session_id) <= _MAX_ID:
        with engine.begin() as conn:
            conn.execute(sa.delete(web_sessions).where(web_sessions.c.token_hash == _hash(session_id)))
