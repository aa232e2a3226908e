"""The shared parts of the Clank! greedy bots (referee/games/clank_core/greedy.py)."""

from __future__ import annotations

from referee.core.effects import Effect
from referee.core.game import Action
from referee.games.clank_core.greedy import (
    RESOURCE_VALUE,
    GreedyBot,
    by_kind,
    distances_to,
    effects_value,
    preferred,
)


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


def test_distances_to_finds_the_cheapest_way_over_one_way_steps() -> None:
    """Costs are to the target, over the steps the game offers into each place: a cheap detour
    beats a dear direct step, a place with no way in is left out, a one-way step counts only
    in its direction."""
    into = {  # place -> (prev, step cost): from prev one steps into place
        "exit": [("hall", 5.0), ("side", 1.0)],
        "side": [("hall", 1.0)],
        "hall": [("cellar", 2.0)],
        "cellar": [],
    }
    dist = distances_to("exit", lambda d, place: ((prev, d + c) for prev, c in into.get(place, [])))
    assert dist == {"exit": 0.0, "side": 1.0, "hall": 2.0, "cellar": 4.0}
    assert "island" not in dist


class _Bot(GreedyBot):
    """The frame with the game's parts stubbed: wants artifacts, its turn finds nothing."""

    def _effects_value(self, effects: object) -> float:
        return 0.0

    def _wanted_tokens(self, me: dict[str, object]) -> tuple[str, ...]:
        return ("artifact",)

    def _turn(self, obs: object, legal_actions: object, kinds: object, me: object) -> int:
        return -1


def test_the_frame_takes_wanted_tokens_then_drinks_when_hurt_then_ends_the_turn() -> None:
    """After the opening (nothing pending, no card to play): a wanted token first, then a potion
    at 2 damage or more, and when the game's turn finds nothing, the end of the turn."""
    actions = [
        Action("end_turn", (), "end the turn"),
        Action("drink", ("potion",), "drink"),
        Action("take", ("artifact",), "take the artifact here"),
    ]
    obs = {"seat": 0, "players": [{"damage": 2}], "pending": None}
    assert _Bot().act(obs, actions) == 2
    assert _Bot().act(obs, actions[:2]) == 1
    assert _Bot().act({**obs, "players": [{"damage": 1}]}, actions[:2]) == 0
