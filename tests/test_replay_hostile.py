"""Hostile replay files: `arena replay verify` and `arena replay show` (the real CLI, a real
process) end every malformed file in one line on stderr and exit 1, never a traceback; a gzip
bomb is refused after a bounded inflate, in bounded memory."""

from __future__ import annotations

import copy
import gzip
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee import replay as rp
from referee.core.game import canonical_json
from referee.runner import play_local

ARENA = [sys.executable, "-m", "referee.cli"]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def expanded() -> dict[str, Any]:
    """A real two-player game, in the expanded (format 1) layout."""
    return play_local("clank", ["random", "random"], seed=21).replay


def plain(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def v1_edit(edit: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], bytes]:
    def make(doc: dict[str, Any]) -> bytes:
        doc = copy.deepcopy(doc)
        edit(doc)
        return gzip.compress(plain(doc))

    return make


def v3_edit(edit: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], bytes]:
    """The good game as `encode` writes it today (format 3), edited."""

    def make(doc: dict[str, Any]) -> bytes:
        compact = json.loads(rp.encode(doc))
        assert compact["format_version"] == 3
        edit(compact)
        return gzip.compress(plain(compact))

    return make


V2_FIXTURE = Path(__file__).parent / "fixtures" / "replays" / "v2-clank-forfeit.replay.json.gz"


def v2_edit(edit: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], bytes]:
    """The format 2 fixture (written before format 3: notes, times, a forfeit at step 13), edited:
    format 2 files are still read, by their own checks."""

    def make(doc: dict[str, Any]) -> bytes:
        del doc
        compact = json.loads(gzip.decompress(V2_FIXTURE.read_bytes()))
        assert compact["format_version"] == 2
        edit(compact)
        return gzip.compress(plain(compact))

    return make


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        target: Any = doc
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return edit


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        target: Any = doc
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return edit


#: name -> (file bytes from the good game, a fragment the one-line error must contain)
CASES: dict[str, tuple[Callable[[dict[str, Any]], bytes], str]] = {
    # the list
    "empty step": (v1_edit(_set("steps.12", {})), "steps[12].action: missing"),
    "missing action": (v1_edit(_drop("steps.12.action")), "steps[12].action: missing"),
    "steps as a dict": (v1_edit(lambda d: d.update(steps={"0": d["steps"][0]})), "steps: expected an array"),
    "string seed": (v1_edit(_set("seed", "21")), "seed: expected an integer"),
    "string config": (v1_edit(_set("config", "players=2")), "config: expected an object"),
    "99 players": (v1_edit(_set("config.players", 99)), "replay: config:"),
    "game as a list": (v1_edit(_set("game", ["clank"])), "game: expected a string"),
    "deeply nested JSON": (lambda d: b"[" * 200_000 + b"]" * 200_000, "nested deeper"),
    # more of the same kind
    "nested config": (v1_edit(_set("config.board", nested(100))), "nested deeper"),
    "step as a number": (v1_edit(_set("steps.3", 7)), "steps[3]: expected an object"),
    "index as a string": (v1_edit(_set("steps.5.index", "1")), "steps[5].index: expected an integer"),
    "index out of range": (v1_edit(_set("steps.5.index", 10_000)), "step 6: index 10000 out of range"),
    "5000-digit seed": (lambda d: plain(d)[:-1] + b', "seed": ' + b"9" * 5000 + b"}", "not a replay file"),
    "bool seed": (v1_edit(_set("seed", True)), "seed: expected an integer"),
    "seats as a string": (v1_edit(_set("seats", "ada,bram")), "seats: expected an array"),
    "three seats for two": (v1_edit(lambda d: d["seats"].append({"seat": 2})), "3 seats for a 2-seat game"),
    "forfeit of seat 9": (
        v1_edit(_set("steps.4", {"forfeit": 9, "reason": "x"})),
        "steps[4].forfeit: seat 9 does not exist",
    ),
    "incidents as a string": (
        v1_edit(_set("seats.1.incidents", "boom")),
        "seats[1].incidents: expected an array",
    ),
    "actor seat 5": (v1_edit(_set("steps.2.seat", 5)), "steps[2].seat: seat 5 does not exist"),
    "v2 forfeit of seat 9": (
        v2_edit(lambda c: c["forfeits"][0].__setitem__(1, 9)),
        "forfeits[0]: seat 9 does not exist",
    ),
    "v2 edited bot name": (v2_edit(_set("seats.0.bot", "mallory")), "header_digest differs"),
    "v3 forfeit of seat 9": (
        v3_edit(lambda c: (c["actions"].__setitem__(4, None), c.update(forfeits=[[5, 9, "x"]]))),
        "forfeits[0]: seat 9 does not exist",
    ),
    "v3 edited bot name": (v3_edit(_set("seats.0.bot", "mallory")), "header_digest differs"),
    "v3 edited config": (v3_edit(_set("config.board", "side_a ")), "replay: config:"),
    "unknown game": (v1_edit(_set("game", "chess")), "replay: game:"),
    "top level array": (lambda d: plain([1, 2, 3]), "missing format marker"),
    "format version 9": (v1_edit(_set("format_version", 9)), "format version 9 is not supported"),
    "not gzip, not JSON": (lambda d: b"\x00\x01garbage\xff" * 10, "not a replay file"),
    "truncated gzip": (lambda d: rp.dumps(d)[:40], "not a replay file"),
    "empty file": (lambda d: b"", "not a replay file"),
    "v2 actions as strings": (v2_edit(lambda c: c.update(actions=["0"] * len(c["actions"]))), "actions[0]"),
    "v2 no checkpoints": (v2_edit(_set("checkpoints", [])), "the last step must be a checkpoint"),
    "v2 checkpoint past the end": (
        v2_edit(lambda c: c["checkpoints"].append([10**6, "0" * 32])),
        "checkpoints[",
    ),
    "v2 forfeit without a null action": (v2_edit(_set("forfeits", [[3, 0, "x"]])), "forfeits"),
    "v2 ms too short": (v2_edit(_set("ms", [1, 2])), "ms: 2 entries"),
    "v2 edited index": (
        v2_edit(lambda c: c["actions"].__setitem__(10, c["actions"][10] + 100)),
        "step 11: index",
    ),
    "v3 actions as strings": (v3_edit(lambda c: c.update(actions=["0"] * len(c["actions"]))), "actions[0]"),
    "v3 no checkpoints": (v3_edit(_set("checkpoints", [])), "checkpoints: 0 links for"),
    "v3 one checkpoint too many": (v3_edit(lambda c: c["checkpoints"].append("0" * 16)), "links for"),
    "v3 checkpoint as a number": (
        v3_edit(_set("checkpoints.0", 7)),
        "checkpoints[0]: expected 16 hex digits",
    ),
    "v3 long header digest": (v3_edit(_set("header_digest", "0" * 32)), "header_digest: expected 16 hex"),
    "v3 initial digest added": (
        v3_edit(_set("initial_digest", "0" * 32)),
        "initial_digest: format 3 derives",
    ),
    "v3 result added": (v3_edit(_set("result", {"scores": [99, 0]})), "result: format 3 derives"),
    "v3 forfeit without a null action": (v3_edit(_set("forfeits", [[3, 0, "x"]])), "forfeits"),
    "v3 ms too short": (v3_edit(_set("ms", [1, 2])), "ms: 2 entries"),
    "v3 edited index": (
        v3_edit(lambda c: c["actions"].__setitem__(10, c["actions"][10] + 100)),
        "step 11: index",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_file_ends_in_one_line_and_exit_1(
    name: str, expanded: dict[str, Any], tmp_path: Path
) -> None:
    make, fragment = CASES[name]
    path = tmp_path / "hostile.replay.json.gz"
    path.write_bytes(make(expanded))
    for command in ("verify", "show"):
        done = arena("replay", command, str(path))
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1, (command, done.stdout[-500:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr and len(lines) == 1, (command, done.stderr[-2000:])
        assert fragment in lines[0], (command, lines[0])


def test_the_unedited_file_passes_both_commands(expanded: dict[str, Any], tmp_path: Path) -> None:
    """The cases above fail because of their edit, not because the base file is bad."""
    for name, data in (
        ("v1", gzip.compress(plain(expanded))),
        ("v2", V2_FIXTURE.read_bytes()),
        ("v3", rp.dumps(expanded)),
    ):
        path = tmp_path / f"{name}.replay.json.gz"
        path.write_bytes(data)
        assert arena("replay", "verify", str(path)).returncode == 0
        assert arena("replay", "show", str(path)).returncode == 0


def gzip_bomb(path: Path, inflated_gib: int = 10) -> int:
    """A gzip file inflating to `inflated_gib` GiB of zeros, written without compressing them:
    one fully-flushed deflate block of 1 MiB of zeros, repeated. Returns its size."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = deflate.compress(bytes(1 << 20)) + deflate.flush(zlib.Z_FULL_FLUSH)
    with path.open("wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")
        for _ in range(inflated_gib * 1024):
            out.write(block)
        out.write(deflate.flush(zlib.Z_FINISH))
        out.write(struct.pack("<II", 0, 0))  # the trailer is never reached
    return path.stat().st_size


def test_gzip_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.replay.json.gz"
    size = gzip_bomb(bomb)
    assert 5_000_000 < size < 20_000_000  # ~10 MB on disk for 10 GiB inflated
    # the CLI in a fresh wrapper process, so the children's peak RSS is the CLI's alone
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.stderr.write(done.stderr)\n"
    )
    for command in ("verify", "show"):
        done = subprocess.run(
            [sys.executable, "-c", probe, *ARENA, "replay", command, str(bomb)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        code, peak_kib = map(int, done.stdout.split())
        lines = done.stderr.strip().splitlines()
        assert code == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
        assert f"past the limit of {rp.MAX_INFLATED_BYTES} bytes" in lines[0]
        assert peak_kib < 200 * 1024, f"peak RSS {peak_kib} KiB"


def test_the_inflate_cap_and_depth_cap_hold_in_the_library() -> None:
    big = gzip.compress(b" " * 2000 + b"{}")
    with pytest.raises(rp.ReplayError, match="inflates past the limit of 1000 bytes"):
        rp.loads(big, limit=1000)
    with pytest.raises(rp.ReplayError, match="nested deeper"):
        rp.loads(canonical_json({"format": "arena-replay", "x": nested(rp.MAX_DEPTH + 1)}).encode())
