"""The JavaScript kit dispatches typed actions by the wire's oneof field names, never a list of
games: `gameNames()` is read from the loaded .proto files, so a game added to the protos (here a
fake one in a copy of proto/) is decoded under its own name with no change to arena_bot.js."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from referee.wire._proto.arena.v1 import common_pb2

from .conftest import REPO

KIT = REPO / "bots" / "javascript" / "arena_bot.js"

#: decodes three legal actions (the first game's, the last game's, an untyped one) after a round
#: trip through the kit's own codec; prints {games, decoded}
SCRIPT = """
const kit = require(process.argv[1]);
const actions = JSON.parse(process.argv[2]);
const codec = kit.loadProtocol().BotService.service.Play;
const back = codec.responseDeserialize(codec.responseSerialize({ decision: { legal_actions: actions } }));
const decoded = back.decision.legal_actions.map((a) => kit.decodeAction(a));
console.log(JSON.stringify({ games: kit.gameNames(), decoded }));
"""


def _node(actions: list[dict[str, Any]], proto_dir: Path | None = None) -> dict[str, Any]:
    assert shutil.which("node"), "Node.js is required to test the JavaScript kit"
    env = {"PATH": "/usr/bin:/bin:/usr/local/bin"}
    if proto_dir is not None:
        env["ARENA_PROTO_DIR"] = str(proto_dir)
    out = subprocess.run(
        ["node", "-e", SCRIPT, str(KIT), json.dumps(actions)],
        capture_output=True, text=True, timeout=60, check=True, env=env, cwd=KIT.parent,
    ).stdout  # fmt: skip
    result: dict[str, Any] = json.loads(out)
    return result


def test_the_games_are_the_oneofs_fields_and_each_action_goes_under_its_own() -> None:
    games = [f.name for f in common_pb2.LegalAction.DESCRIPTOR.oneofs_by_name["typed"].fields]
    assert len(games) >= 3
    first, last = games[0], games[-1]
    result = _node([
        {"kind": "end_turn", "text": "end", games[0]: {"end_turn": {}}},
        {"kind": "end_turn", "text": "end", last: {"end_turn": {}}},
        {"kind": "mystery", "text": "?", "args": [{"int_value": 4}, {"string_value": "x"}]},
    ])  # fmt: skip
    assert result["games"] == games
    a, b, untyped = result["decoded"]
    assert a["game"] == first and a[first] == {"end_turn": {}, "action": "end_turn"} and a["typed"] == {}
    assert all(a[g] is None for g in games if g != first)
    assert b["game"] == last and b[last]["action"] == "end_turn"
    assert all(b[g] is None for g in games if g != last)
    assert untyped["game"] is None and untyped["typed"] is None and untyped["args"] == [4, "x"]
    assert all(untyped[g] is None for g in games)


def test_a_game_added_to_the_protos_is_picked_up_without_code(tmp_path: Path) -> None:
    protos = tmp_path / "proto"
    shutil.copytree(REPO / "proto", protos)
    common = protos / "arena" / "v1" / "common.proto"
    text = common.read_text()
    games = [f.name for f in common_pb2.LegalAction.DESCRIPTOR.oneofs_by_name["typed"].fields]
    last_field = max(f.number for f in common_pb2.LegalAction.DESCRIPTOR.fields)
    anchor = "  oneof typed {\n"
    assert anchor in text
    text = text.replace(anchor, f"{anchor}    FakeGameAction fakegame = {last_field + 1};\n", 1)
    text += (
        "\nmessage FakeGameAction {\n  oneof action {\n    FakeGameHop hop = 1;\n  }\n}\n"
        "\nmessage FakeGameHop {\n  int32 to_square = 1;\n}\n"
    )
    common.write_text(text)
    result = _node([{"kind": "hop", "text": "hop to 7", "fakegame": {"hop": {"to_square": 7}}}], protos)
    assert sorted(result["games"]) == sorted([*games, "fakegame"])
    (hop,) = result["decoded"]
    assert hop["game"] == "fakegame" and hop["typed"] == {"to_square": 7}
    assert hop["fakegame"] == {"hop": {"to_square": 7}, "action": "hop"}
    assert all(hop[g] is None for g in games)
