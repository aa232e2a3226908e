"""Qualification games look like rated matches to the bot (issue 24 item 4).

An attacker's bot (``sandbox_bots/spy_bot.py``) prints everything it is told and everything it
can see around it at the start of each game. It plays its qualification games, then a rated
match the real matchmaker makes, both through the gRPC executor in the sandbox, on PostgreSQL.
Whatever it compares — the match id's form, the seats, the opponents' names, the time control,
the config, the versions, its argv, environment and files — is the same in both (the match id's
number and random suffix differ from game to game, as they do between two rated matches).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from cli.client import create_ladder_with_reference_bots
from ladder.accounts import create_account
from ladder.bots import add_bot_version, register_bot
from ladder.db import create_engine
from ladder.ladders import join_ladder
from ladder.schema import bot_versions, ladders
from tests.databases import qualification_of
from workers.executor import REFEREE_EXECUTOR_ENV, reset_referee_executor
from workers.match_execution import run_match
from workers.matchmaker import fill_queues
from workers.qualification import qualify_version, reference_bots

from .conftest import attach_files

SPY = {"main.py": Path(__file__).parent / "sandbox_bots" / "spy_bot.py"}
MATCH_ID = re.compile(r"ladder-([0-9]+)-[0-9a-f]{8}")
#: what differs between any two games by design: the seat token (one per seat and game)
PER_GAME_ENV = {"ARENA_TOKEN"}
#: compared apart (names, environment) or not comparable (the clock: printed, never asserted)
PER_GAME = {"match_id", "seat", "seat_names", "env", "seconds_to_start"}


@pytest.fixture
def logs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    monkeypatch.delenv(REFEREE_EXECUTOR_ENV, raising=False)
    monkeypatch.delenv("ARENA_REFEREE_ADDR", raising=False)
    monkeypatch.setenv("ARENA_BOT_LOG_DIR", str(tmp_path / "bot-logs"))
    reset_referee_executor()
    yield tmp_path / "bot-logs"
    reset_referee_executor()


def _seen(folder: Path) -> dict[str, Any]:
    """The spy's SEEN record in a game's log folder."""
    (log,) = [p for p in folder.glob("seat*.log") if "SEEN " in p.read_text()]
    line = next(x for x in log.read_text().splitlines() if x.startswith("SEEN "))
    seen: dict[str, Any] = json.loads(line.removeprefix("SEEN "))
    return seen


def _view(seen: dict[str, Any]) -> dict[str, Any]:
    """What a bot could tell games apart by, without what legitimately differs per game (the
    match id's number and suffix, its own seat, the seat token, the clock)."""
    match = MATCH_ID.fullmatch(seen["match_id"])
    assert match is not None and int(match.group(1)) > 0, seen["match_id"]
    names = list(seen["seat_names"])
    assert names[seen["seat"]] == "spy", names
    return {
        **{k: v for k, v in seen.items() if k not in PER_GAME},
        "opponents": sorted(n for i, n in enumerate(names) if i != seen["seat"]),
        "env": {k: v for k, v in seen["env"].items() if k not in PER_GAME_ENV},
        "env_keys": sorted(seen["env"]),
    }


@pytest.mark.slow
def test_the_spy_cannot_tell_its_qualification_games_from_a_rated_match(pg_url: str, logs: Path) -> None:
    engine = create_engine(pg_url)
    try:
        ladder_id = create_ladder_with_reference_bots(
            # not qualification's old fixed 1000/30000/3: the ladder's own must be what is played
            engine, "clank-4p", "clank", 4, decision_ms=1500, bank_ms=20_000, max_strikes=2,
            reference=reference_bots("clank"),
        )  # fmt: skip
        # the ladder plays an older engine version (as a ladder pinned before a rule change
        # does): qualification must play it too (GameStart names it)
        with engine.begin() as conn:
            conn.execute(sa.update(ladders).where(ladders.c.id == ladder_id).values(engine_version="clank-1"))
        account = create_account(engine, "mallory")
        bot = register_bot(engine, "spy", "mallory", account_id=account.account_id, game="clank")
        join_ladder(engine, ladder_id, bot.bot_id)
        version = add_bot_version(engine, bot.bot_id, "1", "python main.py")
        attach_files(engine, version, SPY)
        with engine.begin() as conn:
            conn.execute(
                sa.update(bot_versions).where(bot_versions.c.id == version).values(qualification="pending")
            )
        run = qualify_version(pg_url, version)
        assert run.status == "passed", (run, qualification_of(engine, version))
        # its report counts the opponents each 4-seat game seated (not "the reference bot")
        assert run.reason == "played 2 games against 3 reference bots without a fault", run.reason
        qualifying = sorted(logs.iterdir())
        assert len(qualifying) == 2
        (match_id,) = fill_queues(engine, lambda _m: None, target_depth=1, rng=random.Random(7))
        assert run_match(pg_url, match_id).status == "recorded"
    finally:
        engine.dispose()
    rated = _seen(logs / f"match-{match_id}")
    games = [_seen(folder) for folder in qualifying]
    assert rated["num_seats"] == 4 and rated["time_control"]["decision_ms"] == 1500
    assert rated["engine_version"] == "clank-1"
    # the search bot too: in qualification its seat is played by its heuristic, under its name
    assert _view(rated)["opponents"] == [
        "reference-clank-greedy", "reference-clank-ismcts", "reference-clank-random"
    ]
    for seen in games:
        assert _view(seen) == _view(rated)
    # the clock, for the record (a figure, not a check): process start to GameStart
    print("seconds to GameStart (seat): qualification",
          [(s["seconds_to_start"], s["seat"]) for s in games],
          "rated", (rated["seconds_to_start"], rated["seat"]))  # fmt: skip
    # the ids come from the matches' own sequence: the rated match's follows them
    numbers = [int(MATCH_ID.fullmatch(s["match_id"]).group(1)) for s in games]  # type: ignore[union-attr]
    assert numbers == sorted(numbers) and numbers[-1] < match_id
