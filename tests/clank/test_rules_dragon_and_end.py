"""Clank! rules: the dragon attack, finishing and the countdown, scoring and ties, observations.

Each test names a line of the rules checklist (`docs/rules/clank.md`, sections "Dragon attack",
"Finishing and the countdown", "Scoring and ties", "What a seat may observe"). Situations are
arranged by editing the state (see `scenario_tools`), then played through the public API.
Bags that hold only one colour make the dragon's random draw fully predictable.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ladder.elo import rating_deltas
from referee.core.conformance import ConformanceError, check_no_hidden_leak
from referee.core.game import canonical_json
from referee.games.clank import observation
from referee.games.clank.engine import ClankGame
from tests.clank.scenario_tools import (
    ESCAPED,
    KNOCKED_OUT,
    PLAYING,
    act,
    arranged,
    card_where,
    discard_hand,
    end_turn,
    escape,
    make_game,
    move,
    plain_card,
    quiet_dragon,
)

CONFIG_2P = {"players": 2, "board": "side_a"}


# --- helpers of this module ---------------------------------------------------------------------


def cubes_total(game: ClankGame, seat: int) -> int:
    """Every cube of `seat` is in its supply, the Clank! Area, the bag or on its Health Meter."""
    s = game.s
    return s.players[seat].supply + s.clank_area[seat] + s.bag_cubes[seat] + s.players[seat].damage


def put_in_clank_area(game: ClankGame, seat: int, n: int) -> None:
    game.s.clank_area[seat] += n
    game.s.players[seat].supply -= n
    arranged(game)


def put_in_bag(game: ClankGame, seat: int, n: int) -> None:
    game.s.bag_cubes[seat] += n
    game.s.players[seat].supply -= n
    arranged(game)


def refill_reveals(game: ClankGame, *cards: str) -> None:
    """End the current turn so that the refill reveals `cards` (one empty row slot per card).

    Slots are emptied through the public API: the current player acquires plain cards from the
    first slots with Skill given to it; the revealed cards are put on top of the dungeon deck.
    """
    s = game.s
    plain = plain_card(game)
    for slot in range(len(cards)):
        s.row[slot] = plain
    s.dungeon_deck.extend(reversed(cards))  # the deck is drawn from its end
    s.pool.skill = game.card(plain).cost * len(cards)
    discard_hand(game, s.current)
    for slot in range(len(cards)):
        act(game, "acquire", slot)
    act(game, "end_turn")


def quiet_dragon_card(game: ClankGame) -> str:
    """A card showing the Dragon Attack symbol with no Danger and no Arrive effect."""
    return card_where(game, lambda c: c.dragon_attack and not c.danger and not c.arrive and c.kind == "card")


def danger_card(game: ClankGame) -> str:
    """A Danger card without the Dragon Attack symbol or an Arrive effect."""
    return card_where(game, lambda c: c.danger and not c.dragon_attack and not c.arrive)


def start_neighbour(game: ClankGame) -> str:
    """A room one plain Boot away from the start space."""
    board = game.board
    for t in board.tunnels:
        if board.start in (t.a, t.b) and t.boots == 1 and not (t.monsters or t.locked or t.one_way):
            return t.b if t.a == board.start else t.a
    raise AssertionError("no plain tunnel into the start space")


def monster_tunnel(game: ClankGame, *, depths: bool) -> tuple[str, str]:
    """(from, to) of a 1-Boot, 1-damage monster tunnel with both ends in (or out of) the Depths."""
    board = game.board
    for t in board.tunnels:
        plain = t.boots == 1 and t.monsters == 1 and not t.locked and not t.one_way
        if plain and board.rooms[t.a].depths == depths == board.rooms[t.b].depths:
            return t.a, t.b
    raise AssertionError("no such monster tunnel")


def knock_out_in_tunnel(game: ClankGame, *, depths: bool) -> str:
    """The current player, at 9 damage, crosses a 1-damage monster tunnel without Swords.
    Returns the room it was knocked out in (it stays where it was)."""
    s = game.s
    p = s.players[s.current]
    here, there = monster_tunnel(game, depths=depths)
    p.room = here
    p.damage = game.content.rules["health"] - 1
    p.supply -= p.damage
    s.pool.boots = 1
    discard_hand(game, s.current)
    move(game, there)
    return here


def card_points(game: ClankGame, seat: int) -> int:
    p = game.s.players[seat]
    return sum(game.card(c).points for c in p.deck + p.hand + p.play + p.discard)


# --- Dragon attack ------------------------------------------------------------------------------


@pytest.mark.parametrize("dangers", [0, 1, 2, 3])
def test_dragon_attack_draws_rage_plus_one_per_danger_card(dangers: int) -> None:
    """An attack draws as many cubes as the Rage track shows, plus one per Danger card in the row."""
    game = make_game(2)
    quiet_dragon(game, black=24, rage_draws=3)
    s = game.s
    for slot in range(3, 3 + dangers):
        s.row[slot] = danger_card(game)
    refill_reveals(game, quiet_dragon_card(game))
    assert s.bag_black == 24 - (3 + dangers)
    assert s.last_attack["black"] == 3 + dangers
    assert s.last_attack["reason"] == "refill"


def test_attack_moves_all_clank_area_cubes_to_bag() -> None:
    """Every cube in the Clank! Area goes into the bag before the draw; cubes already there stay."""
    game = make_game(2)
    quiet_dragon(game, black=0, rage_draws=2)
    put_in_clank_area(game, 0, 3)
    put_in_clank_area(game, 1, 2)
    put_in_bag(game, 0, 1)
    refill_reveals(game, quiet_dragon_card(game))
    s = game.s
    assert s.clank_area == [0, 0]
    # 6 coloured cubes were in the bag after the move; 2 were drawn, each onto its owner's meter.
    assert sum(s.bag_cubes) == 4
    assert s.players[0].damage + s.players[1].damage == 2
    assert s.bag_cubes[0] + s.players[0].damage == 4
    assert s.bag_cubes[1] + s.players[1].damage == 2
    assert [cubes_total(game, seat) for seat in (0, 1)] == [30, 30]


def test_black_cubes_set_aside_colored_cubes_damage_owner() -> None:
    """A drawn black cube is set aside and hurts nobody; a drawn coloured cube is 1 damage to its
    owner (it moves onto the owner's Health Meter)."""
    game = make_game(2)
    quiet_dragon(game, black=10, rage_draws=4)
    refill_reveals(game, quiet_dragon_card(game))
    s = game.s
    assert s.bag_black == 6
    assert [p.damage for p in s.players] == [0, 0]

    game = make_game(2)
    quiet_dragon(game, black=0, rage_draws=4)
    put_in_clank_area(game, 1, 5)
    refill_reveals(game, quiet_dragon_card(game))
    s = game.s
    assert [p.damage for p in s.players] == [0, 4]
    assert s.bag_cubes == [0, 1]
    assert s.last_attack["damage"] == [0, 4]
    assert cubes_total(game, 1) == 30


def test_dragon_damage_filling_health_meter_knocks_out() -> None:
    """A player whose Health Meter fills during an attack is knocked out; cubes drawn after that
    are removed without further damage."""
    game = make_game(3)
    quiet_dragon(game, black=0, rage_draws=4)
    s = game.s
    s.players[2].damage = 8
    s.players[2].supply -= 8
    put_in_clank_area(game, 2, 5)
    refill_reveals(game, quiet_dragon_card(game))
    assert s.current == 1  # seat 2's countdown turn has not come yet: no second attack
    assert s.players[2].status == KNOCKED_OUT
    assert s.players[2].damage == 10
    assert s.bag_cubes[2] == 1
    assert (s.countdown, s.countdown_seat) == (0, 2)


def test_finished_players_cubes_removed_without_damage() -> None:
    """Cubes of a player who escaped or was knocked out are removed when drawn, dealing no damage."""
    game = make_game(3)
    quiet_dragon(game, black=0, rage_draws=3)
    escape(game, 2, game.content.artifacts[0])
    put_in_bag(game, 2, 6)
    refill_reveals(game, quiet_dragon_card(game))
    s = game.s
    assert s.last_attack["reason"] == "refill"
    assert s.bag_cubes == [0, 0, 3]
    assert [p.damage for p in s.players] == [0, 0, 0]
    assert s.players[2].status == ESCAPED


def test_empty_bag_draws_nothing_more() -> None:
    """When the bag runs out during an attack, the attack simply draws nothing more."""
    game = make_game(2)
    quiet_dragon(game, black=1, rage_draws=2)
    game.s.row[5] = danger_card(game)
    refill_reveals(game, quiet_dragon_card(game))
    s = game.s
    assert s.bag_black == 0
    assert s.last_attack["black"] == 1
    assert [p.damage for p in s.players] == [0, 0]
    d = game.decision()
    assert d is not None and d.seat == 1


# --- Finishing and the countdown ----------------------------------------------------------------


def test_escape_with_artifact_through_start_gives_mastery_20() -> None:
    """Leaving through the start space with an artifact escapes and earns a 20-point Mastery token."""
    game = make_game(2)
    s = game.s
    artifact = game.content.artifacts[0]
    p = s.players[0]
    p.room = start_neighbour(game)
    p.artifacts = [artifact]
    p.gold = 0
    s.pool.boots = 1
    discard_hand(game, 0)
    move(game, game.board.start)
    assert p.status == ESCAPED
    assert p.mastery is True
    assert s.mastery_left == 1
    assert game.score(0) == artifact + 20 + card_points(game, 0)
    assert game.outcome(0) == "escaped"
    d = game.decision()
    assert d is not None and d.seat == 1  # escaping ends the turn


def test_entering_start_without_artifact_does_not_escape() -> None:
    """Without an artifact the start space is just a room: no escape, no Mastery token."""
    game = make_game(2)
    s = game.s
    p = s.players[0]
    p.room = start_neighbour(game)
    s.pool.boots = 1
    discard_hand(game, 0)
    move(game, game.board.start)
    assert p.status == PLAYING
    assert p.mastery is False
    assert s.mastery_left == 2
    assert s.countdown == -1
    d = game.decision()
    assert d is not None and d.seat == 0


@pytest.mark.parametrize(("damage_before", "knocked_out"), [(8, False), (9, True)])
def test_knocked_out_when_health_meter_fills(damage_before: int, knocked_out: bool) -> None:
    """A player is knocked out exactly when the 10-space Health Meter fills, not before."""
    game = make_game(2)
    s = game.s
    here, there = monster_tunnel(game, depths=False)
    p = s.players[0]
    p.room = here
    p.damage = damage_before
    p.supply -= damage_before
    s.pool.boots = 1
    arranged(game)
    move(game, there)
    assert p.damage == damage_before + 1
    assert (p.status == KNOCKED_OUT) is knocked_out
    assert p.room == (here if knocked_out else there)


def test_knocked_out_with_artifact_outside_depths_is_rescued() -> None:
    """A knocked-out player carrying an artifact outside the Depths is rescued and scores normally
    (but earns no Mastery token)."""
    game = make_game(2)
    s = game.s
    escape(game, 1, game.content.artifacts[3])
    mine = game.content.artifacts[1]
    s.players[0].artifacts = [mine]
    s.players[0].gold = 3
    room = knock_out_in_tunnel(game, depths=False)
    assert not game.board.rooms[room].depths
    assert game.is_over()
    result = game.result()
    assert result.outcomes == ("rescued", "escaped")
    assert result.scores[0] == mine + 3 + card_points(game, 0)
    assert s.players[0].mastery is False


def test_knocked_out_in_depths_scores_zero() -> None:
    """A player knocked out in the Depths scores 0 points, whatever they carry."""
    game = make_game(2)
    s = game.s
    escape(game, 1, game.content.artifacts[3])
    s.players[0].artifacts = [game.content.artifacts[5]]
    s.players[0].gold = 12
    room = knock_out_in_tunnel(game, depths=True)
    assert game.board.rooms[room].depths
    result = game.result()
    assert result.outcomes == ("knocked_out", "escaped")
    assert result.scores[0] == 0
    assert result.places == (2, 1)


def test_knocked_out_without_artifact_scores_zero() -> None:
    """A player knocked out without an artifact scores 0, even outside the Depths."""
    game = make_game(2)
    s = game.s
    escape(game, 1, game.content.artifacts[0])
    s.players[0].gold = 12
    knock_out_in_tunnel(game, depths=False)
    result = game.result()
    assert result.outcomes == ("knocked_out", "escaped")
    assert result.scores[0] == 0


def test_first_player_to_finish_starts_countdown() -> None:
    """The first player to escape or be knocked out puts their pawn on the Countdown track;
    later finishers do not move it."""
    game = make_game(3)
    s = game.s
    assert s.countdown == -1
    s.players[0].room = start_neighbour(game)
    s.players[0].artifacts = [game.content.artifacts[0]]
    s.pool.boots = 1
    discard_hand(game, 0)
    move(game, game.board.start)
    assert (s.countdown, s.countdown_seat) == (0, 0)
    assert s.current == 1
    knock_out_in_tunnel(game, depths=True)
    assert s.players[1].status == KNOCKED_OUT
    assert (s.countdown, s.countdown_seat) == (0, 0)


def test_knocked_out_first_also_starts_countdown() -> None:
    """Being knocked out first (not only escaping) starts the countdown."""
    game = make_game(3)
    knock_out_in_tunnel(game, depths=False)
    assert (game.s.countdown, game.s.countdown_seat) == (0, 0)


def test_countdown_advances_one_space_on_each_later_turn_of_first_finisher() -> None:
    """The countdown pawn advances exactly one space each time its owner's turn comes round."""
    game = make_game(3)
    quiet_dragon(game, black=24)
    escape(game, 0, game.content.artifacts[0])
    s = game.s
    s.current = 1
    arranged(game)
    end_turn(game)  # seat 1 -> seat 2: the finisher's turn has not come yet
    assert (s.countdown, s.current) == (0, 2)
    end_turn(game)  # seat 2 -> (seat 0: countdown) -> seat 1
    assert (s.countdown, s.current) == (1, 1)
    end_turn(game)
    end_turn(game)
    assert (s.countdown, s.current) == (2, 1)


def test_countdown_spaces_1_to_4_attack_with_extra_cubes() -> None:
    """Countdown spaces 1, 2, 3 and 4 each make a dragon attack drawing 1, 2, 3, 4 extra cubes."""
    game = make_game(2)
    quiet_dragon(game, black=24, rage_draws=2)
    escape(game, 1, game.content.artifacts[0])
    s = game.s
    black = 24
    for space, extra in zip(range(1, 5), (1, 2, 3, 4), strict=True):
        end_turn(game)
        assert s.countdown == space
        assert s.last_attack["reason"] == f"countdown {space}"
        black -= 2 + extra
        assert s.bag_black == black
        assert s.current == 0
    assert black == 6


def test_countdown_space_5_knocks_out_everyone_left() -> None:
    """Reaching countdown space 5 knocks out every player still in the dungeon and ends the game;
    the usual rescue rule then decides who scores."""
    game = make_game(3)
    quiet_dragon(game, black=24)
    s = game.s
    escape(game, 1, game.content.artifacts[4])
    s.countdown = 4
    safe = next(r.id for r in game.board.rooms.values() if not r.depths and r.id != game.board.start)
    deep = next(r.id for r in game.board.rooms.values() if r.depths)
    s.players[0].room, s.players[0].artifacts = safe, [game.content.artifacts[0]]
    s.players[2].room, s.players[2].artifacts = deep, [game.content.artifacts[2]]
    arranged(game)
    end_turn(game)
    assert s.countdown == 5
    assert [p.status for p in s.players] == [KNOCKED_OUT, ESCAPED, KNOCKED_OUT]
    assert s.bag_black == 24  # space 5 is no attack
    assert game.is_over()
    assert game.decision() is None
    result = game.result()
    assert result.outcomes == ("rescued", "escaped", "knocked_out")
    assert result.scores == (game.content.artifacts[0], game.content.artifacts[4] + 20, 0)


def test_finished_players_take_no_turns_and_add_no_clank() -> None:
    """Escaped and knocked-out players are skipped in turn order and effects that make every
    player add Clank! leave them out."""
    game = make_game(4)
    s = game.s
    quiet_dragon(game, black=24)
    # seat 3 finished first (countdown pawn), seat 1 escaped later
    s.players[3].status = KNOCKED_OUT
    s.countdown, s.countdown_seat = 0, 3
    escape(game, 1, game.content.artifacts[0])
    everyone = card_where(game, lambda c: any(e.op == "clank_all" for e in c.arrive) and not c.dragon_attack)
    n = next(e.n for e in game.card(everyone).arrive if e.op == "clank_all")
    supply = [p.supply for p in s.players]
    refill_reveals(game, everyone)
    assert s.current == 2  # seat 1 was skipped
    assert s.clank_area == [n, 0, n, 0]
    assert [p.supply for p in s.players] == [supply[0] - n, supply[1], supply[2] - n, supply[3]]
    end_turn(game)  # seat 2 -> seat 3 (countdown moves, no turn) -> seat 0
    assert s.current == 0
    assert s.countdown == 1


def test_game_ends_when_everyone_finished() -> None:
    """The game goes on while anyone is still in the dungeon and ends when all have finished."""
    game = make_game(3)
    s = game.s
    escape(game, 1, game.content.artifacts[0])
    s.players[2].status = KNOCKED_OUT
    s.players[0].room = start_neighbour(game)
    s.players[0].artifacts = [game.content.artifacts[1]]
    s.pool.boots = 1
    discard_hand(game, 0)
    assert not game.is_over()
    move(game, game.board.start)
    assert game.is_over()
    assert game.decision() is None
    assert game.result().outcomes == ("escaped", "escaped", "knocked_out")


def test_game_goes_on_while_one_player_remains() -> None:
    """One player still in the dungeon keeps playing turns after the others finished."""
    game = make_game(3)
    quiet_dragon(game, black=24)
    escape(game, 1, game.content.artifacts[0])
    game.s.players[2].status = KNOCKED_OUT
    arranged(game)
    end_turn(game)
    assert not game.is_over()
    d = game.decision()
    assert d is not None and d.seat == 0 and d.kind == "turn"


def test_forfeit_counts_as_knocked_out_in_depths() -> None:
    """A forfeited seat is knocked out as if in the Depths: it scores zero even with an artifact
    outside the Depths; if it was its turn, play passes on."""
    game = make_game(2)
    s = game.s
    safe = next(r.id for r in game.board.rooms.values() if not r.depths and r.id != game.board.start)
    s.players[0].room = safe
    s.players[0].artifacts = [game.content.artifacts[6]]
    s.players[0].gold = 9
    arranged(game)
    game.forfeit(0)
    assert s.players[0].status == KNOCKED_OUT
    assert game.outcome(0) == "forfeited"
    assert game.score(0) == 0
    assert (s.countdown, s.countdown_seat) == (0, 0)
    d = game.decision()
    assert d is not None and d.seat == 1
    game.forfeit(1)
    assert game.is_over()
    result = game.result()
    assert result.scores == (0, 0)
    assert result.outcomes == ("forfeited", "forfeited")
    assert result.places == (1, 1)


def test_forfeit_of_waiting_seat_keeps_current_turn() -> None:
    """Forfeiting a seat that is not to act knocks it out and leaves the current turn alone."""
    game = make_game(3)
    game.forfeit(2)
    assert game.s.players[2].status == KNOCKED_OUT
    d = game.decision()
    assert d is not None and d.seat == 0


# --- Scoring and ties ---------------------------------------------------------------------------


def test_score_counts_cards_artifacts_tokens_gold_mastery() -> None:
    """Score = points on artifacts and other tokens (idols, crowns, kept secrets) + 1 per gold +
    points printed on every card the player owns (deck, hand, play area, discard) + 20 Mastery."""
    game = make_game(2)
    s = game.s
    rules = game.content.rules
    pointed = sorted(c for c in set(game.content.dungeon) if game.card(c).points > 0)
    assert len(pointed) >= 3
    tome = next(c for c in game.content.reserve if game.card(c).points > 0)
    secret = sorted(x.id for x in game.content.secrets.values() if x.points > 0)[0]
    p = s.players[0]
    p.deck.append(pointed[0])
    p.hand.append(pointed[1])
    p.play.append(pointed[2])
    p.discard.append(tome)
    p.items = ["backpack", "crown"]
    p.crown_points = rules["crown_points"][0]
    p.idols = 1
    p.kept_secrets = [secret]
    p.gold = 13
    escape(game, 0, game.content.artifacts[2])
    p.artifacts.append(game.content.artifacts[0])
    expected = (
        sum(game.card(c).points for c in (*pointed[:3], tome))
        + game.content.artifacts[2]
        + game.content.artifacts[0]
        + 13
        + rules["crown_points"][0]
        + rules["idol_points"]
        + game.content.secrets[secret].points
        + 20
    )
    assert game.score(0) == expected
    p.mastery = False
    assert game.score(0) == expected - 20


def test_score_counts_points_on_starting_cards() -> None:
    """Points printed on starting cards count like any other card's (checked by giving the Burgle
    card a point in a copy of the content)."""
    game = make_game(2)
    baseline = game.score(0)
    first = game.content.starting[0]
    copies = game.content.starting.count(first)
    cards = dict(game.content.cards)
    cards[first] = dataclasses.replace(cards[first], points=1)
    game.content = dataclasses.replace(game.content, cards=cards)
    assert game.score(0) == baseline + copies


def test_tie_broken_by_more_valuable_artifact() -> None:
    """Equal scores: the tied player with the more valuable artifact places ahead."""
    game = make_game(2)
    s = game.s
    low, high = game.content.artifacts[0], game.content.artifacts[3]
    escape(game, 1, high)
    s.players[0].room = start_neighbour(game)
    s.players[0].artifacts = [low]
    s.players[0].gold = high - low
    s.pool.boots = 1
    discard_hand(game, 0)
    move(game, game.board.start)
    result = game.result()
    assert result.scores == (high + 20, high + 20)
    assert result.places == (2, 1)


def test_tie_still_equal_is_shared_place() -> None:
    """Equal scores and no artifact to tell them apart: the players share the place, and the
    next place is skipped."""
    game = make_game(3)
    s = game.s
    escape(game, 0, game.content.artifacts[0])
    s.players[1].status = KNOCKED_OUT  # without an artifact: 0 points
    s.current = 2
    arranged(game)
    knock_out_in_tunnel(game, depths=False)  # seat 2, no artifact: 0 points
    result = game.result()
    assert result.scores == (game.content.artifacts[0] + 20, 0, 0)
    assert result.places == (1, 2, 2)


def test_ladder_ranks_from_places_shared_places_are_draws() -> None:
    """The ladder rates a match by final placing; players sharing a place score a draw."""
    game = make_game(3)
    s = game.s
    escape(game, 0, game.content.artifacts[0])
    s.players[1].status = KNOCKED_OUT
    s.current = 2
    arranged(game)
    knock_out_in_tunnel(game, depths=False)
    places = game.result().places
    assert places == (1, 2, 2)
    # equal ratings and K 20: winner +20/2*(0.5+0.5); the two sharing place 2 get (-0.5+0)*10
    assert rating_deltas([1500.0] * 3, places, [20.0] * 3) == pytest.approx((10.0, -5.0, -5.0))


# --- What a seat may observe --------------------------------------------------------------------


def test_observation_shows_public_information() -> None:
    """Everyone sees pawns, face-up tokens, the row, reserve counts, discard piles, the Clank!
    Area, the bag by colour, Rage, countdown, health, gold, items, artifacts carried, and deck and
    hand sizes of every player."""
    game = make_game(2)
    s = game.s
    other = s.players[1]
    other.gold, other.items, other.artifacts, other.damage = 4, ["backpack"], [7], 3
    other.discard = [plain_card(game)]
    other.deck = other.deck[:2]  # a deck size unlike the hand size (5)
    s.bag_black, s.bag_cubes, s.clank_area = 20, [1, 2], [3, 4]
    s.countdown, s.countdown_seat = 2, 1
    arranged(game)
    obs = game.observe(0)
    them = obs["players"][1]
    assert them["room"] == other.room
    assert (them["gold"], them["items"], them["artifacts"]) == (4, ["backpack"], [7])
    assert them["health"] == game.content.rules["health"] - 3
    assert them["discard"] == [plain_card(game)]
    assert (them["hand_size"], them["deck_size"]) == (len(other.hand), len(other.deck))
    assert (them["clank_area"], them["bag_cubes"]) == (4, 2)
    assert obs["bag"] == {"black": 20, "cubes": [1, 2]}
    assert obs["clank_area"] == [3, 4]
    assert (obs["rage"], obs["countdown"], obs["countdown_seat"]) == (s.rage, 2, 1)
    assert obs["row"] == s.row
    assert obs["reserve"] == s.reserve
    assert obs["artifacts"] == s.artifacts
    assert obs["idols"] == s.idols
    assert obs["market"] == s.market
    assert obs["dungeon_deck_size"] == len(s.dungeon_deck)


def test_observation_shows_own_hand_and_play_area() -> None:
    """A seat sees its own hand and play area."""
    game = make_game(2)
    p = game.s.players[0]
    card = p.hand[0]
    act(game, "play", card)
    obs = game.observe(0)
    assert sorted(obs["you"]["hand"]) == sorted(p.hand)
    assert obs["players"][0]["play"] == [card]
    assert game.observe(1)["you"]["hand"] == game.s.players[1].hand


def test_observation_hides_other_hands_deck_order_secrets_returned_artifacts() -> None:
    """Never visible: another player's hand, any deck order (even one's own), the face-down
    secrets, the returned artifacts, the dungeon deck's order and contents."""
    game = make_game(2)
    s = game.s
    seen = canonical_json(game.observe(0))
    other = s.players[1]
    # another hand: swap seat 1's hand for other cards of the same count
    other.hand = [plain_card(game)] * len(other.hand)
    # deck orders: own and other's
    s.players[0].deck.reverse()
    other.deck = [card_where(game, lambda c: c.points > 0)] * len(other.deck)
    # dungeon deck: different order and contents, same size
    s.dungeon_deck = [plain_card(game)] * len(s.dungeon_deck)
    # face-down secrets: every face-down secret becomes another one
    minor = sorted(x.id for x in game.content.secrets.values() if x.size == "minor")
    major = sorted(x.id for x in game.content.secrets.values() if x.size == "major")
    s.minor_secrets = {r: [minor[-1]] * len(v) for r, v in s.minor_secrets.items()}
    s.major_secrets = {r: [major[-1]] * len(v) for r, v in s.major_secrets.items()}
    s.unused_secrets = [major[0]] * len(s.unused_secrets)
    # returned artifacts and random streams
    s.returned_artifacts = [999, 998]
    s.rng = {name: 12345 for name in s.rng}
    arranged(game)
    assert canonical_json(game.observe(0)) == seen
    assert "returned_artifacts" not in seen
    assert '"dungeon_deck"' not in seen


def test_conformance_leak_check_passes_the_real_observation() -> None:
    """The conformance suite's hidden-information check passes on the engine as it is."""
    assert check_no_hidden_leak(ClankGame, CONFIG_2P, 3, 3) > 0


def test_conformance_leak_check_catches_a_leaked_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the observation leaked another seat's hand, the conformance check would fail."""
    real = observation.observe

    def leaky(game: ClankGame, seat: int) -> dict[str, Any]:
        obs = real(game, seat)
        obs["leak"] = list(game.s.players[(seat + 1) % game.s.players_n].hand)
        return obs

    monkeypatch.setattr(observation, "observe", leaky)
    with pytest.raises(ConformanceError, match="information that seat may not know"):
        check_no_hidden_leak(ClankGame, CONFIG_2P, 3, 3)


def test_forfeit_after_escaping_keeps_the_escaped_score() -> None:
    """A forfeit only removes a seat still in the dungeon: a player who already escaped (and
    then disconnects) keeps the outcome and points earned."""
    from referee.games.clank.engine import ClankGame

    game = ClankGame.new_game({"players": 2, "board": "side_a"}, 3)
    p = game.s.players[1]
    p.status = "escaped"
    p.artifacts = [10]
    p.mastery = True
    before = game.score(1)
    game.forfeit(1)
    assert game.outcome(1) == "escaped"
    assert game.score(1) == before >= 30
