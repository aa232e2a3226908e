"""The game registry (issue 13 item 2): a game is one folder exporting a SPEC, and every part of
the platform reads the specs.

Two halves: a fake game folder added at run time is seen by every consumer (registry, codecs,
built-in bots, static content, `arena play` and its help, ladder scenarios, qualification,
`replay show`'s legend); and no module outside a game's own folder holds a list of game names
or compares a name against one (read with `ast`, like tests/test_layers.py).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent

import pytest

import referee.games
from referee.games import GAMES, all_specs, default_game, forget_specs, game_class, game_names, game_spec
from referee.games.spec import GameSpec

REPO = Path(__file__).resolve().parents[1]
FAKE = "fakegame"

#: the fake game's folder: an Alien engine under another name, with a codec, a bot, a scenario
FAKE_FILES = {
    "__init__.py": '"""A game folder made by tests/test_registry.py."""\n',
    "engine.py": """
        from referee.games.alien.engine import AlienGame

        class FakeGame(AlienGame):
            name = "fakegame"
        """,
    "codec.py": """
        from referee.wire._proto.arena.v1 import bot_pb2

        def encode_observation(observation):
            return bot_pb2.Observation(json='{"fake": true}')
        """,
    "bots.py": """
        class LazyBot:
            name = "lazy"

            def act(self, observation, legal_actions):
                return len(legal_actions) - 1
        """,
    "spec.py": """
        from referee.games.spec import GameSpec, ScenarioDefaults

        def scenario(players):
            return ScenarioDefaults("fake_place", ("fake_goal",), {"fake_place": "The Fake Place"})

        def content(game):
            return {"fake": True, "version": "dropped"}

        SPEC = GameSpec(
            name="fakegame",
            title="A game made by a test",
            engine="referee.games.fakegame.engine:FakeGame",
            min_players=2,
            max_players=3,
            cooperative=True,
            scenario="referee.games.fakegame.spec:scenario",
            passive_kinds=("end_turn", "pass"),
            observation_codec="referee.games.fakegame.codec:encode_observation",
            bots={"lazy": "referee.games.fakegame.bots:LazyBot"},
            reference_bots=("lazy", "random"),
            outcome_columns=(("made_it", ("survived",)),),
            legend=("legend: a fake game's notation",),
            static_content="referee.games.fakegame.spec:content",
        )
        """,
}


@pytest.fixture
def fake_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameSpec]:
    """A game folder `fakegame` beside the real ones (the package's search path extended), the
    registry made to look again; all of it undone after the test."""
    folder = tmp_path / FAKE
    folder.mkdir()
    for name, text in FAKE_FILES.items():
        (folder / name).write_text(dedent(text).lstrip())
    monkeypatch.setattr(referee.games, "__path__", [*referee.games.__path__, str(tmp_path)])
    forget_specs()
    try:
        yield game_spec(FAKE)
    finally:
        monkeypatch.undo()
        for module in [m for m in sys.modules if m.startswith(f"referee.games.{FAKE}")]:
            del sys.modules[module]
        forget_specs()
    assert FAKE not in game_names()


def test_the_real_games_are_registered_from_their_folders() -> None:
    names = game_names()
    assert {"clank", "alien"} <= set(names)
    for spec in all_specs():
        assert (REPO / "referee" / "games" / spec.name).is_dir()
        cls = game_class(spec.name)
        assert cls.name == spec.name and cls.passive_kinds == spec.passive_kinds
        assert GAMES[spec.name] == spec.engine
    assert list(GAMES) == list(names) == sorted(names)
    with pytest.raises(KeyError, match="unknown game 'nosuch'; known: alien, clank"):
        game_class("nosuch")


def test_the_default_game_is_the_one_its_spec_declares(monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena bot check`, the demo ladder and a bot that names no game play `default_game()`:
    the game whose own spec says `default=True` (Clank!), never a name written outside it."""
    declared = [s.name for s in all_specs() if s.default]
    assert declared == ["clank"] and default_game() == "clank"
    registry = referee.games._registry()
    try:
        # none declared: the first game; two declared: refused, naming both
        for name in declared:
            monkeypatch.setitem(registry, name, dataclasses.replace(registry[name], default=False))
        assert default_game() == game_names()[0]
        for name in game_names()[:2]:
            monkeypatch.setitem(registry, name, dataclasses.replace(registry[name], default=True))
        with pytest.raises(LookupError, match="two games declare default=True: alien, clank"):
            default_game()
    finally:
        monkeypatch.undo()
    assert default_game() == "clank"


def test_each_spec_states_the_player_range_its_engine_accepts() -> None:
    from referee.core.game import InvalidConfig

    for spec in all_specs():
        cls = game_class(spec.name)
        for n in (spec.min_players, spec.max_players):
            assert cls.new_game(cls.default_config(n), 1).num_seats == n
        for n in (spec.min_players - 1, spec.max_players + 1):
            with pytest.raises((InvalidConfig, ValueError)):
                cls.new_game({**cls.default_config(spec.max_players), "players": n}, 1)


def test_every_table_sees_a_new_game_folder(fake_game: GameSpec) -> None:
    """Adding a folder is enough: each consumer answers for the fake game from its spec."""
    from ladder.scenarios import check_coop_game, coop_games, match_scenario
    from referee.bots import available, make_bot
    from referee.games.static_content import static_content
    from referee.server.codecs import action_codec_for, codec_for
    from workers.qualification import reference_bots

    assert FAKE in game_names() and FAKE in GAMES
    engine = game_class(FAKE)
    assert engine.__name__ == "FakeGame" and engine.__module__ == f"referee.games.{FAKE}.engine"
    game = engine.new_game(engine.default_config(2), 3)
    # the referee: codecs, static content; built-in bots; qualification; the ladder
    assert codec_for(FAKE)(game.observe(0)).json == '{"fake": true}'
    assert action_codec_for(FAKE) is None
    assert static_content(game) == {"game": FAKE, "content_version": game.content_version, "fake": True}
    assert available(FAKE) == ["lazy", "random"]
    assert type(make_bot(FAKE, "lazy", 0)).__name__ == "LazyBot"
    assert reference_bots(FAKE) == ("lazy", "random")
    assert FAKE in coop_games()
    check_coop_game(FAKE, 3)
    info = match_scenario(FAKE, 2, None)
    assert (info.scenario.location, info.scenario.objectives) == ("fake_place", ("fake_goal",))
    assert info.description == "The Fake Place: fake_goal; 2 players"


def test_the_cli_plays_a_new_game_folder(fake_game: GameSpec, capsys: pytest.CaptureFixture[str]) -> None:
    """`arena play fakegame` with the game's own bot, its outcome columns; `--help` names it."""
    from cli.main import main

    assert main(["play", FAKE, "--players", "2", "--bots", "lazy,random", "--games", "2", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["games"] == 2 and set(stats["by_bot"]) == {"lazy", "random"}
    assert set(stats["by_seat"]["0"]) == {"games", "wins", "win_rate", "mean_score", "made_it"}
    for command in ("play", "match"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        usage = capsys.readouterr().out
        assert all(name in usage for name in game_names()) and FAKE in usage


def test_replay_show_prints_the_games_legend(fake_game: GameSpec) -> None:
    from referee.replay_view import render
    from referee.runner import play_local

    replay = play_local(FAKE, ["lazy", "lazy"], 1).replay
    assert "legend: a fake game's notation" in list(render(replay, None))


def test_a_folder_whose_spec_is_misnamed_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "othername"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "spec.py").write_text(dedent(FAKE_FILES["spec.py"]))
    monkeypatch.setattr(referee.games, "__path__", [*referee.games.__path__, str(tmp_path)])
    forget_specs()
    try:
        with pytest.raises(ValueError, match="othername: SPEC is named 'fakegame', not after its folder"):
            all_specs()
    finally:
        monkeypatch.undo()
        sys.modules.pop("referee.games.othername.spec", None)
        sys.modules.pop("referee.games.othername", None)
        forget_specs()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "Bad Name"}, "lower-case"),
        ({"min_players": 3, "max_players": 2}, "players 3..2"),
        ({"cooperative": True}, "scenario hook"),
        ({"engine": "no_colon"}, "not 'module:attribute'"),
        ({"bots": {"random": "m:f"}}, "every game's bot"),
        ({"reference_bots": ("smart",)}, "reference bots"),
        ({"cooperative": True, "scenario": "m:f", "campaign": True}, "campaign game is not cooperative"),
    ],
)
def test_an_inconsistent_spec_is_refused(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"name": "x", "title": "X", "engine": "m:C", "min_players": 2, "max_players": 4}
    with pytest.raises(ValueError, match=message):
        GameSpec(**{**base, **fields})  # type: ignore[arg-type]


def test_an_engine_whose_passive_kinds_differ_from_its_spec_is_refused() -> None:
    spec = GameSpec(
        name="clank", title="t", engine=game_spec("clank").engine, min_players=2, max_players=4,
        passive_kinds=("skip",),
    )
    with pytest.raises(TypeError, match="passive_kinds"):
        spec.engine_class()


# --- no lists of games outside the registry ---------------------------------------------------

#: the components scanned (a game's own folder, referee/games/<name>/, may name itself: "clank"
#: is also Clank!'s effect op)
SCANNED = ("referee", "ladder", "workers", "cli", "proto", "bots")
#: the declared fixtures: Python outside tests/ that is about one game on purpose, not scanned
FIXTURES = {
    # each benchmark measures a named game's play (its figures are per game)
    "bench": "benchmarks",
    # the multi-host drill plays a named game's ladder across hosts
    "deploy": "the deployment drill",
    # example bots, each written for one game (greedy_clank_bot.py, alien_coop_bot.py)
    "bots/python/examples": "example bots",
}
#: (file, line text) that may name games, and why
ALLOWED = {
    # "clank" here is Clank!'s effect op (make clank), not the game: the effect primitives both
    # Clank! games share (issue 26 item 2 moved them out of the game folders)
    ("referee/core/content_files.py", 'if n < 0 and op != "clank":'),
    # Legacy's .proto imports Clank!'s messages (ClankEffect: `import "arena/v1/clank.proto"`),
    # so its codec fills them with Clank!'s encoder: the dependency is the wire contract's
    ("referee/games/clank_legacy/codec.py", "from referee.games.clank.codec import encode_effects"),
}


def _imported(node: ast.AST, package: list[str] | None = None) -> list[str]:
    """The modules an import statement, an ``importlib.import_module("...")`` call with a
    literal name or a dotted "module:attribute" string loads (``from referee.games import
    clank`` loads ``referee.games.clank``); a relative import is resolved against `package`, the
    importing module's package."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and (node.module or node.level):
        if node.level:
            if package is None or node.level - 1 > len(package):
                return []
            base = package[: len(package) - (node.level - 1)]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = str(node.module)
        return [module, *(f"{module}.{a.name}" for a in node.names)]
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"[A-Za-z_][\w.]*\.[\w.]+:[A-Za-z_]\w*", node.value)
    ):
        return [node.value.partition(":")[0]]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def _module_of(path: Path, base: Path) -> list[str]:
    """The dotted package a module file sits in (``referee/server/x.py`` -> referee.server)."""
    return list(path.relative_to(base).parent.parts)


def _game_folder_of(path: Path, games_dir: Path) -> str | None:
    """The folder under referee/games/ a file sits in (None: outside every game folder)."""
    if path.parent == games_dir or games_dir not in path.parents:
        return None
    return path.relative_to(games_dir).parts[0]


def _names_in_code(names: set[str], base: Path = REPO) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, the line, what) outside the games' own folders for each literal
    list/tuple/set/dict holding two or more game names, each ==/!=/in comparison with a game
    name, each constant (a name assigned a game's name: ``CAMPAIGN_GAME = "clank_legacy"``) and
    any other string naming a game (a call's argument ``create_ladder(e, n, "clank")``, a
    keyword's ``default="clank"``, ``game or "clank"``); and each import of a game folder's
    modules (``referee.games.<folder>...``, also folders of code games share; absolute,
    relative ``from ..games.clank import x``, by importlib or by a dotted "module:attr" string),
    also from another game's folder (a game folder may import itself and shared folders): a
    game is reached through the registry and its spec only."""
    games_dir = base / "referee" / "games"
    folders = {p.name for p in games_dir.glob("*/") if p.name != "__pycache__"}
    for root in SCANNED:
        for path in sorted((base / root).rglob("*.py")):
            rel = path.relative_to(base).as_posix()
            if "_proto" in path.parts or "node_modules" in path.parts or rel.startswith(
                tuple(f"{fixture}/" for fixture in FIXTURES)
            ):
                continue
            own = _game_folder_of(path, games_dir)
            text = path.read_text()
            lines = text.splitlines()
            reported: set[int] = set()  # the constants a more specific check named already
            tree = ast.parse(text)
            if own is not None:  # inside a game folder: only imports of another game's folder
                for node in ast.walk(tree):
                    for module in _imported(node, _module_of(path, base)):
                        parts = module.split(".")
                        if parts[:2] == ["referee", "games"] and len(parts) > 2 and parts[2] in names - {own}:
                            line = getattr(node, "lineno", 0)
                            yield rel, line, lines[line - 1].strip(), f"an import of {module}"
                continue
            for node in ast.walk(tree):
                where = (str(path.relative_to(base)), node.lineno if hasattr(node, "lineno") else 0)
                elements: list[ast.expr | None] = []
                if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                    elements = list(node.elts)
                elif isinstance(node, ast.Dict):
                    elements = list(node.keys)
                listed = [e for e in elements if isinstance(e, ast.Constant) and e.value in names]
                if len({e.value for e in listed}) >= 2:
                    reported.update(id(e) for e in listed)
                    found = sorted({str(e.value) for e in listed})
                    yield *where, lines[where[1] - 1].strip(), f"a list of games {found}"
                if isinstance(node, ast.Compare) and any(
                    isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops
                ):
                    for side in (node.left, *node.comparators):
                        if isinstance(side, ast.Constant) and side.value in names:
                            reported.add(id(side))
                            yield *where, lines[where[1] - 1].strip(), f"a comparison with {side.value!r}"
                values = [node.value] if isinstance(node, (ast.Assign, ast.AnnAssign)) else []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    values = [*node.args.defaults, *node.args.kw_defaults]  # a parameter's default
                for value in values:
                    if isinstance(value, ast.Constant) and value.value in names:
                        reported.add(id(value))
                        yield *where, lines[where[1] - 1].strip(), f"a constant naming {value.value!r}"
                for module in _imported(node, _module_of(path, base)):
                    parts = module.split(".")
                    if parts[:2] == ["referee", "games"] and len(parts) > 2 and parts[2] in folders:
                        yield *where, lines[where[1] - 1].strip(), f"an import of {module}"
            for node in ast.walk(tree):  # every other string naming a game, once each
                if isinstance(node, ast.Constant) and node.value in names and id(node) not in reported:
                    line = node.lineno
                    yield rel, line, lines[line - 1].strip(), f"a string naming {node.value!r}"


def test_no_module_outside_the_registry_names_the_games() -> None:
    hits = list(_names_in_code(set(game_names())))
    found = [f"{f}:{line} {what}: {text}" for f, line, text, what in hits if (f, text) not in ALLOWED]
    assert found == [], "read the game's spec (referee.games.game_spec) instead:\n" + "\n".join(found)
    # an allowance whose line is gone is dropped, not kept as a blank cheque
    assert {(file, text) for file, _, text, _ in hits} >= ALLOWED


def test_the_scan_finds_a_list_an_if_chain_a_constant_and_an_import(tmp_path: Path) -> None:
    """The checker itself, on a copy-sized tree: a stray table, an if-chain on a game name, a
    constant or a parameter default naming a game, any other string naming one (a keyword's
    default, a call's argument, ``game or "clank"``, a single name in a list), and an import of a
    game folder's module (absolute, relative, by importlib, by a "module:attr" string; also from
    another game's folder) are reported; a game's own folder naming and importing itself or a
    shared folder, a docstring mentioning a game and the registry's own modules are not."""
    for root in SCANNED:
        (tmp_path / root).mkdir(parents=True, exist_ok=True)
    (tmp_path / "ladder" / "stray.py").write_text(
        'TABLE = {"clank": 1, "alien": 2}\nONE = ["clank"]\n\n\ndef f(game):\n    return game == "alien"\n'
    )
    (tmp_path / "workers" / "named.py").write_text(
        "import importlib\n"
        "from referee.games import game_spec\n"
        "from referee.games.spec import load\n"
        "from referee.games.clank.campaign import RULES\n"
        'CAMPAIGN_GAME: str = "clank"\n'
        'def g(game: str = "alien") -> None:\n'
        '    importlib.import_module("referee.games.alien.codec")\n'
        "from referee.games import clank\n"
    )
    # the three shapes issue 26 found after the first scan: a keyword's default, `or` a name, a
    # call's argument; and imports by a relative path and by a dotted string
    (tmp_path / "referee" / "server").mkdir(parents=True)
    (tmp_path / "referee" / "server" / "defaults.py").write_text(
        '"""Plays clank by default (a docstring may say so)."""\n'
        'check.add_argument("--game", default="clank")\n'
        'name = str(game or "alien")\n'
        'create_ladder(engine, "demo", "clank", 2)\n'
        "from ..games.alien import codec\n"
        "from . import commands\n"
        'CODEC = "referee.games.clank.codec:encode_observation"\n'
    )
    for folder in ("clank", "alien", "shared"):
        (tmp_path / "referee" / "games" / folder).mkdir(parents=True)
    (tmp_path / "referee" / "games" / "clank" / "content.py").write_text(
        'OPS = ("clank", "alien")\nfrom referee.games.alien.codec import x\n'
        "from referee.games.clank.engine import y\nfrom referee.games.shared import z\n"
        "from ..alien import w\n"
    )
    found = [(file, line, what) for file, line, _, what in _names_in_code({"clank", "alien"}, tmp_path)]
    assert sorted(found) == [
        ("ladder/stray.py", 1, "a list of games ['alien', 'clank']"),
        ("ladder/stray.py", 2, "a string naming 'clank'"),
        ("ladder/stray.py", 6, "a comparison with 'alien'"),
        ("referee/games/clank/content.py", 2, "an import of referee.games.alien.codec"),
        ("referee/games/clank/content.py", 2, "an import of referee.games.alien.codec.x"),
        ("referee/games/clank/content.py", 5, "an import of referee.games.alien"),
        ("referee/games/clank/content.py", 5, "an import of referee.games.alien.w"),
        ("referee/server/defaults.py", 2, "a string naming 'clank'"),
        ("referee/server/defaults.py", 3, "a string naming 'alien'"),
        ("referee/server/defaults.py", 4, "a string naming 'clank'"),
        ("referee/server/defaults.py", 5, "an import of referee.games.alien"),
        ("referee/server/defaults.py", 5, "an import of referee.games.alien.codec"),
        ("referee/server/defaults.py", 7, "an import of referee.games.clank.codec"),
        ("workers/named.py", 4, "an import of referee.games.clank.campaign"),
        ("workers/named.py", 4, "an import of referee.games.clank.campaign.RULES"),
        ("workers/named.py", 5, "a constant naming 'clank'"),
        ("workers/named.py", 6, "a constant naming 'alien'"),
        ("workers/named.py", 7, "an import of referee.games.alien.codec"),
        ("workers/named.py", 8, "an import of referee.games.clank"),
    ]


def test_every_python_folder_is_scanned_or_a_declared_fixture() -> None:
    """A new top-level folder of code is scanned unless declared a fixture (with its reason)."""
    covered = (*SCANNED, *FIXTURES, "tests")
    stray = sorted(
        str(path.relative_to(REPO))
        for top in REPO.iterdir()
        if top.is_dir() and not top.name.startswith(".") and top.name != "node_modules"
        for path in top.rglob("*.py")
        if "node_modules" not in path.parts
        and not any(path.relative_to(REPO).as_posix().startswith(f"{c}/") for c in covered)
    )
    assert stray == [], "add the folder to SCANNED (or FIXTURES, saying why)"
