"""clank_core.determinize.pending_stack: the pending card choice both Clank! games' determinizers
rebuild from an observation, with the card in play that pushed it as its source (what a
`played_tag` condition reads)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from referee.core.effects import Effect, effects_to_json
from referee.games.clank_core.determinize import DeterminizeError, pending_stack

GAIN = (Effect("skill", 1),)
DRAW = (Effect("draw", 1),)
CHOOSE = Effect("choose", options=(GAIN, DRAW))
DISCARD = Effect("discard_for", then=(Effect("swords", 2),))


@dataclass(frozen=True)
class Card:
    play: tuple[Effect, ...]


CARDS = {
    "chooser": Card((CHOOSE,)),
    "hidden_chooser": Card((Effect("if", cond="has_artifact", then=(CHOOSE,)),)),
    "discarder": Card((DISCARD,)),
    "plain": Card(GAIN),
}
CHOICE = {"kind": "choose", "seat": 1, "prompt": "pick one",
          "options": [effects_to_json(o) for o in CHOOSE.options]}


def test_the_source_is_the_latest_card_in_play_that_pushes_the_very_choice() -> None:
    plays = [["chooser"], ["chooser", "hidden_chooser", "plain", "discarder"]]
    assert pending_stack(CHOICE, plays, CARDS) == [{**CHOICE, "source": "hidden_chooser"}]
    discard = {"kind": "discard", "seat": 0, "prompt": "discard", "then": effects_to_json(DISCARD.then)}
    assert pending_stack(discard, [["discarder", "plain"], []], CARDS) == [{**discard, "source": "discarder"}]
    # the same kind with other text, or no card pushing it (a secret, a device): no source
    other = {**discard, "then": effects_to_json((Effect("swords", 3),))}
    assert pending_stack(other, [["discarder"], []], CARDS)[0]["source"] == ""
    assert pending_stack(CHOICE, [[], ["plain"]], CARDS)[0]["source"] == ""


def test_no_choice_a_trash_and_an_unknown_kind() -> None:
    assert pending_stack(None, [[]], CARDS) == []
    trash = {"kind": "trash", "seat": 0, "prompt": "trash a card"}
    assert pending_stack(trash, [["chooser"]], CARDS) == [trash]
    with pytest.raises(DeterminizeError, match="unknown pending choice 'juggle'"):
        pending_stack({"kind": "juggle", "seat": 0, "prompt": ""}, [[]], CARDS)
