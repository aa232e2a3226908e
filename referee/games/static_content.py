"""A game's static content as plain JSON data, for bots: what `GameStart.content_json` carries.

A bot outside this repository cannot read `referee/games/*/content/*.json`, so the referee sends
the content the engine set the match up from at the start of every game: the validated content
(after `load_content`, with every default filled in), converted field by field, so a field added
to a content class reaches the wire and the schema test (the game's
`referee/games/<game>/content.schema.json`, published as `proto/content/<game>.schema.json` by
`make proto`; `tests/referee/test_static_content.py`) fails until the schema documents it.

Only static data goes out: card, board and scenario definitions. Nothing a game deals at random
(deck order, the returned artifacts, face-down secrets, the seed) is in the content objects, and
the expanded lists here (`dungeon`, `strike_deck`, ...) are in content-file order, the same in
every match.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, Final

from referee.core.effects import Effect, effects_to_json
from referee.core.game import Game, canonical_json
from referee.games.spec import GameSpec, load

__all__ = ["NO_CONTENT", "StaticContent", "plain_data", "static_content", "wire_content"]

#: the published schema files, one per game, relative to the repository's proto/ folder (each a
#: copy `make proto` makes of the game folder's content.schema.json)
SCHEMA_PATH = "content/{game}.schema.json"


def plain_data(value: Any) -> Any:
    """Content objects as JSON values: dataclasses as objects of their fields, effects in the
    content files' form, mappings as objects, tuples as arrays (the games' static-content
    hooks, `GameSpec.static_content`, convert their content with it)."""
    if isinstance(value, Effect):
        return effects_to_json([value])[0]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [plain_data(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"content value of type {type(value).__name__} has no JSON form")


def _spec(game: Game) -> GameSpec | None:
    from referee.games import all_specs

    return next((s for s in all_specs() if s.name == game.name), None)


def _hook(game: Game) -> Callable[[Game], Mapping[str, Any]]:
    spec = _spec(game)
    target = None if spec is None else spec.static_content
    if target is None:
        raise KeyError(f"no static content for game {game.name!r}")
    hook: Callable[[Game], Mapping[str, Any]] = load(target)
    return hook


def static_content(game: Game) -> dict[str, Any]:
    """The static content of `game` (a match in progress) as JSON data.

    Top level: `game`, `content_version` (as in GameStart), then the fields of the data the
    game's spec hook (`GameSpec.static_content`) gives: for Clank! its content object's fields
    with `boards` replaced by `board`, the side this match is played on (its tunnels in the
    engine's order: a move's tunnel index is an index into `board.tunnels`).
    """
    version = game.content_version
    data = dict(_hook(game)(game))
    data.pop("version", None)  # the same digest, under the name GameStart gives it
    return {"game": game.name, "content_version": version, **data}


@dataclasses.dataclass(frozen=True, slots=True)
class StaticContent:
    """What GameStart carries: the content as canonical JSON and the SHA-256 of its bytes."""

    json: str
    digest: str


#: what GameStart carries for a game whose spec has no static-content hook yet: nothing (the
#: SDKs read an empty content_json as "none sent"), so the game is playable over the wire anyway
NO_CONTENT: Final = StaticContent("", "")


def wire_content(game: Game) -> StaticContent:
    """`static_content(game)` as GameStart sends it, built once per game, content version and
    board (every match of a ladder sends the same content: no need to convert it each time);
    `NO_CONTENT` for a game without a static-content hook."""
    spec = _spec(game)
    if spec is None or spec.static_content is None:
        return NO_CONTENT
    variant: str = "" if spec is None or spec.content_variant is None else load(spec.content_variant)(game)
    key = (game.name, game.content_version, variant)
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
