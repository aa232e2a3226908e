"""The replay viewer's frames: step numbers, what each seat sees, the chosen action, bad replays."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from ladder.schema import matches
from ladder.web.local import file_app
from ladder.web.viewer import Timeline
from referee.games import game_class
from referee.replay import ReplayError, ReplayRecorder, load, save, verify
from referee.replay_view import render

from .seeding import Seeded, play_local

HAND = re.compile(r"<ul class='cards hand' data-seat=(\d+)>")


def _with_forfeit() -> dict[str, Any]:
    """A 3-seat Clank! replay in which seat 1 forfeits after 12 actions (first legal action always)."""
    cls = game_class("clank")
    config = cls.default_config(3)
    game = cls.new_game(config, 42)
    recorder = ReplayRecorder(game, 42, config, [{"seat": i, "bot": f"b{i}"} for i in range(3)])
    while not game.is_over():
        if len(recorder.steps) == 12:
            game.forfeit(1)
            recorder.forfeit(1, "strikes: 3 of 3")
            continue
        d = game.decision()
        assert d is not None
        index = len(d.actions) - 1 if d.seat == 0 else 0
        action = game.apply_index(index)
        note = "<img src=x onerror=alert(1)>" if d.seat == 2 else ""
        recorder.action(d.id, d.seat, index, action, note=note)
    return recorder.finish()


@pytest.fixture(scope="module")
def forfeit_replay() -> dict[str, Any]:
    return _with_forfeit()


def test_step_numbers_agree_with_replay_show_and_verify(forfeit_replay: dict[str, Any]) -> None:
    timeline = Timeline(forfeit_replay)
    assert timeline.error is None
    assert verify(forfeit_replay).steps == len(forfeit_replay["steps"]) == timeline.total - 1
    shown = {}
    for line in render(forfeit_replay, None):
        found = re.match(r"\[step (\d+)\] seat (\d+)", line)
        if found:
            shown[int(found.group(1))] = int(found.group(2))
    assert sorted(shown) == list(range(1, len(forfeit_replay["steps"]) + 1))
    for n, seat in shown.items():
        frame = timeline.frame(n, None)
        assert frame["label"] == f"step {n}" and frame["actor"] == seat
    assert "Seat 1 forfeits" in timeline.frame(13, None)["record_html"]
    assert timeline.frame(timeline.total, None)["label"] == "end"


def test_a_seat_sees_its_own_hand_only_and_its_chosen_action(forfeit_replay: dict[str, Any]) -> None:
    timeline = Timeline(forfeit_replay)
    everything = timeline.frame(5, None)
    assert sorted(int(s) for s in HAND.findall(everything["board_html"])) == [0, 1, 2]
    for n in (1, 2, 5, 13, 14, 30, timeline.total):
        step = forfeit_replay["steps"][n - 1] if n <= len(forfeit_replay["steps"]) else None
        for seat in range(3):
            frame = timeline.frame(n, seat)
            text = json.dumps(frame)
            # only this seat's hand is in the page; no key of the whole state
            assert HAND.findall(frame["board_html"]) == [str(seat)]
            for hidden in ('"hands"', '"decks"', '"dungeon_deck"', '"face_down_minor_secrets"'):
                assert hidden.replace('"', "&quot;") not in text and hidden not in frame["seat_html"]
            asked = step is not None and step.get("seat") == seat and "forfeit" not in step
            chosen = re.findall(r"<li class=chosen aria-current=true data-index=(\d+)>", frame["seat_html"])
            if asked:
                assert step is not None
                assert f"--step {n} --seat {seat} " in frame["seat_html"]
                assert chosen == [str(step["index"])] and frame["chosen"] == step["index"]
                assert step["action"]["text"] in frame["seat_html"]
            else:
                assert chosen == [] and "<ol class=actions" not in frame["seat_html"]


def test_notes_and_texts_are_escaped(forfeit_replay: dict[str, Any]) -> None:
    timeline = Timeline(forfeit_replay)
    n = next(i for i, s in enumerate(forfeit_replay["steps"], 1) if s.get("seat") == 2 and "note" in s)
    html = timeline.frame(n, 2)["seat_html"]
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_replay_that_stops_re_simulating_keeps_the_steps_before(forfeit_replay: dict[str, Any]) -> None:
    broken = copy.deepcopy(forfeit_replay)
    broken["steps"][19]["digest"] = "0" * 32
    timeline = Timeline(broken)
    assert timeline.error is not None and "step 20" in timeline.error
    assert timeline.total == 20
    assert "The replay stops here" in timeline.frame(20, 0)["record_html"]
    with pytest.raises(IndexError):
        timeline.frame(21, 0)
    other = copy.deepcopy(forfeit_replay)
    other["engine_version"] = "clank-0"
    with pytest.raises(ReplayError, match="engine"):
        Timeline(other)


def test_alien_frames_draw_the_complex_and_health() -> None:
    replay = play_local("alien", ["random", "random"], 5).replay
    timeline = Timeline(replay)
    frame = timeline.frame(3, 1)
    assert "The Complex" in frame["board_html"] and "Combat Zone" in frame["board_html"]
    assert "<svg class=health" in frame["board_html"] and HAND.findall(frame["board_html"]) == ["1"]


def test_frames_endpoint_seats_steps_and_the_whole_state_rule(
    engine: Engine, seeded: Seeded, client: TestClient
) -> None:
    match_id = seeded.incident_match
    base = f"/matches/{match_id}/replay/frames"
    assert client.get(f"{base}/2?seat=all").status_code == 200
    assert client.get(f"{base}/2?seat=1").json()["seat"] == 1
    for bad in ("?seat=2", "?seat=x", "?seat=-1"):
        assert client.get(f"{base}/2{bad}").status_code == 404
    assert client.get(f"{base}/0?seat=0").status_code == 404
    total = client.get(f"{base}/1").json()["total"]
    assert client.get(f"{base}/{total + 1}").status_code == 404
    # a match that is not over (say a replay recorded, then the match re-run) hides the whole state
    with engine.begin() as conn:
        conn.execute(sa.update(matches).where(matches.c.id == match_id).values(status="running"))
    hidden = client.get(f"{base}/2?seat=all")
    assert hidden.status_code == 403 and hidden.json()["status"] == 403
    assert "value=all" not in client.get(f"/matches/{match_id}/replay").text


def test_replay_serve_shows_a_local_file(tmp_path: Path, forfeit_replay: dict[str, Any]) -> None:
    path = tmp_path / "game.replay.json.gz"
    save(forfeit_replay, path)
    with TestClient(file_app(path)) as client:
        page = client.get("/")
        assert page.status_code == 200 and 'data-frames="/frames/"' in page.text and "value=all" in page.text
        frame = client.get("/frames/13?seat=all").json()
        assert "Seat 1 forfeits" in frame["record_html"]
        assert client.get("/static/viewer.js").status_code == 200
        # every link of the page leads somewhere this one-file server serves (no /docs, /redoc)
        links = re.findall(r'(?:href|src)="(/[^"]*)"', page.text)
        assert links and all(client.get(link).status_code == 200 for link in links), links
    path.write_bytes(b"garbage")
    with pytest.raises(ReplayError):
        file_app(path)


def test_replay_serve_refuses_a_gzip_bomb(tmp_path: Path) -> None:
    """An attacker's "replay": 64 MiB of spaces compress to ~64 KiB; inflating it whole would
    take the memory the limit is there to protect. It is refused at the limit, chunk by chunk."""
    import gzip

    bomb = tmp_path / "bomb.replay.json.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(b'{"format": "arena-replay"' + b" " * (64 * 1024 * 1024) + b"}")
    assert bomb.stat().st_size < 1024 * 1024
    with pytest.raises(ReplayError, match="inflates to over"):
        file_app(bomb, limit=8 * 1024 * 1024)
    plain = tmp_path / "plain.json"
    plain.write_bytes(b" " * (9 * 1024 * 1024))
    with pytest.raises(ReplayError, match="over"):
        file_app(plain, limit=8 * 1024 * 1024)


def test_names_and_incidents_from_a_replay_are_escaped(
    tmp_path: Path, forfeit_replay: dict[str, Any]
) -> None:
    """A bot names itself and words its fault to inject markup into the viewer and match page."""
    from ladder.web.pages import TEMPLATES, match_facts

    evil = copy.deepcopy(forfeit_replay)
    evil["seats"][0]["bot"] = "<script>alert(1)</script>"
    fault = {"kind": "bad_message", "detail": "<img src=x onerror=alert(2)>", "decision": 1}
    evil["seats"][0]["incidents"] = [fault]
    path = tmp_path / "evil.replay.json.gz"
    save(evil, path)
    with TestClient(file_app(path)) as client:
        page = client.get("/").text
        frame = json.dumps(client.get("/frames/2?seat=all").json())
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in frame and "&lt;img src=x onerror=alert(2)&gt;" in frame
    facts = match_facts(evil)
    html = TEMPLATES.get_template("match.html").render(
        match={"id": 1, "ladder_id": 1, "status": "done", "seed": 1, "seats": [], "result": None,
               "replay": None, "error": None, "rating_changes": [], "scenario_change": None},
        ladder=None, replay=evil, replay_problem=None, changes={}, **facts,
    )
    assert "<img src=x" not in html and "onerror=alert(2)&gt;" in html


def test_a_ladder_match_played_in_process_names_its_seats_by_the_ladders_bots(db_url: str) -> None:
    """Two ladder bots behind the same built-in strategy, played by the in-process executor (the
    demo's): the viewer and the match page name each seat by its ladder bot, not "greedy" twice."""
    from ladder.api import create_app
    from ladder.bots import add_bot_version, register_bot
    from ladder.db import create_engine
    from ladder.ladders import create_ladder, join_ladder
    from ladder.match_queue import enqueue_match
    from workers.match_execution import engine_for, run_match

    engine = create_engine(db_url)
    try:
        ladder = create_ladder(engine, "duel", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
        versions = []
        for name in ("gus-one", "gus-two"):
            bot = register_bot(engine, name, "owner").bot_id
            versions.append(add_bot_version(engine, bot, "1", "builtin:greedy"))
            join_ladder(engine, ladder, bot)
        match_id = enqueue_match(engine, ladder, versions, seed=3)
        ran = run_match(db_url, match_id)
        engine_for(db_url).dispose()
        assert ran.status == "recorded", ran
        with TestClient(create_app(engine)) as client:
            viewer = client.get(f"/matches/{match_id}/replay").text
            page = client.get(f"/matches/{match_id}").text
    finally:
        engine.dispose()
    assert re.search(r'seat 0: <a href="/bots/\d+">gus-one</a>', viewer), viewer
    assert re.search(r'seat 1: <a href="/bots/\d+">gus-two</a>', viewer), viewer
    assert '<option value="0">seat 0 (gus-one)</option>' in viewer
    assert "gus-one" in page and "gus-two" in page


def test_the_rerun_line_suggests_a_command_in_the_seats_own_language(tmp_path: Path) -> None:
    """A JavaScript seat (its hello's sdk: the Node.js kit) is offered `node my_bot.js` to rerun
    a decision, a Python seat `python my_bot.py`, in a replay `arena match` wrote."""
    import shutil
    import subprocess
    import sys

    assert shutil.which("node"), "Node.js is required to test the JavaScript kit"
    repo = Path(__file__).resolve().parents[2]
    path = tmp_path / "js.replay.json.gz"
    done = subprocess.run(
        [str(Path(sys.executable).parent / "arena"), "match", "clank",
         "--bot", f"node {repo / 'bots' / 'javascript' / 'random_bot.js'}",
         "--bot", f"python {repo / 'bots' / 'python' / 'examples' / 'random_bot.py'}",
         "--replay", str(path)],
        capture_output=True, text=True, timeout=150, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    timeline = Timeline(load(path), path.name)
    commands = {}
    for n in range(1, timeline.total):
        seat = timeline.replay["steps"][n - 1].get("seat")
        if seat is not None and seat not in commands:
            found = re.search(r"<code id=rerun-command>([^<]*)</code>", timeline.frame(n, seat)["seat_html"])
            assert found, n
            commands[seat] = found.group(1)
    assert commands[0].endswith("--seat 0 --bot &quot;node my_bot.js&quot;"), commands
    assert commands[1].endswith("--seat 1 --bot &quot;python my_bot.py&quot;"), commands
