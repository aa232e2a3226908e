"""Bot registration and token authentication."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.bots import add_bot_version, authenticate_bot, hash_token, register_bot
from ladder.errors import Conflict, InvalidInput, NotFound
from ladder.ladders import create_ladder, join_ladder
from ladder.schema import bots, ladder_entries


def test_register_returns_token_and_stores_only_its_hash(engine: Engine) -> None:
    reg = register_bot(engine, "greedy", "alice")
    other = register_bot(engine, "random", "bob")
    assert reg.token.startswith("arena_") and len(reg.token) > 40
    assert reg.token != other.token
    with engine.connect() as conn:
        stored = conn.execute(sa.select(bots).where(bots.c.id == reg.bot_id)).one()
    assert stored.token_hash == hash_token(reg.token) != reg.token
    assert reg.token not in [str(v) for v in stored]


def test_authenticate(engine: Engine) -> None:
    reg = register_bot(engine, "greedy", "alice")
    who = authenticate_bot(engine, reg.token)
    assert who is not None and (who.bot_id, who.name, who.owner) == (reg.bot_id, "greedy", "alice")
    assert authenticate_bot(engine, reg.token + "x") is None
    assert authenticate_bot(engine, "") is None


def test_register_rejects_taken_and_bad_names(engine: Engine) -> None:
    register_bot(engine, "greedy", "alice")
    with pytest.raises(Conflict):
        register_bot(engine, "greedy", "mallory")
    for bad in ["", "has space", "-dash-first", "x" * 65, "<script>"]:
        with pytest.raises(InvalidInput):
            register_bot(engine, bad, "alice")
    with pytest.raises(InvalidInput):
        register_bot(engine, "fine", "   ")


def test_versions_and_joining(engine: Engine) -> None:
    reg = register_bot(engine, "greedy", "alice")
    add_bot_version(engine, reg.bot_id, "1.0")
    with pytest.raises(Conflict):
        add_bot_version(engine, reg.bot_id, "1.0")
    with pytest.raises(NotFound):
        add_bot_version(engine, 999, "1.0")
    ladder_id = create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    with pytest.raises(Conflict):
        create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    with pytest.raises(InvalidInput):
        create_ladder(engine, "m", "clank", 1, decision_ms=100, bank_ms=0, max_strikes=0)
    join_ladder(engine, ladder_id, reg.bot_id)
    join_ladder(engine, ladder_id, reg.bot_id)  # joining twice is harmless
    with pytest.raises(NotFound):
        join_ladder(engine, ladder_id, 999)
    with engine.connect() as conn:
        rows = conn.execute(sa.select(ladder_entries.c.rating, ladder_entries.c.games)).all()
    assert [tuple(r) for r in rows] == [(1500.0, 0)]
