"""A game's static content as plain JSON data, for bots: what `GameStart.content_json` carries.

A bot outside this repository cannot read `referee/games/*/content/*.json`, so the referee sends
the content the engine set the match up from at the start of every game: the validated content
(after `load_content`, with every default filled in), converted field by field, so a field added
to a content class reaches the wire and the schema test (`proto/content/<game>.schema.json`,
`tests/referee/test_static_content.py`) fails until the schema documents it.

Only static data goes out: card, board and scenario definitions. Nothing a game deals at random
(deck order, the returned artifacts, face-down secrets, the seed) is in the content objects, and
the expanded lists here (`dungeon`, `strike_deck`, ...) are in content-file order, the same in
every match.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Mapping
from typing import Any

from referee.core.effects import Effect, effects_to_json
from referee.core.game import Game, canonical_json

__all__ = ["StaticContent", "static_content", "wire_content"]

#: the schema files, one per game, relative to the repository's proto/ folder
SCHEMA_PATH = "content/{game}.schema.json"


def _plain(value: Any) -> Any:
    """Content objects as JSON values: dataclasses as objects of their fields, effects in the
    content files' form, mappings as objects, tuples as arrays."""
    if isinstance(value, Effect):
        return effects_to_json([value])[0]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"content value of type {type(value).__name__} has no JSON form")


def static_content(game: Game) -> dict[str, Any]:
    """The static content of `game` (a match in progress) as JSON data.

    Top level: `game`, `content_version` (as in GameStart), then the game's content object's
    fields. Clank!: `boards` is replaced by `board`, the side this match is played on (its
    tunnels in the engine's order: a move's tunnel index is an index into `board.tunnels`).
    """
    version = game.content_version
    if game.name == "clank":
        from referee.games.clank.engine import ClankGame

        assert isinstance(game, ClankGame)
        data = _plain(game.content)
        del data["boards"]
        data["board"] = _plain(game.board)
    elif game.name == "alien":
        from referee.games.alien.engine import AlienGame

        assert isinstance(game, AlienGame)
        data = _plain(game.content)
    else:
        raise KeyError(f"no static content for game {game.name!r}")
    del data["version"]  # the same digest, under the name GameStart gives it
    return {"game": game.name, "content_version": version, **data}


@dataclasses.dataclass(frozen=True, slots=True)
class StaticContent:
    """What GameStart carries: the content as canonical JSON and the SHA-256 of its bytes."""

    json: str
    digest: str


def wire_content(game: Game) -> StaticContent:
    """`static_content(game)` as GameStart sends it, built once per game, content version and
    board (every match of a ladder sends the same content: no need to convert it each time)."""
    board = ""
    if game.name == "clank":
        from referee.games.clank.engine import ClankGame

        assert isinstance(game, ClankGame)
        board = game.board.id
    key = (game.name, game.content_version, board)
    found = _CACHE.get(key)
    if found is None:
        text = canonical_json(static_content(game))
        found = StaticContent(text, hashlib.sha256(text.encode()).hexdigest())
        with _LOCK:
            if len(_CACHE) >= 16:  # only reached by tests loading other content
                _CACHE.clear()
            _CACHE[key] = found
    return found


_CACHE: dict[tuple[str, str, str], StaticContent] = {}
_LOCK = threading.Lock()
