"""The bundled Clank! Legacy content loads, matches the seed's counts, and bad content is refused.

Counts are checked against the seed's own sentences (quoted beside each check), the board and
the campaign graph are re-checked here with code independent of the loader, and every
bad-content test copies the content directory, breaks exactly one thing and expects a
`ContentError` naming the file, the entry and the field.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from referee.core.effects import Effect
from referee.games.clank_legacy.content import (
    CONTENT_DIR,
    Board,
    LegacyContent,
    all_campaign_runs,
    load_content,
    walk_campaign,
)
from tests.content_edits import content_copy_fixture, edit_json, expect_content_error

SEED = Path("/work/shared/seeds/000_b717977c54ccd47e.txt")


@pytest.fixture(scope="module")
def content() -> LegacyContent:
    return load_content()


copy = content_copy_fixture(CONTENT_DIR, "copy")
_edit = edit_json
_expect = partial(expect_content_error, load_content)


def _walk_effects(effects: tuple[Effect, ...]) -> Iterator[Effect]:
    for e in effects:
        yield e
        yield from _walk_effects(e.then)
        for option in e.options:
            yield from _walk_effects(option)


def _bfs(board: Board, source: str, reverse: bool = False, canoe: bool = True) -> set[str]:
    """Spaces reachable over the board's initially open paths (written apart from the loader's)."""
    adj: dict[str, list[str]] = {s: [] for s in board.spaces}
    for p in board.paths:
        if p.hidden or (p.canoe and not canoe):
            continue
        a, b = (p.b, p.a) if reverse else (p.a, p.b)
        adj[a].append(b)
        if not p.one_way:
            adj[b].append(a)
    seen, queue = {source}, deque([source])
    while queue:
        for nxt in adj[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


# --- counts from the seed ---------------------------------------------------------------------


def test_bundled_content_loads_with_a_version(content: LegacyContent) -> None:
    assert len(content.version) == 16
    assert set(content.boards) == {"side_a", "side_b"}


@pytest.mark.parametrize(
    ("sentence", "check"),
    [
        (
            "take your 10-card starting deck (6 Burgles, 2 Stumbles, 1 Sidestep, 1 Scramble)",
            lambda c: c.starting == {"burgle": 6, "stumble": 2, "sidestep": 1, "scramble": 1},
        ),
        ("Place all 24 black cubes into the Dragon Bag.", lambda c: c.rules["black_cubes"] == 24),
        ("Take 30 Clank! cubes of your player color", lambda c: c.rules["cubes"] == 30),
        ("Deal six cards face up to create the Adventure Row.", lambda c: c.rules["row_size"] == 6),
        ("Each player draws five cards from their shuffled deck.", lambda c: c.rules["hand_size"] == 5),
        (
            "4-player game: first space.",
            lambda c: c.rules["rage_start"] == {"4": 0, "3": 1, "2": 2},
        ),
        (
            "The first player places 3 of their Clank! cubes in the Clank! Area. The second player "
            "places 2 Clank!, the third places 1 Clank!, and the fourth places none.",
            lambda c: c.rules["starting_clank"] == [3, 2, 1, 0],
        ),
        (
            "draw exactly four cubes (six in a 2-player game)",
            lambda c: c.rules["off_clock_draw"] == {"2": 6, "3": 4, "4": 4},
        ),
        (
            "Take a Mug token (worth 20 points!)",
            lambda c: c.tokens.mug_points == 20 and c.rules["mug_points"] == 20,
        ),
        ("Place one Mug token per player near the HQ space.", lambda c: c.tokens.mug_per_player == 1),
        (
            "you can spend 7 Gold to buy a Market item",
            lambda c: c.rules["market_price"] == 7 and c.rules["market_one_per_type"] is True,
        ),
        ("Gold tokens (valued 1 and 5)", lambda c: c.rules["gold_tokens"] == [1, 5]),
        (
            "building your very own Acquisitions Incorporated franchise over at least 10 games",
            lambda c: c.rules["campaign_min_games"] == 10,
        ),
        ("You can only carry one Artifact.", lambda c: c.rules["artifacts_carried"] == 1),
        (
            "In case of a tie, the tied player with the most valuable Artifact wins.",
            lambda c: c.rules["tie_break"] == "artifact_value",
        ),
        (
            "Add the Cultist monster card to the Reserve row, along with piles of Mercenary, "
            "Explore, and Mysterious Tome cards.",
            lambda c: (
                c.cultist == "cultist"
                and c.cards["cultist"].kind == "monster"
                and set(c.reserve) == {"mercenary", "explore", "mysterious_tome"}
            ),
        ),
    ],
)
def test_counts_match_the_seed(
    content: LegacyContent, sentence: str, check: Callable[[LegacyContent], bool]
) -> None:
    # The seed lives outside the repository (shared docs); where it is present, the quote is
    # checked to be the seed's own words, so a count cannot drift from a misquoted sentence.
    if SEED.exists():
        assert " ".join(sentence.split()) in " ".join(SEED.read_text().split())
    assert check(content)


def test_adventure_deck_has_events_dragon_attacks_and_every_kind(content: LegacyContent) -> None:
    deck = {cid: content.cards[cid] for cid in content.adventure}
    assert sum(content.adventure.values()) == content.rules["adventure_cards"] == 80
    assert {c.kind for c in deck.values()} == {"card", "monster", "event"}
    events = [c for c in deck.values() if c.kind == "event"]
    assert events and all(c.reveal and not c.play for c in events)
    assert any(c.dragon_attack for c in deck.values())
    # a mystic-fruit condition exists: it is judged at the end of the turn's play
    assert any(e.cond == "has_fruit" for c in deck.values() for e in _walk_effects(c.play))


def test_secrets_tokens_and_market(content: LegacyContent) -> None:
    sizes = {"major": 0, "minor": 0}
    for s in content.secrets.values():
        sizes[s.size] += s.count
    assert sizes == {"major": 10, "minor": 18}
    assert any(s.dragon_egg for s in content.secrets.values())
    assert "canoe" in content.market
    assert set(content.franchise.market_area) == set(content.market)
    assert content.tokens.fruit_expend


# --- boards -----------------------------------------------------------------------------------


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_board_is_connected_from_hq_and_artifacts_reachable_on_foot(
    content: LegacyContent, side: str
) -> None:
    board = content.boards[side]
    everything = {s for s in board.spaces if s != board.hq}
    with_hidden = _bfs_all(board)
    assert everything <= with_hidden, everything - with_hidden
    on_foot = _bfs(board, board.hq, canoe=False)
    back = _bfs(board, board.hq, reverse=True)
    for sid in board.artifact_spaces():
        assert sid in on_foot, sid
    # every space you can get to has a way home
    assert _bfs(board, board.hq) <= back


def _bfs_all(board: Board) -> set[str]:
    unhidden = Board(
        id=board.id,
        name=board.name,
        hq=board.hq,
        spaces=board.spaces,
        paths=tuple(type(p)(**{**_fields(p), "hidden": False}) for p in board.paths),
    )
    return _bfs(unhidden, board.hq)


def _fields(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in obj.__slots__}


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_board_carries_every_feature_of_the_checklist(content: LegacyContent, side: str) -> None:
    board = content.boards[side]
    spaces = board.spaces.values()
    assert sorted(s.artifact for s in spaces if s.artifact) == [5, 7, 10, 15, 20, 25, 30]
    assert any(s.forest for s in spaces)
    coaches = [s.coach for s in spaces if s.coach]
    assert len(coaches) >= 2 and len(set(coaches)) >= 2  # gold values differ, so fares differ
    assert any(s.town for s in spaces)
    assert any(s.mystic_fruit for s in spaces) and any(s.major_secret for s in spaces)
    rewards = {e.op for s in spaces for e in s.reward}
    assert rewards == {"minor_secret", "draw", "gold", "heal"}
    danger = [s for s in spaces if s.danger_zone]
    assert danger and max(s.artifact for s in danger) == 30
    assert not board.spaces[board.hq].danger_zone
    paths = board.paths
    assert {p.boots for p in paths} == {1, 2, 3}
    assert any(p.monsters for p in paths) and any(p.canoe for p in paths) and any(p.one_way for p in paths)
    for s in spaces:
        if s.waypoint:
            assert content.passages[s.waypoint].kind == "waypoint"


# --- the Book and the campaign ----------------------------------------------------------------


def test_every_passage_reference_resolves(content: LegacyContent) -> None:
    paths = {f"{b.id}:{p.id}" for b in content.boards.values() for p in b.paths}
    lookup: dict[str, Callable[[Effect], bool]] = {
        "board_side": lambda e: e.arg in content.boards,
        "add_card": lambda e: e.arg in content.campaign_cards,
        "remove_card": lambda e: e.arg in content.adventure or e.arg in content.campaign_cards,
        "grant_contract": lambda e: e.arg in content.contracts,
        "grant_patron": lambda e: e.arg in content.patrons,
        "gain_ability": lambda e: e.arg in content.franchise.abilities,
        "record_fact": lambda e: e.arg in content.facts,
        "reveal_path": lambda e: e.arg in paths,
        "block_path": lambda e: e.arg in paths,
        "next_game": lambda e: content.passages[e.n].kind == "prologue",
    }
    checked = 0
    for p in content.passages.values():
        if p.kind == "prologue":
            assert content.passages[p.epilogue].kind == "epilogue"
        for e in _walk_effects(p.effects):
            if e.op in lookup:
                assert lookup[e.op](e), (p.id, e)
                checked += 1
            if e.cond in ("has_fact", "lacks_fact"):
                assert e.arg in content.facts
    assert checked > 50


def test_every_campaign_path_lasts_at_least_ten_games(content: LegacyContent) -> None:
    runs = all_campaign_runs(content)
    assert len(runs) >= 2
    for run in runs:
        assert len(run.steps) >= 10, run.choices
        assert [s.game for s in run.steps] == list(range(1, len(run.steps) + 1))
        assert all(s.board in content.boards for s in run.steps)


# choices in order: game 1 ability, game 3 side, game 5 arc choice, game 8 invoice, game 10 end
GUILD = (0, 0, 0, 0, 0)
GROVE = (1, 1, 1, 1, 0)


def test_two_campaigns_with_different_choices_end_with_different_components(content: LegacyContent) -> None:
    guild = walk_campaign(content, GUILD)
    grove = walk_campaign(content, GROVE)
    assert len(guild.steps) == len(grove.steps) == 10
    assert guild.components() != grove.components()
    # the difference is the story's: who the franchise sided with, what joined the deck
    assert guild.adventure.get("guild_enforcer") == 3 and "grove_druid" not in guild.adventure
    assert grove.adventure.get("grove_druid") == 3 and "guild_enforcer" not in grove.adventure
    assert "side_a:bone_bridge" in guild.blocked and "side_b:reef_ladder" in grove.blocked
    assert {"staff_canteen", "guild_charter", "dragon_insurance"} <= set(guild.abilities)
    assert {"petty_cash", "grove_pact"} <= set(grove.abilities)
    # game 7's Patron follows the side chosen in game 3
    assert guild.steps[6].patrons == ("guildmaster_pell",)
    assert grove.steps[6].patrons == ("thornwood_elder",)
    # and the games in between differ: the arcs use different prologues
    assert [s.prologue for s in guild.steps[3:6]] == [104, 105, 106]
    assert [s.prologue for s in grove.steps[3:6]] == [204, 205, 206]


def test_the_last_choice_can_extend_the_campaign(content: LegacyContent) -> None:
    run = walk_campaign(content, (*GUILD[:4], 1))
    assert len(run.steps) == 11 and "second_branch" in run.facts


def test_waypoint_facts_change_later_prologues(content: LegacyContent) -> None:
    plain = walk_campaign(content, GUILD)
    lit = walk_campaign(content, GUILD, facts=("lit_the_lighthouse",))
    assert "signpost_survey" not in plain.steps[8].contracts
    assert "signpost_survey" in lit.steps[8].contracts


def test_a_campaign_resumes_from_the_state_after_any_game(content: LegacyContent) -> None:
    after3 = walk_campaign(content, GROVE[:2], games=3)
    assert [s.game for s in after3.steps] == [1, 2, 3]
    assert after3.adventure["grove_druid"] == 3 and "sided_with_grove" in after3.facts
    assert after3.abilities == ("petty_cash",)
    whole = walk_campaign(content, GROVE)
    assert whole.steps[:3] == after3.steps


@pytest.mark.parametrize("choices", [(0, 0), (0, 0, 0, 0, 0, 0), (0, 5, 0, 0, 0)])
def test_walk_refuses_short_long_or_out_of_range_choices(
    content: LegacyContent, choices: tuple[int, ...]
) -> None:
    with pytest.raises(ValueError):
        walk_campaign(content, choices)


# --- broken copies ----------------------------------------------------------------------------


def _first(data: dict[str, Any], key: str, ident: Any) -> dict[str, Any]:
    for item in data[key]:
        if item.get("id") == ident:
            return item  # type: ignore[no-any-return]
    raise KeyError(ident)


def _trap_the_vault(board: dict[str, Any]) -> None:
    """Make every path into the Drowned Vault one-way inwards: a trap."""
    for p in board["paths"]:
        if "drowned_vault" in (p["a"], p["b"]):
            other = p["b"] if p["a"] == "drowned_vault" else p["a"]
            p.update(a=other, b="drowned_vault", one_way=True)


BROKEN: list[tuple[str, Callable[[Any], None], tuple[str, str, str], str]] = [
    # (file, change, (file, entry, field) in the error, words in the message)
    (
        "adventure.json",
        lambda d: _first(d, "cards", "hush_boots").update(boots=1),
        ("adventure.json", "hush_boots", "boots"),
        "unknown field",
    ),
    (
        "adventure.json",
        lambda d: _first(d, "cards", "canoe_voucher")["play"][1].update(arg="raft"),
        ("adventure.json", "canoe_voucher", "play[1].arg"),
        "unknown market item 'raft'",
    ),
    (
        "adventure.json",
        lambda d: _first(d, "cards", "payday")["reveal"].append({"op": "draw", "n": 1}),
        ("adventure.json", "payday", "reveal[1].op"),
        "not allowed here",
    ),
    (
        "adventure.json",
        lambda d: _first(d, "cards", "brawling_accountant")["play"][1].update(arg="companoin"),
        ("adventure.json", "brawling_accountant", "play[1].arg"),
        "unknown tag 'companoin'",
    ),
    (
        "reserve.json",
        lambda d: _first(d, "cards", "cultist").update(respawn=True),
        ("reserve.json", "cultist", "respawn"),
        "unknown field",
    ),
    (
        "starting.json",
        lambda d: _first(d, "cards", "burgle").update(count=5),
        ("starting.json", "*", "count"),
        "differs from rules",
    ),
    (
        "campaign_cards.json",
        lambda d: _first(d, "cards", "guild_enforcer").update(faction="guild"),
        ("campaign_cards.json", "guild_enforcer", "faction"),
        "unknown field",
    ),
    (
        "upgrades.json",
        lambda d: _first(d, "cards", "sure_footing").update(cost=2),
        ("upgrades.json", "sure_footing", "kind"),
        "costing 0",
    ),
    (
        "secrets.json",
        lambda d: _first(d, "secrets", "loose_coins").update(value=2),
        ("secrets.json", "loose_coins", "value"),
        "unknown field",
    ),
    (
        "tokens.json",
        lambda d: d["market"][0].update(price=7),
        ("tokens.json", "canoe", "price"),
        "unknown field",
    ),
    (
        "contracts.json",
        lambda d: _first(d, "contracts", "courier_run")["check"].update(arg="castle"),
        ("contracts.json", "courier_run", "check.arg"),
        "unknown space kind",
    ),
    (
        "patrons.json",
        lambda d: _first(d, "patrons", "old_investor").update(mood="grim"),
        ("patrons.json", "old_investor", "mood"),
        "unknown field",
    ),
    (
        "franchise.json",
        lambda d: d["market_area"].append("jetpack"),
        ("franchise.json", "franchise", "market_area[4]"),
        "unknown market item 'jetpack'",
    ),
    (
        "reviews.json",
        lambda d: _first(d, "promotions", "team_lead").update(**{"with": "golden_parachute"}),
        ("reviews.json", "team_lead", "with"),
        "not a card of upgrades.json",
    ),
    (
        "contracts.json",
        lambda d: _first(d, "contracts", "pest_control").update(deadline=3),
        ("contracts.json", "pest_control", "deadline"),
        "unknown field",
    ),
    (
        "franchise.json",
        lambda d: _first(d, "abilities", "petty_cash").update(cost=1),
        ("franchise.json", "petty_cash", "cost"),
        "unknown field",
    ),
    (
        "reviews.json",
        lambda d: _first(d, "promotions", "team_lead").update(salary=9),
        ("reviews.json", "team_lead", "salary"),
        "unknown field",
    ),
    (
        "tokens.json",
        lambda d: d["mystic_fruit"]["expend"].append({"op": "add_card", "arg": "guild_enforcer"}),
        ("tokens.json", "mystic_fruit", "expend[2].op"),
        "not allowed here",
    ),
    (
        "rules.json",
        lambda d: d.update(dragon_name="x"),
        ("rules.json", "rules", "dragon_name"),
        "unknown field",
    ),
    (
        "rules.json",
        lambda d: d.pop("off_clock_draw"),
        ("rules.json", "rules", "off_clock_draw"),
        "required field is missing",
    ),
    (
        "boards/side_a.json",
        lambda d: d["paths"].append({"a": "lane", "b": "volcano"}),
        ("boards/side_a.json", "paths[37]", "b"),
        "unknown space 'volcano'",
    ),
    (
        "boards/side_a.json",
        lambda d: _first(d, "spaces", "mill").update(windmill=True),
        ("boards/side_a.json", "mill", "windmill"),
        "unknown field",
    ),
    (
        "boards/side_a.json",
        lambda d: d["paths"].append({"id": "secret_door", "a": "lane", "b": "cairn", "hidden": True}),
        ("boards/side_a.json", "paths[37]", "hidden"),
        "no passage reveals path 'secret_door'",
    ),
    (
        "boards/side_b.json",
        lambda d: d["spaces"].append({"id": "lost_isle", "name": "Lost Isle"}),
        ("boards/side_b.json", "lost_isle", "id"),
        "cannot be reached from HQ",
    ),
    (
        "boards/side_b.json",
        lambda d: _first(d, "spaces", "lighthouse").update(waypoint=42),
        ("boards/side_b.json", "lighthouse", "waypoint"),
        "unknown waypoint passage '42'",
    ),
    (
        "boards/side_b.json",
        _trap_the_vault,
        ("boards/side_b.json", "drowned_vault", "id"),
        "no way back to HQ",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 152)["effects"][0].update(arg="golden_hole_punch"),
        ("book.json", "passage 152", "effects[0].arg"),
        "unknown campaign card 'golden_hole_punch'",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 101)["effects"][2].update(arg="mystery_job"),
        ("book.json", "passage 101", "effects[2].arg"),
        "unknown contract",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 155)["effects"][0]["options"][0][1].update(arg="side_b:hq-jetty"),
        ("book.json", "passage 155", "effects[0].options[0][1].arg"),
        "unknown hidden path",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 152)["effects"][1].update(n=999),
        ("book.json", "passage 152", "effects[1].n"),
        "unknown prologue '999'",
    ),
    (
        "book.json",
        lambda d: d["passages"].append(
            {
                "id": 199,
                "kind": "prologue",
                "game": 3,
                "epilogue": 153,
                "title": "Orphan",
                "text": "x",
                "effects": [{"op": "board_side", "arg": "side_a"}],
            }
        ),
        ("book.json", "passage 199", "id"),
        "no campaign path reaches this passage",
    ),
    (
        "book.json",
        lambda d: d["passages"].append(
            {
                "id": 7,
                "kind": "waypoint",
                "title": "Nowhere",
                "text": "x",
                "effects": [{"op": "gold", "n": 1}],
            }
        ),
        ("book.json", "passage 7", "id"),
        "no board space triggers this waypoint passage",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 101)["effects"].append({"op": "board_side", "arg": "side_b"}),
        ("book.json", "passage 101", "effects"),
        "exactly one board side",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 151)["effects"].append({"op": "next_game", "n": 102}),
        ("book.json", "passage 151", "effects"),
        "exactly one next_game or end_campaign",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 255)["effects"][0]["options"][1].__setitem__(
            0, {"op": "add_card", "arg": "golden_stapler"}
        ),
        ("book.json", "passage 255", "effects"),
        "the box has only 1",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 103).update(chapter=3),
        ("book.json", "passage 103", "chapter"),
        "unknown field",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 159)["effects"].__setitem__(2, {"op": "end_campaign"}),
        ("book.json", "campaign", "passages"),
        "after 9 games, fewer than 10",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 156)["effects"].insert(
            0, {"op": "block_path", "arg": "side_a:scar-ashfield"}
        ),
        ("book.json", "passage 156", "paths"),
        "cannot be reached from HQ on foot",
    ),
    (
        "book.json",
        lambda d: _first(d, "passages", 158)["effects"][0]["options"][1][2].update(n=7),
        ("book.json", "passage 158", "effects"),
        "removes 7 trade_bead",
    ),
]


@pytest.mark.parametrize(
    ("file", "change", "where", "words"), BROKEN, ids=[f"{b[0]}:{b[2][2]}:{b[3][:20]}" for b in BROKEN]
)
def test_broken_copy_is_refused_with_a_clear_error(
    copy: Path,
    file: str,
    change: Callable[[Any], None],
    where: tuple[str, str, str],
    words: str,
) -> None:
    _edit(copy / file, change)
    err = _expect(copy, *where, words=words)
    assert where[0] in str(err)


def test_every_content_file_kind_has_a_broken_copy_test() -> None:
    files = {p.relative_to(CONTENT_DIR).as_posix() for p in CONTENT_DIR.rglob("*.json")}
    assert files == {b[0] for b in BROKEN}


def test_the_unchanged_copy_loads(copy: Path) -> None:
    assert load_content(copy).version == load_content().version
