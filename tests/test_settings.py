"""referee/settings.py is the one list of ``ARENA_*`` variables and the one place they are
parsed: every name in the platform's code is declared, no module reads one (nor DATABASE_URL,
BROKER_URL, PROMETHEUS_MULTIPROC_DIR) from ``os.environ`` itself or parses its own value with
``settings.get``, the declared defaults are the readers' defaults, and a bad value stops the
`arena` command with one line naming the variable."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest

from referee import settings

REPO = Path(__file__).resolve().parents[1]
#: the platform's code; the SDKs under bots/ read their own variables (they know only the wire)
PLATFORM = ("referee", "ladder", "workers", "bench", "cli")
NAME = re.compile(r"\bARENA_[A-Z0-9_]*")
ARENA = str(Path(sys.executable).parent / "arena")


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
                    and _is_read(value.value)):
                names.add(target.id)
    return names


def _is_os_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and (
        isinstance(node.value, ast.Name) and node.value.id == "os"
    )


def _is_read(value: object) -> bool:
    return isinstance(value, str) and (value.startswith("ARENA_") or value in settings.OTHER_VARIABLES)


def direct_reads(root: Path = REPO) -> list[str]:
    """``file:line`` of every ``os.environ.get(X)`` / ``os.environ[X]`` / ``os.getenv(X)`` of an
    ``ARENA_*`` variable, DATABASE_URL, BROKER_URL or PROMETHEUS_MULTIPROC_DIR outside
    referee/settings.py (X a literal or a constant holding one). Setting one
    (``os.environ[X] = v``, for the process's children) is not a read."""
    parsed = [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in _sources(root)]
    constants = _env_constants([t for _, t in parsed])

    def is_arena(arg: ast.expr) -> bool:
        if isinstance(arg, ast.Constant):
            return _is_read(arg.value)
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
            elif (isinstance(node, ast.Subscript) and _is_os_environ(node.value)
                  and isinstance(node.ctx, ast.Load)):
                key = node.slice
            if key is not None and is_arena(key):
                found.append(f"{path.relative_to(root)}:{key.lineno}")
    return sorted(found)


def own_parsing(root: Path = REPO) -> list[str]:
    """``file:line`` of every ``settings.get(...)`` / ``get(...)`` imported from referee.settings
    outside referee/settings.py: a module parsing a value itself instead of reading
    :class:`referee.settings.Settings`."""
    found = []
    for path in _sources(root):
        if path == root / "referee" / "settings.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bare = any(
            isinstance(node, ast.ImportFrom) and node.module == "referee.settings"
            and any(alias.name == "get" for alias in node.names)
            for node in ast.walk(tree)
        )
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            dotted = (isinstance(func, ast.Attribute) and func.attr == "get"
                      and isinstance(func.value, ast.Name) and func.value.id == "settings")
            if dotted or (bare and isinstance(func, ast.Name) and func.id == "get"):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_every_arena_variable_in_the_code_is_declared() -> None:
    missing = undeclared_names()
    assert not missing, "ARENA_* names not declared in referee/settings.py:\n" + "\n".join(missing)


def test_no_module_reads_an_arena_variable_itself() -> None:
    reads = direct_reads()
    assert not reads, "read these through referee.settings.current():\n" + "\n".join(reads)


def test_no_module_parses_a_value_itself() -> None:
    found = own_parsing()
    assert not found, "read a field of referee.settings.current() instead:\n" + "\n".join(found)


def test_the_checks_catch_a_stray_name_and_a_direct_read(tmp_path: Path) -> None:
    module = tmp_path / "workers" / "stray.py"
    module.parent.mkdir()
    module.write_text(
        'import os\nQUEUE_ENV = "ARENA_QUEUE"\n'
        'def f():\n    return os.environ.get(QUEUE_ENV), os.getenv("ARENA_QUEUE_DEPHT")\n'
        'x = os.environ["ARENA_LEASE_SECONDS"]\n'
        'y = settings_ok = "ARENA_SANDBOX_" + "PIDS"  # a family prefix is declared\n'
        'z = os.environ.get("BROKER_URL")\n'
        'os.environ["PROMETHEUS_MULTIPROC_DIR"] = "/tmp/m"  # setting it for children is fine\n'
        'from referee import settings\n'
        'depth = int(settings.get("ARENA_QUEUE_DEPTH") or 8)\n'
    )
    (tmp_path / "ladder").mkdir()
    (tmp_path / "ladder" / "bare.py").write_text(
        'from referee.settings import get\nq = get("ARENA_QUEUE")\nd = {}.get("ARENA_QUEUE")\n'
    )
    assert undeclared_names(tmp_path) == ["workers/stray.py:4 ARENA_QUEUE_DEPHT"]
    assert direct_reads(tmp_path) == [
        "workers/stray.py:4", "workers/stray.py:4", "workers/stray.py:5", "workers/stray.py:7",
    ]
    assert own_parsing(tmp_path) == ["ladder/bare.py:2", "workers/stray.py:10"]


def test_get_gives_the_value_else_the_default_and_refuses_an_undeclared_name() -> None:
    assert settings.get("ARENA_QUEUE", {"ARENA_QUEUE": "ladder-a"}) == "ladder-a"
    assert settings.get("ARENA_QUEUE", {}) == "arena"
    assert settings.get("ARENA_QUEUE", {"ARENA_QUEUE": ""}) == "arena"  # empty: unset
    assert settings.get("ARENA_REFEREE_ADDR", {}) is None
    with pytest.raises(KeyError):
        settings.get("ARENA_QUEUE_DEPHT", {"ARENA_QUEUE_DEPHT": "3"})


def test_the_settings_are_typed_with_the_declared_defaults() -> None:
    parsed = settings.Settings.from_env({})
    assert (parsed.queue, parsed.queue_depth, parsed.lease_seconds) == ("arena", 8, 30.0)
    assert parsed.referee_addrs == () and parsed.metrics_port is None and not parsed.duplicate_sets
    assert parsed.sandbox_limits["memory_mb"] == 512 and parsed.public_referee_tls is True
    assert (parsed.database_url, parsed.broker_url) == (None, None) and not parsed.distributed
    given = settings.Settings.from_env({
        "ARENA_QUEUE_DEPTH": "0", "ARENA_DUPLICATE_SETS": "1", "ARENA_METRICS_PORT": "9100",
        "ARENA_REFEREE_ADDR": "a:1, b:2", "ARENA_RESERVED_BOT_PREFIXES": "Acme-, ,x",
        "ARENA_SANDBOX_PIDS": "128", "BROKER_URL": "redis://r:6379/0", "DATABASE_URL": "",
    })
    assert given.queue_depth == 0 and given.duplicate_sets and given.metrics_port == 9100
    assert given.referee_addrs == ("a:1", "b:2")
    assert given.reserved_bot_prefixes == ("acme-", "x") and given.sandbox_limits["pids"] == 128
    assert given.distributed and given.database_url is None  # empty: unset


@pytest.mark.parametrize(("name", "bad"), [
    ("ARENA_QUEUE_DEPTH", "lots"), ("ARENA_QUEUE_DEPTH", "-1"), ("ARENA_LEASE_SECONDS", "0"),
    ("ARENA_LEASE_SECONDS", "nan"), ("ARENA_BEAT_SECONDS", "soon"), ("ARENA_DUPLICATE_SETS", "yes"),
    ("ARENA_METRICS_PORT", "70000"), ("ARENA_REFEREE_ADDR", "referee"),
    ("ARENA_REFEREE_EXECUTOR", "workers.grpc_executor"), ("ARENA_SANDBOX_MEMORY_MB", "0"),
    ("ARENA_PUBLIC_REFEREE", "http://x:1"), ("ARENA_PUBLIC_REFEREE_TLS", "true"),
    ("ARENA_QUALIFICATION_GAMES", "0"), ("ARENA_PLATFORM_FAULTS", "0"),
    ("ARENA_REFEREE_PROCESS", "first"), ("ARENA_UNSAFE_NO_SANDBOX", "on"),
])
def test_a_bad_value_is_one_line_naming_the_variable(name: str, bad: str) -> None:
    with pytest.raises(settings.SettingsError) as caught:
        settings.Settings.from_env({name: bad})
    message = str(caught.value)
    assert caught.value.name == name and message.startswith(f"${name} must be ")
    assert repr(bad) in message and "\n" not in message


def test_current_is_parsed_once_and_again_after_a_change(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_QUEUE_DEPTH", "3")
    first = settings.current()
    assert first.queue_depth == 3 and settings.current() is first  # not parsed again
    monkeypatch.setenv("BROKER_URL", "redis://127.0.0.1:6379/9")
    assert settings.current() is not first and settings.current().distributed
    monkeypatch.setenv("ARENA_QUEUE_DEPTH", "three")
    with pytest.raises(settings.SettingsError, match="ARENA_QUEUE_DEPTH"):
        settings.current()


@pytest.mark.parametrize("argv", [["demo", "--no-serve"], ["beat"], ["--help"]])
def test_the_arena_command_stops_on_a_bad_value_with_one_line(argv: list[str]) -> None:
    env = {**os.environ, "ARENA_QUEUE_DEPTH": "bogus"}
    done = subprocess.run([ARENA, *argv], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2, done
    assert done.stderr == "error: $ARENA_QUEUE_DEPTH must be a whole number of at least 0, not 'bogus'\n"
    assert done.stdout == ""


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
    parsed = settings.Settings.from_env({})  # the object's fields are the declared defaults
    assert parsed.queue_depth == matchmaker.DEFAULT_QUEUE_DEPTH
    assert parsed.campaigns_per_ladder == campaign_ladders.DEFAULT_CAMPAIGNS_PER_LADDER
    assert parsed.campaign_games == campaign_ladders.DEFAULT_CAMPAIGN_GAMES
    assert parsed.lease_seconds == match_execution.DEFAULT_LEASE_SECONDS
    assert parsed.qualification_games == qualification.DEFAULT_GAMES
    assert parsed.beat_seconds == control.DEFAULT_INTERVAL_S
    assert parsed.referee_executor == executor.DEFAULT_REFEREE_EXECUTOR
    if not os.environ.get("ARENA_SANDBOX_UID_BASE"):
        assert int(default("ARENA_SANDBOX_UID_BASE")) == uids.UID_BASE
