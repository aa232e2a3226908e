"""The bundled Alien content loads; bad content is rejected naming file, entry and field.

Every bad-content test copies the content directory, breaks exactly one thing and checks that
`load_content` raises `ContentError` naming the file, the entry and the field.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from referee.games.alien.content import CONTENT_DIR, load_content
from tests.content_edits import content_copy_fixture, edit_json, expect_content_error

content_copy = content_copy_fixture(CONTENT_DIR, "content_copy")
_edit = edit_json
_expect_error = partial(expect_content_error, load_content)


def test_bundled_content_loads() -> None:
    c = load_content()
    assert len(c.version) == 16


def test_bad_effect_op_names_file_entry_and_field(content_copy: Path) -> None:
    def change(d: Any) -> None:
        d["characters"][1]["cards"][0]["play"][0]["op"] = "teleport"

    _edit(content_copy / "characters.json", change)
    _expect_error(content_copy, "characters.json", "mercado_patch_job", "play[0].op")


def test_bad_role_health(content_copy: Path) -> None:
    _edit(content_copy / "roles.json", lambda d: d["roles"][0].update(health=9))
    _expect_error(content_copy, "roles.json", "rifleman", "health")


def test_bad_nested_role_card_field(content_copy: Path) -> None:
    _edit(content_copy / "roles.json", lambda d: d["roles"][2]["card"].update(colour="red"))
    _expect_error(content_copy, "roles.json", "systems_tech", "card.colour")


def test_sergeant_without_coordinate(content_copy: Path) -> None:
    _edit(content_copy / "sergeants.json", lambda d: d["cards"][3].update(coordinate=False))
    _expect_error(content_copy, "sergeants.json", "sgt_haddad", "coordinate")


def test_character_with_13_cards(content_copy: Path) -> None:
    _edit(content_copy / "characters.json", lambda d: d["characters"][2]["cards"][0].update(count=4))
    _expect_error(content_copy, "characters.json", "kiri", "cards")


def test_enemy_without_strikes(content_copy: Path) -> None:
    _edit(content_copy / "hive.json", lambda d: d["cards"][5].update(strikes=0))
    _expect_error(content_copy, "hive.json", "duct_lurker", "strikes")


def test_objective_deck_with_unknown_card(content_copy: Path) -> None:
    _edit(content_copy / "objectives.json", lambda d: d["objectives"][1]["deck"][2].update(card="nope"))
    _expect_error(content_copy, "objectives.json", "purge_vents", "deck[2].card")


def test_objective_deck_of_the_wrong_size(content_copy: Path) -> None:
    _edit(content_copy / "objectives.json", lambda d: d["objectives"][0]["deck"][2].update(count=3))
    _expect_error(content_copy, "objectives.json", "distress_call", "deck")


def test_strike_with_bad_damage(content_copy: Path) -> None:
    _edit(content_copy / "strikes.json", lambda d: d["strikes"][1].update(damage="two"))
    _expect_error(content_copy, "strikes.json", "impale", "damage")


def test_combo_on_unknown_class(content_copy: Path) -> None:
    def change(d: Any) -> None:
        d["characters"][2]["cards"][0]["play"][1]["arg"] = "pirate"

    _edit(content_copy / "characters.json", change)
    _expect_error(content_copy, "characters.json", "kiri_covering_fire", "play[1].arg")


def test_location_hazard_without_effects(content_copy: Path) -> None:
    _edit(content_copy / "location.json", lambda d: d["hazards"][1].update(effects=[]))
    _expect_error(content_copy, "location.json", "calder_station", "hazards[1].effects")


def test_invalid_json_names_the_file(content_copy: Path) -> None:
    (content_copy / "hatchery.json").write_text("{not json")
    _expect_error(content_copy, "hatchery.json", "*", "*")
