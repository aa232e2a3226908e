"""Both committed copies of the Python stubs are exactly what `make proto` generates from proto/,
and the referee's statement of the wire constants agrees with the SDK's (proto/README.md)."""

from __future__ import annotations

import asyncio
import filecmp
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_bot import wire as sdk_wire

from referee import wire as referee_wire

from .conftest import REPO

#: the SDK's copy (installed and mounted on its own) and the referee's copy
COPIES = (
    REPO / "bots" / "python" / "arena_bot" / "_proto",
    REPO / "referee" / "wire" / "_proto",
)


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stubs") / "_proto"
    subprocess.run([sys.executable, str(REPO / "proto" / "generate.py"), "--out", str(out)], check=True)
    return out


@pytest.mark.parametrize("committed", COPIES, ids=["sdk", "referee"])
def test_stubs_are_fresh(fresh: Path, committed: Path) -> None:
    assert _files(fresh) == _files(committed), f"stub files differ under {committed}: run `make proto`"
    names = sorted(_files(fresh))
    stale = [name for name in names if not filecmp.cmp(fresh / name, committed / name, shallow=False)]
    assert not stale, f"stale generated stubs under {committed} (run `make proto`): {stale}"


@pytest.mark.parametrize("committed", COPIES, ids=["sdk", "referee"])
def test_stubs_use_relative_imports(committed: Path) -> None:
    for path in (p for p in committed.rglob("*.py*") if p.suffix in (".py", ".pyi")):
        assert "from arena.v1 import" not in path.read_text(), path


def _generate() -> Any:
    sys.path.insert(0, str(REPO / "proto"))
    try:
        import generate
    finally:
        sys.path.remove(str(REPO / "proto"))
    return generate


def test_make_proto_writes_both_copies(tmp_path: Path) -> None:
    """`generate.py` without --out targets exactly the two committed copies."""
    assert tuple(_generate().DEFAULT_OUTS) == COPIES


def test_the_contract_is_assembled_from_the_game_folders() -> None:
    """proto/ holds what `make proto` assembles: each game's .proto and content schema copied from
    its folder, and bot.proto/common.proto's oneofs naming exactly those games."""
    files = _generate().assemble()
    games = {p.parent.name for p in (REPO / "referee" / "games").glob("*/*.proto")}
    assert {f"arena/v1/{g}.proto" for g in games} <= set(files) and games
    for rel, text in files.items():
        assert (REPO / "proto" / rel).read_text() == text, f"proto/{rel} is stale: run `make proto`"
    committed = {f"arena/v1/{p.name}" for p in (REPO / "proto" / "arena" / "v1").glob("*.proto")}
    assert committed == {rel for rel in files if rel.startswith("arena/v1/")}
    for game in games:
        assert f"{game} = " in files["arena/v1/bot.proto"] and f"{game} = " in files["arena/v1/common.proto"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("// oneof LegalAction.typed: ToyAction other = 9;\n", "named 'other', not after its game 'toy'"),
        ("// oneof LegalAction.typed: ToyAction toy = 4;\n", "claim the same field number"),
    ],
)
def test_a_game_proto_claiming_a_wrong_oneof_field_is_refused(
    tmp_path: Path, lines: str, message: str
) -> None:
    clank = REPO / "referee" / "games" / "clank" / "clank.proto"
    for game, text in (("toy", lines), ("clank", clank.read_text())):
        (tmp_path / game).mkdir()
        (tmp_path / game / f"{game}.proto").write_text(text)
    with pytest.raises(SystemExit, match=message):
        _generate().assemble(tmp_path)


async def _method_names(admin_calls: Callable[[grpc.aio.Channel], dict[str, Any]]) -> list[str]:
    channel = grpc.aio.insecure_channel("127.0.0.1:9")  # never connected: no call is made
    try:
        return sorted(admin_calls(channel))
    finally:
        await channel.close()


@pytest.mark.parametrize("name", referee_wire.__all__)
def test_referee_wire_constants_agree_with_the_sdk(name: str) -> None:
    mine, theirs = getattr(referee_wire, name), getattr(sdk_wire, name)
    if name == "admin_calls":
        assert asyncio.run(_method_names(mine)) == asyncio.run(_method_names(theirs))
    elif name == "bearer":
        assert mine("t0k") == theirs("t0k")
    else:
        assert mine == theirs, f"referee/wire says {name} = {mine!r}, the SDK says {theirs!r}"


def test_both_copies_build_the_same_message_classes() -> None:
    """Loaded side by side (the worker runs the referee and SDK bots in one process), the copies
    register one descriptor set: a message made by either is the other's too."""
    from arena_bot._proto.arena.v1 import bot_pb2 as sdk_bot

    from referee.wire._proto.arena.v1 import bot_pb2 as referee_bot

    assert sdk_bot.RefereeMessage.DESCRIPTOR is referee_bot.RefereeMessage.DESCRIPTOR
    msg = referee_bot.RefereeMessage()
    msg.game_start.match_id = "m1"
    assert isinstance(msg, sdk_bot.RefereeMessage)
    assert sdk_bot.RefereeMessage.FromString(msg.SerializeToString()) == msg
