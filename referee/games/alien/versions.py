"""The Alien engine versions before the current one, each the next version with what changed
overridden (../README.md "Engine versions"); a replay or a ladder that names one plays it.

- alien-2 -> alien-3 (commit 4b4adc2, RULES_NOTES.md): Objectives completed in order, the team
  asked in the Hive and Strike phases too, a Chestburster stays with its dead host.
- alien-1 -> alien-2 (commit 27084ba, then ed53d1b under the same version): the active player's
  `ask` (another round of Coordinate questions in the Action phase, state field `can_ask`); the
  content digest computed from the parsed data instead of the files' bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from referee.core.game import Action, json_digest
from referee.core.state_game import check_content_version
from referee.games.alien.engine import AlienGame

__all__ = ["Alien1", "Alien2"]


class Alien2(AlienGame):
    """alien-2: any Objective can be met (a kill or a spend) while an earlier one is open, and
    completes when its turn comes; the team is asked only at the start of the Action phase (and
    on `ask`), its prompt naming no phase; a Chestburster drawn kills and enters the Combat Zone
    as an enemy."""

    engine_version = "alien-2"
    __slots__ = ()

    def _objective_open(self, k: int) -> bool:
        return not self.s.met[k]

    def _fightable(self, card_id: str) -> bool:
        c = self.hive_card(card_id)
        return c.is_enemy and self.s.attack >= c.attack

    def _phase_ask(self) -> list[int]:
        return []  # no ask in the Hive or the Strike phase: they pass straight through

    def _ask_prompt(self) -> str:
        return f"coordinate a card for seat {self.s.current}?"

    def _chestburster(self, seat: int, card_id: str) -> None:
        self.s.combat.insert(0, card_id)


#: the content digest alien-1's replays carry: the same content data as `_CONTENT` today (the
#: digest was then taken over the files' bytes, 27084ba takes it over the parsed data)
_ALIEN_1_CONTENT = "e501c165be752b0b"
_CONTENT = "d89f4e1e792b1f48"


class Alien1(Alien2):
    """alien-1: no `ask` (the team is asked once, at the start of the Action phase), and no
    `can_ask` in the state."""

    engine_version = "alien-1"
    __slots__ = ()

    @classmethod
    def new_game(cls, config: Mapping[str, Any], seed: int) -> Self:
        game = super().new_game(config, seed)
        # alien-1 names its content by the old digest; only the data it was taken over will do
        check_content_version(game.s.content_version, _CONTENT)
        game.s.content_version = _ALIEN_1_CONTENT
        return game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        check_content_version(str(data.get("content_version")), _ALIEN_1_CONTENT)
        game = super().from_json({"can_ask": False, **data, "content_version": _CONTENT})
        game.s.content_version = _ALIEN_1_CONTENT
        return game

    def _main_actions(self) -> tuple[Action, ...]:
        return tuple(a for a in super()._main_actions() if a.kind != "ask")

    def to_json(self) -> dict[str, Any]:
        return _alien_1_state(super().to_json())

    def digest(self) -> str:
        return json_digest(_alien_1_state(self.s.json_view()))


def _alien_1_state(view: dict[str, Any]) -> dict[str, Any]:
    """The state as alien-1 wrote it: no `can_ask`."""
    return {k: v for k, v in view.items() if k != "can_ask"}
