"""referee/settings.py is the one list of ``ARENA_*`` variables, and the platform reads them
through it: every name in the platform's code is declared, no module reads one from
``os.environ`` itself, and the declared defaults are the readers' defaults."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest

from referee import settings

REPO = Path(__file__).resolve().parents[1]
#: the platform's code; the SDKs under bots/ read their own variables (they know only the wire)
PLATFORM = ("referee", "ladder", "workers")
NAME = re.compile(r"\bARENA_[A-Z0-9_]*")


def _sources(root: Path = REPO) -> Iterator[Path]:
    for component in PLATFORM:
        for path in sorted((root / component).rglob("*.py")):
            if "_proto" not in path.parts and "__pycache__" not in path.parts:
                yield path


def undeclared_names(root: Path = REPO) -> list[str]:
    """``file:line NAME`` for every ``ARENA_`` name in the code (comments and docstrings too:
    they tell operators what to set) that referee/settings.py does not declare."""
    found = []
    for path in _sources(root):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in NAME.findall(line):
                if not settings.is_declared(name):
                    found.append(f"{path.relative_to(root)}:{number} {name}")
    return found


def _env_constants(trees: list[ast.Module]) -> set[str]:
    """Names bound to an ``ARENA_*`` string anywhere (``LEASE_ENV: Final = "ARENA_LEASE_SECONDS"``)."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            target = node.target if isinstance(node, ast.AnnAssign) else (
                node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            )
            value = getattr(node, "value", None)
            if (isinstance(target, ast.Name) and isinstance(value, ast.Constant)
                    and isinstance(value.value, str) and value.value.startswith("ARENA_")):
                names.add(target.id)
    return names


def _is_os_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and (
        isinstance(node.value, ast.Name) and node.value.id == "os"
    )


def direct_reads(root: Path = REPO) -> list[str]:
    """``file:line`` of every ``os.environ.get(X)`` / ``os.environ[X]`` / ``os.getenv(X)`` of an
    ``ARENA_*`` variable outside referee/settings.py (X a literal or a constant holding one)."""
    parsed = [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in _sources(root)]
    constants = _env_constants([t for _, t in parsed])

    def is_arena(arg: ast.expr) -> bool:
        if isinstance(arg, ast.Constant):
            return isinstance(arg.value, str) and arg.value.startswith("ARENA_")
        return isinstance(arg, ast.Name) and arg.id in constants

    found = []
    for path, tree in parsed:
        if path == root / "referee" / "settings.py":
            continue
        for node in ast.walk(tree):
            key = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                receiver = node.func.value
                if (node.func.attr in ("get", "pop") and _is_os_environ(receiver)) or (
                    node.func.attr == "getenv" and isinstance(receiver, ast.Name) and receiver.id == "os"
                ):
                    key = node.args[0]
            elif isinstance(node, ast.Subscript) and _is_os_environ(node.value):
                key = node.slice
            if key is not None and is_arena(key):
                found.append(f"{path.relative_to(root)}:{key.lineno}")
    return sorted(found)


def test_every_arena_variable_in_the_code_is_declared() -> None:
    missing = undeclared_names()
    assert not missing, "ARENA_* names not declared in referee/settings.py:\n" + "\n".join(missing)


def test_no_module_reads_an_arena_variable_itself() -> None:
    reads = direct_reads()
    assert not reads, "read these through referee.settings.get:\n" + "\n".join(reads)


def test_the_checks_catch_a_stray_name_and_a_direct_read(tmp_path: Path) -> None:
    module = tmp_path / "workers" / "stray.py"
    module.parent.mkdir()
    module.write_text(
        'import os\nQUEUE_ENV = "ARENA_QUEUE"\n'
        'def f():\n    return os.environ.get(QUEUE_ENV), os.getenv("ARENA_QUEUE_DEPHT")\n'
        'x = os.environ["ARENA_LEASE_SECONDS"]\n'
        'y = settings_ok = "ARENA_SANDBOX_" + "PIDS"  # a family prefix is declared\n'
    )
    assert undeclared_names(tmp_path) == ["workers/stray.py:4 ARENA_QUEUE_DEPHT"]
    assert direct_reads(tmp_path) == ["workers/stray.py:4", "workers/stray.py:4", "workers/stray.py:5"]


def test_get_gives_the_value_else_the_default_and_refuses_an_undeclared_name() -> None:
    assert settings.get("ARENA_QUEUE", {"ARENA_QUEUE": "ladder-a"}) == "ladder-a"
    assert settings.get("ARENA_QUEUE", {}) == "arena"
    assert settings.get("ARENA_QUEUE", {"ARENA_QUEUE": ""}) == "arena"  # empty: unset
    assert settings.get("ARENA_REFEREE_ADDR", {}) is None
    with pytest.raises(KeyError):
        settings.get("ARENA_QUEUE_DEPHT", {"ARENA_QUEUE_DEPHT": "3"})


def test_every_variable_has_a_meaning_and_a_reader() -> None:
    for variable in settings.VARIABLES.values():
        assert variable.name.startswith("ARENA_") and variable.meaning.strip(), variable
        assert variable.read_by.strip(), variable


def test_the_declared_defaults_are_the_readers_defaults() -> None:
    from workers import campaign_ladders, control, executor, match_execution, matchmaker, qualification
    from workers.celery_app import match_queue
    from workers.sandbox import uids
    from workers.sandbox.limits import ENV_PREFIX, SandboxLimits

    def default(name: str) -> str:
        value = settings.VARIABLES[name].default
        assert value is not None, name
        return value

    assert int(default("ARENA_QUEUE_DEPTH")) == matchmaker.DEFAULT_QUEUE_DEPTH
    assert int(default("ARENA_CAMPAIGNS_PER_LADDER")) == campaign_ladders.DEFAULT_CAMPAIGNS_PER_LADDER
    assert int(default("ARENA_CAMPAIGN_GAMES")) == campaign_ladders.DEFAULT_CAMPAIGN_GAMES
    assert float(default("ARENA_LEASE_SECONDS")) == match_execution.DEFAULT_LEASE_SECONDS
    assert int(default("ARENA_QUALIFICATION_GAMES")) == qualification.DEFAULT_GAMES
    assert float(default("ARENA_BEAT_SECONDS")) == control.DEFAULT_INTERVAL_S
    assert default("ARENA_REFEREE_EXECUTOR") == executor.DEFAULT_REFEREE_EXECUTOR
    if not os.environ.get("ARENA_QUEUE"):
        assert match_queue() == default("ARENA_QUEUE")
    limits = SandboxLimits()
    for f in fields(SandboxLimits):
        assert int(default(ENV_PREFIX + f.name.upper())) == getattr(limits, f.name), f.name
    assert SandboxLimits.from_env({}) == limits
    assert SandboxLimits.from_env({"ARENA_SANDBOX_PIDS": "128"}).pids == 128
    if not os.environ.get("ARENA_SANDBOX_UID_BASE"):
        assert int(default("ARENA_SANDBOX_UID_BASE")) == uids.UID_BASE
