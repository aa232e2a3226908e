"""Fixtures for the ladder tests: a migrated database on SQLite and on PostgreSQL.

PostgreSQL is required, not optional (``postgres_url`` in tests/conftest.py: a fresh database
for the session, and a clear failure if the server cannot be reached).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder


@dataclass(frozen=True)
class Roster:
    """A ladder with bots on it, each with one version."""

    ladder_id: int
    bot_ids: tuple[int, ...]
    version_ids: tuple[int, ...]
    tokens: tuple[str, ...]


def make_roster(engine: Engine, players: int = 2, bots: int = 4, name: str = "clank-2p") -> Roster:
    """Create a ladder for `players` players with `bots` bots on it."""
    ladder_id = create_ladder(engine, name, "clank", players, decision_ms=1000, bank_ms=30000, max_strikes=3)
    bot_ids, version_ids, tokens = [], [], []
    for i in range(bots):
        reg = register_bot(engine, f"bot{i}", f"owner{i}")
        bot_ids.append(reg.bot_id)
        tokens.append(reg.token)
        version_ids.append(add_bot_version(engine, reg.bot_id, "1.0", f"python bot{i}.py"))
        join_ladder(engine, ladder_id, reg.bot_id)
    return Roster(ladder_id, tuple(bot_ids), tuple(version_ids), tuple(tokens))


def make_coop_roster(engine: Engine, players: int = 2, bots: int = 4, name: str = "alien-2p") -> Roster:
    """Create a cooperative (team) Alien ladder for `players` with `bots` bots on it."""
    ladder_id = create_ladder(
        engine, name, "alien", players, decision_ms=1000, bank_ms=30000, max_strikes=3, kind="coop"
    )
    bot_ids, version_ids, tokens = [], [], []
    for i in range(bots):
        reg = register_bot(engine, f"crew{i}", f"owner{i}")
        bot_ids.append(reg.bot_id)
        tokens.append(reg.token)
        version_ids.append(add_bot_version(engine, reg.bot_id, "1.0", f"python crew{i}.py"))
        join_ladder(engine, ladder_id, reg.bot_id)
    return Roster(ladder_id, tuple(bot_ids), tuple(version_ids), tuple(tokens))


@pytest.fixture
def roster(engine: Engine) -> Roster:
    """A 2-player ladder with four bots (bot0..bot3), one version each."""
    return make_roster(engine)
