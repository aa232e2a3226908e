"""Superseded staged sandbox folders are removed, never one in use (workers/sandbox/staging.py).

Each process that uses a staged folder holds a shared lock on it for its life; `prune` removes
what nobody holds and nobody was handed for a day (the grace for workers of an earlier version,
which take no lock), unless a running sandbox has it mounted, and what a dead stager left
half-built. `now` a day later stands for the day passing. The users here are real
processes: one holding its staged folder, one that staged and ended, and a private mount
namespace with a folder bound in it (as a sandbox of a worker of an earlier version has).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from workers.sandbox.staging import UNUSED_GRACE_S, prune, stage_tree

#: stage argv[2] (a folder) as kind "python" in the staging folder argv[1], print the staged
#: folder, then hold it until stdin closes
_HOLDER = (
    "import sys\nfrom pathlib import Path\nfrom workers.sandbox.staging import stage_tree\n"
    "print(stage_tree(Path(sys.argv[1]), 'python', [(Path(sys.argv[2]), 'pkg')]), flush=True)\n"
    "sys.stdin.read()\n"
)


def _source(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "sources" / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(f"NAME = {name!r}\n" + "# padding\n" * 1000)
    return folder


def _stage_in_a_process(root: Path, source: Path, *, hold: bool) -> tuple[Path, subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(root), str(source)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    staged = Path(proc.stdout.readline().strip())
    if not hold:
        _end(proc)
    return staged, proc


def _end(proc: subprocess.Popen[str]) -> None:
    """Close its pipes (the holder then lets go) and wait for it."""
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            pipe.close()
    assert proc.wait(30) in (0, -9)


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "stage"
    (root / "runtime").mkdir(parents=True)
    yield root


def test_prune_removes_superseded_folders_and_never_one_in_use(tmp_path: Path, stage: Path) -> None:
    later = time.time() + UNUSED_GRACE_S + 60  # a day on
    held, holder = _stage_in_a_process(stage, _source(tmp_path, "held"), hold=True)
    superseded, _ = _stage_in_a_process(stage, _source(tmp_path, "superseded"), hold=False)
    mine = stage_tree(stage, "python", [(_source(tmp_path, "mine"), "pkg")])  # this process's
    # staged before the locks (no lock file): two two days old (one of them mounted), one an hour
    old_unlocked = stage / "runtime" / ("proto-" + "a" * 24)
    young_unlocked = stage / "runtime" / ("proto-" + "b" * 24)
    mounted_unlocked = stage / "runtime" / ("proto-" + "c" * 24)
    for folder, age in ((old_unlocked, 2 * UNUSED_GRACE_S), (young_unlocked, 3600),
                        (mounted_unlocked, 2 * UNUSED_GRACE_S)):  # fmt: skip
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f.proto").write_text("syntax = 'proto3';\n")
        os.utime(folder, (time.time() - age, time.time() - age))
    leftover = stage / "runtime" / ".python-k3j4h5"  # a stager killed mid-copy
    leftover.mkdir()
    (leftover / "half").write_text("x")
    unknown = stage / "runtime" / "notes"  # not a staged folder's name: left alone
    unknown.mkdir()
    # a sandbox of a worker that holds no lock: the folder bound in a private mount namespace
    target = tmp_path / "mountpoint"
    target.mkdir()
    sandbox = subprocess.Popen(
        ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
         f'mount -n --bind "{mounted_unlocked}" "{target}" && echo up && exec sleep 60'],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert sandbox.stdout is not None and sandbox.stdout.readline().strip() == "up"
        assert all(p.is_dir() for p in (held, superseded, mine))
        # now: the superseded folder was handed out a moment ago, so it stays for the day
        assert sorted(dict(prune(stage))) == sorted([old_unlocked.name, leftover.name])
        assert superseded.is_dir() and young_unlocked.is_dir()
        removed = dict(prune(stage, now=later))
        assert sorted(removed) == sorted([superseded.name, young_unlocked.name]), removed
        assert removed[superseded.name] > 10_000  # its size, as logged
        assert not superseded.exists() and not (stage / "runtime" / f".{superseded.name}.lock").exists()
        for kept in (held, mine, mounted_unlocked, unknown):
            assert kept.is_dir(), kept
        assert (held / "pkg" / "__init__.py").read_text().startswith("NAME = 'held'")
    finally:
        sandbox.kill()
        _end(sandbox)
        _end(holder)
    # its holder gone, the held folder goes; the unmounted one too; this process's stays
    removed = dict(prune(stage, now=later))
    assert sorted(removed) == sorted([held.name, mounted_unlocked.name]), removed
    assert mine.is_dir()


def test_a_folder_pruned_is_staged_again_when_asked_for(tmp_path: Path, stage: Path) -> None:
    """Staging hands out a folder only under the staging lock, holding it from there: a folder
    pruned by another process is staged again, never returned half-removed."""
    later = time.time() + UNUSED_GRACE_S + 60
    source = _source(tmp_path, "again")
    staged, _ = _stage_in_a_process(stage, source, hold=False)
    assert [name for name, _ in prune(stage, now=later)] == [staged.name]
    again = stage_tree(stage, "python", [(source, "pkg")])
    assert again == staged and (again / "pkg" / "__init__.py").is_file()
    assert prune(stage, now=later) == []  # this process holds it now
    # a folder another process staged, taken as it is: held from then on too
    other = _source(tmp_path, "other")
    theirs, _ = _stage_in_a_process(stage, other, hold=False)
    assert stage_tree(stage, "python", [(other, "pkg")]) == theirs
    assert prune(stage, now=later) == [] and theirs.is_dir()
    # handed out again (found, by a process that has since ended): its day starts again
    stale_source = _source(tmp_path, "stale")
    stale, _ = _stage_in_a_process(stage, stale_source, hold=False)
    two_days_ago = time.time() - 2 * UNUSED_GRACE_S
    os.utime(stage / "runtime" / f".{stale.name}.lock", (two_days_ago, two_days_ago))
    assert _stage_in_a_process(stage, stale_source, hold=False)[0] == stale
    assert prune(stage) == [] and stale.is_dir()
