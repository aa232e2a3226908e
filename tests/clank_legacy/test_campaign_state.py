"""Clank! Legacy campaign state: JSON round trip, strict reading, every permanent op, Employee
Reviews and promotions, branching components, and purity (same inputs, same digest).

Passages are resolved here by a small test resolver (prologue and epilogue effects with given
group choices, `if` on campaign facts), standing in for the engine; its end state is compared
with the content loader's own `walk_campaign`, an independent implementation of the same ops.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest

from referee.core.content_files import ContentError
from referee.core.effects import Effect
from referee.games.clank_legacy.campaign import (
    CAMPAIGN_STATE_VERSION,
    CampaignState,
    MissionReport,
    adventure_counts,
    adventure_deck,
    apply_passage,
    apply_permanent,
    close_game,
    end_passage,
    new_campaign,
    open_paths,
    path_state,
    starting_deck,
)
from referee.games.clank_legacy.content import LegacyContent, default_content, walk_campaign


@pytest.fixture(scope="module")
def content() -> LegacyContent:
    return default_content()


class _Choices:
    def __init__(self, choices: Sequence[int]) -> None:
        self.left = list(choices)
        self.made: list[int] = []

    def take(self) -> int:
        c = self.left.pop(0)
        self.made.append(c)
        return c


def _resolve(state: CampaignState, passage: int, effects: Sequence[Effect], picks: _Choices) -> CampaignState:
    for e in effects:
        if e.op == "choose":
            state = _resolve(state, passage, e.options[picks.take()], picks)
        elif e.op == "if":
            if (e.arg in state.facts) == (e.cond == "has_fact"):
                state = _resolve(state, passage, e.then, picks)
        elif e.op in ("board_side", "grant_patron", "grant_contract"):
            continue  # in-game only: the engine's
        else:
            state = apply_permanent(state, e, passage=passage)
    return state


def _passage(state: CampaignState, passage: int, picks: _Choices) -> CampaignState:
    state = _resolve(state, passage, default_content().passages[passage].effects, picks)
    end_passage(state, passage)
    return state


def _report(
    state: CampaignState, prologue: int, epilogue: int, made: Sequence[int], before: str
) -> MissionReport:
    # a fixed, varied outcome per game: seat (game % players) wins, seat 0 escapes on odd games
    n, g = state.players, state.game_index
    scores = tuple(10 * ((s - g) % n) for s in range(n))
    escaped = (0,) if g % 2 else ()
    knocked = tuple(s for s in range(n) if s not in escaped and s % 2)
    return MissionReport(
        game_index=g,
        prologue=prologue,
        epilogue=epilogue,
        seed=1000 + g,
        scores=scores,
        escaped=escaped,
        knocked_out=knocked,
        mvp=max(range(n), key=lambda s: (scores[s], -s)),
        choices=tuple(made),
        state_before=before,
    )


def _play(players: int, choices: Sequence[int], games: int | None = None) -> Iterator[CampaignState]:
    """Every state after each game of a campaign taking `choices` at the group decisions."""
    c = default_content()
    state = new_campaign(players)
    picks = _Choices(choices)
    while not state.over and (games is None or state.game_index <= games):
        before = state.digest()
        prologue = c.passages[state.next_prologue]
        picks.made = []
        state = _passage(state, prologue.id, picks)
        state = _passage(state, prologue.epilogue, picks)
        state = close_game(state, _report(state, prologue.id, prologue.epilogue, picks.made, before))
        yield state
    assert games is not None or not picks.left


def _final(players: int, choices: Sequence[int]) -> CampaignState:
    return list(_play(players, choices))[-1]


GUILD = (0, 0, 0, 0, 0)
GROVE = (1, 1, 1, 1, 0)


def test_new_campaign_starts_at_the_first_prologue(content: LegacyContent) -> None:
    s = new_campaign(3, ["Ada", "Bo", "Cy"])
    assert (s.game_index, s.next_prologue, s.names) == (1, content.first_prologue, ("Ada", "Bo", "Cy"))
    assert s.checkmarks == (0, 0, 0) and s.promotions == ((), (), ())
    assert adventure_counts(s) == {k: v for k, v in sorted(content.adventure.items())}
    assert len(adventure_deck(s)) == content.rules["adventure_cards"]
    assert new_campaign(2).names == ("Wren Ashdown", "Tobble Quill")
    for bad in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 players"):
            new_campaign(bad)
    with pytest.raises(ValueError, match="names"):
        new_campaign(2, ["only one"])


def test_round_trip_is_canonical_and_versioned() -> None:
    for state in _play(4, GROVE):
        data = state.to_json()
        assert data["version"] == CAMPAIGN_STATE_VERSION
        text = json.dumps(data)
        back = CampaignState.from_json(json.loads(text))
        assert back == state and back.digest() == state.digest()
    assert len(state.reports) == 10 and state.over


def _state_json() -> dict[str, Any]:
    return list(_play(4, GUILD, games=3))[-1].to_json()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(version=3), "version: 3 is not supported"),
        (lambda d: d["reports"][0].pop("next_prologue"), "missing field 'next_prologue'"),
        (lambda d: d.pop("version"), "missing field 'version'"),
        (lambda d: d.update(colour="red"), "unknown field 'colour'"),
        (lambda d: d.update(players=5), "players: 5 is outside 2..4"),
        (lambda d: d.update(players=True), "players: must be an integer"),
        (lambda d: d["names"].pop(), "names: must have 4 entries"),
        (lambda d: d["names"].__setitem__(0, " padded"), r"names\[0\]: a name is printable"),
        (lambda d: d.update(next_prologue=151), "passage 151 is not a prologue"),
        (lambda d: d["facts"].append("made_up"), "unknown fact 'made_up'"),
        (lambda d: d["adventure_changes"].update(dragon_egg=1), "unknown Adventure card"),
        (lambda d: d["adventure_changes"].update(guild_enforcer=9), "outside what the box holds"),
        (lambda d: d["abilities"].append("flying"), "unknown ability 'flying'"),
        (lambda d: d["paths"].update({"side_a:nowhere": "opened"}), "unknown path"),
        (lambda d: d["checkmarks"].__setitem__(1, 3), r"checkmarks\[1\]: 3 is outside 0..2"),
        (lambda d: d["promotions"][0].append("burgle"), "unknown upgrade card 'burgle'"),
        (lambda d: d.update(game_index=7), "game_index: 7 after 3 reports"),
        (lambda d: d["reports"][0].update(mvp=4), "report.mvp: 4 is outside 0..3"),
        (lambda d: d["reports"][0].update(extra=1), "unknown field 'extra'"),
        (lambda d: d["reports"][1].update(game_index=5), r"reports\[1\].game_index: is 5"),
        (lambda d: d["reports"][0]["scores"].pop(), "one score per seat"),
        (lambda d: d.update(over="no"), "over: must be true or false"),
    ],
)
def test_from_json_refuses_with_a_clear_error(change: Any, words: str) -> None:
    data = _state_json()
    change(data)
    with pytest.raises(ValueError, match=words) as err:
        CampaignState.from_json(data)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith("campaign state: ")


def test_from_json_refuses_a_non_object() -> None:
    bad: list[Any] = [[], "x", None]
    for data in bad:
        with pytest.raises(ValueError, match="must be a JSON object"):
            CampaignState.from_json(data)


def test_path_state_refuses_an_unknown_status(content: LegacyContent) -> None:
    board = content.boards["side_a"]
    data = new_campaign(2).to_json()
    data["paths"] = {f"side_a:{board.paths[0].id}": "ajar"}
    with pytest.raises(ValueError, match="must be 'opened' or 'blocked'"):
        CampaignState.from_json(data)


def test_cards_are_added_and_removed_within_the_box(content: LegacyContent) -> None:
    s = new_campaign(2)
    s = apply_permanent(s, Effect(op="add_card", arg="guild_enforcer", n=2))
    assert s.adventure_changes == {"guild_enforcer": 2}
    assert adventure_deck(s).count("guild_enforcer") == 2
    assert len(adventure_deck(s)) == content.rules["adventure_cards"] + 2
    with pytest.raises(ContentError, match="the box has only 3"):
        apply_permanent(s, Effect(op="add_card", arg="guild_enforcer", n=2), passage=153)
    have = content.adventure["cheese_goblin"]
    s = apply_permanent(s, Effect(op="remove_card", arg="cheese_goblin", n=have))
    assert "cheese_goblin" not in adventure_deck(s)
    assert s.adventure_changes == {"cheese_goblin": -have, "guild_enforcer": 2}
    with pytest.raises(ContentError, match="the deck has 0"):
        apply_permanent(s, Effect(op="remove_card", arg="cheese_goblin", n=1))
    s = apply_permanent(s, Effect(op="remove_card", arg="guild_enforcer", n=2))
    assert s.adventure_changes == {"cheese_goblin": -have}
    with pytest.raises(ValueError, match="not in the content"):
        apply_permanent(s, Effect(op="add_card", arg="burgle", n=1))


def test_abilities_fill_slots_once_each(content: LegacyContent) -> None:
    s = new_campaign(2)
    ids = list(content.franchise.abilities)
    s = apply_permanent(s, Effect(op="gain_ability", arg=ids[0]))
    assert s.abilities == (ids[0],)
    with pytest.raises(ContentError, match="gained twice"):
        apply_permanent(s, Effect(op="gain_ability", arg=ids[0]))
    slots = content.franchise.ability_slots
    if len(ids) > slots:
        for a in ids[1:slots]:
            s = apply_permanent(s, Effect(op="gain_ability", arg=a))
        with pytest.raises(ContentError, match="more abilities than Franchise Board slots"):
            apply_permanent(s, Effect(op="gain_ability", arg=ids[slots]))
    with pytest.raises(ValueError, match="not in the content"):
        apply_permanent(s, Effect(op="gain_ability", arg="teleportation"))


def test_facts_are_recorded(content: LegacyContent) -> None:
    s = apply_permanent(new_campaign(2), Effect(op="record_fact", arg="bridge_burned"))
    assert s.facts == frozenset({"bridge_burned"})
    assert apply_permanent(s, Effect(op="record_fact", arg="bridge_burned")) == s
    with pytest.raises(ValueError, match="not in the content"):
        apply_permanent(s, Effect(op="record_fact", arg="unknown_fact"))


def test_paths_open_and_close(content: LegacyContent) -> None:
    board = content.boards["side_b"]
    hidden = board.path_index["pearl_steps"]
    s = new_campaign(2)
    assert hidden not in open_paths(s, content, "side_b")
    s = apply_permanent(s, Effect(op="reveal_path", arg="side_b:pearl_steps"))
    assert hidden in open_paths(s, content, "side_b")
    assert path_state(s, "side_b") == (frozenset({"pearl_steps"}), frozenset())
    assert path_state(s, "side_a") == (frozenset(), frozenset())
    s = apply_permanent(s, Effect(op="block_path", arg="side_b:pearl_steps"))
    assert s.paths == {"side_b:pearl_steps": "blocked"}
    assert hidden not in open_paths(s, content, "side_b")
    with pytest.raises(ValueError, match="not in the content"):
        apply_permanent(s, Effect(op="reveal_path", arg="side_a:hollow-scar"))  # not a hidden path


def test_a_passage_that_strands_an_artifact_is_refused_at_its_end(content: LegacyContent) -> None:
    # passage 156 blocks the Bone Bridge, then reveals the Ash Tunnel detour: fine as a whole
    blocks = [
        Effect(op="block_path", arg="side_a:bone_bridge"),
        Effect(op="reveal_path", arg="side_a:ash_tunnel"),
    ]
    s = apply_passage(new_campaign(2), blocks, 156)
    assert s.paths == {"side_a:ash_tunnel": "opened", "side_a:bone_bridge": "blocked"}
    # the block alone strands an artifact: refused when the passage ends, naming it
    with pytest.raises(ContentError, match=r"passage 156.*cannot be reached"):
        apply_passage(new_campaign(2), blocks[:1], 156)
    half = apply_permanent(new_campaign(2), blocks[0])
    with pytest.raises(ContentError, match="passage 151"):
        close_game(
            apply_permanent(half, Effect(op="next_game", n=102)),
            MissionReport(1, 101, 151, 0, (0, 0), (), (), 0, (), ""),
        )


def test_next_game_and_end_campaign() -> None:
    s = new_campaign(2)
    with pytest.raises(ValueError, match="not the prologue of game 2"):
        apply_permanent(s, Effect(op="next_game", n=103))
    s2 = apply_permanent(s, Effect(op="next_game", n=102))
    assert s2.next_prologue == 102
    over = apply_permanent(s, Effect(op="end_campaign"))
    assert over.over
    for e in (Effect(op="end_campaign"), Effect(op="next_game", n=102)):
        with pytest.raises(ValueError, match="the campaign is over"):
            apply_permanent(over, e)
    with pytest.raises(ValueError, match="not a permanent campaign op"):
        apply_permanent(s, Effect(op="gold", n=2))


def test_close_game_needs_the_epilogue_and_the_right_game() -> None:
    s = new_campaign(2)
    report = MissionReport(1, 101, 151, 7, (5, 9), (1,), (0,), 1, (0,), s.digest())
    with pytest.raises(ValueError, match="named no next game"):
        close_game(s, report)
    s = apply_permanent(s, Effect(op="next_game", n=102))
    with pytest.raises(ValueError, match="report for game 2"):
        close_game(s, replace(report, game_index=2))
    with pytest.raises(ValueError, match="seats do not match"):
        close_game(s, replace(report, scores=(1, 2, 3)))
    after = close_game(s, report)
    named = replace(report, next_prologue=102)  # the report names the next game's Prologue
    assert (after.game_index, after.reports, after.checkmarks) == (2, (named,), (0, 1))


def test_reviews_give_one_checkmark_per_seat_and_promote_at_three(content: LegacyContent) -> None:
    s = new_campaign(3)
    # seat 1 is the MVP and escapes (one Checkmark, not two); seat 2 escapes; seat 0 nothing
    for game in (1, 2):
        s = apply_permanent(s, Effect(op="next_game", n=100 + game + 1))
        s = close_game(
            s, MissionReport(game, 100 + game, 150 + game, game, (1, 30, 20), (1, 2), (0,), 1, (), "")
        )
    assert s.checkmarks == (0, 2, 2)
    s = apply_permanent(s, Effect(op="next_game", n=104))
    s = close_game(s, MissionReport(3, 103, 153, 3, (1, 30, 20), (2,), (), 1, (0,), ""))
    # both promoted, counters reset; the first reviews.json entry, Burgle -> its upgrade
    first = next(iter(content.promotions.values()))
    assert s.checkmarks == (0, 0, 0)
    assert s.promotions == ((), (first.with_,), (first.with_,))
    deck = starting_deck(s, 1)
    assert deck.count(first.replace) == content.starting[first.replace] - 1
    assert deck.count(first.with_) == 1
    assert len(deck) == sum(content.starting.values())
    assert starting_deck(s, 0) == sorted(c for c, n in content.starting.items() for _ in range(n))


def test_promotions_run_out_of_box_copies_and_replaced_cards(content: LegacyContent) -> None:
    # every seat escapes every game: a promotion each 3 games, drawing on one shared box
    s = new_campaign(4)
    for _ in range(18):
        ended = replace(s, over=True)  # skips the Book: only the reviews matter here
        s = close_game(ended, MissionReport(s.game_index, 1, 1, 0, (0, 0, 0, 0), (0, 1, 2, 3), (), 0, (), ""))
    assert s.game_index == 19 and s.checkmarks == (0, 0, 0, 0)
    order = [p.with_ for p in content.promotions.values()]
    # round r gives every seat the r-th reviews.json entry while the box has a copy per seat
    for seat in range(4):
        assert list(s.promotions[seat]) == order[: len(s.promotions[seat])]
        deck = starting_deck(s, seat)
        assert len(deck) == sum(content.starting.values())
        for cid in content.starting:
            assert deck.count(cid) >= 0
    used = {u: sum(ups.count(u) for ups in s.promotions) for u in order}
    assert all(used[u] <= content.upgrades[u] for u in order)
    assert all(not _can_promote(content, s, seat) for seat in range(4))
    assert sum(used.values()) == sum(len(p) for p in s.promotions) > 0


def _can_promote(content: LegacyContent, s: CampaignState, seat: int) -> bool:
    for p in content.promotions.values():
        used = sum(u == p.with_ for ups in s.promotions for u in ups)
        if starting_deck(s, seat).count(p.replace) and used < content.upgrades[p.with_]:
            return True
    return False


@pytest.mark.parametrize("choices", [GUILD, GROVE, (0, 1, 0, 1, 1), (1, 0, 1, 0, 0)])
def test_campaign_end_state_matches_the_loaders_walk(
    content: LegacyContent, choices: tuple[int, ...]
) -> None:
    final = _final(4, choices)
    run = walk_campaign(content, choices)
    assert len(final.reports) == len(run.steps)
    assert [r.prologue for r in final.reports] == [s.prologue for s in run.steps]
    assert adventure_counts(final) == {k: v for k, v in run.adventure.items() if v}
    assert final.abilities == run.abilities
    assert final.facts == run.facts
    assert {p for p, v in final.paths.items() if v == "blocked"} == run.blocked
    revealed_open = {p for p, v in final.paths.items() if v == "opened"}
    assert revealed_open == run.revealed - run.blocked


def test_two_choice_paths_give_different_components() -> None:
    guild, grove = _final(4, GUILD), _final(4, GROVE)
    assert adventure_deck(guild).count("guild_enforcer") == 3
    assert adventure_deck(grove).count("guild_enforcer") == 0
    assert adventure_deck(grove).count("grove_druid") == 3
    assert "sided_with_guild" in guild.facts and "sided_with_grove" in grove.facts
    assert guild.paths != grove.paths and guild.abilities != grove.abilities
    assert guild.digest() != grove.digest()


def test_state_after_game_k_is_a_pure_function_of_the_inputs() -> None:
    a = [s.digest() for s in _play(3, GROVE)]
    b = [s.digest() for s in _play(3, GROVE)]
    assert a == b and len(set(a)) == len(a)
    # resuming from the JSON of the state after game 4 gives the same game 5
    states = list(_play(3, GROVE))
    resumed = CampaignState.from_json(json.loads(json.dumps(states[3].to_json())))
    assert resumed.digest() == states[3].digest()
    # a different outcome of one game (another seed in its report) changes every later digest
    other = close_game(
        apply_permanent(new_campaign(3), Effect(op="next_game", n=102)),
        MissionReport(1, 101, 151, 1, (0, 0, 0), (), (), 0, (), ""),
    )
    other2 = close_game(
        apply_permanent(new_campaign(3), Effect(op="next_game", n=102)),
        MissionReport(1, 101, 151, 2, (0, 0, 0), (), (), 0, (), ""),
    )
    assert other.digest() != other2.digest()


def test_report_round_trip_and_refusals() -> None:
    r = MissionReport(2, 102, 152, 9, (3, 4), (0,), (1,), 1, (1, 0), "ab", "side_b")
    assert MissionReport.from_json(r.to_json()) == r
    bad = r.to_json() | {"escaped": [1, 0]}
    with pytest.raises(ValueError, match="ascending and distinct"):
        MissionReport.from_json(bad)
    both = r.to_json() | {"escaped": [1], "knocked_out": [1]}
    with pytest.raises(ValueError, match="both escape and be knocked out"):
        MissionReport.from_json(both)


def test_each_mission_report_names_the_next_prologue_and_v1_upgrades() -> None:
    """The campaign: each game's Prologue is named by the Mission Report of the game before
    (0 after the last game); a version 1 state (reports without the field) is read as version 2
    with the same names, and anything else keeps the same JSON."""
    state = list(_play(4, GROVE))[-1]
    reports = state.reports
    assert state.over and reports[-1].next_prologue == 0
    assert [r.next_prologue for r in reports[:-1]] == [r.prologue for r in reports[1:]]
    data = state.to_json()
    old = json.loads(json.dumps(data))
    old["version"] = 1
    for r in old["reports"]:
        del r["next_prologue"]
    assert CampaignState.from_json(old) == state
    mid = list(_play(4, GROVE, games=3))[-1]
    old = mid.to_json() | {"version": 1}
    old["reports"] = [{k: v for k, v in r.items() if k != "next_prologue"} for r in old["reports"]]
    assert CampaignState.from_json(old).reports[-1].next_prologue == mid.next_prologue != 0
