"""The ladder stores replays in format 2: compact, and its digests cover the seats' ladder
metadata (bot names and versions), so an edited stored replay fails verification."""

from __future__ import annotations

import gzip
import json

import pytest
from sqlalchemy import Engine

from bench.replay import format1_bytes
from ladder import queries
from ladder.match_queue import enqueue_match
from referee import replay as rp
from workers.match_execution import run_match

from .conftest import make_ladder


def test_a_played_match_is_stored_in_format_2_covering_the_bot_names(db_url: str, engine: Engine) -> None:
    ladder = make_ladder(engine, ["builtin:greedy", "builtin:random"])
    match_id = enqueue_match(engine, ladder.ladder_id, ladder.version_ids, seed=12)
    assert run_match(db_url, match_id, "w1").status == "recorded"
    with engine.connect() as conn:
        data, _sha = queries.replay_data(conn, match_id) or (b"", "")
    stored = json.loads(gzip.decompress(data))
    assert stored["format_version"] == rp.FORMAT_VERSION and "steps" not in stored
    replay = rp.loads(data)
    assert len(data) * 5 < format1_bytes(replay)  # what the same replay cost in format 1
    assert [s["bot_version_id"] for s in replay["seats"]] == list(ladder.version_ids)
    assert rp.verify(replay).steps == len(stored["actions"])
    stored["seats"][0]["bot_name"] = "someone else"
    with pytest.raises(rp.ReplayError, match="header_digest differs"):
        rp.loads(json.dumps(stored).encode())
