"""The shared parts of the Clank! greedy bots (referee/games/clank_core/greedy.py)."""

from __future__ import annotations

from referee.core.effects import Effect
from referee.core.game import Action
from referee.games.clank_core.greedy import RESOURCE_VALUE, by_kind, effects_value, preferred


def test_preferred_takes_the_first_wanted_token_on_offer() -> None:
    """The bot's wish list is read in order: the first wanted one on offer wins, whatever the
    order of the legal actions; nothing wanted on offer (or no such kind) is -1."""
    actions = [
        Action("take", ("minor_secret",), "take the minor secret here"),
        Action("take", ("artifact",), "take the artifact here"),
        Action("end_turn", (), "end the turn"),
    ]
    kinds = by_kind(actions)
    assert preferred(actions, kinds, "take", ("artifact", "minor_secret")) == 1
    assert preferred(actions, kinds, "take", ("major_secret", "minor_secret", "artifact")) == 0
    assert preferred(actions, kinds, "take", ("monkey_idol",)) == -1
    assert preferred(actions, kinds, "buy_item", ("crown",)) == -1


def test_effects_value_counts_zero_amounts_once_only_when_told() -> None:
    """Clank!'s bot values an op by its amount (negative Clank! costs); Legacy's counts an op
    with no amount (gaining an ability) once."""
    clank = (Effect(op="skill", n=2), Effect(op="clank", n=-2))
    assert effects_value(clank, RESOURCE_VALUE, zero_counts_once=False) == 2 * 1.0 + -2 * -0.6
    ability = (Effect(op="gain_ability"),)
    values = {**RESOURCE_VALUE, "gain_ability": 2.0}
    assert effects_value(ability, values, zero_counts_once=True) == 2.0
    assert effects_value(ability, values, zero_counts_once=False) == 0.0
