"""Live matches: ``GET /api/matches/{id}/live`` read as a real match is played.

A real worker call (``run_match``, built-in random bots thinking a few ms a decision) plays a
Clank! match on a SQLite database while this test reads the server-sent events of the app in
uvicorn, over the embedded live channel (a file per match, no Redis). The stream must move
before the match ends, hold every step back by the operator's delay (checked against the
channel's own head and clock at each arrival), resume after ``Last-Event-ID``, refuse a
subscriber over the cap, send heartbeats, end with the replay's link, and carry the replay's
public record exactly: the attacker reads every byte for a seat's hand and for anything a seat
was sent. The cross-host version (Redis, separate processes) is tests/web/test_live_hosts.py.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from ladder import live_api
from ladder.api import create_app
from ladder.db import create_engine
from ladder.live import FileChannel, LiveEntry, released
from ladder.schema import matches
from referee.replay import loads, simulate
from workers.match_execution import run_match

from .live_support import SseStream, queue_match, read_sse
from .serving import serve

pytestmark = [pytest.mark.integration]

#: a step event's fields: nothing else may reach a spectator
PUBLIC_FIELDS = {"step", "seat", "text", "reason", "forfeit"}


@pytest.fixture
def live_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedded live channel's folder (no broker: the file channel), two subscribers."""
    monkeypatch.delenv("BROKER_URL", raising=False)
    folder = tmp_path / "live"
    monkeypatch.setenv("ARENA_LIVE_DIR", str(folder))
    monkeypatch.setenv("ARENA_LIVE_SUBSCRIBERS", "2")
    return folder


def public_record(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """What a spectator may see of each step of a finished match: the replay viewer's record."""
    out: list[dict[str, Any]] = []
    for n, step in enumerate(replay["steps"], start=1):
        if "forfeit" in step:
            out.append({"step": n, "seat": step["forfeit"], "forfeit": True, "reason": step["reason"]})
            continue
        item = {"step": n, "seat": step["seat"], "text": step["action"]["text"]}
        if step.get("reason"):
            item["reason"] = step["reason"]
        out.append(item)
    return out


def hidden_hands(replay: dict[str, Any]) -> set[str]:
    """Every seat's hand at every step, as JSON the way a leaked observation would carry it."""
    found: set[str] = set()
    for game, _step in simulate(replay):
        for seat in range(len(replay["seats"])):
            hand = game.observe(seat)["you"]["hand"]
            if len(hand) >= 2:
                found.add(json.dumps(hand))
                found.add(json.dumps(hand, separators=(",", ":")))
    return found


@pytest.mark.parametrize(("decisions", "seconds"), [(2, 0.6), (40, 0.0)], ids=["seconds", "decisions"])
def test_a_match_is_followed_live_delayed_public_and_ends_in_its_replay(
    sqlite_url: str, live_dir: Path, monkeypatch: pytest.MonkeyPatch, decisions: int, seconds: float
) -> None:
    monkeypatch.setenv("ARENA_LIVE_DELAY_DECISIONS", str(decisions))
    monkeypatch.setenv("ARENA_LIVE_DELAY_SECONDS", str(seconds))
    monkeypatch.setattr(live_api, "HEARTBEAT_S", 0.2)
    engine = create_engine(sqlite_url)
    channel = FileChannel(live_dir)
    match_id = queue_match(engine)
    player = threading.Thread(target=run_match, args=(sqlite_url, match_id), daemon=True)
    stream = SseStream()
    arrived_running = 0
    published: dict[int, LiveEntry] = {}  # what the worker wrote, read as the events arrive
    cursor: Any = None
    ended, head = False, 0
    checked = 0
    try:
        with serve(engine) as url, httpx.Client(base_url=url, timeout=30) as client:
            path = f"/api/matches/{match_id}/live"
            with client.stream("GET", path) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                player.start()  # the stream was open before the match was claimed
                for event in read_sse(response, stream):
                    if event.event == "end":
                        break
                    assert event.event == "step", event
                    n = event.data["step"]
                    entries, cursor, now = channel.read(match_id, cursor)
                    published.update((e.seq, e) for e in entries)
                    ended = ended or any(e.event["kind"] == "end" for e in entries)
                    if not ended:
                        # the delay holds: at least `decisions` later steps played, and
                        # `seconds` passed since this one was (the channel's clock)
                        head = max((e.seq for e in entries), default=head)
                        played_at = published[n].at
                        assert head >= n + decisions, (n, head)
                        assert now >= played_at + seconds, (n, now - played_at)
                        checked += 1
                    if arrived_running < 10:  # it moves while the match is played
                        with engine.connect() as conn:
                            status = conn.execute(
                                sa.select(matches.c.status).where(matches.c.id == match_id)
                            ).scalar()
                        arrived_running += status == "running"
                    if n == 5:
                        # a spectator coming back with Last-Event-ID resumes after that step
                        with client.stream("GET", path, headers={"Last-Event-ID": "3"}) as again:
                            resumed = read_sse(again, SseStream())  # kept: closing it closes the stream
                            first = next(e for e in resumed if e.event == "step")
                            assert first.ident == "4" and first.data["step"] == 4
                            # two streams open: the cap (2) refuses a third, with Retry-After
                            refused = client.get(path)
                            assert refused.status_code == 503, refused.text
                            assert refused.headers["Retry-After"] == str(live_api.BUSY_RETRY_S)
                            assert "already streams 2 live matches" in refused.json()["error"]
                        # while it is played, nothing of what a seat was sent is anywhere
                        assert client.get(f"/matches/{match_id}/replay/frames/1?seat=0").status_code == 404
                        assert client.get(f"/api/matches/{match_id}/replay").status_code == 404
            player.join(60)
            assert not player.is_alive()
            end = stream.events[-1]
            assert end.event == "end", stream.raw[-5:]
            assert end.data["status"] == "done" and end.data["replay_url"] == f"/matches/{match_id}/replay"
            assert client.get(end.data["replay_url"]).status_code == 200
            replay = loads(client.get(f"/api/matches/{match_id}/replay").content)
            finished = client.get(path)
            assert finished.status_code == 410 and finished.json()["replay_url"] == end.data["replay_url"]
    finally:
        engine.dispose()
    # it moved while the match was played, not only at its end
    assert checked >= 10 and arrived_running >= 10, (checked, arrived_running)
    # the attacker: no seat's hand, at any step, anywhere in the bytes sent
    # (the bytes as sent, and every value as a browser decodes it: a hand inside a text field)
    text = "\n".join(stream.raw + [str(v) for e in stream.events for v in e.data.values()])
    leaked = [hand for hand in hidden_hands(replay) if hand in text]
    assert not leaked, leaked[:3]
    for word in ('"you"', '"hand"', '"deck', '"legal', '"index"', '"observation'):
        assert word not in text
    steps = [e for e in stream.events if e.event == "step"]
    # the public record, every step once, in order, and nothing else: no field but the public ones
    assert [e.data for e in steps] == public_record(replay)
    assert [e.ident for e in steps] == [str(n) for n in range(1, len(replay["steps"]) + 1)]
    assert all(set(e.data) <= PUBLIC_FIELDS for e in steps)


def test_a_quiet_stream_gets_keepalive_comments(
    sqlite_url: str, live_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match not started yet sends nothing to release: the stream still writes a keepalive
    comment every HEARTBEAT_S, so a proxy keeps the connection (a busy stream needs none)."""
    monkeypatch.setattr(live_api, "HEARTBEAT_S", 0.2)
    engine = create_engine(sqlite_url)
    match_id = queue_match(engine)  # queued, never played here
    try:
        with (
            serve(engine) as url,
            httpx.Client(base_url=url, timeout=30) as client,
            client.stream("GET", f"/api/matches/{match_id}/live") as response,
        ):
            assert response.status_code == 200
            seen = b""
            for chunk in response.iter_raw():
                seen += chunk
                if seen.count(b": keepalive") >= 2:
                    break
    finally:
        engine.dispose()
    assert seen.count(b": keepalive\n\n") >= 2 and b"event:" not in seen


def test_unknown_finished_and_malformed_matches_get_one_clear_answer(sqlite_url: str, live_dir: Path) -> None:
    engine = create_engine(sqlite_url)
    try:
        match_id = queue_match(engine)
        with engine.begin() as conn:
            conn.execute(sa.update(matches).where(matches.c.id == match_id).values(status="done"))
        with TestClient(create_app(engine)) as client:
            finished = client.get(f"/api/matches/{match_id}/live")
            assert finished.status_code == 410
            assert finished.json()["error"] == (
                f"match {match_id} is over (done); its replay: /matches/{match_id}/replay"
            )
            unknown = client.get(f"/api/matches/{match_id + 1000}/live")
            assert unknown.status_code == 404 and unknown.json()["error"] == f"no match {match_id + 1000}"
            for bad in ("abc", "0", "-1", "9" * 30):
                answer = client.get(f"/api/matches/{bad}/live")
                assert answer.status_code == 422, (bad, answer.text)
                assert "\n" not in answer.json()["error"]
    finally:
        engine.dispose()


def _entry(seq: int, at: float, kind: str = "step") -> LiveEntry:
    return LiveEntry(seq, at, {"kind": kind, "step": seq})


def test_released_holds_a_step_for_both_delays_and_lets_all_go_at_the_end() -> None:
    entries = [_entry(n, 100.0 + n) for n in range(1, 6)]  # step n played at 100 + n
    # 2 decisions and 5 s: step 1 (played 101) goes at 106, once steps 2 and 3 were played
    assert [e.seq for e in released(entries, 106.0, decisions=2, seconds=5)] == [1]
    assert [e.seq for e in released(entries, 200.0, decisions=2, seconds=5)] == [1, 2, 3]
    assert [e.seq for e in released(entries, 105.5, decisions=0, seconds=5)] == []
    assert [e.seq for e in released(entries, 105.0, decisions=0, seconds=0)] == [1, 2, 3, 4, 5]
    ended = [*entries, _entry(6, 106.0, "end")]
    assert [e.seq for e in released(ended, 106.0, decisions=2, seconds=5)] == [1, 2, 3, 4, 5, 6]
