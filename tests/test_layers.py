"""The components' layers, read from the code: every import of every module, at any depth.

The benchmarks under ``bench/`` sit beside the workers on top: no component imports them.

The referee is the lowest layer (engines, wire contract, match sessions): it imports nothing
of the ladder, the workers or the bot SDKs. The ladder (storage, ratings, API) builds on the
referee and imports nothing of the workers or the SDKs. The SDKs under ``bots/`` know only the
wire contract, so they import none of the platform. The workers sit above the ladder, and the
``arena`` command's package ``cli/`` on top of all (nothing imports it). The ``arena``
command is put together in one place, the composition root ``cli/main.py``: it alone
imports the components' command modules and hands them what they need from each other (the
lobby's bot-token check from the ladder, the sandbox from the workers).

Inside the referee, the engines are the inner layers: ``referee/core`` (the engine contract)
imports nothing of ``referee/games`` or ``referee/server``, and ``referee/games`` nothing of
``referee/server``. The engines (``referee/core``, ``referee/games/**``, ``referee/bots``,
``referee/lab``) are pure: same seed + actions, same bytes, with no I/O. They import no module
that talks to the outside world or to the clock (``IO_MODULES``). Reading the games' own JSON
content files is the one sanctioned I/O, and it lives in exactly one module,
``referee/core/content_files.py`` (it imports only hashlib/json/pathlib, none of IO_MODULES, so it
needs no exception); ``ENGINE_EXCEPTIONS`` names the files allowed one IO module, each with why.

The Python SDK has one import name, ``arena_bot`` (``bots/python/arena_bot``, installed under
that name; ``bots/python`` is no package): no module imports it as ``bots.python.arena_bot``.

Imports are read with `ast` (inside functions too) and so are ``importlib.import_module("x")``
calls with a literal name: loading a module by its name is an import all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMPONENTS = ("referee", "ladder", "workers", "bots", "bench", "cli")
ROOT = "cli/main.py"

BENCH_RULE = "the benchmarks (bench/) sit on top: they import the components, none imports them"
CLI_RULE = "the `arena` command (cli/) sits on top: it imports the components, none imports it"

#: component -> {forbidden component: the rule, as the failure message states it}
RULES: dict[str, dict[str, str]] = {
    "referee": {
        other: "the referee is the lowest layer; it imports nothing of ladder/, workers/ or bots/ "
        "(take what it needs as a callable, wired in cli/main.py)"
        for other in ("ladder", "workers", "bots")
    } | {"bench": BENCH_RULE, "cli": CLI_RULE},
    "ladder": {
        other: "the ladder imports only the referee; never workers/ or bots/"
        for other in ("workers", "bots")
    } | {"bench": BENCH_RULE, "cli": CLI_RULE},
    "workers": {"bench": BENCH_RULE, "cli": CLI_RULE},
    "bench": {"cli": CLI_RULE},
    "bots": {
        other: "the SDKs under bots/ know only the wire contract; they import no platform code"
        for other in ("referee", "ladder", "workers", "bench", "cli")
    },
}

#: inner referee layers: (folder prefix, forbidden module prefix, the rule)
INNER_RULES: tuple[tuple[str, str, str], ...] = (
    ("referee/core/", "referee.games", "referee/core is the engine contract; it imports no game"),
    ("referee/core/", "referee.server", "referee/core imports nothing of the server"),
    ("referee/games/", "referee.server", "the games import nothing of the server"),
    ("referee/lab/", "referee.server", "referee/lab wraps the engines; it imports nothing of the server"),
    ("referee/lab/", "referee.wire", "referee/lab wraps the engines; it imports nothing of the wire"),
)

#: the engines: pure functions of seed + actions
ENGINE_DIRS = ("referee/core/", "referee/games/", "referee/bots/", "referee/lab/")

#: modules an engine must not import: network, processes, OS, databases, queues, concurrency, clock
IO_MODULES = frozenset({
    "socket", "ssl", "select", "selectors", "subprocess", "multiprocessing", "os", "shutil",
    "signal", "grpc", "sqlalchemy", "psycopg", "psycopg2", "redis", "celery", "httpx",
    "requests", "urllib", "http", "asyncio", "threading", "concurrent", "time", "datetime",
})

#: (file, IO module) -> why that file may import it
ENGINE_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("referee/games/alien/winrates.py", "time"): "a command-line benchmark script "
    "(python -m referee.games.alien.winrates), not engine code: it times whole games",
    ("referee/bots/ismcts.py", "time"): "builtin:ismcts's per-decision time budget: a bot's "
    "clock, read between searches, never by the engines it plays (with an iteration budget, as "
    "in its tests, it reads none)",
    ("referee/games/static_content.py", "threading"): "a threading.Lock guards the per-process "
    "cache of each game's converted content (read by the server's threads); no I/O",
}

#: the Python SDK's folder and its one import name
SDK_FOLDER = ("bots", "python", "arena_bot")
SDK_NAME = "arena_bot"
SDK_OTHER_NAME = "bots.python.arena_bot"

#: the components' command modules: only the composition root wires them into `arena`
COMMAND_MODULES = (
    "referee.cli", "referee.server.commands", "cli.ladder", "cli.client", "cli.tournament", "cli.campaign",
)


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    if parts[: len(SDK_FOLDER)] == SDK_FOLDER:  # installed as arena_bot (pyproject.toml)
        parts = parts[len(SDK_FOLDER) - 1:]
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute name of a `from ... import` (relative ones resolved against `module`)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import in the file at `path`, at any depth."""
    module = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node, path.name == "__init__.py")
            yield node.lineno, target
            for alias in node.names:  # `from workers import cli` imports workers.cli
                yield node.lineno, f"{target}.{alias.name}" if target else alias.name
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def _sources() -> Iterator[Path]:
    for component in COMPONENTS:
        for path in sorted((REPO / component).rglob("*.py")):
            rel = path.relative_to(REPO).parts
            if "node_modules" in rel or "__pycache__" in rel or any(p.startswith(".") for p in rel):
                continue
            yield path


def violations() -> list[str]:
    """Every import that breaks a layer rule, as ``file:line imports X — rule: ...``."""
    found: dict[tuple[str, int], str] = {}  # one message a line (`from x import a, b`)
    for path in _sources():
        rel = path.relative_to(REPO).as_posix()
        component = rel.split("/", 1)[0]
        rules = RULES.get(component, {})
        for line, target in imports_of(path):
            top = target.split(".", 1)[0]
            if (rel, line) in found:
                continue
            inner = next(
                (why for folder, prefix, why in INNER_RULES
                 if rel.startswith(folder) and (target == prefix or target.startswith(prefix + "."))),
                None,
            )
            if target == SDK_OTHER_NAME or target.startswith(SDK_OTHER_NAME + "."):
                found[rel, line] = (
                    f"{rel}:{line} imports {target} — rule: the Python SDK has one import name, "
                    f"{SDK_NAME}"
                )
            elif inner is not None:
                found[rel, line] = f"{rel}:{line} imports {target} — rule: {inner}"
            elif (
                rel.startswith(ENGINE_DIRS) and top in IO_MODULES
                and (rel, top) not in ENGINE_EXCEPTIONS
            ):
                found[rel, line] = (
                    f"{rel}:{line} imports {target} — rule: the engines do no I/O "
                    "(only referee/core/content_files.py reads the content files)"
                )
            elif top in rules:
                found[rel, line] = f"{rel}:{line} imports {target} — rule: {rules[top]}"
            elif rel != ROOT and any(
                target == m or target.startswith(m + ".") for m in COMMAND_MODULES
            ) and not target.startswith(_module_name(path)):
                found[rel, line] = (
                    f"{rel}:{line} imports {target} — rule: only the composition root "
                    f"({ROOT}) wires the components' commands together"
                )
    return sorted(found.values())


def sdk_other_names(roots: tuple[str, ...] = ("tests", "deploy", "bench")) -> list[str]:
    """``file:line`` of every import of the SDK as ``bots.python.arena_bot`` in the tests, the
    deployment scripts and the benches (the components are checked by :func:`violations`)."""
    found = []
    for root in roots:
        for path in sorted((REPO / root).rglob("*.py")) if (REPO / root).is_dir() else ():
            for line, target in imports_of(path):
                if target == SDK_OTHER_NAME or target.startswith(SDK_OTHER_NAME + "."):
                    found.append(f"{path.relative_to(REPO)}:{line}")
    return sorted(set(found))


def test_the_sdk_is_imported_under_one_name_everywhere() -> None:
    found = sdk_other_names()
    assert not found, f"import the SDK as {SDK_NAME}:\n" + "\n".join(found)
    import arena_bot

    assert Path(arena_bot.__file__).parent == REPO.joinpath(*SDK_FOLDER)


def test_no_lower_layer_imports_a_higher_one() -> None:
    found = violations()
    assert not found, "layer violations:\n" + "\n".join(found)


def test_the_reader_finds_every_form_of_import(tmp_path: Path, monkeypatch: object) -> None:
    """The checker itself: a referee module importing the ladder in each way Python allows
    (top level, inside a function, relative, by name) is caught, with its
    line, and a clean module is not."""
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    fake = tmp_path / "referee" / "server"
    fake.mkdir(parents=True)
    (tmp_path / "referee" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "bad.py").write_text(
        "import ladder.db\n"
        "def f():\n"
        "    from ladder.bots import authenticate_bot\n"
        "    from ..cli import register\n"
        "    import importlib\n"
        "    importlib.import_module('workers.sandbox')\n"
        "from referee import cli\n"
        "from bots.python.arena_bot import Bot\n"
    )
    (fake / "good.py").write_text("from . import lobby\nfrom referee.games import game_class\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    monkeypatch.setattr(f"{__name__}.COMPONENTS", ("referee",))
    found = violations()
    lines = sorted({v.split(" imports ")[0] for v in found})
    assert lines == [f"referee/server/bad.py:{n}" for n in (1, 3, 4, 6, 7, 8)], found
    assert any(":8 imports bots.python.arena_bot — rule: the Python SDK has one import name" in v
               for v in found)
    assert any("imports ladder.bots — rule: the referee is the lowest layer" in v for v in found)
    assert any(":4 imports referee.cli — rule: only the composition root" in v for v in found)
    assert any(":7 imports referee.cli — rule: only the composition root" in v for v in found)
    assert not any("good.py" in v for v in found)


def test_the_inner_layers_and_engine_purity(tmp_path: Path, monkeypatch: object) -> None:
    """core importing a game or the server, a game importing the server, and an engine importing
    an I/O module (at any depth) are caught; a listed exception and content_files are not."""
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    for folder in ("referee/core", "referee/games/alien", "referee/bots"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / "referee/core/bad.py").write_text(
        "from referee.games import spec\nimport socket\ndef f():\n    from ..server import lobby\n"
    )
    (tmp_path / "referee/games/alien/bad.py").write_text(
        "import referee.server.session\nfrom os import path\nimport subprocess\n"
    )
    (tmp_path / "referee/bots/bad.py").write_text("def f():\n    import time\n")
    (tmp_path / "referee/core/content_files.py").write_text("import json\nfrom pathlib import Path\n")
    (tmp_path / "referee/games/alien/winrates.py").write_text("import time\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    monkeypatch.setattr(f"{__name__}.COMPONENTS", ("referee",))
    lines = sorted({v.split(" imports ")[0] for v in violations()})
    assert lines == [
        "referee/bots/bad.py:2", "referee/core/bad.py:1", "referee/core/bad.py:2",
        "referee/core/bad.py:4", "referee/games/alien/bad.py:1", "referee/games/alien/bad.py:2",
        "referee/games/alien/bad.py:3",
    ], lines
