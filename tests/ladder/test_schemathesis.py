"""`schemathesis run --checks all` against the API served by a real uvicorn finds nothing.

The server runs the production uvicorn settings on a free port, on PostgreSQL (where a NUL byte
once gave a 500 and reset the connection; SQLite is covered by the other API tests, and a second
run would double the time), with seeded data: an operator key (sent with every request, so
the writes are exercised too; its rate limit and the failed-authentication limit are raised so
the run is not throttled into 429s), a ladder, a bot with a version, a recorded match with its
replay and a captured log. The key reaches schemathesis through an environment variable named in
its config file, never the command line. Every phase runs (coverage, fuzzing, stateful).

Two documented allowances: an upload body is "any bytes" in the schema, but only a zip or tar.gz
is accepted, so a schema-valid upload may be a 422 (positive_data_acceptance allows it there);
the live stream of a finished match is a 410 naming its replay.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ladder.accounts import create_account, create_key
from ladder.api import ApiLimits, create_app
from ladder.bots import add_bot_version, register_bot, store_bot_log
from ladder.db import create_engine
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.seasons import close_season
from referee.core.game import Result

from .live_api import live_api

CONFIG = """
headers = { Authorization = "Bearer ${ARENA_SCHEMATHESIS_KEY}" }

[[operations]]
include-path = "/api/bots/{bot_id}/versions"
include-method = "POST"
# "any bytes" in the schema; only a zip or tar.gz is an archive
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429"]

[[operations]]
include-path = "/api/matches/{match_id}/live"
include-method = "GET"
# the seeded match is finished: its live stream is gone, 410 naming its replay (documented)
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "410", "429"]
"""


def _seed(engine: Engine) -> str:
    """The data the run works on; returns the operator key."""
    root = create_account(engine, "root", is_operator=True)
    key = create_key(engine, root.account_id, "bots operator", rate_per_minute=1_000_000)
    ladder_id = create_ladder(engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=1000, max_strikes=3)
    versions = []
    for name in ("alpha", "beta"):
        bot_id = register_bot(engine, name, "root", account_id=root.account_id, game="clank").bot_id
        versions.append(add_bot_version(engine, bot_id, "1", "python main.py"))
        join_ladder(engine, ladder_id, bot_id)
    match_id = enqueue_match(engine, ladder_id, versions, seed=3)
    assert match_id == 1
    record_result(engine, match_id, Result((3, 1), (1, 2), ("escaped", "dead")), b"{}", "finished")
    store_bot_log(engine, match_id, 0, 1, b"hello from seat 0\n")
    close_season(engine, ladder_id)  # /api/ladders/1/seasons/1 is an archived season
    return key.api_key


@pytest.mark.slow
def test_schemathesis_finds_nothing(pg_url: str, tmp_path: Path) -> None:
    engine = create_engine(pg_url)
    try:
        _run(engine, tmp_path)
    finally:
        engine.dispose()


def _run(engine: Engine, tmp_path: Path) -> None:
    key = _seed(engine)
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    app = create_app(engine, limits=ApiLimits(auth_failures_per_minute=1_000_000))
    st = str(Path(sys.executable).parent / "st")
    with live_api(app) as url:
        done = subprocess.run(
            [st, "--config-file", str(config), "run", f"{url}/openapi.json", "--checks", "all",
             "--max-examples", "8", "--workers", "1", "--seed", "1", "--no-color"],
            env={**os.environ, "ARENA_SCHEMATHESIS_KEY": key},
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )
    report = done.stdout[-8000:] + done.stderr[-2000:]
    assert done.returncode == 0, report
    # every operation was tested (the API has at least the 17 of ladder/api.py)
    selected = re.search(r"Operations:\s+(\d+) selected / (\d+) total", done.stdout)
    assert selected is not None and selected[1] == selected[2] and int(selected[1]) >= 17, report
    assert key not in done.stdout + done.stderr
