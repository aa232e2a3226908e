"""The competition page, from the competitions API's results (``ladder.competitions``)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.api import create_app

from .seeding import seed_competition


def test_competition_page_standings_crosstable_progress_and_games(engine: Engine, db_url: str) -> None:
    cid = seed_competition(engine, db_url)
    with TestClient(create_app(engine)) as client:
        results = client.get(f"/api/competitions/{cid}/results").json()
        response = client.get(f"/competitions/{cid}")
        assert response.status_code == 200
        html = response.text
        standings = html.split("<table id=standings>", 1)[1].split("</table>", 1)[0]
        names = re.findall(r"<tr><td class=num>\d+</td><td>([^<]+)</td>", standings)
        assert names == [row["bot"] for row in results["standings"]]
        played = results["counts"]["played"]
        assert played == 4 and f"{played} of {played} games played" in html
        assert "<table id=crosstable>" in html and "<table id=seat-effect>" in html
        for game in results["games"]:
            assert f'href="/matches/{game["match_id"]}"' in html
        # the match pages of its games work too
        assert client.get(f"/matches/{results['games'][0]['match_id']}").status_code == 200
        home = client.get("/").text
        assert f'<a href="/competitions/{cid}">web cup</a>' in home
        for bad in ("/competitions/999999", "/competitions/x", "/competitions/99999999999"):
            missing = client.get(bad)
            assert missing.status_code == 404 and "<h1>Not found</h1>" in missing.text
