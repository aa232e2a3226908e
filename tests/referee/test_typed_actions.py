"""Typed legal actions (LegalAction.clank / .alien): every engine action is typed, its identifying
fields give back exactly the engine's action, its info fields tell the truth, every kind is
documented in PROTOCOL.md, and bots reading only the typed fields play whole games over gRPC."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from arena_bot import ARG_FIELDS, decode_action, typed_kind_args
from arena_bot._proto.arena.v1 import common_pb2

from referee.bots import make_bot
from referee.core.game import Action, Game
from referee.games import all_specs, game_class, game_spec
from referee.games.alien.content import default_content as alien_content
from referee.games.alien.engine import AlienGame
from referee.games.clank.engine import ClankGame
from referee.games.clank_legacy.engine import ClankLegacyGame
from referee.replay import verify
from referee.server.codecs import encode_actions

from .conftest import REPO, play, python_bot

PROTOCOL_MD = REPO / "referee" / "server" / "PROTOCOL.md"
#: the games with typed actions: every registered game whose spec names an action codec
TYPED_GAMES = [spec.name for spec in all_specs() if spec.action_codec is not None]
#: the section titles of each game's tables in PROTOCOL.md (a game with typed actions needs them)
TITLES = {"clank": "Clank!", "alien": "Alien", "clank_legacy": "Clank! Legacy"}
GAMES_PER_GAME = 50


@dataclass
class Seen:
    """What the engines emitted over the random games: kinds, and how many actions were checked."""

    decision_kinds: set[str] = field(default_factory=set)
    action_kinds: set[str] = field(default_factory=set)
    actions: int = 0
    info_checked: int = 0
    moves_followed: int = 0


def _expected_info(game: Game, seat: int, action: Action) -> dict[str, Any]:
    """The info fields of `action`, read from the engine's state (not from the observation the
    codec reads them from)."""
    kind, args = action.kind, action.args
    if isinstance(game, ClankGame):
        s = game.s
        if kind in ("fight", "acquire"):
            return {"card": s.row[int(args[0])]}
        if kind in ("move", "teleport"):
            tunnel = game.board.tunnels[int(args[0])]
            here = s.players[seat].room
            info: dict[str, Any] = {"to_room": tunnel.b if tunnel.a == here else tunnel.a}
            if kind == "move":
                info["damage"] = tunnel.monsters - int(args[1])
            return info
        return {}
    if isinstance(game, ClankLegacyGame):
        ls = game.s
        if kind in ("fight", "acquire"):
            return {"card": ls.row[int(args[0])]}
        where = ls.players[seat].space
        if kind in ("move", "teleport"):
            path = game.board.paths[int(args[0])]
            info = {"to_space": path.b if path.a == where else path.a}
            if kind == "move":
                info["damage"] = path.monsters - int(args[1])
            return info
        if kind == "coach":
            spaces = game.board.spaces
            return {"gold": spaces[where].coach + spaces[str(args[0])].coach}
        return {}
    assert isinstance(game, AlienGame)
    s2 = game.s
    me = s2.players[seat]
    if kind in ("use_once", "sacrifice"):
        return {"card": me.play[int(args[0])]}
    if kind == "release":
        return {"card": me.vigilant[int(args[0])]}
    if kind == "recruit":
        return {"card": s2.hq[int(args[0])]}
    if kind == "fight":
        zone, i = str(args[0]), int(args[1])
        if zone == "room":
            room = s2.complex[i]
            assert room is not None
            return {"card": room["card"]}
        return {"card": s2.combat[i] if zone == "combat" else s2.facehuggers[i]["card"]}
    return {}


def _check_decision(name: str, game: Game, seen: Seen) -> list[Any]:
    """Check every legal action of the current decision; returns them as the SDK decoded them."""
    d = game.decision()
    assert d is not None
    seen.decision_kinds.add(d.kind)
    wire = encode_actions(d.actions, name, game.observe(d.seat))
    assert len(wire) == len(d.actions)
    out = []
    for legal, action in zip(wire, d.actions, strict=True):
        # through bytes, as a bot receives it, and through the SDK's decoder
        decoded = decode_action(common_pb2.LegalAction.FromString(legal.SerializeToString()))
        assert legal.WhichOneof("typed") == name, action
        typed = decoded.game_action
        assert typed is not None and decoded.game == name, action
        assert typed.WhichOneof("action") == action.kind == decoded.kind
        assert typed_kind_args(typed) == (action.kind, action.args), action.text
        assert (decoded.args, decoded.text) == (action.args, action.text)
        inner = decoded.typed
        assert inner is not None
        for key, value in _expected_info(game, d.seat, action).items():
            assert getattr(inner, key) == value, (action.text, key)
            seen.info_checked += 1
        seen.action_kinds.add(action.kind)
        seen.actions += 1
        out.append(decoded)
    return out


@cache
def _random_games(name: str) -> Seen:
    """GAMES_PER_GAME seeded games at 2, 3 and 4 players, each move random or (half the time) the
    built-in bot's, so the games run long enough to reach the rare effects; every legal action
    of every decision is checked (`_check_decision`)."""
    cls = game_class(name)
    roles = list(alien_content().role_order)
    seen = Seen()
    for seed in range(GAMES_PER_GAME):
        players = 2 + seed % 3
        config = cls.default_config(players)
        if name == "alien":  # rotate the roles so every role's cards come up
            config["roles"] = [roles[(3 * seed + k) % len(roles)] for k in range(players)]
        game = cls.new_game(config, seed)
        own = sorted(game_spec(name).bots)  # the game's own bot plays longer games than random
        bots = [make_bot(name, own[0] if own else "random", seed) for _ in range(players)]
        rnd = random.Random(seed)
        while not game.is_over():
            decoded = _check_decision(name, game, seen)
            d = game.decision()
            assert d is not None
            if rnd.random() < 0.5:
                index = bots[d.seat].act(game.observe(d.seat), d.actions)
            else:
                index = rnd.randrange(len(d.actions))
            game.apply_index(index)
            chosen = decoded[index]
            if isinstance(game, ClankGame) and chosen.kind in ("move", "teleport"):
                # the info field told the truth: the pawn is now in `to_room` (unless knocked
                # out in the tunnel, where it stays)
                p = game.s.players[d.seat]
                assert p.status == "knocked_out" or p.room == chosen.typed.to_room, chosen.text
                seen.moves_followed += 1
            if isinstance(game, ClankLegacyGame) and chosen.kind in ("move", "teleport", "coach"):
                p2 = game.s.players[d.seat]
                assert p2.status == "knocked_out" or p2.space == chosen.typed.to_space, chosen.text
                seen.moves_followed += 1
    return seen


def _doc_tables(title: str) -> tuple[dict[str, str], dict[str, str]]:
    """PROTOCOL.md's "<title> decision kinds" and "<title> actions" tables: first-column name ->
    the whole row."""
    text = PROTOCOL_MD.read_text()
    tables = []
    for heading in (f"### {title} decision kinds", f"### {title} actions"):
        assert heading in text, f"PROTOCOL.md has no section {heading!r}"
        section = text.split(heading, 1)[1].split("\n#", 1)[0]
        rows = {}
        for line in section.splitlines():
            m = re.match(r"\|\s*`([a-z_]+)`\s*\|", line)
            if m:
                rows[m.group(1)] = line
        tables.append(rows)
    return tables[0], tables[1]


def _typed(name: str) -> Any:
    """The descriptor of `name`'s typed action message: the LegalAction.typed field of its name."""
    return common_pb2.LegalAction.DESCRIPTOR.fields_by_name[name].message_type


def _kinds_of(descriptor: Any) -> list[str]:
    """The action kinds of a typed action message (its oneof `action`)."""
    return [f.name for f in descriptor.oneofs_by_name["action"].fields]


@pytest.mark.parametrize("name", TYPED_GAMES)
def test_every_legal_action_is_typed_and_round_trips(name: str) -> None:
    """(a) Over 50 games at 2-4 players, every legal action of every decision carries its typed
    form; its identifying fields give back exactly the engine's (kind, args), its kind is `kind`,
    its info fields equal the engine's state, and a chosen move lands in its `to_room`."""
    seen = _random_games(name)
    # the games reached every action kind the proto has, so every encoder branch was checked
    assert seen.action_kinds == set(_kinds_of(_typed(name))) == set(ARG_FIELDS[name])
    assert seen.actions > 10_000 and seen.info_checked > 1_000
    if name in ("clank", "clank_legacy"):
        assert seen.moves_followed > 1_000


@pytest.mark.parametrize("name", TYPED_GAMES)
def test_every_emitted_kind_is_documented(name: str) -> None:
    """(b) Every decision kind and action kind the engines emitted is in PROTOCOL.md's tables,
    every action kind of the proto too, and each action's row names every typed field."""
    decisions, actions = _doc_tables(TITLES[name])
    seen = _random_games(name)
    assert seen.decision_kinds - set(decisions) == set(), "decision kinds missing in PROTOCOL.md"
    assert seen.action_kinds - set(actions) == set(), "action kinds missing in PROTOCOL.md"
    outer = _typed(name)
    for kind in _kinds_of(outer):
        assert kind in actions, f"{name} action {kind!r} is not in PROTOCOL.md"
        inner = outer.fields_by_name[kind].message_type
        for f in inner.fields:
            assert f"`{f.name}`" in actions[kind], f"{name} {kind}.{f.name} is not documented"
        # the args column lists the identifying fields in order
        assert f"`[{', '.join(ARG_FIELDS[name][kind])}]`" in actions[kind], f"{name} {kind} args"
    # each decision kind's row lists the action kinds that answer it
    for kind, row in decisions.items():
        assert re.search(r"`[a-z_]+`.*\|.*\|.*`[a-z_]+`", row), f"{name} decision {kind!r} lists no actions"


def test_typed_actions_for_unknown_kinds_go_untyped() -> None:
    """An engine action kind the codec does not know is sent with `args` only (the bot can still
    answer it by index), not an error that would stop the match."""
    cls = game_class("clank")
    game = cls.new_game(cls.default_config(2), 1)
    obs = game.observe(0)
    [legal] = encode_actions([Action("new_kind", (1, "x"), "something new")], "clank", obs)
    assert legal.WhichOneof("typed") is None and [a.int_value for a in legal.args[:1]] == [1]
    [plain] = encode_actions([Action("move", (0, 0), "m")])  # no game given: args only
    assert plain.WhichOneof("typed") is None


TYPED_BOT = python_bot(REPO / "tests" / "referee" / "bots" / "typed_bot.py")
TYPED_JS_BOT = f"node {REPO / 'tests' / 'referee' / 'bots' / 'typed_bot.js'}"


def _chosen(log: str) -> list[tuple[int, str, str]]:
    rows = []
    for line in log.splitlines():
        if line.startswith("chose "):
            _, decision, kind, to_room = line.split()
            rows.append((int(decision), kind, to_room))
    return rows


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("name", TYPED_GAMES)
def test_bots_reading_only_typed_fields_play_to_the_end(name: str, tmp_path: Path) -> None:
    """(c) A real referee; a Python SDK bot and a JavaScript kit bot that choose from the typed
    fields only (and stop if one is missing) play a whole game; what they logged choosing is what
    the replay records, and each Clank! move's `to_room` is where the engine put the pawn."""
    assert (REPO / "bots" / "javascript" / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "run `npm ci --prefix bots/javascript` (make test does)"
    )
    played = play([TYPED_BOT, TYPED_JS_BOT], tmp_path, seed=5, game=name)
    replay = played.replay
    assert replay["ended_by"] == "game_over", played.log(0) + played.log(1)
    assert [s["strikes"] for s in replay["seats"]] == [0, 0]
    assert all(s.get("forfeit") is None for s in replay["seats"]), replay["seats"]
    verify(replay)
    cls = game_class(name)
    game = cls.new_game(replay["config"], replay["seed"])
    logged = {seat: _chosen(played.log(seat)) for seat in (0, 1)}
    assert logged[0] and logged[1]
    followed = 0
    for step in replay["steps"]:
        d = game.decision()
        assert d is not None
        decision, kind, to_room = logged[d.seat].pop(0)
        assert (decision, kind) == (step["decision"], step["action"]["kind"])
        game.apply_index(step["index"])
        if isinstance(game, ClankGame) and kind == "move":
            p = game.s.players[d.seat]
            assert p.status == "knocked_out" or p.room == to_room
            followed += 1
        if isinstance(game, ClankLegacyGame) and kind == "move":
            p2 = game.s.players[d.seat]
            assert p2.status == "knocked_out" or p2.space == to_room
            followed += 1
    assert logged == {0: [], 1: []}
    if name in ("clank", "clank_legacy"):
        assert followed > 10
