"""A saved state resumes only with the content it was made with (both Clank! games share the
check: `referee.games.clank_core.game.check_content_version`)."""

from __future__ import annotations

import pytest

from referee.core.game import Game, InvalidConfig
from referee.games import game_class


@pytest.mark.parametrize("name", ["clank", "clank_legacy"])
def test_from_json_refuses_a_state_made_with_other_content(name: str) -> None:
    cls: type[Game] = game_class(name)
    game = cls.new_game(cls.default_config(2), 3)
    data = game.to_json()
    assert cls.from_json(data).digest() == game.digest()
    data["content_version"] = "other"
    with pytest.raises(InvalidConfig, match=f"content other, this build has {game.content_version}"):
        cls.from_json(data)
