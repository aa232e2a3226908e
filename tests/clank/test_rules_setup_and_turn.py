"""Clank! rules: the checklist sections "Components", "Setup" and "A turn".

Every line of those sections of `docs/rules/clank.md` has at least one test here, named after
it, with the line (in our words) in its docstring. Tests build a real game, edit the state into a
precise situation and act through the public API only (see `scenario.py`).
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Callable

import pytest

from referee.core.game import Action, IllegalAction
from referee.games.clank.content import Board, CardDef, Tunnel
from referee.games.clank.engine import ClankGame
from referee.games.clank.state import KNOCKED_OUT, PLAYING, PlayerState

from .scenario import (
    act,
    actions,
    can,
    card_where,
    cards_where,
    new_game,
    only_ops,
    ops,
    place,
    player,
    refresh,
    set_hand,
    set_pool,
    tunnel_where,
)

SIDES = ["side_a", "side_b"]


# --- local helpers ----------------------------------------------------------------------------


def _plain(t: Tunnel) -> bool:
    return t.boots == 1 and t.monsters == 0 and not t.locked and not t.one_way


def _boot_distances(board: Board) -> dict[str, int]:
    """Fewest Boots from the entrance to every room (arrows respected, locks ignored)."""
    dist = {board.start: 0}
    heap = [(0, board.start)]
    while heap:
        d, room = heapq.heappop(heap)
        if d > dist[room]:
            continue
        for i in board.exits[room]:
            nxt = board.other_end(i, room)
            nd = d + board.tunnels[i].boots
            if nd < dist.get(nxt, 1 << 30):
                dist[nxt] = nd
                heapq.heappush(heap, (nd, nxt))
    return dist


def _filler(game: ClankGame) -> CardDef:
    """An ordinary card with no Danger, no Dragon Attack symbol and no Arrive effect."""
    return card_where(
        game,
        lambda c: c.kind == "card" and not c.danger and not c.dragon_attack and not c.arrive,
    )


def _quiet_row(game: ClankGame, empty: int) -> None:
    """A row of harmless filler cards with the first `empty` slots empty."""
    filler = _filler(game).id
    size = game.content.rules["row_size"]
    game.s.row = [None] * empty + [filler] * (size - empty)
    refresh(game)


def _calm(game: ClankGame) -> None:
    """No cubes anywhere but the 24 black ones in the bag; full supplies."""
    s = game.s
    s.clank_area = [0] * s.players_n
    s.bag_cubes = [0] * s.players_n
    s.bag_black = game.content.rules["black_cubes"]
    for p in s.players:
        p.supply = game.content.rules["cubes"]
    refresh(game)


def _end_turn(game: ClankGame) -> None:
    """Empty the hand (as if all were played) and end the turn."""
    set_hand(game, [])
    act(game, "end_turn")


def _row_card(game: ClankGame, card: str, slot: int = 0) -> None:
    game.s.row[slot] = card
    refresh(game)


def _all_cards(p: PlayerState) -> list[str]:
    return p.deck + p.hand + p.play + p.discard


# === Components ===============================================================================


@pytest.mark.parametrize("side", SIDES)
def test_board_graph_with_entrance_depths_and_every_tunnel_kind(side: str) -> None:
    """Board: rooms and tunnels, an entrance above ground, a Depths region, tunnels of 1 or 2
    Boots, monster tunnels with 1-2 damage, locked tunnels and one-way tunnels."""
    game = new_game(4, board=side)
    board = game.board
    assert board.start in board.rooms and not board.rooms[board.start].depths
    assert all(p.room == board.start for p in game.s.players)
    assert any(r.depths for r in board.rooms.values())
    assert {t.boots for t in board.tunnels} == {1, 2}
    assert {t.monsters for t in board.tunnels} == {0, 1, 2}
    assert any(t.locked for t in board.tunnels)
    assert any(t.one_way for t in board.tunnels)
    for t in board.tunnels:
        assert t.a in board.rooms and t.b in board.rooms


@pytest.mark.parametrize("side", SIDES)
def test_board_rooms_crystal_market_secrets_7_artifacts_3_idols(side: str) -> None:
    """Board: crystal caves, market rooms, minor-secret rooms (2 each), major-secret rooms (1
    each), 7 artifact rooms and 3 monkey-idol rooms."""
    game = new_game(4, board=side)
    rooms = list(game.board.rooms.values())
    assert any(r.crystal for r in rooms)
    assert any(r.market for r in rooms)
    minor = [r for r in rooms if r.minor_secrets]
    assert minor and all(r.minor_secrets == 2 for r in minor)
    assert all(len(game.s.minor_secrets[r.id]) == 2 for r in minor)
    major = [r for r in rooms if r.major_secret]
    assert major and all(len(game.s.major_secrets[r.id]) == 1 for r in major)
    assert len([r for r in rooms if r.artifact_rank]) == 7
    assert len([r for r in rooms if r.idol]) == 3


@pytest.mark.parametrize("side", SIDES)
def test_board_pinned_35_to_45_rooms_artifacts_5_to_30_lowest_nearest_deeper_in_depths(
    side: str,
) -> None:
    """Pinned: about 35-45 rooms; artifacts 5, 7, 10, 15, 20, 25, 30, the lowest nearest the
    entrance; the deeper artifacts lie in the Depths."""
    game = new_game(4, board=side)
    board = game.board
    assert 35 <= len(board.rooms) <= 45
    assert sorted(game.s.artifacts.values()) == [5, 7, 10, 15, 20, 25, 30]
    dist = _boot_distances(board)
    by_value = sorted(game.s.artifacts.items(), key=lambda kv: kv[1])
    distances = [dist[room] for room, _ in by_value]
    assert distances == sorted(distances), by_value
    in_depths = [board.rooms[room].depths for room, _ in by_value]
    assert not in_depths[0] and in_depths[-1]
    # once the artifacts enter the Depths, every more valuable one is there too
    assert in_depths == sorted(in_depths)


def test_dungeon_deck_100_cards_for_a_row_of_6() -> None:
    """Dungeon deck: 100 cards feeding a Dungeon Row of 6 face-up cards."""
    game = new_game(2)
    assert len(game.content.dungeon) == 100
    assert len(game.s.row) == 6 and all(c is not None for c in game.s.row)
    assert Counter(game.s.dungeon_deck + [c for c in game.s.row if c]) == Counter(game.content.dungeon)
    assert game.observe(1)["row"] == game.s.row


def test_dungeon_deck_kinds_cards_monsters_devices_danger_dragon_attack_effects_points() -> None:
    """Dungeon deck kinds: ordinary cards, monsters, Devices, Danger cards, Dragon Attack cards,
    cards with Arrive / Acquire / Trash effects, and card points."""
    game = new_game(2)
    deck = [game.content.cards[c] for c in set(game.content.dungeon)]
    assert {c.kind for c in deck} == {"card", "monster", "device"}
    assert any(c.danger for c in deck)
    assert any(c.dragon_attack for c in deck)
    assert any(c.arrive for c in deck)
    assert any(c.acquire for c in deck)
    assert any("trash" in ops(c.play) + ops(c.use) for c in deck)
    assert any(c.points > 0 for c in deck)
    assert all(c.cost >= 1 for c in deck if c.kind == "monster")


def test_reserve_15_mercenary_15_explore_12_secret_tome_and_one_goblin() -> None:
    """Reserve: 15 Mercenary, 15 Explore, 12 Secret Tome and 1 Goblin (a monster that stays)."""
    game = new_game(3)
    cards = game.content.cards
    by_name = {cards[pile].name: n for pile, n in game.s.reserve.items()}
    assert by_name == {"Mercenary": 15, "Explore": 15, "Secret Tome": 12}
    goblin = cards[game.content.goblin]
    assert goblin.name == "Goblin" and goblin.kind == "monster" and goblin.count == 1
    assert game.content.goblin not in game.s.reserve  # never runs out: it is not a pile


def test_starting_deck_6_burgle_2_stumble_1_sidestep_1_scramble() -> None:
    """Starting deck per player: 6 Burgle, 2 Stumble, 1 Sidestep, 1 Scramble."""
    game = new_game(4)
    names = {c: game.content.cards[c].name for c in set(game.content.starting)}
    for p in game.s.players:
        counts = Counter(names[c] for c in p.hand + p.deck)
        assert counts == {"Burgle": 6, "Stumble": 2, "Sidestep": 1, "Scramble": 1}


def test_starting_cards_pinned_burgle_skill_stumble_clank_sidestep_boot_scramble_skill_boot() -> None:
    """Pinned: Burgle = 1 Skill; Stumble = 1 Clank!; Sidestep = 1 Boot; Scramble = 1 Skill + 1 Boot."""
    game = new_game(2)
    ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
    _calm(game)
    set_hand(game, [ids["Burgle"], ids["Stumble"], ids["Sidestep"], ids["Scramble"]])
    pool = game.s.pool

    act(game, "play", ids["Burgle"])
    assert (pool.skill, pool.swords, pool.boots, game.s.clank_area[0]) == (1, 0, 0, 0)
    act(game, "play", ids["Stumble"])
    assert (pool.skill, pool.swords, pool.boots, game.s.clank_area[0]) == (1, 0, 0, 1)
    act(game, "play", ids["Sidestep"])
    assert (pool.skill, pool.swords, pool.boots, game.s.clank_area[0]) == (1, 0, 1, 1)
    act(game, "play", ids["Scramble"])
    assert (pool.skill, pool.swords, pool.boots, game.s.clank_area[0]) == (2, 0, 2, 1)
    assert player(game).gold == 0


def test_player_pawn_30_clank_cubes_and_health_meter() -> None:
    """Per player: a pawn (at the entrance), 30 Clank! cubes and a Health Meter."""
    game = new_game(4)
    for seat, p in enumerate(game.s.players):
        assert p.room == game.board.start
        assert p.supply + game.s.clank_area[seat] == 30
        assert p.damage == 0
    assert [q["health"] for q in game.observe(0)["players"]] == [10, 10, 10, 10]


def test_health_meter_pinned_10_health_knocked_out_at_tenth_damage() -> None:
    """Pinned: 10 health: a player with 9 damage survives, the 10th damage knocks out."""
    for before, status in ((8, PLAYING), (9, KNOCKED_OUT)):
        game = new_game(2)
        board = game.board
        t = board.tunnels[tunnel_where(board, lambda t: t.monsters == 1 and not t.locked)]
        place(game, t.a)
        player(game).damage = before
        set_pool(game, boots=1)
        act(game, "move", board.tunnels.index(t), 0)
        p = game.s.players[0]
        assert p.damage == before + 1
        assert p.status == status


def test_24_black_cubes_11_major_18_minor_secrets() -> None:
    """24 black dragon cubes; 11 major and 18 minor secrets."""
    game = new_game(4)
    s = game.s
    assert s.bag_black == 24
    secrets = game.content.secrets
    placed_major = [x for v in s.major_secrets.values() for x in v]
    placed_minor = [x for v in s.minor_secrets.values() for x in v]
    every = placed_major + placed_minor + s.unused_secrets
    assert sum(secrets[x].size == "major" for x in every) == 11
    assert sum(secrets[x].size == "minor" for x in every) == 18
    assert sum(sd.count for sd in secrets.values() if sd.size == "major") == 11
    assert sum(sd.count for sd in secrets.values() if sd.size == "minor") == 18


def test_secret_kinds_gold_healing_draw_skill_potions_and_a_dragon_egg_major() -> None:
    """Secrets have authored kinds (gold, healing, draw, Skill, potions...) and at least one
    major secret is a dragon egg."""
    game = new_game(2)
    secrets = game.content.secrets.values()
    kinds = {op for sd in secrets for op in ops(sd.effects)}
    assert {"gold", "heal", "draw", "skill"} <= kinds
    assert any(sd.potion for sd in secrets)
    assert any(sd.dragon_egg for sd in secrets if sd.size == "major")


def test_dragon_egg_major_secret_advances_rage() -> None:
    """A dragon egg (major secret) advances Rage when taken."""
    game = new_game(2)
    egg = next(sd for sd in game.content.secrets.values() if sd.dragon_egg)
    room = next(r for r, v in game.s.major_secrets.items() if v)
    game.s.major_secrets[room] = [egg.id]
    game.s.rage = 0
    place(game, room, may_take=True)
    act(game, "take", "major_secret")
    assert game.s.rage == 1
    assert egg.id in player(game).kept_secrets
    assert game.s.major_secrets[room] == []


def test_market_items_2_master_keys_2_backpacks_3_crowns_cost_7_gold() -> None:
    """Market items: 2 Master Keys, 2 Backpacks, 3 Crowns, at 7 gold each."""
    game = new_game(2)
    assert game.s.market == {"master_key": 2, "backpack": 2, "crown": 3}
    market = next(r.id for r in game.board.rooms.values() if r.market)
    place(game, market, may_take=True)
    player(game).gold = 7
    refresh(game)
    assert {a.args[0] for a in actions(game, "buy_item")} == {"master_key", "backpack", "crown"}
    act(game, "buy_item", "backpack")
    assert player(game).gold == 0
    assert game.s.market == {"master_key": 2, "backpack": 1, "crown": 3}


def test_three_monkey_idols_and_four_mastery_tokens_and_a_rage_and_countdown_track() -> None:
    """3 Monkey Idols, 4 Mastery tokens (20 points), a Rage track and a Countdown track."""
    game = new_game(4)
    assert len(game.s.idols) == 3
    assert game.s.mastery_left == 4
    assert game.content.rules["mastery_points"] == 20
    obs = game.observe(0)
    assert obs["rage"] == game.s.rage and obs["countdown"] == -1
    assert len(game.content.rules["rage_track"]) == 7


def test_rage_track_pinned_draws_2_2_3_3_4_4_5_cubes() -> None:
    """Pinned: the Rage track draws 2, 2, 3, 3, 4, 4, 5 cubes."""
    drawn = []
    for rage in range(7):
        game = new_game(2)
        da = card_where(game, lambda c: c.dragon_attack and not c.danger and not c.arrive)
        _calm(game)
        _quiet_row(game, empty=1)
        game.s.dungeon_deck = [da.id]
        game.s.rage = rage
        _end_turn(game)
        assert game.s.last_attack["cubes"] == 24 - game.s.bag_black
        drawn.append(game.s.last_attack["cubes"])
    assert drawn == [2, 2, 3, 3, 4, 4, 5]


def test_crown_points_pinned_10_9_8_in_order_bought() -> None:
    """Pinned: Crowns are worth 10, 9, 8 points in the order they are bought."""
    game = new_game(3)
    market = next(r.id for r in game.board.rooms.values() if r.market)
    got = []
    for seat in range(3):
        game.s.current = seat
        place(game, market, seat=seat, may_take=True)
        game.s.players[seat].gold = 7
        before = game.score(seat)
        refresh(game)
        act(game, "buy_item", "crown")
        got.append(game.score(seat) - before + 7)  # the 7 gold spent were worth 7 points
        assert game.s.players[seat].gold == 0
    assert got == [10, 9, 8]
    assert [p.crown_points for p in game.s.players] == [10, 9, 8]
    assert game.s.market["crown"] == 0


def test_monkey_idol_pinned_5_points() -> None:
    """Pinned: a Monkey Idol is worth 5 points."""
    game = new_game(2)
    room = game.s.idols[0]
    place(game, room, may_take=True)
    before = game.score(0)
    act(game, "take", "monkey_idol")
    assert game.score(0) - before == 5
    assert room not in game.s.idols and player(game).idols == 1


def test_market_pinned_one_master_key_and_one_crown_per_player() -> None:
    """Pinned: a player may hold one Master Key and one Crown (Backpacks stack: the seed says
    "Each Backpack lets you carry one more"). One item per entry into the market room."""
    game = new_game(2)
    market = next(r.id for r in game.board.rooms.values() if r.market)
    player(game).gold = 30
    for item in ("master_key", "crown"):
        place(game, market, may_take=True)  # re-entered for each purchase
        act(game, "buy_item", item)
        place(game, market, may_take=True)
        assert not can(game, "buy_item", item)
        assert game.s.market[item] >= 1  # one is left, but not for this player
    assert can(game, "buy_item", "backpack")
    assert sorted(player(game).items) == ["crown", "master_key"]
    assert player(game).gold == 30 - 14


# === Setup ====================================================================================


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_each_player_30_cubes_shuffled_10_card_deck_draws_5(players: int) -> None:
    """Setup: each player takes 30 cubes and a shuffled 10-card deck, and draws 5."""
    game = new_game(players)
    for seat, p in enumerate(game.s.players):
        assert p.supply + game.s.clank_area[seat] == 30
        assert len(p.hand) == 5 and len(p.deck) == 5
        assert Counter(p.hand + p.deck) == Counter(game.content.starting)
        assert p.discard == [] and p.play == []
    orders = {tuple(new_game(players, seed=seed).s.players[0].deck) for seed in range(12)}
    assert len(orders) > 1, "the starting deck is never shuffled"


def test_setup_four_players_use_all_seven_artifacts() -> None:
    """Setup: with 4 players all 7 artifacts are used."""
    game = new_game(4)
    assert sorted(game.s.artifacts.values()) == [5, 7, 10, 15, 20, 25, 30]
    assert game.s.returned_artifacts == []


@pytest.mark.parametrize(("players", "returned"), [(3, 1), (2, 2)])
def test_setup_three_players_return_one_two_players_return_two_artifacts_at_random(
    players: int, returned: int
) -> None:
    """Setup: 3 players randomly return 1 artifact, 2 players return 2."""
    seen = set()
    for seed in range(25):
        game = new_game(players, seed=seed)
        placed = sorted(game.s.artifacts.values())
        assert len(game.s.returned_artifacts) == returned
        assert len(placed) == 7 - returned
        assert sorted(placed + game.s.returned_artifacts) == [5, 7, 10, 15, 20, 25, 30]
        seen.add(tuple(game.s.returned_artifacts))
    assert len(seen) > 2, "the returned artifacts are not chosen at random"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_artifacts_fill_spaces_lowest_value_nearest_the_entrance(players: int) -> None:
    """Setup: the artifact spaces are filled lowest value nearest the entrance upward."""
    for seed in range(8):
        game = new_game(players, seed=seed)
        ranked = game.board.artifact_rooms()
        placed = sorted(game.s.artifacts.values())
        # the kept artifacts fill the nearest spaces, in increasing value
        assert [game.s.artifacts.get(room) for room in ranked[: len(placed)]] == placed
        assert all(room not in game.s.artifacts for room in ranked[len(placed) :])


@pytest.mark.parametrize("players", [2, 3])
def test_setup_returned_artifacts_stay_hidden(players: int) -> None:
    """Setup: artifacts returned for the player count are never revealed to the seats."""
    for seed in range(6):
        game = new_game(players, seed=seed)
        placed = sorted(game.s.artifacts.values())
        for seat in range(players):
            obs = game.observe(seat)
            assert sorted(obs["artifacts"].values()) == placed
            assert "returned_artifacts" not in obs
            # a variant with other returned artifacts looks the same to the seat
            other = game.copy()
            other.s.returned_artifacts = [1000 + i for i in range(7 - len(placed))]
            assert json.dumps(other.observe(seat), sort_keys=True) == json.dumps(obs, sort_keys=True)


def test_setup_one_major_secret_per_major_space_two_minor_per_minor_space_face_down() -> None:
    """Setup: one major secret on each major space, two minor secrets on each minor space, face
    down."""
    for seed in range(5):
        game = new_game(4, seed=seed)
        rooms = game.board.rooms.values()
        want_major = {r.id: 1 for r in rooms if r.major_secret}
        want_minor = {r.id: 2 for r in rooms if r.minor_secrets}
        assert {r: len(v) for r, v in game.s.major_secrets.items()} == want_major
        assert {r: len(v) for r, v in game.s.minor_secrets.items()} == want_minor
        secrets = game.content.secrets
        assert all(secrets[x].size == "major" for v in game.s.major_secrets.values() for x in v)
        assert all(secrets[x].size == "minor" for v in game.s.minor_secrets.values() for x in v)
        obs = game.observe(0)
        assert obs["major_secrets"] == want_major and obs["minor_secrets"] == want_minor
        text = json.dumps(obs)
        for secret_id in secrets:
            assert f'"{secret_id}"' not in text, f"face-down secret {secret_id} is visible"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_market_keys_backpacks_crowns_three_idols_one_mastery_per_player(players: int) -> None:
    """Setup: market with 2 Master Keys, 2 Backpacks, 3 Crowns; 3 Monkey Idols; 1 Mastery token
    per player."""
    game = new_game(players)
    assert game.s.market == {"master_key": 2, "backpack": 2, "crown": 3}
    assert sorted(game.s.idols) == sorted(r.id for r in game.board.rooms.values() if r.idol)
    assert len(game.s.idols) == 3
    assert game.s.mastery_left == players


@pytest.mark.parametrize(("players", "space"), [(4, 0), (3, 1), (2, 2)])
def test_setup_24_black_cubes_and_rage_first_second_third_space(players: int, space: int) -> None:
    """Setup: 24 black cubes in the bag; Rage on the first space with 4 players, second with 3,
    third with 2."""
    game = new_game(players)
    assert game.s.bag_black == 24
    assert game.s.bag_cubes == [0] * players
    assert game.s.rage == space
    assert game.observe(0)["rage_draws"] == game.content.rules["rage_track"][space]


def test_setup_row_replaces_dragon_attack_cards_and_shuffles_them_back() -> None:
    """Setup: deal 6 to the Dungeon Row, replacing every initial card with a Dragon Attack symbol;
    the replaced cards are shuffled back into the deck."""
    first_refills = []
    for seed in range(60):
        game = new_game(2, seed=seed)
        cards = game.content.cards
        assert len(game.s.row) == 6
        assert not any(cards[c].dragon_attack for c in game.s.row if c), (seed, game.s.row)
        assert Counter(game.s.dungeon_deck + game.s.row) == Counter(game.content.dungeon)
        assert game.s.last_attack == {} and game.s.bag_black == 24
        # the first card refilled into the row is a random deck card, not a replaced one kept
        # on top of the deck
        game.s.row[0] = None
        _end_turn(game)
        refilled = game.s.row[0]
        assert refilled is not None
        first_refills.append(cards[refilled].dragon_attack)
    assert 0 < sum(first_refills) < len(first_refills) * 0.45, sum(first_refills)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_starting_clank_3_2_1_0(players: int) -> None:
    """Setup: in turn order, 3, 2, 1 and 0 of each player's cubes go into the Clank! Area."""
    game = new_game(players)
    want = [3, 2, 1, 0][:players]
    assert game.s.clank_area == want
    assert [p.supply for p in game.s.players] == [30 - n for n in want]
    assert game.s.current == 0


# === A turn ===================================================================================


def test_turn_play_all_five_cards_in_any_order_before_ending() -> None:
    """A turn: play all five cards, in any order; the turn cannot end with cards in hand."""
    game = new_game(2)
    hand = list(player(game).hand)
    assert len(hand) == 5
    order = sorted(hand, reverse=True)
    for i, card in enumerate(order):
        assert {a.args[0] for a in actions(game, "play")} == set(player(game).hand)
        assert not can(game, "end_turn"), f"could end the turn with {5 - i} cards unplayed"
        act(game, "play", card)
    assert player(game).hand == [] and sorted(player(game).play) == sorted(hand)
    assert can(game, "end_turn")
    with pytest.raises(IllegalAction):
        game.apply(Action("play", (hand[0],)))  # nothing is left to play


def test_turn_actions_interleave_with_card_plays() -> None:
    """A turn: actions interleave with card plays (play, acquire, play more, move...)."""
    game = new_game(2)
    ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
    set_hand(game, [ids["Burgle"], ids["Burgle"], ids["Sidestep"], ids["Burgle"], ids["Scramble"]])
    merc = next(p for p in game.s.reserve if game.content.cards[p].name == "Mercenary")
    cost = game.content.cards[merc].cost
    for _ in range(cost):
        act(game, "play", ids["Burgle"])
    act(game, "buy_reserve", merc)
    assert game.s.pool.skill == 0
    act(game, "play", ids["Sidestep"])
    t = tunnel_where(game.board, lambda t: _plain(t) and t.a == game.board.start)
    act(game, "move", t, 0)
    assert player(game).room == game.board.tunnels[t].b
    act(game, "play", ids["Scramble"])
    assert (game.s.pool.skill, game.s.pool.boots) == (1, 1)
    assert len(player(game).hand) == 5 - cost - 2


def test_turn_resources_pool_and_unused_are_lost_at_turn_end_gold_kept() -> None:
    """A turn: Skill, Swords and Boots from all cards pool; unused ones are lost at turn end;
    gold is kept."""
    game = new_game(2)
    ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
    set_hand(game, [ids["Burgle"], ids["Scramble"], ids["Sidestep"]])
    for card in list(player(game).hand):
        act(game, "play", card)
    assert (game.s.pool.skill, game.s.pool.boots) == (2, 2)
    game.s.pool.swords = 3
    game.s.pool.teleports = 1
    player(game).gold = 4
    refresh(game)
    act(game, "end_turn")
    pool = game.s.pool
    assert game.s.current == 1
    assert (pool.skill, pool.swords, pool.boots, pool.teleports) == (0, 0, 0, 0)
    _end_turn(game)  # seat 1 passes; back to seat 0
    assert game.s.current == 0
    assert (pool.skill, pool.swords, pool.boots, pool.teleports) == (0, 0, 0, 0)
    assert game.s.players[0].gold == 4


def test_acquire_row_card_with_skill_goes_to_discard_pile_not_usable_this_turn() -> None:
    """Acquire: spend Skill on a Dungeon Row card; it goes to the discard pile (no immediate use)."""
    game = new_game(2)
    card = card_where(game, lambda c: c.kind == "card" and not c.acquire and c.cost >= 2)
    _quiet_row(game, empty=0)
    _row_card(game, card.id, slot=2)
    set_hand(game, [])
    set_pool(game, skill=card.cost - 1)
    assert not can(game, "acquire", 2), "acquired with too little Skill"
    set_pool(game, skill=card.cost + 1)
    act(game, "acquire", 2)
    p = player(game)
    assert p.discard == [card.id]
    assert card.id not in p.hand + p.play + p.deck
    assert not can(game, "play", card.id)
    assert game.s.pool.skill == 1
    assert game.s.row[2] is None


def test_acquire_reserve_card_goes_to_discard_pile() -> None:
    """Acquire: a Reserve card is bought with Skill and goes to the discard pile."""
    game = new_game(2)
    for pile in sorted(game.s.reserve):
        cost = game.content.cards[pile].cost
        before = game.s.reserve[pile]
        set_pool(game, skill=cost - 1)
        assert not can(game, "buy_reserve", pile)
        set_pool(game, skill=cost)
        act(game, "buy_reserve", pile)
        assert player(game).discard[-1] == pile
        assert pile not in player(game).hand
        assert game.s.reserve[pile] == before - 1
        assert game.s.pool.skill == 0


def test_acquire_effect_resolves_once_at_acquisition() -> None:
    """Acquire effects resolve once, when the card is acquired (not again when played)."""
    game = new_game(2)
    card = card_where(
        game,
        lambda c: c.kind == "card" and only_ops(c.acquire, {"gold"}) and "gold" not in ops(c.play),
    )
    gain = sum(e.n for e in card.acquire)
    _quiet_row(game, empty=0)
    _row_card(game, card.id)
    set_pool(game, skill=card.cost)
    act(game, "acquire", 0)
    assert player(game).gold == gain
    # later the card comes into hand and is played: no second Acquire
    p = player(game)
    p.discard.remove(card.id)
    set_hand(game, [card.id])
    act(game, "play", card.id)
    assert player(game).gold == gain


def test_acquire_device_resolves_at_once_and_goes_to_dungeon_discard() -> None:
    """Devices: pay Skill, resolve at once, go to the dungeon discard, never enter a deck."""
    game = new_game(2)
    device = card_where(game, lambda c: c.kind == "device" and only_ops(c.use, {"gold"}))
    gain = sum(e.n for e in device.use)
    _quiet_row(game, empty=0)
    _row_card(game, device.id, slot=3)
    set_hand(game, [])
    set_pool(game, skill=device.cost)
    act(game, "acquire", 3)
    p = player(game)
    assert p.gold == gain
    assert game.s.pool.skill == 0
    assert game.s.dungeon_discard == [device.id]
    assert device.id not in _all_cards(p)
    act(game, "end_turn")
    assert device.id not in _all_cards(game.s.players[0])


def test_row_not_refilled_until_turn_end() -> None:
    """Row slots emptied by acquiring are not refilled until the turn ends."""
    game = new_game(2)
    filler = _filler(game)
    _quiet_row(game, empty=0)
    game.s.dungeon_deck = [filler.id] * 3
    set_hand(game, [])
    set_pool(game, skill=filler.cost * 2)
    act(game, "acquire", 0)
    assert game.s.row[0] is None and len(game.s.dungeon_deck) == 3
    act(game, "acquire", 1)
    assert game.s.row[:2] == [None, None] and len(game.s.dungeon_deck) == 3
    assert not can(game, "acquire", 0)
    act(game, "end_turn")
    assert game.s.row == [filler.id] * 6
    assert len(game.s.dungeon_deck) == 1


def test_fight_row_monster_with_swords_goes_to_dungeon_discard_with_reward() -> None:
    """Fight: spend Swords; a defeated row monster gives its reward and goes to the dungeon
    discard."""
    game = new_game(2)
    monster = card_where(game, lambda c: c.kind == "monster" and only_ops(c.defeat, {"gold"}))
    gain = sum(e.n for e in monster.defeat)
    _quiet_row(game, empty=0)
    _row_card(game, monster.id, slot=4)
    set_pool(game, swords=monster.cost - 1, skill=20)
    assert not can(game, "fight", 4)
    assert not can(game, "acquire", 4), "a monster cannot be bought with Skill"
    set_pool(game, swords=monster.cost + 1)
    act(game, "fight", 4)
    assert player(game).gold == gain
    assert game.s.pool.swords == 1
    assert game.s.row[4] is None
    assert game.s.dungeon_discard == [monster.id]
    assert monster.id not in _all_cards(player(game))


def test_goblin_stays_after_fight() -> None:
    """Fight: the Goblin stays in the reserve and can be fought again and again."""
    game = new_game(2)
    goblin = game.content.cards[game.content.goblin]
    gain = sum(e.n for e in goblin.defeat if e.op == "gold")
    set_pool(game, swords=goblin.cost * 3)
    for i in range(1, 4):
        act(game, "fight_goblin")
        assert player(game).gold == gain * i
    assert game.s.pool.swords == 0
    assert not can(game, "fight_goblin")
    assert goblin.id not in game.s.dungeon_discard
    assert goblin.id not in _all_cards(player(game))
    set_pool(game, swords=goblin.cost)
    assert can(game, "fight_goblin")


def test_move_one_boot_per_tunnel() -> None:
    """Move: a normal tunnel costs 1 Boot."""
    game = new_game(2)
    board = game.board
    t = tunnel_where(board, _plain)
    tunnel = board.tunnels[t]
    place(game, tunnel.a)
    set_pool(game, boots=0)
    assert actions(game, "move") == []
    set_pool(game, boots=2)
    act(game, "move", t, 0)
    assert player(game).room == tunnel.b
    assert game.s.pool.boots == 1
    assert player(game).damage == 0
    act(game, "move", t, 0)  # and back
    assert player(game).room == tunnel.a and game.s.pool.boots == 0


def test_move_two_footstep_tunnel_costs_two_boots() -> None:
    """Move: a tunnel with two footsteps costs 2 Boots."""
    game = new_game(2)
    board = game.board
    t = tunnel_where(board, lambda t: t.boots == 2 and t.monsters == 0 and not t.locked and not t.one_way)
    tunnel = board.tunnels[t]
    place(game, tunnel.a)
    set_pool(game, boots=1)
    assert not can(game, "move", t, 0)
    set_pool(game, boots=3)
    act(game, "move", t, 0)
    assert player(game).room == tunnel.b
    assert game.s.pool.boots == 1


def test_monster_tunnel_damage_minus_swords_spent_on_it() -> None:
    """Move: a monster tunnel deals its damage minus the Swords spent on that tunnel."""
    board = new_game(2).board
    t = tunnel_where(board, lambda t: t.monsters == 2 and not t.locked)
    tunnel = board.tunnels[t]
    for swords, spend, damage in ((0, 0, 2), (3, 1, 1), (3, 2, 0)):
        game = new_game(2)
        place(game, tunnel.a)
        set_pool(game, boots=1, swords=swords)
        spends = sorted(a.args[1] for a in actions(game, "move") if a.args[0] == t)
        assert spends == list(range(min(swords, 2) + 1))
        before = player(game).supply
        act(game, "move", t, spend)
        p = player(game)
        assert p.room == tunnel.b
        assert p.damage == damage
        assert p.supply == before - damage
        assert game.s.pool.swords == swords - spend


def test_move_locked_tunnel_needs_master_key() -> None:
    """Move: a locked tunnel needs a Master Key (which is kept)."""
    game = new_game(2)
    board = game.board
    t = tunnel_where(board, lambda t: t.locked and t.monsters == 0)
    tunnel = board.tunnels[t]
    place(game, tunnel.a)
    set_pool(game, boots=5)
    assert not can(game, "move", t, 0)
    player(game).items = ["backpack", "crown"]
    refresh(game)
    assert not can(game, "move", t, 0)
    player(game).items.append("master_key")
    refresh(game)
    act(game, "move", t, 0)
    assert player(game).room == tunnel.b
    assert "master_key" in player(game).items
    assert game.s.pool.boots == 5 - tunnel.boots


def test_one_way_tunnel_only_along_the_arrow() -> None:
    """Move: a one-way tunnel may be crossed only along its arrow."""
    game = new_game(2)
    board = game.board
    t = tunnel_where(board, lambda t: t.one_way and not t.locked and t.monsters == 0)
    tunnel = board.tunnels[t]
    place(game, tunnel.b)
    set_pool(game, boots=5, swords=5)
    assert not any(a.args[0] == t for a in actions(game, "move"))
    place(game, tunnel.a)
    act(game, "move", t, 0)
    assert player(game).room == tunnel.b


def _crystal_entry(board: Board) -> tuple[int, str, str]:
    """A plain tunnel into a crystal cave from a non-crystal room: (tunnel, from, cave)."""
    for i, t in enumerate(board.tunnels):
        if t.boots != 1 or t.monsters or t.locked:
            continue
        ends = [(t.a, t.b)] + ([] if t.one_way else [(t.b, t.a)])
        for src, dst in ends:
            if board.rooms[dst].crystal and not board.rooms[src].crystal:
                return i, src, dst
    raise AssertionError("no plain tunnel into a crystal cave")


def test_crystal_cave_stops_boots_but_not_teleport() -> None:
    """Crystal cave: entering it forbids further Boot movement that turn; teleport is still
    allowed."""
    game = new_game(2)
    board = game.board
    t, src, cave = _crystal_entry(board)
    place(game, src)
    set_pool(game, boots=5, teleports=1)
    act(game, "move", t, 0)
    assert player(game).room == cave
    assert game.s.pool.exhausted
    assert game.s.pool.boots == 4
    assert actions(game, "move") == [], "Boots still move the pawn out of a crystal cave"
    teleports = actions(game, "teleport")
    assert {a.args[0] for a in teleports} == set(board.touching[cave])
    act(game, "teleport", t)
    assert player(game).room == src
    assert actions(game, "move") == []  # still stopped for the rest of the turn
    _end_turn(game)
    _end_turn(game)
    assert not game.s.pool.exhausted  # a new turn moves again


def test_crystal_cave_entered_by_teleport_still_stops_boots() -> None:
    """Crystal cave: a crystal cave entered by teleport still stops Boots afterwards."""
    game = new_game(2)
    board = game.board
    t, src, cave = _crystal_entry(board)
    place(game, src)
    set_pool(game, boots=5, teleports=1)
    act(game, "teleport", t)
    assert player(game).room == cave
    assert game.s.pool.boots == 5 and game.s.pool.teleports == 0
    assert game.s.pool.exhausted
    assert actions(game, "move") == []


@pytest.mark.parametrize("feature", ["monsters", "locked", "one_way"])
def test_teleport_needs_no_boots_ignores_monsters_locks_and_arrows(feature: str) -> None:
    """Teleport: to any room joined by a tunnel, without Boots, ignoring monsters, locks and
    one-way arrows."""
    game = new_game(2)
    board = game.board
    t = tunnel_where(board, lambda t: bool(getattr(t, feature)))
    tunnel = board.tunnels[t]
    # against the arrow for a one-way tunnel; from `a` otherwise
    src, dst = (tunnel.b, tunnel.a) if feature == "one_way" else (tunnel.a, tunnel.b)
    place(game, src)
    set_pool(game, boots=0, swords=0, teleports=1)
    assert "master_key" not in player(game).items
    assert not any(a.args[0] == t for a in actions(game, "move"))
    act(game, "teleport", t)
    p = player(game)
    assert p.room == dst
    assert p.damage == 0
    assert game.s.pool.teleports == 0 and game.s.pool.boots == 0
    assert actions(game, "teleport") == []


def test_take_one_token_per_entry_reenter_for_another() -> None:
    """Room tokens: take at most one token per entry; leave and re-enter to take another."""
    game = new_game(2)
    board = game.board
    gold_secret = next(
        sd
        for sd in game.content.secrets.values()
        if sd.size == "minor" and not sd.potion and only_ops(sd.effects, {"gold"})
    )
    gain = sum(e.n for e in gold_secret.effects)
    room, t = next(
        (r, i) for r in sorted(game.s.minor_secrets) for i in board.exits[r] if _plain(board.tunnels[i])
    )
    outside = board.other_end(t, room)
    game.s.minor_secrets[room] = [gold_secret.id, gold_secret.id]
    place(game, outside)
    set_pool(game, boots=3)
    assert not can(game, "take", "minor_secret")
    act(game, "move", t, 0)
    act(game, "take", "minor_secret")
    assert player(game).gold == gain
    assert len(game.s.minor_secrets[room]) == 1
    assert not can(game, "take", "minor_secret"), "took a second token on the same entry"
    act(game, "move", t, 0)
    assert not can(game, "take", "minor_secret")
    act(game, "move", t, 0)
    act(game, "take", "minor_secret")
    assert player(game).gold == 2 * gain
    assert game.s.minor_secrets[room] == []


def test_artifact_capacity_one_plus_one_per_backpack() -> None:
    """Artifacts: carry one, plus one more per Backpack."""
    game = new_game(4)
    first, second, third = game.board.artifact_rooms()[:3]
    values = [game.s.artifacts[r] for r in (first, second, third)]
    place(game, first, may_take=True)
    act(game, "take", "artifact")
    assert player(game).artifacts == [values[0]]
    place(game, second, may_take=True)
    assert not can(game, "take", "artifact"), "took a second artifact without a Backpack"
    player(game).items = ["backpack"]
    refresh(game)
    act(game, "take", "artifact")
    assert player(game).artifacts == values[:2]
    place(game, third, may_take=True)
    assert not can(game, "take", "artifact"), "one Backpack carried a third artifact"
    assert game.s.artifacts[third] == values[2]


def test_artifact_never_exchanged_once_taken() -> None:
    """Artifacts: a player can never exchange an artifact they took."""
    game = new_game(4)
    first, second = game.board.artifact_rooms()[:2]
    v1, v2 = game.s.artifacts[first], game.s.artifacts[second]
    place(game, first, may_take=True)
    act(game, "take", "artifact")
    place(game, second, may_take=True)
    set_pool(game, skill=10, swords=10, boots=10, teleports=1)
    legal = actions(game)
    assert not any("artifact" in a.kind or "artifact" in map(str, a.args) for a in legal), legal
    assert all(
        a.kind
        in {
            "play",
            "acquire",
            "fight",
            "buy_reserve",
            "fight_goblin",
            "move",
            "teleport",
            "take",
            "buy_item",
            "drink",
            "end_turn",
        }
        for a in legal
    )
    assert player(game).artifacts == [v1]
    assert game.s.artifacts[second] == v2
    assert first not in game.s.artifacts


def test_taking_an_artifact_advances_rage() -> None:
    """Artifacts: taking one advances the Rage track."""
    game = new_game(4)
    room = game.board.artifact_rooms()[0]
    assert game.s.rage == 0
    place(game, room, may_take=True)
    act(game, "take", "artifact")
    assert game.s.rage == 1
    assert game.observe(1)["rage_draws"] == game.content.rules["rage_track"][1]


def test_market_room_buy_an_item_for_7_gold() -> None:
    """Market room: buy an item for 7 gold (only in a market room, only with 7 gold)."""
    game = new_game(2)
    board = game.board
    market = next(r.id for r in board.rooms.values() if r.market)
    elsewhere = next(r.id for r in board.rooms.values() if not r.market)
    place(game, elsewhere)
    player(game).gold = 20
    refresh(game)
    assert actions(game, "buy_item") == []
    place(game, market, may_take=True)
    player(game).gold = 6
    refresh(game)
    assert actions(game, "buy_item") == []
    player(game).gold = 9
    refresh(game)
    act(game, "buy_item", "master_key")
    assert player(game).gold == 2
    assert player(game).items == ["master_key"]
    assert game.s.market["master_key"] == 1


def _clank_card(game: ClankGame, test: Callable[[int], bool]) -> CardDef:
    """A card whose only Clank! effect is one top-level amount passing `test`."""
    return card_where(
        game,
        lambda c: (
            c.kind == "card"
            and ops(c.play).count("clank") == 1
            and any(e.op == "clank" and test(e.n) for e in c.play)
            and not {"trash", "discard_for", "choose"} & set(ops(c.play))
        ),
        pool=set(game.content.dungeon) | set(game.content.starting),
    )


def _clank_n(card: CardDef) -> int:
    return next(e.n for e in card.play if e.op == "clank")


def test_positive_clank_adds_own_cubes_from_supply() -> None:
    """Clank!: positive Clank! adds the player's own cubes (from their 30) to the Clank! Area."""
    game = new_game(3)
    card = _clank_card(game, lambda n: n >= 2)
    n = _clank_n(card)
    area = list(game.s.clank_area)
    supply = player(game).supply
    set_hand(game, [card.id])
    act(game, "play", card.id)
    assert game.s.clank_area == [area[0] + n, *area[1:]]
    assert player(game).supply == supply - n


def test_positive_clank_with_no_cubes_left_adds_no_more() -> None:
    """Clank!: a player with no cubes left in their supply adds no more."""
    game = new_game(2)
    card = _clank_card(game, lambda n: n >= 2)
    n = _clank_n(card)
    game.s.clank_area[0] = 10
    player(game).supply = 1
    set_hand(game, [card.id, card.id])
    act(game, "play", card.id)
    assert game.s.clank_area[0] == 11 and player(game).supply == 0
    act(game, "play", card.id)
    assert game.s.clank_area[0] == 11 and player(game).supply == 0
    assert n >= 2


def test_negative_clank_removes_own_cubes_from_clank_area() -> None:
    """Clank!: negative Clank! removes the player's own cubes from the Clank! Area (back to
    supply), never another player's."""
    game = new_game(3)
    card = _clank_card(game, lambda n: n <= -2)
    n = -_clank_n(card)
    game.s.clank_area = [n + 1, 4, 4]
    player(game).supply = 30 - (n + 1)
    set_hand(game, [card.id])
    act(game, "play", card.id)
    assert game.s.clank_area == [1, 4, 4]
    assert player(game).supply == 29
    assert game.s.pool.negative_clank == 0


def test_negative_clank_offsets_later_positive_same_turn() -> None:
    """Clank!: negative Clank! not absorbed by cubes in the area offsets positive Clank! later
    that same turn."""
    game = new_game(2)
    minus = _clank_card(game, lambda n: n <= -2)
    plus = _clank_card(game, lambda n: n == 1)
    n = -_clank_n(minus)
    game.s.clank_area[0] = 0
    player(game).supply = 30
    set_hand(game, [minus.id] + [plus.id] * (n + 1))
    act(game, "play", minus.id)
    assert game.s.pool.negative_clank == n
    for i in range(n):
        act(game, "play", plus.id)
        assert game.s.clank_area[0] == 0, f"positive Clank! #{i + 1} was not offset"
    act(game, "play", plus.id)
    assert game.s.clank_area[0] == 1
    assert player(game).supply == 29
    assert game.s.pool.negative_clank == 0


def test_unused_negative_clank_expires_at_turn_end() -> None:
    """Clank!: unused negative Clank! expires at the end of the turn."""
    game = new_game(2)
    minus = _clank_card(game, lambda n: n <= -1)
    plus = _clank_card(game, lambda n: n == 1)
    _calm(game)
    set_hand(game, [minus.id])
    act(game, "play", minus.id)
    assert game.s.pool.negative_clank == -_clank_n(minus)
    act(game, "end_turn")
    assert game.s.pool.negative_clank == 0
    _end_turn(game)  # seat 1
    assert game.s.current == 0
    set_hand(game, [plus.id])
    act(game, "play", plus.id)
    assert game.s.clank_area[0] == 1


def test_discard_effect_targets_only_unplayed_card_in_hand() -> None:
    """Discard effects target only an unplayed card in hand (not played cards, not the discard
    pile)."""
    game = new_game(2)
    card = card_where(game, lambda c: c.kind == "card" and [e.op for e in c.play] == ["skill", "discard_for"])
    reward = next(e for e in card.play if e.op == "discard_for").then
    assert only_ops(reward, {"gold"})
    gain = sum(e.n for e in reward)
    ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
    p = player(game)
    p.discard = [ids["Sidestep"]]
    set_hand(game, [ids["Burgle"], card.id, ids["Stumble"], ids["Stumble"]])
    act(game, "play", ids["Burgle"])
    act(game, "play", card.id)
    d = game.decision()
    assert d is not None and d.kind == "discard" and d.seat == 0
    offered = {(a.kind, *a.args) for a in d.actions}
    assert offered == {("discard", ids["Stumble"]), ("skip",)}
    act(game, "discard", ids["Stumble"])
    assert p.hand == [ids["Stumble"]]
    assert p.discard == [ids["Sidestep"], ids["Stumble"]]
    assert sorted(p.play) == sorted([ids["Burgle"], card.id])
    assert p.gold == gain
    assert game.s.clank_area[0] == 3  # the discarded Stumble was not played


def test_discard_effect_with_empty_hand_asks_nothing() -> None:
    """Discard effects: with no unplayed card in hand there is nothing to discard."""
    game = new_game(2)
    card = card_where(game, lambda c: c.kind == "card" and "discard_for" in ops(c.play))
    p = player(game)
    p.discard = list(game.content.starting[:2])
    set_hand(game, [card.id])
    act(game, "play", card.id)
    d = game.decision()
    assert d is not None and d.kind == "turn"
    assert p.gold == 0


def test_trash_from_play_or_discard_removes_it_from_the_game() -> None:
    """Trash: a card from the play area or the discard pile leaves the game (not from hand or
    deck)."""
    ids = None
    for zone in ("play", "discard"):
        game = new_game(2)
        ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
        broom = card_where(game, lambda c: c.kind == "card" and "trash" in ops(c.play))
        p = player(game)
        p.discard = [ids["Stumble"]]
        p.deck = [ids["Scramble"]] * 5
        set_hand(game, [ids["Burgle"], broom.id, ids["Sidestep"]])
        act(game, "play", ids["Burgle"])
        act(game, "play", broom.id)
        d = game.decision()
        assert d is not None and d.kind == "trash"
        offered = {(a.kind, *a.args) for a in d.actions}
        assert offered == {
            ("trash", "play", ids["Burgle"]),
            ("trash", "play", broom.id),
            ("trash", "discard", ids["Stumble"]),
            ("skip",),
        }
        before = Counter(_all_cards(p))
        target = ids["Burgle"] if zone == "play" else ids["Stumble"]
        act(game, "trash", zone, target)
        after = Counter(_all_cards(p))
        assert before - after == Counter({target: 1})
        assert p.trashed == 1
        act(game, "play", ids["Sidestep"])
        act(game, "end_turn")
        assert Counter(_all_cards(p)) == after  # gone for good, not back in the discard
        assert target not in game.s.dungeon_discard


def test_end_turn_discards_played_cards_and_draws_five() -> None:
    """End: discard played cards and draw five."""
    game = new_game(2)
    ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
    p = player(game)
    p.deck = [ids["Sidestep"]] * 2 + [ids["Scramble"]] * 5
    p.discard = [ids["Stumble"]]
    set_hand(game, [ids["Burgle"], ids["Burgle"]])
    act(game, "play", ids["Burgle"])
    act(game, "play", ids["Burgle"])
    act(game, "end_turn")
    assert p.play == []
    assert p.hand == [ids["Scramble"]] * 5
    assert sorted(p.discard) == sorted([ids["Stumble"], ids["Burgle"], ids["Burgle"]])
    assert p.deck == [ids["Sidestep"]] * 2


def test_end_turn_draw_five_reshuffles_discard_when_deck_runs_out() -> None:
    """End: drawing five with a short deck shuffles the discard pile into a new deck."""
    game = new_game(2)
    ids = {game.content.cards[c].name: c for c in set(game.content.starting)}
    p = player(game)
    p.deck = [ids["Sidestep"]] * 2
    p.discard = [ids["Stumble"]] * 4
    set_hand(game, [ids["Burgle"]])
    act(game, "play", ids["Burgle"])
    act(game, "end_turn")
    assert len(p.hand) == 5
    assert Counter(p.hand + p.deck + p.discard) == Counter(
        {ids["Sidestep"]: 2, ids["Stumble"]: 4, ids["Burgle"]: 1}
    )
    assert p.hand.count(ids["Sidestep"]) == 2


def test_end_turn_refills_empty_row_slots() -> None:
    """End: empty Dungeon Row slots are refilled from the dungeon deck."""
    game = new_game(2)
    a, b = cards_where(
        game, lambda c: c.kind == "card" and not c.danger and not c.dragon_attack and not c.arrive
    )[:2]
    _calm(game)
    _quiet_row(game, empty=0)
    filler = game.s.row[5]
    game.s.row[1] = None
    game.s.row[4] = None
    game.s.dungeon_deck = [a.id, b.id]
    _end_turn(game)
    assert game.s.row[1] in (a.id, b.id) and game.s.row[4] in (a.id, b.id)
    assert {game.s.row[1], game.s.row[4]} == {a.id, b.id}
    assert [game.s.row[i] for i in (0, 2, 3, 5)] == [filler] * 4
    assert game.s.dungeon_deck == []
    assert game.s.last_attack == {}


def test_arrive_effect_resolves_as_card_enters_the_row() -> None:
    """End: Arrive effects resolve as the card enters the row."""
    game = new_game(3)
    arriving = card_where(
        game, lambda c: only_ops(c.arrive, {"clank_all"}) and not c.dragon_attack and not c.danger
    )
    n = sum(e.n for e in arriving.arrive)
    _calm(game)
    _quiet_row(game, empty=1)
    game.s.dungeon_deck = [arriving.id]
    _end_turn(game)
    assert game.s.row[0] == arriving.id
    assert game.s.clank_area == [n, n, n]
    assert [p.supply for p in game.s.players] == [30 - n] * 3
    assert game.s.last_attack == {}


def test_arrive_effect_before_attack() -> None:
    """End: an Arrive effect resolves before the dragon attack its card triggers (cubes it adds
    are already in the bag for that attack)."""
    game = new_game(2)
    arriving = card_where(
        game, lambda c: only_ops(c.arrive, {"clank_all"}) and c.dragon_attack and not c.danger
    )
    n = sum(e.n for e in arriving.arrive)
    _calm(game)
    _quiet_row(game, empty=1)
    game.s.dungeon_deck = [arriving.id]
    _end_turn(game)
    assert game.s.last_attack, "no dragon attack"
    assert game.s.clank_area == [0, 0], "the Arrive cubes were added after the attack"
    for seat, p in enumerate(game.s.players):
        # each Arrive cube went into the bag; some may have been drawn as damage
        assert game.s.bag_cubes[seat] + p.damage == n


def test_arrive_rage_before_attack_raises_the_draw() -> None:
    """End: an Arrive effect that advances Rage resolves before the attack, which draws at the
    new Rage."""
    game = new_game(2)
    arriving = card_where(game, lambda c: only_ops(c.arrive, {"rage"}) and c.dragon_attack)
    n = sum(e.n for e in arriving.arrive)
    track = game.content.rules["rage_track"]
    rage = next(r for r in range(len(track) - n) if track[r + n] != track[r])
    danger = int(arriving.danger)
    _calm(game)
    _quiet_row(game, empty=1)
    game.s.dungeon_deck = [arriving.id]
    game.s.rage = rage
    _end_turn(game)
    assert game.s.rage == rage + n
    assert game.s.last_attack["cubes"] == track[rage + n] + danger
    assert game.s.bag_black == 24 - track[rage + n] - danger


def test_several_new_dragon_attack_cards_cause_one_attack() -> None:
    """End: if one or more new cards show a Dragon Attack symbol, there is exactly one attack."""
    game = new_game(2)
    das = cards_where(game, lambda c: c.dragon_attack and not c.danger and not c.arrive)
    first, second = das[0], das[-1]
    draws = game.content.rules["rage_track"][game.s.rage]
    _calm(game)
    _quiet_row(game, empty=3)
    game.s.dungeon_deck = [first.id, second.id, first.id]
    _end_turn(game)
    assert Counter(game.s.row[:3]) == Counter([first.id, first.id, second.id])
    assert game.s.last_attack["cubes"] == draws
    assert game.s.bag_black == 24 - draws, "more than one attack drew cubes"


def test_no_dragon_attack_symbol_no_attack() -> None:
    """End: new row cards without a Dragon Attack symbol cause no attack."""
    game = new_game(2)
    filler = _filler(game)
    _calm(game)
    game.s.clank_area = [3, 2]
    _quiet_row(game, empty=2)
    game.s.dungeon_deck = [filler.id] * 4
    _end_turn(game)
    assert game.s.last_attack == {}
    assert game.s.bag_black == 24 and game.s.bag_cubes == [0, 0]
    assert game.s.clank_area == [3, 2]
