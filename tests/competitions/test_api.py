"""The competitions' HTTP endpoints: operators create and start, everyone reads; on a real app."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.accounts import create_account
from ladder.api import create_app
from workers.tournament import Inline, advance_competitions

FIELD = {"game": "clank", "players": 2, "format": "round-robin", "field": ["greedy", "random"], "sets": 1}


def test_create_start_play_read(engine: Engine, db_url: str) -> None:
    operator = create_account(engine, "op", is_operator=True).api_key
    user = create_account(engine, "someone").api_key
    client = TestClient(create_app(engine))
    # writing needs a key, and an operator's
    assert client.post("/api/competitions", json=FIELD).status_code == 401
    denied = client.post("/api/competitions", json=FIELD, headers={"Authorization": f"Bearer {user}"})
    assert denied.status_code == 403
    auth = {"Authorization": f"Bearer {operator}"}
    # hostile input: a command line over HTTP would run with no files; an unknown bot; a huge field
    bad = client.post("/api/competitions", json={**FIELD, "field": ["greedy", "rm -rf /"]}, headers=auth)
    assert bad.status_code == 422 and "bot:NAME" in bad.json()["error"]
    def create(**changes: object) -> int:
        return client.post("/api/competitions", json={**FIELD, **changes}, headers=auth).status_code

    assert create(field=["greedy", "bot:nobody"]) == 404
    assert create(field=["greedy"] * 65) == 422
    assert create(sets=10**6) == 422
    assert create(format="ladder") == 422
    assert create(game="alien") == 422  # a cooperative game plays the scenarios format
    # an attacker asking for a round robin of 64 at tables of 4, 1000 sets each: 635 million games
    assert create(field=["greedy"] * 64, players=4, sets=1000) == 422
    assert create(format="swiss", rounds=10**9) == 422
    assert client.get("/api/competitions").json() == []  # nothing of the refused ones was stored
    made = client.post("/api/competitions", json=FIELD, headers=auth)
    assert made.status_code == 201, made.text
    cid = made.json()["id"]
    assert made.json()["status"] == "created"
    assert [e["name"] for e in made.json()["field"]] == ["greedy", "random"]
    as_user = {"Authorization": f"Bearer {user}"}
    assert client.post(f"/api/competitions/{cid}/start", headers=as_user).status_code == 403
    assert client.post(f"/api/competitions/{cid}/start", headers=auth).json()["status"] == "running"
    # `arena beat` plays it: its competitions step, with the games played in this process
    here = Inline(db_url)
    for _ in range(20):
        assert advance_competitions(engine, here) in (0, 1)
        while not here.idle():
            here.pump()
        if client.get(f"/api/competitions/{cid}").json()["status"] == "done":
            break
    assert advance_competitions(engine, here) == 0  # nothing left running
    assert client.get(f"/api/competitions/{cid}").json()["status"] == "done"
    res = client.get(f"/api/competitions/{cid}/results").json()
    assert [r["bot"] for r in res["standings"]] == ["greedy", "random"]
    assert res["counts"] == {"played": 2, "failed": 0, "pending": 0} and len(res["games"]) == 2
    assert {g["seats"][0] for g in res["games"]} == {"greedy", "random"}  # both seat orders
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/competitions/{cid}/standings.csv").text)))
    assert rows[0]["bot"] == "greedy" and rows[0]["wins"] == "2"
    assert client.get("/api/competitions").json()[0]["id"] == cid
    assert client.get("/api/competitions/999999").status_code == 404
    assert client.get("/api/competitions/99999999999").status_code == 422
    # a finished competition does not start again; the competition's ladder is not listed
    assert client.post(f"/api/competitions/{cid}/start", headers=auth).status_code == 409
    assert client.get("/api/ladders").json() == []


def test_a_command_entrant_is_shown_by_its_scripts_name_never_its_command_line(engine: Engine) -> None:
    from ladder.competitions import competition_results, create_competition, parse_entry

    field = [
        parse_entry("clank", "greedy"),
        parse_entry("clank", "TOKEN=hunter2 python bots/python/examples/random_bot.py --key k1"),
        parse_entry("clank", "python other/random_bot.py"),
    ]
    cid = create_competition(engine, game="clank", players=2, fmt="round-robin", field=field, seed=1)
    with engine.connect() as conn:
        shown = [e["name"] for e in competition_results(conn, cid)["competition"]["field"]]
    assert shown == ["greedy", "random_bot", "random_bot#2"]  # two of one script told apart
