"""A foreign-language bot path-finds from the wire alone: the JavaScript pathfinder example.

`bots/javascript/examples/pathfinder_bot.js` reads the Clank! board from GameStart's static
content, plans the cheapest route to the nearest artifact and back out, and plays it through
the typed legal actions. Here it plays real matches (a real referee, node and Python processes)
against the random bot: it must take an artifact in every game, along a shortest route. Without
the content on the wire it cannot plan: it exits with status 3 and takes nothing, which is what
the first test would then see. It reads nothing from the repository but the kit.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from referee.games.clank.content import Board, default_content
from referee.games.static_content import StaticContent
from referee.replay import loads
from referee.server import messages
from referee.server.launcher import LaunchedMatch, run_match

from .conftest import CLOCK, RANDOM_BOT, REPO

pytestmark = [pytest.mark.integration]

PATHFINDER = REPO / "bots" / "javascript" / "examples" / "pathfinder_bot.js"
NO_CONTENT_EXIT = 3


def _require_node() -> None:
    # no skip: Node.js is required to test the JavaScript kit (README: requirements)
    assert shutil.which("node") is not None, "Node.js (`node`) is not on PATH: the JavaScript kit needs it"
    assert (REPO / "bots" / "javascript" / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "run `npm ci --prefix bots/javascript` (make test does)"
    )


def _play(tmp_path: Path, seed: int, board: str) -> tuple[LaunchedMatch, dict[str, Any]]:
    launched = asyncio.run(
        run_match(
            "clank",
            [f"node {PATHFINDER}", RANDOM_BOT],
            seed=seed,
            config={"players": 2, "board": board},
            time_control=CLOCK,
            log_dir=tmp_path / f"logs-{seed}",
        )
    )
    return launched, loads(launched.replay)


def _boots_from(board: Board, source: str) -> dict[str, int]:
    """Fewest Boots from `source` to every room (locked tunnels closed: the bot owns no key)."""
    dist = {source: 0}
    todo = [(0, source)]
    while todo:
        d, room = heapq.heappop(todo)
        if d > dist[room]:
            continue
        for index in board.exits[room]:
            tunnel = board.tunnels[index]
            if tunnel.locked:
                continue
            to = board.other_end(index, room)
            if d + tunnel.boots < dist.get(to, 1 << 30):
                dist[to] = d + tunnel.boots
                heapq.heappush(todo, (d + tunnel.boots, to))
    return dist


def _route_to_first_artifact(board: Board, steps: list[dict[str, Any]]) -> tuple[str, int] | None:
    """Seat 0's room and the Boots it spent walking, when it first took an artifact (None: never)."""
    room, spent = board.start, 0
    for step in steps:
        if step.get("seat") != 0 or "action" not in step:  # another seat's, or a forfeit
            continue
        kind, args = step["action"]["kind"], step["action"]["args"]
        if kind == "take" and args == ["artifact"]:
            return room, spent
        if kind in ("move", "teleport"):
            if kind == "move":
                spent += board.tunnels[args[0]].boots
            room = board.other_end(args[0], room)
    return None


def test_the_javascript_pathfinder_takes_an_artifact_by_a_shortest_route(tmp_path: Path) -> None:
    _require_node()
    boards = default_content().boards
    escaped = 0
    for seed in range(1, 5):
        board_id = "side_a" if seed % 2 else "side_b"
        launched, replay = _play(tmp_path, seed, board_id)
        log = launched.bots[0].log_path.read_text()
        assert [b.exit_code for b in launched.bots] == [0, 0], log
        assert replay["ended_by"] == "game_over"
        assert replay["seats"][0]["bot_name"] == "pathfinder-js" and replay["seats"][0]["strikes"] == 0
        board = boards[board_id]
        taken = _route_to_first_artifact(board, replay["steps"])
        assert taken is not None, f"seed {seed}: the pathfinder never took an artifact\n{log}"
        room, spent = taken
        assert board.rooms[room].artifact_rank > 0
        # it walked there by a cheapest route: no more Boots than the shortest path needs (one
        # spare: the planner trades a Boot for avoiding four monsters' damage)
        assert spent <= _boots_from(board, board.start)[room] + 1, f"seed {seed}: {spent} boots to {room}"
        escaped += replay["result"]["outcomes"][0] == "escaped"
    assert escaped >= 3, f"the pathfinder escaped in {escaped} of 4 games"


def test_without_the_content_on_the_wire_the_pathfinder_cannot_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The referee sends no content (as before GameStart.content_json existed): the bot says so
    and exits 3, its seat is forfeited, and it takes no artifact, so the test above would fail."""
    _require_node()
    monkeypatch.setattr(messages, "wire_content", lambda game: StaticContent("", ""))
    launched, replay = _play(tmp_path, 1, "side_a")
    assert launched.bots[0].exit_code == NO_CONTENT_EXIT
    assert "no static content" in launched.bots[0].log_path.read_text()
    assert _route_to_first_artifact(default_content().boards["side_a"], replay["steps"]) is None
    assert any(step.get("forfeit") == 0 for step in replay["steps"])


def test_the_pathfinder_reads_nothing_from_the_repository() -> None:
    """Everything it knows comes over the wire: its only import is the kit, it names no path
    into referee/ (where the content files live) and opens no file."""
    source = PATHFINDER.read_text()
    assert re.findall(r"require\(\s*['\"]([^'\"]+)['\"]\s*\)", source) == ["../arena_bot"]
    assert "referee/" not in source and "content/" not in source.replace("proto/content/", "")
    assert not re.search(r"\b(readFile|readFileSync|openSync|createReadStream|import\()", source)


def test_the_javascript_kit_parses_the_content_and_checks_its_digest() -> None:
    _require_node()
    text = '{"board":{"start":"gate"},"game":"clank"}'
    digest = hashlib.sha256(text.encode()).hexdigest()
    script = f"""
const {{ gameContent }} = require({json.dumps(str(REPO / "bots" / "javascript" / "arena_bot.js"))});
const text = {json.dumps(text)};
console.log(JSON.stringify(gameContent({{ content_json: text, content_digest: {json.dumps(digest)} }})));
console.log(JSON.stringify(gameContent({{ content_json: '', content_digest: '' }})));
try {{
  gameContent({{ content_json: text, content_digest: '0'.repeat(64) }});
  console.log('accepted');
}} catch (err) {{
  console.log('refused: ' + err.message);
}}
"""
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    parsed, missing, altered = out.stdout.splitlines()
    assert json.loads(parsed) == {"board": {"start": "gate"}, "game": "clank"}
    assert missing == "null"
    assert altered.startswith("refused: content_json hashes to")
