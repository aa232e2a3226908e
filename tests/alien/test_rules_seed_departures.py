"""Alien rules where the engine used to depart from the seed text (issue 10, "Rules").

Source: `shared/seeds/004_d44eb13165421f59.txt`. Each test is named after the seed sentence it
holds the engine to, and fails with the engine's earlier reading (written in each docstring).
"""

from __future__ import annotations

from referee.games.alien.content import AlienContent
from referee.games.alien.engine import AlienGame
from tests.alien.conftest import (
    act,
    clear_board,
    end_turn,
    legal,
    new_game,
    pass_asks,
    refresh,
    set_hand,
    strikes_of,
    to_main,
)


def _boss(game: AlienGame, k: int) -> str:
    o = game.content.objectives[k]
    assert o.condition == "kill"
    return o.card


def test_you_must_complete_them_in_order() -> None:
    """A later Objective's boss cannot be killed while an earlier Objective is current (the kill
    used to be allowed and credited when its Objective came up); once its Objective is current,
    the same kill completes it."""
    game = clear_board(to_main(new_game(1, seed=2)))
    s = game.s
    warden, empress = _boss(game, 1), _boss(game, 2)
    s.combat = [warden, empress]
    s.attack = 99
    refresh(game)
    assert s.objective == 0
    assert not legal(game, "fight"), "a later Objective's boss could be fought out of order"
    relay = game.content.objectives[0]
    s.complex[4] = {"card": relay.card, "up": True}
    refresh(game)
    assert [a.args for a in legal(game, "complete")] == [(0,)]
    act(game, "complete", 0)
    assert s.objective == 1 and s.met == [True, False, False]
    assert [a.args for a in legal(game, "fight")] == [("combat", 0)]  # the Warden, not the Final Enemy
    act(game, "fight", "combat", 0)
    assert s.objective == 2 and not game.is_over()
    act(game, "fight", "combat", 0)
    assert game.is_over() and s.won


def test_during_another_players_turn_you_can_set_aside_a_coordinate_card(content: AlienContent) -> None:
    """Teammates are asked in every phase of another player's turn: in the Strike phase before
    the strikes (here a coordinated heal saves the active player from a lethal strike) and in the
    Hive phase before the Hive card enters (they used to be asked only in the Action phase)."""
    game = clear_board(to_main(new_game(2, seed=4)))
    s = game.s
    set_hand(game, 1, ["sgt_banerjee", "grunt", "grunt", "specialist", "specialist", "specialist"])
    s.players[0].health = 4
    s.players[0].strikes = [strikes_of(content, 1)] * 2
    enemy = next(
        c.id
        for c in content.hive_cards.values()
        if c.kind == "enemy" and c.strikes == 1 and not (c.boss or c.final or c.reveal or c.death)
    )
    s.combat = [enemy]
    s.strike_deck.append(strikes_of(content, 2))  # 2 + 2 = 4: lethal unless healed first
    refresh(game)
    act(game, "end_turn")
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 1 and s.phase == "strike_coordinate"
    assert s.players[0].strikes == [strikes_of(content, 1)] * 2  # no strike yet
    act(game, "coordinate", "sgt_banerjee")  # heal 1, draw 1 for the active player
    act(game, "pass")
    assert s.players[0].status == "alive" and game.damage(0) == 1 + 2
    # seat 1's turn: seat 0 is asked in the Hive phase, before the Hive card enters
    top = s.hive[-1]
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 0 and s.current == 1
    assert s.phase == "hive_coordinate" and s.hive[-1] == top and s.complex[0] is None
    act(game, "pass")
    assert s.complex[0] == {"card": top, "up": False}  # then the Hive card enters
    assert s.phase == "coordinate"  # and the Action phase's ask follows


def test_when_a_player_draws_a_chestburster_they_die_horribly() -> None:
    """Drawing a Chestburster kills the player, and that is all: the card stays with its dead
    host (it used to burst into the Combat Zone as an enemy and strike the next players)."""
    game = clear_board(to_main(new_game(2, seed=4)))
    s = game.s
    s.players[0].deck.append("burster")
    end_turn(game)  # cleanup draws 6: the Chestburster comes first
    assert s.players[0].status == "dead"
    assert s.combat == [] and "burster" not in s.hive_discard
    assert "burster" in s.players[0].discard and s.players[0].hand == []
    assert s.current == 1 and not s.over
    pass_asks(game, "hive_coordinate")
    d = game.decision()
    assert d is not None and d.seat == 1  # seat 0 is dead: nobody is asked any more
