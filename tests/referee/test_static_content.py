"""The game's static content on the wire: GameStart.content_json, its digest and its schema files.

A bot outside the repository must be able to read the board, the cards and the scenario from
what the referee sends. These tests pin: the content validates against the documented schema
(proto/content/<game>.schema.json) for every board and config; the schema documents every field
(a field added to the content without documentation fails); the content carries nothing that
depends on the seed (no deck order, no setup); and a real referee sends it, digest and all, to
a bot through the Python SDK.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from arena_bot import Bot, ContentMismatch, game_content, play
from arena_bot._proto.arena.v1 import admin_pb2, bot_pb2

from referee.core.game import canonical_json
from referee.games import all_specs, game_class, game_spec
from referee.games.clank.content import default_content as clank_content
from referee.games.static_content import NO_CONTENT, static_content, wire_content

from .conftest import REPO, ThreadedReferee

#: each game's schema is in its folder (`make proto` publishes a copy under proto/content/)
GAMES_DIR = REPO / "referee" / "games"


#: the games whose spec has a static-content hook (the others send none, see below)
CONTENT_GAMES = [spec.name for spec in all_specs() if spec.static_content is not None]


def schema(game: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GAMES_DIR / game / "content.schema.json").read_text())
    return data


def configs(game: str) -> list[dict[str, Any]]:
    """Every config that changes the content: each Clank! board side, any other game at every
    player count its spec allows."""
    cls = game_class(game)
    if game == "clank":
        return [{"players": 2, "board": board} for board in sorted(clank_content().boards)]
    spec = game_spec(game)
    return [cls.default_config(n) for n in range(spec.min_players, spec.max_players + 1)]


@pytest.mark.parametrize("game", CONTENT_GAMES)
def test_the_content_of_every_config_validates_against_its_schema(game: str) -> None:
    validator = jsonschema.Draft202012Validator(schema(game))
    validator.check_schema(schema(game))
    for config in configs(game):
        content = static_content(game_class(game).new_game(config, 1))
        errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(content)]
        assert errors == [], f"{game} {config}: {errors[:5]}"
        assert content["game"] == game


@pytest.mark.parametrize("game", CONTENT_GAMES)
def test_a_field_the_schema_does_not_document_fails_validation(game: str) -> None:
    """The schema is closed: a new content field cannot reach bots undocumented."""
    validator = jsonschema.Draft202012Validator(schema(game))
    content = static_content(game_class(game).new_game(configs(game)[0], 1))
    card = next(iter(content["cards"].values()))
    card["new_field"] = 1
    assert any("new_field" in e.message for e in validator.iter_errors(content))
    del card["new_field"]
    del card["name"]  # and a documented field cannot go missing
    assert any("'name' is a required property" in e.message for e in validator.iter_errors(content))


def _objects(node: Any, where: str = "$") -> list[tuple[str, dict[str, Any]]]:
    """Every sub-schema that declares properties, with its path in the schema file."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if "properties" in node:
            found.append((where, node))
        for key, value in node.items():
            found += _objects(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _objects(value, f"{where}[{i}]")
    return found


@pytest.mark.parametrize("game", CONTENT_GAMES)
def test_the_schema_describes_every_field_and_closes_every_object(game: str) -> None:
    objects = _objects(schema(game))
    assert len(objects) >= 5
    for where, node in objects:
        assert node.get("additionalProperties") is False, f"{where}: objects must be closed"
        assert isinstance(node.get("description"), str) and node["description"], f"{where}: no description"
        for name, prop in node["properties"].items():
            assert prop.get("description"), f"{where}.{name}: no description"
        if where != "$.$defs.effect":  # an effect has only the fields its op uses
            assert sorted(node["required"]) == sorted(node["properties"]), f"{where}: every field is sent"


@pytest.mark.parametrize("game", CONTENT_GAMES)
def test_the_content_is_static_the_same_for_every_seed(game: str) -> None:
    """Nothing dealt at random (deck order, returned artifacts, secrets' places) is sent: the
    content of one config is the same string, digest included, whatever the seed."""
    config = configs(game)[-1]
    sent = {wire_content(game_class(game).new_game(config, seed)) for seed in (1, 2, 3, 99)}
    assert len(sent) == 1
    (only,) = sent
    assert only.digest == hashlib.sha256(only.json.encode()).hexdigest()
    assert only.json == canonical_json(json.loads(only.json))
    assert '"seed"' not in only.json


def test_a_game_without_a_content_hook_sends_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registered game whose spec names no static content (yet) still starts over the wire:
    GameStart carries an empty content_json, which the SDKs read as "none sent"."""
    import dataclasses

    from referee.games import static_content as module

    assert {"clank", "alien"} <= set(CONTENT_GAMES)
    cls = game_class("clank")
    game = cls.new_game(cls.default_config(2), 1)
    assert wire_content(game) != NO_CONTENT
    bare = dataclasses.replace(game_spec("clank"), static_content=None, content_variant=None)
    monkeypatch.setattr(module, "_spec", lambda g: bare)
    assert wire_content(game) == NO_CONTENT
    assert game_content(bot_pb2.GameStart(content_json=NO_CONTENT.json)) is None
    with pytest.raises(KeyError, match="no static content for game 'clank'"):
        static_content(game)


def test_clank_content_is_the_board_in_play_with_the_engines_tunnel_indices() -> None:
    for config in configs("clank"):
        game = game_class("clank").new_game(config, 4)
        board = static_content(game)["board"]
        engine_board = clank_content().boards[config["board"]]
        assert board["id"] == config["board"]
        # a move's first argument indexes board.tunnels: the order must be the engine's
        assert [(t["a"], t["b"]) for t in board["tunnels"]] == [(t.a, t.b) for t in engine_board.tunnels]
        assert set(board["rooms"]) == set(engine_board.rooms)


def test_game_content_checks_the_digest() -> None:
    start = bot_pb2.GameStart(content_json='{"game":"clank"}', content_digest="0" * 64)
    with pytest.raises(ContentMismatch):
        game_content(start)
    start.content_digest = hashlib.sha256(start.content_json.encode()).hexdigest()
    assert game_content(start) == {"game": "clank"}
    assert game_content(bot_pb2.GameStart()) is None  # a referee that sends none


class _Recorder(Bot):
    name = "content-recorder"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[dict[str, Any] | None, str]] = []

    def on_game_start(self, start: bot_pb2.GameStart) -> None:
        self.seen.append((self.content, start.content_digest))

    def act(self, observation: Any, legal_actions: Any) -> int:
        return 0


@pytest.mark.integration
def test_a_real_referee_sends_every_seat_the_content_of_its_match(tmp_path: Path) -> None:
    config = {"players": 2, "board": "side_b"}
    ref = ThreadedReferee()
    try:
        made = ref.admin(
            "CreateMatch",
            admin_pb2.CreateMatchRequest(
                game="clank",
                seats=[admin_pb2.SeatSpec(name="a"), admin_pb2.SeatSpec(name="b")],
                seed=7,
                config_json=json.dumps(config),
            ),
            admin_pb2.CreateMatchResponse,
        )
        bots = [_Recorder(), _Recorder()]
        threads = [
            threading.Thread(target=play, args=(bot, ref.address, token), daemon=True)
            for bot, token in zip(bots, made.seat_tokens, strict=True)
        ]
        for t in threads:
            t.start()
        ref.wait_until_over(made.match_id)
        for t in threads:
            t.join(30)
    finally:
        ref.close()
    want = static_content(game_class("clank").new_game(config, 7))
    for bot in bots:
        assert len(bot.seen) == 1
        content, digest = bot.seen[0]
        assert content == want
        assert content is not None and content["board"]["id"] == "side_b"
        assert digest == hashlib.sha256(canonical_json(want).encode()).hexdigest()
