"""Checklist sections "End and scoring" and "What a seat may observe", plus the engine's pinned
safeguards (round limit, forfeit)."""

from __future__ import annotations

from referee.core import conformance as cf
from referee.games.alien import engine as alien_engine
from referee.games.alien.content import AlienContent
from referee.games.alien.engine import AlienGame
from tests.alien.conftest import act, clear_board, end_turn, new_game, refresh, set_hand, strikes_of, to_main


def _final_fight(players: int, dead: tuple[int, ...] = ()) -> AlienGame:
    game = clear_board(to_main(new_game(players, seed=7)))
    s = game.s
    for seat in dead:
        game._die(seat)
    s.objective = 2
    s.met = [True, True, False]
    s.combat = ["brood_empress"]
    s.attack = game.hive_card("brood_empress").attack
    return refresh(game)


def test_players_win_when_objective_3_is_completed_with_at_least_one_alive() -> None:
    game = _final_fight(3, dead=(1,))
    act(game, "fight", "combat", 0)
    assert game.is_over() and game.decision() is None
    r = game.result()
    assert r.team_won is True and r.details["ended_by"] == "objectives"
    assert r.details["objectives_completed"] == 3


def test_players_lose_when_every_player_is_dead(content: AlienContent) -> None:
    game = clear_board(to_main(new_game(2, seed=3)))
    game._die(1)
    s = game.s
    s.players[0].strikes = [strikes_of(content, 1)] * (s.players[0].health - 1)
    s.combat = ["vent_crawler"]
    s.strike_deck.append(strikes_of(content, 1))
    refresh(game)
    act(game, "end_turn")
    assert game.is_over()
    r = game.result()
    assert r.team_won is False and r.details["ended_by"] == "all_dead" and r.scores == (0, 0)


def test_score_lose_0_win_each_player_scores_the_survivors_dead_players_too() -> None:
    game = _final_fight(4, dead=(1, 3))
    act(game, "fight", "combat", 0)
    r = game.result()
    assert r.scores == (2, 2, 2, 2)
    assert r.places == (1, 1, 1, 1)
    assert r.outcomes == ("survived", "died", "survived", "died")


def test_result_records_objectives_completed_turns_and_survivors() -> None:
    game = _final_fight(2)
    act(game, "fight", "combat", 0)
    d = game.result().details
    assert d["objectives_completed"] == 3 and d["turns"] == game.s.turn and d["survivors"] == 2


def test_boss_kill_completes_the_kill_objective() -> None:
    game = clear_board(to_main(new_game(1, seed=2)))
    s = game.s
    s.objective = 1
    s.met = [True, False, False]
    s.complex[2] = {"card": "warden_beast", "up": True}
    s.attack = game.hive_card("warden_beast").attack
    refresh(game)
    act(game, "fight", "room", 2)
    assert s.objective == 2 and not game.is_over()


def test_round_limit_safeguard_ends_the_game_as_a_loss() -> None:
    game = clear_board(to_main(new_game(1, seed=2)))
    game.s.round = alien_engine.ROUND_LIMIT
    game.s.hive = []
    refresh(game)
    act(game, "end_turn")
    assert game.is_over() and game.result().details["ended_by"] == "round_limit"
    assert game.result().team_won is False


def test_forfeit_kills_the_seat_it_scores_0_and_the_turn_passes() -> None:
    game = to_main(new_game(3, seed=5))
    game.forfeit(0)
    assert game.s.players[0].status == "dead" and game.s.current == 1
    d = game.decision()
    assert d is not None and d.seat != 0
    game.forfeit(0)  # twice is harmless
    game2 = _final_fight(3)
    game2.forfeit(2)
    act(game2, "fight", "combat", 0)
    assert game2.result().scores == (2, 2, 0) and game2.result().outcomes[2] == "forfeited"


def test_forfeit_of_a_seat_asked_to_coordinate_drops_its_question() -> None:
    game = clear_board(to_main(new_game(2, seed=5)))
    end_turn(game)  # seat 1's turn begins: seat 0 is asked in its Hive phase
    d = game.decision()
    assert d is not None and d.kind == "coordinate" and d.seat == 0
    game.forfeit(0)
    d = game.decision()
    assert d is not None and d.kind == "turn" and d.seat == 1


# --- What a seat may observe ---------------------------------------------------------------


def test_observation_shows_public_zones_and_only_the_own_hand(content: AlienContent) -> None:
    game = clear_board(to_main(new_game(3, seed=2)))
    s = game.s
    s.complex[0] = {"card": "ravager", "up": False}
    s.complex[1] = {"card": "stalker", "up": True}
    refresh(game)
    obs = game.observe(1)
    assert obs["you"]["hand"] == sorted(s.players[1].hand)
    text = str(obs)
    for key in (
        "hive_size",
        "barracks_size",
        "strike_deck_size",
        "sergeants_size",
        "hatchery_top",
        "hazards_used",
        "objective",
        "hq",
        "combat",
        "facehuggers",
    ):
        assert key in obs
    assert obs["complex"][0] == {"card": None, "up": False} and "ravager" not in text
    assert obs["complex"][1] == {"card": "stalker", "up": True}
    for p in obs["players"]:
        assert {"health", "strikes", "play", "discard", "hand_size"} <= set(p)
        assert "hand" not in p and "deck" not in p
    assert "hive" not in obs and "rng" not in obs


def test_observation_never_depends_on_hidden_information() -> None:
    for players in (1, 3, 5):
        cf.check_no_hidden_leak(AlienGame, AlienGame.default_config(players), 77, 5, samples=10, variants=2)


def test_pending_options_are_shown_only_to_the_deciding_seat() -> None:
    game = clear_board(to_main(new_game(2, seed=2)))
    set_hand(game, 0, ["role_pilot"])
    act(game, "play", "role_pilot")
    assert game.observe(0)["pending"]["kind"] == "choose"
    assert game.observe(1)["pending"] is None and game.observe(1)["to_act"] == {"seat": 0, "kind": "choose"}


def test_observe_all_shows_everything_for_spectators() -> None:
    game = new_game(2, seed=2)
    everything = game.observe_all()
    assert everything["hands"][1] == sorted(game.s.players[1].hand)
    assert everything["hive"] == game.s.hive
    assert game.summarize(game.observe(0))
