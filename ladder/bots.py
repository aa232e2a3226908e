"""Bots: registration, bot tokens, versions (uploaded, remote), ladder entry, captured logs.

A bot's token is shown once, at registration (and again when a remote version replaces it);
only its SHA-256 is stored. The token carries 256 random bits, so looking it up by hash needs no
salt or slow hash: nothing about it can be guessed from the hash, and a leaked database does not
let anyone connect as the bot.

Bots made through the API belong to an account (``bots.account_id``; ``owner`` is the account's
name) and play one game. :func:`authorize_bot` is the ownership rule every write goes through:
the owning account's key with the "bots" scope, or any key with the "operator" scope. Bots
registered before accounts existed have no account: only operators act on them.

A version is ``hosted`` (an uploaded archive, run with its ``command`` in the sandbox),
``remote`` (the bot runs on its author's machine and connects with the bot token) or
``builtin`` (``builtin:<strategy>``, the bundled bots). An uploaded version starts
``pending`` and is rated only once it has qualified (``passed``): the worker plays its
qualification games and calls :func:`set_qualification`. A remote version starts ``pending``
too, waiting for its bot to connect (:data:`WAITING_FOR_CONNECTION` in its detail): it plays the
same qualification games once connected (``workers.qualification``), never passing unplayed.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import secrets
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ladder.accounts import Identity
from ladder.archives import NormalizedArchive
from ladder.db import write_transaction
from ladder.errors import Conflict, Forbidden, InvalidInput, NotFound
from ladder.ladders import ensure_entries
from ladder.schema import (
    QUALIFICATIONS,
    bot_logs,
    bot_versions,
    bots,
    ladder_entries,
    ladders,
    matches,
    qualification_replays,
)
from referee import settings
from referee.games import GAMES

__all__ = [
    "MAX_LOG_BYTES",
    "PLATFORM_PREFIXES",
    "REFERENCE_OWNER",
    "REMOTE",
    "RESERVED_PREFIXES_ENV",
    "WAITING_FOR_CONNECTION",
    "BotIdentity",
    "BotLog",
    "NewVersion",
    "QualificationReplay",
    "Registration",
    "add_bot_version",
    "add_remote_version",
    "add_uploaded_version",
    "authenticate_bot",
    "authorize_bot",
    "create_bot",
    "enter_ladder",
    "hash_token",
    "missing_log_reason",
    "read_bot_log",
    "read_qualification_replay",
    "reference_bot_names",
    "reference_opponents",
    "register_bot",
    "rename_bot",
    "reserved_name_reason",
    "run_file_missing",
    "set_qualification",
    "store_bot_log",
    "version_archive",
    "version_kind",
]

#: the `command` of a bot version that runs on its author's machine and connects by itself
REMOTE: Final = "remote"
#: the qualification reason of a remote version whose bot has not connected yet (its detail's
#: ``waiting`` is ``"connection"``): the sweeper sends it to qualification once it connects
WAITING_FOR_CONNECTION: Final = (
    "waiting for the bot to connect: its qualification games are played once it is connected "
    "to the referee with its bot token"
)
#: the owner of a ladder's reference bots (``arena ladder create --reference-bots``): built-in
#: opponents for newcomers, never paired only with each other (workers.matchmaker). A reference
#: bot is one with this owner and no account: an account's bots never are, whatever its name
REFERENCE_OWNER: Final = "arena"
#: name prefixes of the platform's own bots, which no account may register (compared ignoring
#: case): the reference bots (``reference-<game>-<strategy>``, and ``reference-<strategy>`` as
#: qualification names the opponent) and the built-in ones (``builtin-...``)
PLATFORM_PREFIXES: Final = ("reference-", "builtin-", "builtin_")
#: more prefixes the operator reserves: comma-separated, in this variable
RESERVED_PREFIXES_ENV: Final = "ARENA_RESERVED_BOT_PREFIXES"
TOKEN_PREFIX: Final = "arena_"
TOKEN_BYTES: Final = 32
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: a hosted bot's captured output kept per match seat (the rest is cut, ``truncated``)
MAX_LOG_BYTES: Final = 1024 * 1024
BUILTIN_PREFIX: Final = "builtin:"


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
    engine: Engine,
    name: str,
    owner: str,
    *,
    account_id: int | None = None,
    game: str | None = None,
    now: datetime | None = None,
) -> Registration:
    """Create bot `name` owned by `owner` and return it with a fresh random token.

    Names are 1-64 characters of letters, digits, '_', '.', '-' (starting with a letter or
    digit). `account_id` and `game` are set for bots made through the API (:func:`create_bot`).
    Raises InvalidInput for a bad name, empty owner or unknown game, Conflict if the name is taken.
    """
    if not _NAME.fullmatch(name):
        raise InvalidInput(
            "name: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    owner = owner.strip()
    if not owner or len(owner) > 128:
        raise InvalidInput("owner: 1-128 characters")
    if game is not None and game not in GAMES:
        raise InvalidInput(f"game: one of {', '.join(sorted(GAMES))}")
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    row = {
        "name": name,
        "owner": owner,
        "token_hash": hash_token(token),
        "created_at": now or datetime.now(UTC),
        "account_id": account_id,
        "game": game,
    }
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.insert(bots).values(row).returning(bots.c.id)).scalar_one()
    except IntegrityError as exc:
        raise Conflict(f"a bot named {name!r} already exists") from exc
    return Registration(bot_id=bot_id, name=name, owner=owner, token=token)


def rename_bot(engine: Engine, name: str, new_name: str) -> int:
    """Rename bot `name` to `new_name` (an operator's tool: e.g. to free a reserved name an
    account took before names were reserved); the bot's id. Raises NotFound, InvalidInput for a
    bad new name, Conflict if it is taken."""
    if not _NAME.fullmatch(new_name):
        raise InvalidInput(
            "name: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == name)).scalar_one_or_none()
            if bot_id is None:
                raise NotFound(f"no bot named {name!r}")
            conn.execute(sa.update(bots).where(bots.c.id == bot_id).values(name=new_name))
    except IntegrityError as exc:
        raise Conflict(f"a bot named {new_name!r} already exists") from exc
    return int(bot_id)


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
    """Add `version` of bot `bot_id` and return its id (qualification "passed": operator use).

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


def reference_bot_names(game: str, players: int, strategies: Sequence[str]) -> list[tuple[str, str]]:
    """(bot name, strategy) of the reference bots a `players`-seat ladder of `game` gets: each
    of `strategies` once (``reference-<game>-<strategy>``), then again in turn with a number
    (``reference-<game>-random-2``) until there is one for every seat but one, so a single
    newcomer fills a table with them (the matchmaker seats a bot once per match)."""
    if not strategies:
        return []
    wanted = max(len(strategies), players - 1)
    named = []
    for i in range(wanted):
        strategy = strategies[i % len(strategies)]
        round_ = i // len(strategies) + 1
        named.append((f"reference-{game}-{strategy}" + (f"-{round_}" if round_ > 1 else ""), strategy))
    return named


def reference_opponents(seats: Iterable[int]) -> str:
    """Who a qualification game's candidate plays, in words, for tables of `seats` seats
    (qualification plays the shapes of the ladders the bot is on; 2 seats on none): every seat
    but the candidate's is a reference bot, so "the reference bot" only when each table has 2
    seats, "3 reference bots" at 4-seat tables, "the reference bots" for tables of both kinds."""
    others = {n - 1 for n in seats} or {1}
    if others == {1}:
        return "the reference bot"
    if len(others) == 1:
        return f"{others.pop()} reference bots"
    return "the reference bots"


def reserved_prefixes() -> tuple[str, ...]:
    """The platform's prefixes and the operator's (``$ARENA_RESERVED_BOT_PREFIXES``), lower case."""
    return (*PLATFORM_PREFIXES, *settings.current().reserved_bot_prefixes)


def _builtin_names() -> frozenset[str]:
    from referee.bots import available

    return frozenset(name for game in GAMES for name in available(game))


def reserved_name_reason(name: str) -> str | None:
    """Why no account may hold a bot named `name` (None if one may): the name of a built-in bot
    (``random``, ``greedy``, ``coop``), ``reference``, or a reserved prefix (:func:`reserved_prefixes`);
    compared ignoring case, so ``Reference-Clank-Random`` is refused as well."""
    lower = name.lower()
    if lower in _builtin_names() or lower == "reference":
        return f"{name!r} is reserved: the name of one of the platform's built-in bots"
    for prefix in reserved_prefixes():
        if lower.startswith(prefix):
            return f"names starting {prefix!r} are reserved for the platform's bots"
    return None


def create_bot(engine: Engine, identity: Identity, name: str, game: str) -> Registration:
    """Bot `name` for `game`, owned by the account of `identity` (needs the "bots" scope).

    Raises Conflict for a name reserved for the platform's bots (:func:`reserved_name_reason`),
    an operator's key included: the platform's bots are made by the platform's commands.
    """
    if not identity.has("bots") and not identity.has("operator"):
        raise Forbidden("this key lacks the 'bots' scope")
    reason = reserved_name_reason(name)
    if reason is not None:
        raise Conflict(f"bot name {name!r} is not available: {reason}")
    return register_bot(
        engine, name, identity.account_name, account_id=identity.account_id, game=game
    )


def version_kind(command: str) -> str:
    """"remote", "builtin" or "hosted": how a version with this `command` is run."""
    if command == REMOTE:
        return "remote"
    if command.startswith(BUILTIN_PREFIX):
        return "builtin"
    return "hosted"


def authorize_bot(conn: Connection, bot_id: int, identity: Identity, *, lock: bool = False) -> Any:
    """The bot's row if `identity` may change it: NotFound for no bot, Forbidden otherwise.

    Operators (the "operator" scope) may act on any bot; anyone else needs the "bots" scope and
    the bot must belong to their account (a bot from before accounts belongs to nobody).
    `lock` reads the row ``FOR UPDATE`` (PostgreSQL; on SQLite a write_transaction serialises).
    """
    query = sa.select(bots).where(bots.c.id == bot_id)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).one_or_none() if 1 <= bot_id <= 2**31 - 1 else None
    if row is None:
        raise NotFound(f"no bot {bot_id}")
    if identity.has("operator"):
        return row
    if not identity.has("bots"):
        raise Forbidden("this key lacks the 'bots' scope")
    if row.account_id is None or row.account_id != identity.account_id:
        raise Forbidden(f"bot {bot_id} belongs to another account")
    return row


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A version just added; `token` is the bot's new token for a remote version (else None)."""

    version_id: int
    version: str
    qualification: str
    token: str | None = None


def _label(conn: Connection, bot_id: int, version: str | None) -> str:
    """`version`, or the next free ``v<N>``. The caller's transaction is a write_transaction
    that has locked the bot's row (authorize_bot(..., lock=True)): two uploads at once cannot
    both read the same labels and pick the same one (which answered one of them 409)."""
    if version is not None:
        if not version or len(version) > 64:
            raise InvalidInput("version: 1-64 characters")
        return version
    taken = set(
        conn.execute(sa.select(bot_versions.c.version).where(bot_versions.c.bot_id == bot_id)).scalars()
    )
    n = len(taken) + 1
    while f"v{n}" in taken:
        n += 1
    return f"v{n}"


def _insert_version(conn: Connection, row: dict[str, Any]) -> int:
    # on failure the caller's transaction is rolled back as the Conflict leaves it
    try:
        version_id: int = conn.execute(
            sa.insert(bot_versions).values(row).returning(bot_versions.c.id)
        ).scalar_one()
    except IntegrityError as exc:
        raise Conflict(f"bot {row['bot_id']} already has a version {row['version']!r}") from exc
    return version_id


def add_uploaded_version(
    engine: Engine,
    identity: Identity,
    bot_id: int,
    archive: NormalizedArchive,
    command: str,
    version: str | None = None,
    *,
    now: datetime | None = None,
) -> NewVersion:
    """A hosted version of bot `bot_id` from an upload checked by :func:`ladder.archives.validate_archive`.

    `command` is the run line (run in the unpacked archive's folder, in the sandbox); `version`
    defaults to ``v<N>``. The version starts "pending" qualification. Raises NotFound, Forbidden
    (see :func:`authorize_bot`), InvalidInput, Conflict for a version label already used.
    """
    if not command.strip() or command.strip() == REMOTE or command.startswith(BUILTIN_PREFIX):
        raise InvalidInput("run: the command that starts the bot, e.g. 'python main.py'")
    # before the transaction (it names only the uploader's own archive): no lock held meanwhile
    missing = run_file_missing(command, archive)
    if missing:
        raise InvalidInput(f"run: {missing}")
    with write_transaction(engine) as conn:
        authorize_bot(conn, bot_id, identity, lock=True)
        label = _label(conn, bot_id, version)
        version_id = _insert_version(
            conn,
            {
                "bot_id": bot_id,
                "version": label,
                "command": command,
                "created_at": now or datetime.now(UTC),
                "archive": archive.tar_gz,
                "archive_sha256": archive.sha256,
                "archive_files": archive.files,
                "archive_bytes": archive.bytes,
                "qualification": "pending",
            },
        )
    return NewVersion(version_id, label, "pending")


def run_file_missing(command: str, archive: NormalizedArchive) -> str:
    """Why `command` cannot start from `archive` (it names a file the archive lacks, or a path
    the sandbox will not have: ``ladder.run_command``), "" if nothing is missing. Said before
    anything is stored: such a version would crash at its first qualification game."""
    from ladder.run_command import archive_file_names, describe, missing_file

    miss = missing_file(command, archive_file_names(archive.tar_gz).__contains__)
    if miss is None:
        return ""
    fix = (
        "name it relative to the bot's folder" if miss.why == "absolute"
        else "upload the folder that holds it, or fix the command"
    )
    return f"{describe(miss, command, 'the archive')}; {fix}"


def add_remote_version(
    engine: Engine,
    identity: Identity,
    bot_id: int,
    version: str | None = None,
    *,
    now: datetime | None = None,
) -> NewVersion:
    """A remote version of bot `bot_id` and a NEW bot token (the old one stops working).

    It starts "pending", waiting for the bot to connect: like an upload it is rated only once
    its qualification games, played when it connects, have passed (``workers.qualification``).
    """
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    with write_transaction(engine) as conn:
        authorize_bot(conn, bot_id, identity, lock=True)
        label = _label(conn, bot_id, version)
        version_id = _insert_version(
            conn,
            {
                "bot_id": bot_id,
                "version": label,
                "command": REMOTE,
                "created_at": now or datetime.now(UTC),
                "qualification": "pending",
                "qualification_detail": json.dumps(
                    {"reason": WAITING_FOR_CONNECTION, "waiting": "connection"}, sort_keys=True
                ),
            },
        )
        conn.execute(sa.update(bots).where(bots.c.id == bot_id).values(token_hash=hash_token(token)))
    return NewVersion(version_id, label, "pending", token)


def set_qualification(
    engine: Engine, version_id: int, state: str, detail: dict[str, Any] | None = None
) -> None:
    """Record a version's qualification `state` (see schema.QUALIFICATIONS) and its JSON `detail`."""
    if state not in QUALIFICATIONS:
        raise InvalidInput(f"qualification: one of {', '.join(QUALIFICATIONS)}")
    values: dict[str, Any] = {"qualification": state}
    if detail is not None:
        values["qualification_detail"] = json.dumps(detail, sort_keys=True)
    with engine.begin() as conn:
        done = conn.execute(sa.update(bot_versions).where(bot_versions.c.id == version_id).values(values))
    if done.rowcount != 1:
        raise NotFound(f"no bot version {version_id}")


def version_archive(engine: Engine, version_id: int) -> bytes | None:
    """The normalized tar.gz of an uploaded version (for ladder.archives.extract_archive), or None."""
    with engine.connect() as conn:
        data = conn.execute(
            sa.select(bot_versions.c.archive).where(bot_versions.c.id == version_id)
        ).scalar_one_or_none()
    return None if data is None else bytes(data)


def enter_ladder(
    engine: Engine, identity: Identity, ladder_id: int, bot_id: int, *, now: datetime | None = None
) -> None:
    """Put the caller's bot on a ladder: the bot's game must be the ladder's.

    Raises NotFound (ladder or bot), Forbidden (not the caller's bot), Conflict (the bot plays
    another game, or is on the ladder already).
    """
    now = now or datetime.now(UTC)
    with engine.begin() as conn:
        bot = authorize_bot(conn, bot_id, identity)
        ladder = conn.execute(
            sa.select(ladders.c.id, ladders.c.game).where(ladders.c.id == ladder_id)
        ).one_or_none() if 1 <= ladder_id <= 2**31 - 1 else None
        if ladder is None:
            raise NotFound(f"no ladder {ladder_id}")
        if bot.game is not None and bot.game != ladder.game:
            raise Conflict(f"bot {bot.name!r} plays {bot.game}, ladder {ladder_id} is {ladder.game}")
        joined = conn.execute(
            sa.select(ladder_entries.c.bot_id).where(
                ladder_entries.c.ladder_id == ladder_id, ladder_entries.c.bot_id == bot_id
            )
        ).first()
        if joined is not None:
            raise Conflict(f"bot {bot_id} is already on ladder {ladder_id}")
        ensure_entries(conn, ladder_id, [bot_id], now)


@dataclass(frozen=True, slots=True)
class BotLog:
    """A seat's captured output and whose bot it was."""

    bot_id: int
    account_id: int | None
    text: str
    bytes: int
    truncated: bool


def store_bot_log(
    engine: Engine, match_id: int, seat: int, bot_id: int, output: bytes, *, truncated: bool = False
) -> None:
    """Keep a hosted bot's captured stdout/stderr for one match seat (gzip; at most MAX_LOG_BYTES).

    Storing again for the same seat replaces it (a retried match task records its own run).
    """
    if len(output) > MAX_LOG_BYTES:
        output, truncated = output[:MAX_LOG_BYTES], True
    row = {
        "match_id": match_id,
        "seat": seat,
        "bot_id": bot_id,
        "data": gzip.compress(output),
        "bytes": len(output),
        "truncated": truncated,
    }
    with engine.begin() as conn:
        conn.execute(
            sa.delete(bot_logs).where(bot_logs.c.match_id == match_id, bot_logs.c.seat == seat)
        )
        conn.execute(sa.insert(bot_logs).values(row))


def missing_log_reason(engine: Engine, match_id: int, seat: int) -> str:
    """Why seat `seat` of match `match_id` has no log, in words for the 404: no such match or
    seat, a bot that writes none where the platform could keep it (built-in: it runs inside the
    worker; remote: its output stays on its author's machine), or a match not played yet."""
    if not (1 <= match_id <= 2**31 - 1 and 0 <= seat <= 2**31 - 1):
        return f"no match {match_id}"
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(matches.c.seats, matches.c.status).where(matches.c.id == match_id)
        ).first()
        if row is None:
            return f"no match {match_id}"
        seats = list(row.seats)
        if seat >= len(seats):
            return f"match {match_id} has no seat {seat} (seats 0..{len(seats) - 1})"
        command = conn.execute(
            sa.select(bot_versions.c.command).where(bot_versions.c.id == int(seats[seat]))
        ).scalar_one_or_none()
    kind = version_kind(command) if command is not None else None
    where = f"seat {seat} of match {match_id}"
    if kind == "builtin":
        return f"no log for {where}: a built-in bot runs inside the worker and writes no log"
    if kind == "remote":
        return f"no log for {where}: a remote bot's output stays on the machine it runs on"
    if row.status in ("queued", "running"):
        return f"no log for {where} yet: the match is {row.status}"
    return f"no log for {where}"


def read_bot_log(engine: Engine, match_id: int, seat: int) -> BotLog | None:
    """The captured output of a match seat, with the owning bot and account, or None."""
    if not (1 <= match_id <= 2**31 - 1 and 0 <= seat <= 2**31 - 1):
        return None
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(bot_logs, bots.c.account_id)
            .join(bots, bots.c.id == bot_logs.c.bot_id)
            .where(bot_logs.c.match_id == match_id, bot_logs.c.seat == seat)
        ).one_or_none()
    if row is None:
        return None
    # inflate at most MAX_LOG_BYTES, whatever the row holds
    raw = zlib.decompressobj(wbits=31).decompress(bytes(row.data), MAX_LOG_BYTES)
    text = raw.decode("utf-8", errors="replace")
    return BotLog(row.bot_id, row.account_id, text, row.bytes, bool(row.truncated))


@dataclass(frozen=True, slots=True)
class QualificationReplay:
    """The kept replay of the qualification game that failed a version, and whose it is."""

    account_id: int | None
    game: int
    seat: int
    #: gzip, as stored
    data: bytes
    sha256: str


def read_qualification_replay(engine: Engine, bot_id: int, version_id: int) -> QualificationReplay | None:
    """The failed qualification game's replay of version `version_id` of bot `bot_id` (with the
    bot's account, for the caller's owner check), or None: no such version of that bot, or none
    kept (it passed, is pending, or failed before this was kept)."""
    if not (1 <= bot_id <= 2**31 - 1 and 1 <= version_id <= 2**31 - 1):
        return None
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(qualification_replays, bots.c.account_id)
            .join(bot_versions, bot_versions.c.id == qualification_replays.c.version_id)
            .join(bots, bots.c.id == bot_versions.c.bot_id)
            .where(qualification_replays.c.version_id == version_id, bots.c.id == bot_id)
        ).one_or_none()
    if row is None:
        return None
    return QualificationReplay(row.account_id, int(row.game), int(row.seat), bytes(row.data), row.sha256)
