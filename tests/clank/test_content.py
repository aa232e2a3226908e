"""The bundled Clank! content loads and matches the rules; bad content is rejected by name.

Every bad-content test copies the content directory to a temporary path, breaks exactly one
thing and checks that `load_content` raises `ContentError` naming the file, the entry and the
field, so an author can find the mistake without reading the loader.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from referee.games.clank.content import (
    CARD_KINDS,
    CONTENT_DIR,
    Board,
    ClankContent,
    Effect,
    load_content,
)
from tests.content_edits import content_copy_fixture, edit_json, expect_content_error


@pytest.fixture(scope="module")
def content() -> ClankContent:
    return load_content()


content_copy = content_copy_fixture(CONTENT_DIR, "content_copy")
_edit = edit_json
_expect_error = partial(expect_content_error, load_content)


def _all_effects(effects: tuple[Effect, ...]) -> list[Effect]:
    out: list[Effect] = []
    for e in effects:
        out.append(e)
        out.extend(_all_effects(e.then))
        for option in e.options:
            out.extend(_all_effects(option))
    return out


def _distances(board: Board, source: str, use_locked: bool = True) -> dict[str, int]:
    """Tunnel counts from `source`, following one-way arrows."""
    dist = {source: 0}
    queue = deque([source])
    while queue:
        room = queue.popleft()
        for i in board.exits[room]:
            if not use_locked and board.tunnels[i].locked:
                continue
            nxt = board.other_end(i, room)
            if nxt not in dist:
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return dist


# --- the bundled content matches the rules checklist -------------------------------------


def test_bundled_content_loads_with_a_version(content: ClankContent) -> None:
    assert len(content.version) == 16
    assert set(content.boards) == {"side_a", "side_b"}


def test_dungeon_deck_has_100_cards(content: ClankContent) -> None:
    assert len(content.dungeon) == 100
    assert all(content.cards[c] for c in content.dungeon)


def test_dungeon_deck_covers_every_card_kind_and_timing(content: ClankContent) -> None:
    defs = [content.cards[c] for c in dict.fromkeys(content.dungeon)]
    assert {d.kind for d in defs} == set(CARD_KINDS)
    assert 35 <= len(defs) <= 45
    assert any(d.acquire for d in defs)
    assert any(d.arrive for d in defs)
    assert any(d.points for d in defs)
    ops = {e.op for d in defs for t in (d.play, d.acquire, d.arrive, d.defeat, d.use)
           for e in _all_effects(t)}
    for op in ("trash", "discard_for", "choose", "if", "clank_all", "rage", "teleport"):
        assert op in ops, op
    assert any(e.op == "clank" and e.n < 0 for d in defs for e in _all_effects(d.play))
    conds = {e.cond for d in defs for e in _all_effects(d.play) if e.op == "if"}
    assert conds == {"has_artifact", "in_depths", "played_tag", "has_item"}


def test_dungeon_deck_danger_and_dragon_attack_shares(content: ClankContent) -> None:
    deck = [content.cards[c] for c in content.dungeon]
    assert 6 <= sum(c.danger for c in deck) <= 8
    assert 20 <= sum(c.dragon_attack for c in deck) <= 25
    assert 8 <= sum(c.kind == "device" for c in deck) <= 10
    assert 20 <= sum(c.kind == "monster" for c in deck) <= 25


def test_dungeon_cards_are_priced_by_the_rules(content: ClankContent) -> None:
    for card_id in set(content.dungeon):
        card = content.cards[card_id]
        if card.kind == "monster":
            assert 1 <= card.cost <= 5, card_id
            assert card.defeat, card_id
        else:
            assert 2 <= card.cost <= 7, card_id
        assert card.text, card_id


def test_reserve_has_15_mercenary_15_explore_12_tome_and_one_goblin(content: ClankContent) -> None:
    counts = {c: content.cards[c].count for c in content.reserve}
    assert counts == {"mercenary": 15, "explore": 15, "secret_tome": 12}
    goblin = content.cards[content.goblin]
    assert goblin.kind == "monster" and goblin.count == 1
    assert "companion" in content.cards["mercenary"].tags


def test_starting_deck_is_6_burgle_2_stumble_sidestep_scramble(content: ClankContent) -> None:
    assert Counter(content.starting) == {"burgle": 6, "stumble": 2, "sidestep": 1, "scramble": 1}
    assert len(content.starting) == 10


def test_secrets_are_11_major_18_minor_with_a_dragon_egg(content: ClankContent) -> None:
    sizes: Counter[str] = Counter()
    for s in content.secrets.values():
        sizes[s.size] += s.count
    assert sizes == {"major": 11, "minor": 18}
    assert any(s.dragon_egg for s in content.secrets.values() if s.size == "major")
    assert any(s.potion for s in content.secrets.values())


def test_all_ids_are_unique_across_card_files(content: ClankContent) -> None:
    ids = [c.id for c in content.cards.values()]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_board_has_rooms_and_tokens_the_rules_need(content: ClankContent, side: str) -> None:
    board = content.boards[side]
    rooms = list(board.rooms.values())
    assert 35 <= len(rooms) <= 45
    assert sorted(r.artifact_rank for r in rooms if r.artifact_rank) == list(range(1, 8))
    assert sum(r.minor_secrets == 2 for r in rooms) == 9
    assert sum(r.major_secret for r in rooms) == 8
    assert sum(r.idol for r in rooms) == 3
    markets = [r for r in rooms if r.market]
    assert 1 <= len(markets) <= 2 and not any(r.depths for r in markets)
    assert sum(r.crystal for r in rooms) >= 2
    assert not board.rooms[board.start].depths
    tunnels = board.tunnels
    assert sum(t.locked for t in tunnels) >= 2
    assert sum(t.one_way for t in tunnels) >= 2
    assert sum(t.monsters > 0 for t in tunnels) >= 2
    assert sum(t.boots == 2 for t in tunnels) >= 2
    assert 2.5 <= 2 * len(tunnels) / len(rooms) <= 3.0


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_board_artifacts_deepen_with_rank_and_the_deep_ones_lie_in_the_depths(
    content: ClankContent, side: str
) -> None:
    board = content.boards[side]
    dist = _distances(board, board.start)
    ranked = board.artifact_rooms()
    depths = [dist[r] for r in ranked]
    assert depths == sorted(depths) and len(set(depths)) == 7
    assert 2 <= depths[0] <= 4
    assert 8 <= depths[-1] <= 10
    for room in ranked[3:]:
        assert board.rooms[room].depths, room


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_board_depths_are_one_region_entered_by_a_few_tunnels(
    content: ClankContent, side: str
) -> None:
    board = content.boards[side]
    deep = {r for r, room in board.rooms.items() if room.depths}
    assert len(board.rooms) // 4 <= len(deep) <= len(board.rooms) // 2
    entries = [t for t in board.tunnels if (t.a in deep) != (t.b in deep)]
    assert 2 <= len(entries) <= 4
    first = next(iter(deep))
    seen, stack = {first}, [first]
    while stack:
        room = stack.pop()
        for i in board.touching[room]:
            nxt = board.other_end(i, room)
            if nxt in deep and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    assert seen == deep


@pytest.mark.parametrize("side", ["side_a", "side_b"])
def test_board_never_strands_a_pawn_even_without_a_master_key(
    content: ClankContent, side: str
) -> None:
    board = content.boards[side]
    keyless = _distances(board, board.start, use_locked=False)
    assert set(_distances(board, board.start)) == set(board.rooms)
    for room in keyless:
        assert board.start in _distances(board, room, use_locked=False), room


# --- bad content is rejected, naming file, entry and field -------------------------------


def test_unknown_effect_op_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        data["cards"][0]["play"][0]["op"] = "fly"

    _edit(content_copy / "dungeon.json", change)
    first = json.loads((CONTENT_DIR / "dungeon.json").read_text())["cards"][0]["id"]
    err = _expect_error(content_copy, "dungeon.json", first, "play[0].op")
    assert "unknown op 'fly'" in str(err)


def test_missing_card_name_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        del next(c for c in data["cards"] if c["id"] == "explore")["name"]

    _edit(content_copy / "reserve.json", change)
    _expect_error(content_copy, "reserve.json", "explore", "name")


def test_negative_swords_effect_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        next(c for c in data["cards"] if c["id"] == "mercenary")["play"] = [
            {"op": "swords", "n": -2}
        ]

    _edit(content_copy / "reserve.json", change)
    err = _expect_error(content_copy, "reserve.json", "mercenary", "play[0].n")
    assert "only clank may be negative" in str(err)


def test_negative_monster_sword_cost_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        next(c for c in data["cards"] if c["id"] == "goblin")["cost"] = -1

    _edit(content_copy / "reserve.json", change)
    _expect_error(content_copy, "reserve.json", "goblin", "cost")


def test_tunnel_to_unknown_room_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        data["tunnels"][0]["b"] = "nowhere"

    _edit(content_copy / "boards" / "side_a.json", change)
    err = _expect_error(content_copy, "side_a.json", "tunnels[0]", "b")
    assert "nowhere" in str(err)


def test_dungeon_deck_of_99_cards_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        data["cards"][0]["count"] -= 1

    _edit(content_copy / "dungeon.json", change)
    err = _expect_error(content_copy, "dungeon.json", "*", "count")
    assert "99" in str(err)


def test_duplicate_card_id_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        data["cards"].append(dict(data["cards"][1]))

    _edit(content_copy / "dungeon.json", change)
    second = json.loads((CONTENT_DIR / "dungeon.json").read_text())["cards"][1]["id"]
    err = _expect_error(content_copy, "dungeon.json", second, "id")
    assert "duplicate" in str(err)


def test_invalid_json_is_rejected(content_copy: Path) -> None:
    (content_copy / "secrets.json").write_text('{"secrets": [')
    err = _expect_error(content_copy, "secrets.json", "*", "*")
    assert "not valid JSON" in str(err)


def test_missing_dragon_egg_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        for s in data["secrets"]:
            if s.get("dragon_egg"):
                s["dragon_egg"] = False

    _edit(content_copy / "secrets.json", change)
    _expect_error(content_copy, "secrets.json", "*", "dragon_egg")


def test_room_with_two_token_kinds_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        room = next(r for r in data["rooms"] if r.get("artifact_rank") == 1)
        room["idol"] = True

    _edit(content_copy / "boards" / "side_b.json", change)
    board = json.loads((CONTENT_DIR / "boards" / "side_b.json").read_text())
    room_id = next(r["id"] for r in board["rooms"] if r.get("artifact_rank") == 1)
    _expect_error(content_copy, "side_b.json", room_id, "id")


def test_missing_artifact_rank_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        next(r for r in data["rooms"] if r.get("artifact_rank") == 7)["artifact_rank"] = 0

    _edit(content_copy / "boards" / "side_a.json", change)
    _expect_error(content_copy, "side_a.json", "board", "artifact_rank")


def test_one_way_trap_is_rejected(content_copy: Path) -> None:
    board = json.loads((CONTENT_DIR / "boards" / "side_a.json").read_text())
    start = board["start"]

    def change(data: Any) -> None:
        data["rooms"].append({"id": "pit_trap", "name": "Pit Trap"})
        data["tunnels"].append({"a": start, "b": "pit_trap", "one_way": True})

    _edit(content_copy / "boards" / "side_a.json", change)
    err = _expect_error(content_copy, "side_a.json", "pit_trap", "id")
    assert "no way back" in str(err)


def test_monster_with_play_effects_is_rejected(content_copy: Path) -> None:
    def change(data: Any) -> None:
        monster = next(c for c in data["cards"] if c["kind"] == "monster")
        monster["play"] = [{"op": "skill", "n": 1}]

    _edit(content_copy / "dungeon.json", change)
    data = json.loads((CONTENT_DIR / "dungeon.json").read_text())
    monster_id = next(c["id"] for c in data["cards"] if c["kind"] == "monster")
    _expect_error(content_copy, "dungeon.json", monster_id, "kind")


def test_rules_file_missing_field_names_file_entry_and_field(tmp_path: Path) -> None:
    import json as _json
    import shutil as _shutil

    from referee.core.content_files import ContentError as _ContentError
    from referee.games.clank.content import CONTENT_DIR as _DIR
    from referee.games.clank.content import load_content as _load

    _shutil.copytree(_DIR, tmp_path / "c")
    rules = _json.loads((tmp_path / "c" / "rules.json").read_text())
    del rules["rage_track"]
    (tmp_path / "c" / "rules.json").write_text(_json.dumps(rules))
    with pytest.raises(_ContentError) as err:
        _load(tmp_path / "c")
    assert (err.value.file, err.value.field) == ("rules.json", "rage_track")


def test_non_utf8_file_is_a_content_error(tmp_path: Path) -> None:
    import shutil as _shutil

    from referee.core.content_files import ContentError as _ContentError
    from referee.games.clank.content import CONTENT_DIR as _DIR
    from referee.games.clank.content import load_content as _load

    _shutil.copytree(_DIR, tmp_path / "c")
    (tmp_path / "c" / "secrets.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(_ContentError, match=r"secrets\.json"):
        _load(tmp_path / "c")


def test_content_version_ignores_formatting_but_not_data(tmp_path: Path) -> None:
    """Replays pin the content version: a checkout with other line endings or indentation must
    load them, a changed number must not."""
    import json as _json
    import shutil as _shutil

    from referee.games.clank.content import CONTENT_DIR as _DIR
    from referee.games.clank.content import load_content as _load

    base = _load(_DIR).version
    _shutil.copytree(_DIR, tmp_path / "c")
    rules_path = tmp_path / "c" / "rules.json"
    rules = _json.loads(rules_path.read_text())
    rules_path.write_bytes(_json.dumps(rules, indent=7).replace("\n", "\r\n").encode())
    assert _load(tmp_path / "c").version == base
    rules["market_price"] = 8
    rules_path.write_text(_json.dumps(rules))
    assert _load(tmp_path / "c").version != base
