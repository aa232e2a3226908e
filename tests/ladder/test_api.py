"""The HTTP API and the home page, through FastAPI's TestClient."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from sqlalchemy import Engine

from ladder.accounts import create_account
from ladder.api import create_app
from ladder.bots import add_bot_version, authenticate_bot, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.queries import MAX_ID
from ladder.recording import record_result
from referee.core.game import Result
from workers.match_execution import run_match

from .conftest import Roster, make_coop_roster

REPLAY = b'{"seed": 1, "actions": []}'


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine)) as c:
        yield c


@pytest.fixture
def played(engine: Engine, roster: Roster) -> tuple[Roster, int, int]:
    """The roster with one recorded match (bot0 beats bot1) and one queued (bot0 v bot2)."""
    v = roster.version_ids
    done = enqueue_match(engine, roster.ladder_id, [v[0], v[1]], seed=11)
    record_result(engine, done, Result((30, 10), (1, 2), ("escaped", "dead")), REPLAY, "finished")
    queued = enqueue_match(engine, roster.ladder_id, [v[2], v[0]], seed=12)
    return roster, done, queued


def _assert_error(response: object, status: int) -> None:
    assert response.status_code == status  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["status"] == status and isinstance(body["error"], str) and body["error"]


def test_ladders_and_standings(client: TestClient, played: tuple[Roster, int, int]) -> None:
    roster, _, _ = played
    ladders = client.get("/api/ladders").json()
    assert ladders == [
        {
            "id": roster.ladder_id,
            "name": "clank-2p",
            "game": "clank",
            "players": 2,
            "kind": "ffa",
            "time_control": {"decision_ms": 1000, "bank_ms": 30000, "max_strikes": 3},
            "engine_version": "clank-2",
            # the default rating policy (ladder/RATINGS.md, "Rating policy")
            "rating_policy": {
                "k_established": 20.0,
                "k_provisional": 40.0,
                "provisional_games": 20,
                "initial_rating": 1500.0,
                "prior_games": 1.0,
                "confidence": 0.95,
            },
        }
    ]
    page = client.get(f"/api/ladders/{roster.ladder_id}/standings").json()
    table = page["standings"]
    # ranked by the low end of the 95% interval (RATINGS.md, "Rank order"): one game played
    # (RD 246.5) puts bot1 at 1480 - 483 = 997, above the unplayed bots (1500 - 681 = 819)
    assert [(s["rank"], s["bot_name"], s["rating"], s["games"]) for s in table] == [
        (1, "bot0", 1520.0, 1),
        (2, "bot1", 1480.0, 1),
        (3, "bot2", 1500.0, 0),
        (4, "bot3", 1500.0, 0),
    ]
    assert [s["rating_low"] for s in table] == sorted((s["rating_low"] for s in table), reverse=True)
    assert table[0]["provisional"] and table[0]["wins"] == 1
    _assert_error(client.get("/api/ladders/999/standings"), 404)


def test_bot_profile_and_matches(client: TestClient, played: tuple[Roster, int, int]) -> None:
    roster, done, queued = played
    bot0 = roster.bot_ids[0]
    profile = client.get(f"/api/bots/{bot0}").json()
    assert profile["name"] == "bot0" and profile["owner"] == "owner0"
    assert "token_hash" not in profile and "token" not in profile
    assert [v["version"] for v in profile["versions"]] == ["1.0"]
    [version] = profile["versions"]
    assert (version["kind"], version["qualification"]) == ("hosted", "passed")
    assert version["archive_sha256"] is None
    assert profile["ladders"][0]["rating"] == 1520.0
    assert [m["id"] for m in profile["recent_matches"]] == [queued, done]
    assert client.get("/api/bots/by-name/bot0").json() == profile
    _assert_error(client.get("/api/bots/by-name/nobody"), 404)

    listed = client.get(f"/api/bots/{bot0}/matches").json()
    assert [m["id"] for m in listed] == [queued, done]
    assert listed[1]["places"] == [1, 2] and listed[0]["places"] is None
    assert [s["bot_name"] for s in listed[0]["seats"]] == ["bot2", "bot0"]
    assert [m["id"] for m in client.get(f"/api/bots/{roster.bot_ids[3]}/matches").json()] == []
    assert len(client.get(f"/api/bots/{bot0}/matches", params={"limit": 1}).json()) == 1
    _assert_error(client.get("/api/bots/999"), 404)
    _assert_error(client.get("/api/bots/999/matches"), 404)
    _assert_error(client.get(f"/api/bots/{bot0}/matches", params={"limit": 0}), 422)


def test_match_and_replay_download(client: TestClient, played: tuple[Roster, int, int]) -> None:
    roster, done, queued = played
    info = client.get(f"/api/matches/{done}").json()
    assert info["status"] == "done" and info["seed"] == 11
    assert info["result"] == {
        "places": [1, 2],
        "scores": [30, 10],
        "outcomes": ["escaped", "dead"],
        "reason": "finished",
        "team_won": None,
    }
    assert [(c["bot_id"], c["delta"]) for c in info["rating_changes"]] == [
        (roster.bot_ids[0], 20.0),
        (roster.bot_ids[1], -20.0),
    ]
    assert info["replay"]["url"] == f"/api/matches/{done}/replay"

    response = client.get(info["replay"]["url"])
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/gzip"
    assert "attachment" in response.headers["content-disposition"]
    assert f"match-{done}.replay.json.gz" in response.headers["content-disposition"]
    assert gzip.decompress(response.content) == REPLAY
    assert response.headers["x-replay-sha256"] == hashlib.sha256(REPLAY).hexdigest()

    pending = client.get(f"/api/matches/{queued}").json()
    assert pending["result"] is None and pending["replay"] is None
    _assert_error(client.get(f"/api/matches/{queued}/replay"), 404)
    _assert_error(client.get("/api/matches/999"), 404)
    _assert_error(client.get("/api/matches/999/replay"), 404)


def test_register_bot(client: TestClient, engine: Engine) -> None:
    carol = create_account(engine, "carol")
    auth = {"Authorization": f"Bearer {carol.api_key}"}
    response = client.post("/api/bots", json={"name": "newbie", "game": "clank"}, headers=auth)
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "newbie" and body["token"].startswith("arena_")
    # the owner is the authenticated account, never a field of the request
    assert (body["owner"], body["game"]) == ("carol", "clank")
    who = authenticate_bot(engine, body["token"])
    assert who is not None and who.bot_id == body["id"]
    _assert_error(client.post("/api/bots", json={"name": "newbie", "game": "clank"}, headers=auth), 409)
    _assert_error(client.post("/api/bots", json={"name": "bad name", "game": "clank"}, headers=auth), 422)
    _assert_error(client.post("/api/bots", json={"game": "clank"}, headers=auth), 422)
    _assert_error(client.post("/api/bots", json={"name": "x2", "game": "chess"}, headers=auth), 422)
    with_owner = {"name": "x3", "game": "clank", "owner": "alice"}
    _assert_error(client.post("/api/bots", json=with_owner, headers=auth), 422)
    anonymous = client.post("/api/bots", json={"name": "anon", "game": "clank"})
    _assert_error(anonymous, 401)
    assert anonymous.headers["www-authenticate"] == "Bearer"


def test_errors_are_json_for_unknown_routes(client: TestClient) -> None:
    _assert_error(client.get("/api/nothing-here"), 404)
    wrong_method = client.delete("/api/ladders")
    _assert_error(wrong_method, 405)
    assert wrong_method.headers["allow"] == "GET"
    _assert_error(client.get("/api/bots/not-a-number"), 422)


def test_home_page_lists_ladders_and_escapes(
    client: TestClient, engine: Engine, played: tuple[Roster, int, int]
) -> None:
    evil = register_bot(engine, "x", "<b>evil</b>")  # a legacy free-text owner
    join_ladder(engine, played[0].ladder_id, evil.bot_id)
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert "clank-2p" in html and "bot0" in html and "1520.0" in html
    assert "<b>evil</b>" not in html and "&lt;b&gt;evil&lt;/b&gt;" in html


def test_metrics_count_requests_by_route_template(
    client: TestClient, played: tuple[Roster, int, int]
) -> None:
    labels = {"method": "GET", "route": "/api/bots/{bot_id}", "status": "404"}
    before = REGISTRY.get_sample_value("arena_api_requests_total", labels) or 0.0
    client.get("/api/bots/12345")
    client.get("/api/bots/67890")
    assert REGISTRY.get_sample_value("arena_api_requests_total", labels) == before + 2
    text = client.get("/metrics").text
    assert 'arena_api_requests_total{method="GET",route="/api/bots/{bot_id}",status="404"}' in text
    assert "arena_api_request_seconds_bucket" in text
    unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
    before = REGISTRY.get_sample_value("arena_api_requests_total", unmatched) or 0.0
    client.get("/no/such/page")
    assert REGISTRY.get_sample_value("arena_api_requests_total", unmatched) == before + 1


def test_team_ladder_standings_scenarios_and_page(client: TestClient, engine: Engine) -> None:
    roster = make_coop_roster(engine)
    v = roster.version_ids
    won = enqueue_match(engine, roster.ladder_id, [v[0], v[1]], seed=1)
    record_result(engine, won, Result((2, 2), (1, 1), ("a", "b"), team_won=True), REPLAY, "finished")
    lost = enqueue_match(engine, roster.ladder_id, [v[0], v[2]], seed=2)
    record_result(engine, lost, Result((0, 0), (1, 1), ("a", "b"), team_won=False), REPLAY, "finished")

    page = client.get(f"/api/ladders/{roster.ladder_id}/standings").json()
    assert page["ladder"]["kind"] == "coop"
    # 1st match: all 1500, E = 0.5: crew0, crew1 +20, scenario -16 (1484).
    # 2nd: T = (1520 + 1500) / 2 = 1510 v 1484: E = 1 / (1 + 10^(-26/400)) = 1 / 1.860994 = 0.537347;
    # crew0, crew2 -40 * 0.537347 = -21.4939; scenario +32 * 0.537347 = +17.1951
    # ranked by the low end of the 95% interval: crew0's two games narrow its interval most
    assert [(s["bot_name"], s["rating"], s["games"], s["wins"]) for s in page["standings"]] == [
        ("crew0", 1498.5, 2, 1),
        ("crew1", 1520.0, 1, 1),
        ("crew2", 1478.5, 1, 0),
        ("crew3", 1500.0, 0, 0),
    ]
    body = client.get(f"/api/ladders/{roster.ladder_id}/scenarios").json()
    assert body["ladder"]["id"] == roster.ladder_id
    [scenario] = body["scenarios"]
    key = "location=calder_station;objectives=distress_call,purge_vents,burn_nest;players=2"
    assert scenario["key"] == key
    assert scenario["description"].startswith("Drift Station Calder: Answer the Distress Call")
    assert (scenario["rank"], scenario["rating"], scenario["games"]) == (1, 1501.2, 2)
    assert scenario["team_wins"] == 1
    assert scenario["provisional"]

    info = client.get(f"/api/matches/{lost}").json()
    assert info["result"]["team_won"] is False
    change = info["scenario_change"]
    assert (change["key"], round(change["before"], 4), round(change["delta"], 4)) == (
        scenario["key"],
        1484.0,
        17.1951,
    )
    assert client.get(f"/api/matches/{won}").json()["result"]["team_won"] is True

    html = client.get("/").text
    assert "alien-2p" in html and "Scenarios" in html and "Team wins" in html and "1501.2" in html
    assert f"/api/ladders/{roster.ladder_id}/scenarios" in html
    _assert_error(client.get("/api/ladders/999/scenarios"), 404)


def test_free_for_all_ladder_has_no_scenarios(client: TestClient, played: tuple[Roster, int, int]) -> None:
    roster, done, _ = played
    assert client.get(f"/api/ladders/{roster.ladder_id}/scenarios").json()["scenarios"] == []
    assert client.get(f"/api/matches/{done}").json()["scenario_change"] is None
    assert "Scenarios" not in client.get("/").text


#: ids no row can have: one past the 32-bit id columns, one past 64 bits, a 23-digit one
_TOO_LARGE = (MAX_ID + 1, 2**63, 99999999999999999999999)


@pytest.mark.parametrize("big", _TOO_LARGE)
@pytest.mark.parametrize(
    "route",
    [
        "/api/bots/{}",
        "/api/bots/{}/matches",
        "/api/matches/{}",
        "/api/matches/{}/replay",
        "/api/ladders/{}/standings",
        "/api/ladders/{}/scenarios",
        "/api/ladders/{}/seasons",
        "/api/ladders/{}/seasons/1",
    ],
)
def test_ids_beyond_the_id_range_are_404_not_500(
    client: TestClient, played: tuple[Roster, int, int], route: str, big: int
) -> None:
    _assert_error(client.get(route.format(big)), 404)
    _assert_error(client.get(route.format(-big)), 404)
    # the largest storable id is simply unknown
    _assert_error(client.get(route.format(MAX_ID)), 404)


def test_a_recorded_matchs_replay_downloads_and_verifies(
    client: TestClient, engine: Engine, db_url: str, tmp_path: Path
) -> None:
    """A match really played and recorded; its replay fetched over HTTP; `arena replay verify`."""
    ladder_id = create_ladder(
        engine, "clank-real", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
    )
    versions = []
    for name, strategy in (("real-greedy", "greedy"), ("real-random", "random")):
        bot_id = register_bot(engine, name, "tests").bot_id
        versions.append(add_bot_version(engine, bot_id, "1", f"builtin:{strategy}"))
        join_ladder(engine, ladder_id, bot_id)
    match_id = enqueue_match(engine, ladder_id, versions, seed=5)
    assert run_match(db_url, match_id, "api-test").status == "recorded"

    info = client.get(f"/api/matches/{match_id}").json()
    response = client.get(info["replay"]["url"])
    assert response.status_code == 200
    assert response.headers["x-replay-sha256"] == info["replay"]["sha256"]
    name = response.headers["content-disposition"].split('filename="')[1].rstrip('"')
    path = tmp_path / name
    path.write_bytes(response.content)
    verified = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", "verify", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    assert verified.returncode == 0, verified.stderr
    assert "every digest matches" in verified.stdout
