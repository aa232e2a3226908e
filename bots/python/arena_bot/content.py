"""The game's static content from GameStart: cards, board, scenario (PROTOCOL.md "Static content").

`GameStart.content_json` is the content the referee's engine set the match up from, as canonical
JSON; its schema is `proto/content/<game>.schema.json`. `game_content` parses it and checks it
against `content_digest`; the SDK does this for you and keeps the result in `Bot.content`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ._proto.arena.v1 import bot_pb2

__all__ = ["ContentMismatch", "game_content"]


class ContentMismatch(ValueError):
    """GameStart's content does not match its digest (a broken or altered message)."""


def game_content(start: bot_pb2.GameStart) -> dict[str, Any] | None:
    """The parsed static content of `start`, or None when the referee sent none (an older one).

    Raises ContentMismatch if the JSON does not hash to `content_digest` or is not an object.
    """
    if not start.content_json:
        return None
    digest = hashlib.sha256(start.content_json.encode()).hexdigest()
    if start.content_digest and digest != start.content_digest:
        raise ContentMismatch(f"content_json hashes to {digest}, GameStart says {start.content_digest}")
    data = json.loads(start.content_json)
    if not isinstance(data, dict):
        raise ContentMismatch("content_json is not a JSON object")
    return data
