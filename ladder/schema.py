"""The ladder's tables, as SQLAlchemy Core.

Everything the ladder stores lives here: bots and their versions, ladders and the rating of each
bot on each ladder, matches with their leases, results, the rating history and the replays.
The Alembic migrations in ``ladder/migrations`` create exactly these tables (a test compares the
two), so a change here needs a new migration.

Times are stored as UTC. :class:`UTCDateTime` makes SQLite (which has no time zones) and
PostgreSQL (``timestamptz``) behave alike: it accepts only aware datetimes and always returns
aware UTC datetimes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlalchemy.types import TypeDecorator

__all__ = [
    "CAMPAIGN_STATUSES",
    "COMPETITION_STATUSES",
    "LADDER_KINDS",
    "MATCH_STATUSES",
    "QUALIFICATIONS",
    "UTCDateTime",
    "accounts",
    "api_keys",
    "bot_logs",
    "bot_versions",
    "bots",
    "campaign_games",
    "campaign_ratings",
    "campaigns",
    "competition_entrants",
    "competition_games",
    "competitions",
    "ladder_divisions",
    "ladder_entries",
    "ladders",
    "matches",
    "metadata",
    "qualification_replays",
    "rating_history",
    "replays",
    "results",
    "scenario_rating_history",
    "scenarios",
    "web_sessions",
]

#: Constraint names are predictable, so migrations can refer to them on every database.
NAMING_CONVENTION: Final = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: The life of a match: queued -> running -> done; failed (its own fault: a bad match, a time
#: limit, an executor that raised); parked after too many platform faults (ladder.match_queue).
MATCH_STATUSES: Final = ("queued", "running", "done", "failed", "parked")

#: "ffa": free-for-all, rated by pairwise Elo; "coop": cooperative, the team against a rated scenario;
#: "campaign": whole campaigns (Clank! Legacy) rated once each by campaign total (ladder/campaigns.py)
LADDER_KINDS: Final = ("ffa", "coop", "campaign")

#: a bot version's qualification: it plays games against reference bots before it is rated
QUALIFICATIONS: Final = ("pending", "running", "passed", "failed")

metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse naive datetimes; store UTC (naive on SQLite, which keeps no zone)."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass an aware datetime (e.g. datetime.now(UTC))")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Return an aware UTC datetime."""
        if value is None:
            return None
        assert isinstance(value, datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    # operators may create accounts, act on any bot and hold keys with the "operator" scope
    Column("is_operator", Boolean, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("account_id", ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
    # sha256 hex of the key. Keys carry 256 random bits, so a fast unsalted hash is right: nothing
    # can be guessed from it (a slow password hash only helps low-entropy secrets), and it lets a
    # request find its key with one indexed lookup.
    Column("key_hash", String(64), nullable=False, unique=True),
    # the key's first characters, shown in listings so an owner can tell keys apart
    Column("prefix", String(16), nullable=False),
    # space-separated: "bots" (own bots), "operator" (operator actions; operator accounts only)
    Column("scopes", String(255), nullable=False),
    Column("rate_per_minute", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("last_used_at", UTCDateTime),
    Column("revoked_at", UTCDateTime),
)

web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id", Integer, primary_key=True),
    # sha256 hex of the session id the browser's cookie holds (256 random bits: a fast hash is
    # right, as for api_keys); the id itself is never stored
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("account_id", ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
    # the key the owner signed in with: a session lives no longer than its key (revoked: the
    # session is refused and deleted; ladder.web.sessions)
    Column("key_id", ForeignKey("api_keys.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
)

bots = Table(
    "bots",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    # the owning account's name (bots registered before accounts existed keep a free string)
    Column("owner", String(128), nullable=False),
    # sha256 hex of the bot token; the token itself is shown once and never stored
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False),
    # the owning account (null for bots registered before migration 0003). No ON DELETE: an
    # account that owns bots cannot be deleted by accident (and SQLite could not reflect it).
    Column("account_id", ForeignKey("accounts.id"), index=True),
    # the game the bot plays (a referee.games name; null for bots registered before 0003)
    Column("game", String(32)),
)

bot_versions = Table(
    "bot_versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("bot_id", ForeignKey("bots.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("version", String(64), nullable=False),
    # how to launch a hosted bot, or the literal "remote" for a bot that connects by itself
    Column("command", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # an uploaded bot's files: the normalized tar.gz of ladder.archives (null: not uploaded)
    Column("archive", LargeBinary),
    Column("archive_sha256", String(64)),
    Column("archive_files", Integer),
    # unpacked size of the archive's files
    Column("archive_bytes", Integer),
    # see QUALIFICATIONS; versions from before migration 0003 count as passed
    Column(
        "qualification",
        String(16),
        CheckConstraint(
            "qualification IN ('pending', 'running', 'passed', 'failed')", name="qualification"
        ),
        nullable=False,
        server_default="passed",
    ),
    # JSON text: the qualification games' outcome, shown to the owner
    Column("qualification_detail", Text),
    # an operator's choice to run this version outside the sandbox (never set by the API)
    Column("unsafe_no_sandbox", Boolean, nullable=False, server_default=sa_false()),
    # migration 0007: set when the version kept forfeiting rated matches (ladder.suspension);
    # a suspended version is never seated again, `suspension` says why (shown to its owner)
    Column("suspended_at", UTCDateTime),
    Column("suspension", Text),
    UniqueConstraint("bot_id", "version"),
)

def current_engine_version(context: Any) -> str:
    """A new ladder's engine version when its insert names none: the build's current version of
    its game (migration 0008; ladder/RATINGS.md, "Engine versions")."""
    from referee.games import game_spec

    return game_spec(context.get_current_parameters()["game"]).current_version()


ladders = Table(
    "ladders",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("game", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("decision_ms", Integer, nullable=False),
    Column("bank_ms", Integer, nullable=False),
    Column("max_strikes", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # the CPU clock for hosted bots (migration 0004): per-decision CPU allowance and CPU bank, ms;
    # 0: off (PROTOCOL.md, "CPU time")
    Column("cpu_decision_ms", Integer, nullable=False, server_default="0"),
    Column("cpu_bank_ms", Integer, nullable=False, server_default="0"),
    # how results are rated: see LADDER_KINDS (added in migration 0002)
    Column(
        "kind",
        String(8),
        CheckConstraint("kind IN ('ffa', 'coop', 'campaign')", name="kind"),
        nullable=False,
        server_default="ffa",
    ),
    # the engine version (rules) every match of the ladder plays (migration 0008; ''
    # only for a game the build did not know at the migration); `arena ladder upgrade` moves it
    Column("engine_version", String(32), nullable=False, server_default="", default=current_engine_version),
    # its rating policy (migration 0011; ladder.rating_policy.RatingPolicy, whose defaults these
    # server defaults are, so a ladder made before the policy rates as it always did)
    Column("k_established", Float, nullable=False, server_default="20"),
    Column("k_provisional", Float, nullable=False, server_default="40"),
    Column("provisional_games", Integer, nullable=False, server_default="20"),
    Column("initial_rating", Float, nullable=False, server_default="1500"),
    Column("prior_games", Float, nullable=False, server_default="1"),
    Column("confidence", Float, nullable=False, server_default="0.95"),
    CheckConstraint("players >= 2", name="players"),
)

ladder_entries = Table(
    "ladder_entries",
    metadata,
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
    Column("bot_id", ForeignKey("bots.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("rating", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    # matches where the bot shared first place (migration 0005); a shared first is not a win
    Column("draws", Integer, nullable=False, server_default="0"),
    # Σ w·E·(1 - E) over the bot's rated games, E at the ratings each was recorded at (migration
    # 0012; ladder/RATINGS.md "Ladder standings"): recording adds to it, the standings read it
    Column("information", Float, nullable=False, server_default="0"),
    # its division on a ladder with divisions (migration 0015; ladder.divisions): 0 is the
    # bottom one, where every bot starts; a promotion raises it, nothing lowers it
    Column("division", Integer, nullable=False, server_default="0"),
    Column("joined_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    # one row per (ladder, bot): recording locks these rows while it changes the rating
    PrimaryKeyConstraint("ladder_id", "bot_id"),
)

matches = Table(
    "matches",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
    Column("status", String(16), nullable=False),
    Column("seed", BigInteger, nullable=False),
    # bot_versions.id per seat, in seat order
    Column("seats", JSON, nullable=False),
    # platform faults: how many leases on this match expired (ladder.match_queue: at the
    # budget the match is parked)
    Column("attempts", Integer, nullable=False),
    Column("lease_owner", String(128)),
    Column("lease_expires_at", UTCDateTime),
    Column("created_at", UTCDateTime, nullable=False),
    Column("started_at", UTCDateTime),
    Column("finished_at", UTCDateTime),
    Column("error", Text),
    # the game config the match is played with; null: the game's default for the ladder
    Column("config", JSON),
    # the engine version it is played at: the ladder's when a worker claims it (migration 0008;
    # null: claimed before 0008, its replay's header says)
    Column("engine_version", String(32)),
    CheckConstraint("status IN ('queued', 'running', 'done', 'failed', 'parked')", name="status"),
    Index(None, "ladder_id", "created_at"),
    # the sweeper looks for running matches whose lease ran out
    Index(None, "status", "lease_expires_at"),
)

match_seats = Table(
    "match_seats",
    metadata,
    # matches.seats as rows (migration 0014), written with the match (ladder.match_queue.
    # insert_match): "the matches a bot played" is a keyed look-up here, where reading the JSON
    # column meant scanning every match of the ladder (issue 29's bot page)
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("version_id", Integer, nullable=False),
    PrimaryKeyConstraint("match_id", "seat"),
    # a bot's matches newest first: by version, then match id
    Index(None, "version_id", "match_id"),
)

results = Table(
    "results",
    metadata,
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    Column("places", JSON, nullable=False),
    Column("scores", JSON, nullable=False),
    Column("outcomes", JSON, nullable=False),
    Column("reason", Text, nullable=False),
    # cooperative games: did the team win (null for free-for-all results)
    Column("team_won", Boolean),
)

ladder_periods = Table(
    "ladder_periods",
    metadata,
    # a ladder's closed rating periods, its past seasons (migration 0008): each closed by
    # `arena ladder upgrade` (the engine version moved on) or `arena ladder season close`;
    # the current period is the ladder itself
    Column("id", Integer, primary_key=True),
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("engine_version", String(32), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("ended_at", UTCDateTime, nullable=False),
    # the standings as the period closed: {"bots": [{bot_id, rating, games, wins, draws}, ...]
    # by rating, and a cooperative ladder's "scenarios": [{key, rating, games, wins}, ...]}
    Column("standings", JSON, nullable=False),
    # the ladder's last rating_history id when it closed (0: none): rows after it are the next
    # period's (the audit restarts the games counts there)
    Column("last_rating_id", Integer, nullable=False),
    # what closed it (migration 0013): "upgrade" (the engine version moved) or "season"
    # (`arena ladder season close`), and how the ratings went on into the next period:
    # rating' = mean + carry x (rating - mean) (ladder/RATINGS.md, "Seasons"; carry 1: as they were)
    Column("closed_by", String(16), nullable=False, server_default="upgrade"),
    Column("carry", Float, nullable=False, server_default="1"),
    Column("mean", Float),
)

ladder_divisions = Table(
    "ladder_divisions",
    metadata,
    # a ladder's divisions (migration 0015; ladder.divisions), bottom (position 0) to top; a
    # ladder without rows here has none. Each is guarded by its boss, a reference bot playing
    # in it (its ladder_entries.division is the position): a bot rated above it moves up one
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("name", String(32), nullable=False),
    Column("boss_bot_id", ForeignKey("bots.id", ondelete="CASCADE"), nullable=False),
    PrimaryKeyConstraint("ladder_id", "position"),
    UniqueConstraint("ladder_id", "name"),
)

rating_history = Table(
    "rating_history",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("bot_id", ForeignKey("bots.id", ondelete="CASCADE"), nullable=False),
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("delta", Float, nullable=False),
    # a match moves a bot's rating once, however often recording is retried
    UniqueConstraint("match_id", "bot_id"),
    Index(None, "bot_id", "ladder_id"),
)

scenarios = Table(
    "scenarios",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False),
    # ladder.coop_rating.scenario_key: location, objectives and player count
    Column("key", String(255), nullable=False),
    Column("description", Text, nullable=False),
    Column("rating", Float, nullable=False),
    Column("games", Integer, nullable=False),
    # games the team won against this scenario
    Column("wins", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    # one row per scenario per ladder: recording locks it while it changes the rating
    UniqueConstraint("ladder_id", "key"),
)

scenario_rating_history = Table(
    "scenario_rating_history",
    metadata,
    # a match moves its scenario's rating once, however often recording is retried
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    Column("scenario_id", ForeignKey("scenarios.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("delta", Float, nullable=False),
)

replays = Table(
    "replays",
    metadata,
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    # gzip of the replay bytes the referee wrote
    Column("data", LargeBinary, nullable=False),
    # sha256 hex of the uncompressed replay
    Column("sha256", String(64), nullable=False),
)

bot_logs = Table(
    "bot_logs",
    metadata,
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("bot_id", ForeignKey("bots.id", ondelete="CASCADE"), nullable=False, index=True),
    # gzip of the hosted bot's captured stdout and stderr (shown to its owner only)
    Column("data", LargeBinary, nullable=False),
    # the captured size before gzip, and whether the capture was cut at its limit
    Column("bytes", Integer, nullable=False),
    Column("truncated", Boolean, nullable=False),
    PrimaryKeyConstraint("match_id", "seat"),
)

qualification_replays = Table(
    "qualification_replays",
    metadata,
    # one per version: the qualification game that failed it (its owner's only, like bot_logs)
    Column("version_id", ForeignKey("bot_versions.id", ondelete="CASCADE"), primary_key=True),
    # the game's number in the qualification (1-based) and the candidate's seat in it
    Column("game", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    # gzip of the replay as the referee wrote it, and the SHA-256 of those uncompressed bytes
    Column("data", LargeBinary, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

#: a stored competition's life: created -> running -> done (or failed: it cannot go on)
COMPETITION_STATUSES: Final = ("created", "running", "done", "failed")

competitions = Table(
    "competitions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(128), nullable=False),
    Column("game", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    # a name of ladder.formats.REGISTRY (a format's name is at most 16 characters)
    Column("format", String(16), nullable=False),
    # the format's options: {"sets": n, "rounds": n | null, "scenarios": [config, ...]}
    Column("options", JSON, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column(
        "status",
        String(16),
        CheckConstraint("status IN ('created', 'running', 'done', 'failed')", name="status"),
        nullable=False,
    ),
    # the competition's own ladder: its games are matches there (time control, executor,
    # leases, idempotent recording); the matchmaker and the ladder list leave it alone
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("started_at", UTCDateTime),
    Column("finished_at", UTCDateTime),
    Column("error", Text),
)

competition_entrants = Table(
    "competition_entrants",
    metadata,
    Column("competition_id", ForeignKey("competitions.id", ondelete="CASCADE"), nullable=False),
    # the entrant's number: its seed in the field (0 is the first seed)
    Column("slot", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    # "builtin" (a reference bot), "command" (a hosted command with its files), "version"
    Column("kind", String(16), nullable=False),
    # what was asked for: the built-in's name, the command line, or the version id
    Column("spec", Text, nullable=False),
    Column("bot_version_id", ForeignKey("bot_versions.id"), nullable=False),
    PrimaryKeyConstraint("competition_id", "slot"),
)

competition_games = Table(
    "competition_games",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("competition_id", ForeignKey("competitions.id", ondelete="CASCADE"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("table_no", Integer, nullable=False),
    Column("set_no", Integer, nullable=False),
    Column("rotation", Integer, nullable=False),
    # index into the competition's scenarios (the "scenarios" format), else null
    Column("scenario", Integer),
    # entrant slot per seat, in seat order
    Column("seats", JSON, nullable=False),
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), nullable=False, unique=True),
    # a game is scheduled once, however often its round is planned (a restarted runner)
    UniqueConstraint("competition_id", "round", "table_no", "set_no", "rotation"),
)

#: a campaign's life (migration 0006): running -> finished (over, or its games played) | failed
CAMPAIGN_STATUSES: Final = ("running", "finished", "failed")

campaigns = Table(
    "campaigns",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    # per seat, in seat order: {"version_id": bot_versions.id, "bot": label, "name": deck-box name}
    Column("seats", JSON, nullable=False),
    Column("seed", BigInteger, nullable=False),
    # games to play at most (the campaign also ends when its Book says so)
    Column("games", Integer, nullable=False),
    # the campaign state (referee.games.clank_legacy.campaign, canonical JSON), its digest and
    # version, and the index of the next game (1 = the first): written with each game's result
    Column("state", JSON, nullable=False),
    Column("state_digest", String(64), nullable=False),
    Column("state_version", Integer, nullable=False),
    Column("next_index", Integer, nullable=False),
    Column(
        "status",
        String(16),
        CheckConstraint("status IN ('running', 'finished', 'failed')", name="status"),
        nullable=False,
    ),
    # the campaign's own ladder: its games are matches there (time control, executor, leases,
    # idempotent recording); the matchmaker and the ladder list leave it alone
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False, unique=True),
    # the campaign ladder (kind 'campaign') the finished campaign is rated on, if any
    Column("rating_ladder_id", ForeignKey("ladders.id"), index=True),
    # set in the transaction that rated it: a campaign is rated once
    Column("rated_at", UTCDateTime),
    Column("error", Text),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)

campaign_games = Table(
    "campaign_games",
    metadata,
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("game_index", Integer, nullable=False),
    # the match that plays it (scheduled once per index: the primary key)
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), nullable=False, unique=True),
    Column("seed", BigInteger, nullable=False),
    Column("state_before", String(64), nullable=False),
    # null until the game's result and the new state are written (one transaction)
    Column("state_after", String(64)),
    Column("scores", JSON),
    Column("outcomes", JSON),
    PrimaryKeyConstraint("campaign_id", "game_index"),
)

campaign_ratings = Table(
    "campaign_ratings",
    metadata,
    # a campaign moves a bot's rating once, however often rating it is retried
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
    Column("bot_id", ForeignKey("bots.id", ondelete="CASCADE"), nullable=False),
    Column("ladder_id", ForeignKey("ladders.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("delta", Float, nullable=False),
    PrimaryKeyConstraint("campaign_id", "bot_id"),
)
