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


def test_qualification_logs_and_version_kinds(engine: Engine) -> None:
    from ladder.bots import MAX_LOG_BYTES, read_bot_log, set_qualification, store_bot_log, version_kind
    from ladder.match_queue import enqueue_match
    from ladder.schema import bot_versions

    reg = register_bot(engine, "greedy", "alice", game="clank")
    version_id = add_bot_version(engine, reg.bot_id, "1.0", "python main.py")
    set_qualification(engine, version_id, "failed", {"games": 3, "faults": ["seat 0: illegal index"]})
    with engine.connect() as conn:
        row = conn.execute(sa.select(bot_versions).where(bot_versions.c.id == version_id)).one()
    assert row.qualification == "failed" and '"faults"' in row.qualification_detail
    with pytest.raises(InvalidInput):
        set_qualification(engine, version_id, "great")
    with pytest.raises(NotFound):
        set_qualification(engine, 9999, "passed")
    assert [version_kind(c) for c in ("remote", "builtin:greedy", "python main.py")] == [
        "remote", "builtin", "hosted"
    ]
    with pytest.raises(InvalidInput):
        register_bot(engine, "chess-bot", "alice", game="chess")

    ladder_id = create_ladder(engine, "l", "clank", 2, decision_ms=100, bank_ms=0, max_strikes=0)
    match_id = enqueue_match(engine, ladder_id, [version_id, version_id], seed=1)
    flood = b"x" * (MAX_LOG_BYTES + 10)
    store_bot_log(engine, match_id, 0, reg.bot_id, flood)
    log = read_bot_log(engine, match_id, 0)
    assert log is not None and log.truncated and log.bytes == MAX_LOG_BYTES and len(log.text) == MAX_LOG_BYTES
    store_bot_log(engine, match_id, 0, reg.bot_id, b"retried run\n")  # a retried task replaces it
    log = read_bot_log(engine, match_id, 0)
    assert log is not None and (log.text, log.truncated) == ("retried run\n", False)
    assert read_bot_log(engine, match_id, 1) is None and read_bot_log(engine, -1, 0) is None


def test_uploads_at_once_get_distinct_labels_without_a_conflict(engine: Engine) -> None:
    """Eight uploads of one bot at once, none naming its version: v1..v8, no 409 (two uploads
    read the same labels and picked the same next one)."""
    import threading

    from ladder.accounts import authenticate_key, create_account
    from ladder.archives import validate_archive
    from ladder.bots import add_uploaded_version, create_bot
    from tests.ladder.test_archives import _file, _tar

    account = create_account(engine, "racer")
    who = authenticate_key(engine, account.api_key)
    assert who is not None
    bot_id = create_bot(engine, who, "racer-bot", "clank").bot_id
    archive = validate_archive(_tar([_file("main.py")]))
    start = threading.Barrier(8)
    labels: list[str] = []
    errors: list[Exception] = []

    def upload() -> None:
        start.wait()
        try:
            labels.append(add_uploaded_version(engine, who, bot_id, archive, "python main.py").version)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=upload) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(labels, key=lambda v: int(v[1:])) == [f"v{n}" for n in range(1, 9)]
