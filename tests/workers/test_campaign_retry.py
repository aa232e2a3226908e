"""`arena campaign resume ID` on a campaign whose game failed: the game is played again exactly
once, with the same seed and campaign state; a second failure leaves the campaign failed, and
every later resume says so in one line without playing.

A game fails when its match's executor raises; here a built-in bot crashes on its first
decision (the bot factory the in-process executor calls is the seam replaced)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import workers.executor
from cli.main import main
from ladder.campaigns import campaign_row
from ladder.db import create_engine
from ladder.schema import campaign_games, matches
from referee.bots import LocalBot
from referee.core.game import Action, json_digest

RUN = ("campaign", "run", "--players", "2", "--bots", "random,random", "--games", "2", "--seed", "4")


class _Crashes:
    """Which matches' bots crash: `left` more matches (None: every match)."""

    def __init__(self, left: int | None) -> None:
        self.left = left
        self.bots_made = 0


class _CrashingBot:
    name = "random"

    def act(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> int:
        raise RuntimeError("the bot crashed on its first decision")


@pytest.fixture
def crashes(monkeypatch: pytest.MonkeyPatch) -> _Crashes:
    """Seat 0's bot of the next `crashes.left` matches crashes on its first decision."""
    state = _Crashes(0)
    real = workers.executor.make_bot  # type: ignore[attr-defined]

    def make_bot(game: str, name: str, seed: int) -> LocalBot:
        state.bots_made += 1
        # the executor makes seat 0's bot first: a match is counted there
        if state.bots_made % 2 == 1 and (state.left is None or state.left > 0):
            if state.left is not None:
                state.left -= 1
            return _CrashingBot()
        return real(game, name, seed)

    monkeypatch.setattr(workers.executor, "make_bot", make_bot)
    return state


def _arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _matches(db: str, campaign_id: int) -> tuple[list[tuple[int, str, int, str]], list[tuple[int, int]], Any]:
    """(matches on the campaign's ladder: id, status, seed, campaign state digest), its games
    (index, match id), its row."""
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            row = campaign_row(conn, campaign_id)
            found = [
                (int(m.id), str(m.status), int(m.seed), json_digest(m.config["campaign"]))
                for m in conn.execute(
                    sa.select(matches).where(matches.c.ladder_id == row.ladder_id).order_by(matches.c.id)
                )
            ]
            games = [
                (int(g.game_index), int(g.match_id))
                for g in conn.execute(
                    sa.select(campaign_games)
                    .where(campaign_games.c.campaign_id == campaign_id)
                    .order_by(campaign_games.c.game_index)
                )
            ]
    finally:
        engine.dispose()
    return found, games, row


def test_a_failed_game_is_retried_once_with_the_same_seed_and_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crashes: _Crashes
) -> None:
    code, out, err = _arena(capsys, *RUN, "--db", f"sqlite:///{tmp_path}/ref.db", "--json")
    assert code == 0, err
    reference = json.loads(out)

    db = f"sqlite:///{tmp_path}/c.db"
    crashes.left = 1
    code, out, err = _arena(capsys, *RUN, "--db", db, "--json")
    assert code == 1
    failure = err.splitlines()[-1]
    assert failure.startswith("error: game 1 (match 1) failed: error: RuntimeError: the bot crashed")
    assert failure.endswith("`arena campaign resume 1` plays it again, once")
    assert json.loads(out)["status"] == "failed" and json.loads(out)["games"] == []

    code, out, err = _arena(capsys, "campaign", "resume", "1", "--db", db, "--json")
    assert code == 0, err
    resumed = json.loads(out)
    # the retried game is the uninterrupted campaign's game: same seed, same state, same result
    assert resumed["status"] == "finished" and resumed["error"] is None
    assert resumed["state_digest"] == reference["state_digest"]
    assert [g["scores"] for g in resumed["games"]] == [g["scores"] for g in reference["games"]]
    found, games, row = _matches(db, 1)
    assert [(m[0], m[1]) for m in found] == [(1, "failed"), (2, "done"), (3, "done")]
    first_seed, first_state = found[0][2], found[0][3]
    assert (found[1][2], found[1][3]) == (first_seed, first_state)
    assert first_seed == reference["games"][0]["seed"]
    assert first_state == resumed["games"][0]["state_before"]
    # game 1 is recorded once, by its retry
    assert games == [(1, 2), (2, 3)] and row.next_index == 3
    assert [g["match_id"] for g in resumed["games"]] == [2, 3]

    # resuming a finished campaign retries nothing and plays nothing
    code, out, err = _arena(capsys, "campaign", "resume", "1", "--db", db, "--json")
    assert code == 0, err
    assert json.loads(out)["state_digest"] == reference["state_digest"] and len(_matches(db, 1)[0]) == 3


def test_a_game_that_fails_on_its_retry_is_not_retried_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crashes: _Crashes
) -> None:
    db = f"sqlite:///{tmp_path}/f.db"
    crashes.left = None
    code, _out, err = _arena(capsys, *RUN, "--db", db)
    assert code == 1 and "`arena campaign resume 1` plays it again, once" in err

    code, out, err = _arena(capsys, "campaign", "resume", "1", "--db", db)
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("error: game 1 failed again when retried (match 2: ")
    assert err.rstrip().endswith("a failed game is retried once, the campaign stays failed")
    assert "campaign 1: failed, 0 games" in out
    found, games, row = _matches(db, 1)
    assert [(m[0], m[1]) for m in found] == [(1, "failed"), (2, "failed")]
    assert found[0][2:] == found[1][2:]  # the same seed and campaign state
    assert games == [(1, 2)] and row.status == "failed" and row.next_index == 1

    # every later resume: the same one line, nothing played
    made = crashes.bots_made
    for _ in range(2):
        code, out, err = _arena(capsys, "campaign", "resume", "1", "--db", db, "--json")
        assert code == 1 and err.count("\n") == 1
        assert err.startswith("error: campaign 1: game 1 failed again when retried (match 2: error: Runtime")
        assert json.loads(out)["status"] == "failed"
    assert crashes.bots_made == made and len(_matches(db, 1)[0]) == 2
