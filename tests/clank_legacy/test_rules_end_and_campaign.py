"""Clank! Legacy rules: the checklist's off-the-clock, scoring, campaign (in-game parts) and
observation lines.

Every line has a test here, named after it, with the line (in our words) in its docstring.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.core.game import json_digest
from referee.games.clank_legacy.campaign import CampaignState, MissionReport, new_campaign
from referee.games.clank_legacy.content import default_content
from referee.games.clank_legacy.engine import ClankLegacyGame

from .scenario import (
    act,
    finish_play,
    new_game,
    path_where,
    place,
    player,
    set_hand,
    set_pool,
    space_where,
)

CONTENT = default_content()


def _hq_neighbour(game: ClankLegacyGame) -> tuple[int, str]:
    board = game.board
    i = path_where(board, lambda p: board.hq in (p.a, p.b) and p.boots == 1 and not p.monsters)
    path = board.paths[i]
    return i, (path.b if path.a == board.hq else path.a)


def test_escape_to_hq_with_an_artifact_takes_a_mug() -> None:
    """Off the clock: escape by arriving at HQ with an artifact (finish the turn, figure and
    Clank! cubes removed, take a Mug worth 20 points)."""
    game = new_game(2)
    i, near = _hq_neighbour(game)
    place(game, near)
    p = player(game)
    p.artifacts = [10]
    set_hand(game, ["burgle"])
    set_pool(game, boots=1)
    seat = game.s.current
    before = game.score(seat)
    act(game, "move", i, 0)
    assert p.status == "escaped" and p.mug and game.s.clank_area[seat] == 0
    assert game.s.current == seat  # the turn goes on: the card may still be played
    act(game, "play", "burgle")
    assert game.score(seat) == before + 20 + 0  # the Mug (cubes do not count)
    act(game, "end_turn")
    assert game.s.current == 1 - seat


def test_knocked_out_when_health_is_full() -> None:
    """Off the clock: knocked out when the health meter is full; the turn ends."""
    game = new_game(2)
    board = game.board
    i = path_where(board, lambda p: p.monsters >= 1 and p.boots == 1 and not p.canoe and not p.one_way)
    place(game, board.paths[i].a)
    p = player(game)
    p.damage = CONTENT.rules["health"] - 1
    set_hand(game, [])
    set_pool(game, boots=1)
    seat = game.s.current
    act(game, "move", i, 0)
    assert p.status == "knocked_out" and game.s.current == 1 - seat


def test_knocked_out_scores_zero_without_artifact_or_in_danger_zone() -> None:
    """Knocked out: 0 points without an artifact or inside the Danger Zone; otherwise scored."""
    game = new_game(2)
    p = player(game, 0)
    p.status = "knocked_out"
    p.gold = 9
    assert game.score(0) == 0
    p.artifacts = [7]
    place(game, space_where(game.board, lambda s: not s.danger_zone).id, seat=0)
    assert game.score(0) > 0
    place(game, space_where(game.board, lambda s: s.danger_zone).id, seat=0)
    assert game.score(0) == 0


def test_off_the_clock_turn_draws_4_cubes() -> None:
    """An off-the-clock player's turn: Clank! Area cubes into the bag, then draw exactly 4 (6 at
    2 players), dealing damage as usual; they add no Clank! and take none themselves."""
    for players, draw in ((2, 6), (3, 4)):
        game = new_game(players)
        off = (game.s.current + 1) % players
        game.s.players[off].status = "escaped"
        set_hand(game, [])
        act(game, "end_turn")
        attack = game.s.last_attack
        assert attack["reason"] == f"off the clock: seat {off}" and attack["cubes"] == draw
        assert game.s.players[off].damage == 0  # its own cubes drawn hurt nobody
        game.s.current = off
        game._add_clank(off, 3)
        assert game.s.clank_area[off] == 0  # off the clock: no Clank! added


def test_bag_empty_after_an_attack_ends_the_game() -> None:
    """Dragon attack: if the bag is empty after an attack, the game ends at once and everyone
    still playing is knocked out."""
    game = new_game(3)
    seat = game.s.current
    off, other = (seat + 1) % 3, (seat + 2) % 3
    game.s.bag_black = 2
    game.s.players[off].status = "escaped"
    game.s.clank_area = [0, 0, 0]
    set_hand(game, [])
    act(game, "end_turn")  # `off`'s turn draws the last 2 cubes
    assert game.s.end_reason == "bag_empty"
    assert game.s.players[seat].status == "knocked_out" and game.s.players[other].status == "knocked_out"
    assert game.s.phase in ("epilogue", "over")


def test_scoring_cards_artifact_tokens_mug_gold() -> None:
    """Scoring: card points, artifact value (0 without one), tokens incl. the Mug, gold."""
    game = new_game(2)
    p = player(game, 0)
    p.status = "escaped"
    p.mug = True
    p.deck, p.hand, p.discard = ["mysterious_tome"], [], []
    p.artifacts = [15]
    p.kept_secrets = ["gilded_trophy"]
    p.items = ["lucky_badge"]
    p.gold = 4
    assert game.score(0) == 7 + 15 + 7 + 8 + 20 + 4


def test_tie_broken_by_most_valuable_artifact() -> None:
    """Tie: the most valuable artifact wins."""
    game = new_game(2)
    for seat, (artifact, gold) in enumerate(((10, 20), (20, 10))):
        p = player(game, seat)
        p.status = "escaped"
        p.deck, p.hand, p.discard = [], [], []
        p.artifacts = [artifact]
        p.gold = gold
    game.s.phase = "over"
    result = game.result()
    assert result.scores[0] == result.scores[1]
    assert result.places == (2, 1)


def test_epilogue_group_vote_majority_and_campaign_after() -> None:
    """Campaign: group decisions are seat decisions (each seat votes in turn, the majority wins);
    the Epilogue resolves at game end and its choice is in the campaign state after the game."""
    game = new_game(3)
    finish_play(game)
    votes = []
    while not game.is_over():
        d = game.decision()
        assert d is not None and d.kind == "vote"
        # a voter sees the votes cast before its own, in seat order
        assert game.observe(d.seat)["pending"]["votes"] == [0, 1][: len(votes)]
        votes.append(d.seat)
        act(game, "vote", 1 if d.seat != 0 else 0)
    assert votes == [0, 1, 2]
    after = game.campaign_after()
    assert after.abilities == ("petty_cash",)  # option 1 of passage 151
    assert after.next_prologue == 102 and after.game_index == 2
    assert game.s.choices == [1]


def test_group_vote_tie_goes_to_the_mvp() -> None:
    """Campaign: ties in group decisions are broken by the game's MVP."""
    for mvp_choice in (0, 1):
        game = new_game(2)
        game.s.players[1].gold = 50  # seat 1 will be the MVP
        finish_play(game)
        assert game.s.mvp == 1
        act(game, "vote", 1 - mvp_choice)
        act(game, "vote", mvp_choice)
        assert game.s.choices == [mvp_choice]


def test_mission_report_and_employee_review() -> None:
    """End of each game: fill the Mission Report; Employee Reviews: the MVP and every escaped
    player earn a Checkmark."""
    game = new_game(2)
    game.s.players[1].gold = 50
    finish_play(game)
    act(game, "vote", 0)
    act(game, "vote", 0)
    after = game.campaign_after()
    report = after.reports[-1]
    assert isinstance(report, MissionReport)
    assert report.game_index == 1 and report.prologue == 101 and report.epilogue == 151
    assert report.mvp == 1 and set(report.escaped) == {0, 1}
    assert report.state_before == json_digest(game.s.campaign)
    assert after.checkmarks == (1, 1)


def test_campaign_after_is_a_pure_function_of_state_seed_actions() -> None:
    """A campaign can be resumed after any game; game k is reproducible from the campaign state
    before it plus its seed and actions."""
    start = new_campaign(2)
    digests = []
    for _ in range(2):
        game = new_game(2, seed=11, campaign=start)
        from .scenario import play_out

        play_out(game, seed=5)
        digests.append(game.campaign_after().digest())
        resumed = CampaignState.from_json(game.campaign_after().to_json())
        assert resumed.digest() == digests[-1]
    assert digests[0] == digests[1]
    nxt = new_game(2, seed=1, campaign=CampaignState.from_json(game.campaign_after().to_json()))
    assert nxt.s.prologue == CampaignState.from_json(game.campaign_after().to_json()).next_prologue


def test_observation_holds_campaign_contracts_patron_never_bank() -> None:
    """What a seat may observe: as in Clank! plus the campaign state, Contracts and Patron
    (public); the Bank's face-down tokens and other players' hands never."""
    game = new_game(3)
    obs = game.observe(1)
    assert obs["campaign"] == game.s.campaign and obs["contracts"] == ["courier_run"]
    assert obs["patrons"] == ["lantern_duchess"]
    assert obs["bank"] == {"minor_secrets": len(game.s.bank_minor), "major_secrets": len(game.s.bank_major)}
    assert obs["you"]["hand"] == game.s.players[1].hand
    for seat in range(3):
        for k in range(5):
            assert game.hidden_variant(seat, k).observe(seat) == game.observe(seat)
    variant = game.hidden_variant(1, 3)
    assert (variant.s.bank_minor, variant.s.players[0].hand) != (game.s.bank_minor, game.s.players[0].hand)


def test_prologue_vote_tie_goes_to_previous_mvp() -> None:
    """Campaign: a group decision in a Prologue is voted by every seat; a tie goes to the
    previous game's MVP (seat 0 in game 1)."""
    game = new_game(2)
    report = MissionReport(1, 101, 151, 1, (1, 9), (), (0, 1), 1, (0,), "x" * 32, "side_a")
    game.s.campaign = replace(new_campaign(2), reports=(report,), game_index=2, next_prologue=102).to_json()
    game.s.phase = "prologue"
    assert game._count_votes([0, 1], [0, 1], 2) == 1
    assert game._count_votes([0, 1], [1, 0], 2) == 0
    assert game._count_votes([0, 1], [1, 1], 2) == 1  # a majority needs no tie-break
    first = new_game(2)
    first.s.phase = "prologue"
    assert first._count_votes([0, 1], [1, 0], 2) == 1  # game 1: seat 0's vote


def test_forfeit_knocks_out_on_the_clock_and_keeps_earned_points_off_it() -> None:
    """Forfeit (referee ruling): an employee on the clock is knocked out and scores 0, its turn
    ends; one already escaped keeps what it earned."""
    game = new_game(3)
    seat = game.s.current
    game.forfeit(seat)
    assert game.s.players[seat].status == "knocked_out" and game.s.players[seat].forfeited
    assert game.s.current == (seat + 1) % 3 and game.score(seat) == 0
    escaped = (seat + 2) % 3
    p = player(game, escaped)
    p.status, p.mug, p.gold = "escaped", True, 5
    game.forfeit(escaped)
    assert not p.forfeited and game.score(escaped) == 25


def test_bag_empty_after_the_end_of_turn_attack_ends_the_game() -> None:
    """Dragon attack: the end-of-turn attack (a new card with the symbol) that empties the bag
    ends the game at once: everyone still playing is knocked out, the next player never moves."""
    game = new_game(2)
    symbol = next(
        c for c in CONTENT.adventure if CONTENT.cards[c].kind != "event" and CONTENT.cards[c].dragon_attack
    )
    game.s.row[0] = None
    game.s.adventure_deck.append(symbol)
    game.s.bag_black = 1
    game.s.clank_area = [0, 0]
    set_hand(game, [])
    seat = game.s.current
    act(game, "end_turn")
    assert game.s.end_reason == "bag_empty" and game.s.last_attack["reason"] == "refill"
    assert [p.status for p in game.s.players] == ["knocked_out", "knocked_out"]
    assert game.s.current == seat


def test_prologue_group_vote_happens_before_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    """Setup: the Prologue is read first; a group decision in it is voted by every seat in seat
    order (real decisions), and the board is set up on the side the vote chose."""
    from referee.core.effects import Effect
    from referee.games.clank_legacy import engine

    content = default_content()
    choose = Effect(
        op="choose",
        options=(
            (Effect(op="board_side", arg="side_a"),),
            (Effect(op="board_side", arg="side_b"), Effect(op="grant_contract", arg="fruit_delivery")),
        ),
    )
    passages = dict(content.passages)
    passages[101] = replace(passages[101], effects=(choose,))
    monkeypatch.setattr(engine, "default_content", lambda: replace(content, passages=passages))
    game = new_game(3)
    assert game.s.phase == "prologue" and game.s.board == ""
    seats = []
    for vote in (1, 0, 1):
        d = game.decision()
        assert d is not None and d.kind == "vote"
        seats.append(d.seat)
        act(game, "vote", vote)
    assert seats == [0, 1, 2]
    assert game.s.phase == "play" and game.s.board == "side_b" and game.s.choices == [1]
    assert game.s.contracts == ["fruit_delivery"]
    assert all(p.space == game.board.hq and len(p.hand) == 5 for p in game.s.players)
