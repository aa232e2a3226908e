"""What each seat may see in Clank! Legacy: the one place hidden information is filtered.

Public: as in Clank! (board side and open paths, figures, tokens on the board face up, the
Adventure Row, Reserve counts, discard piles, the Clank! Area, the bag by colour, Rage, health,
gold, items, artifacts, taken secrets, mystic fruit, Mugs, deck and hand sizes, the active
player's pool), plus the campaign state (before this game and as it changes), the Contracts and
the Patron. Own: hand, and what one's own deck holds (counts, not the order).
Never: another hand, any deck order, the face-down major secrets on the board, the Bank's
face-down minor and extra major secrets (counts only), the Adventure deck, the random streams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.core.rng import RandomStreams
from referee.games.clank_core.observation import (
    check_seat,
    pending_view,
    players_view,
    pool_view,
    reveal_all,
    summary_lines,
    you_view,
)
from referee.games.clank_core.rules import redeal_hidden_cards

if TYPE_CHECKING:
    from referee.games.clank_legacy.engine import ClankLegacyGame
    from referee.games.clank_legacy.state import LegacyPlayer

__all__ = ["hidden_variant", "observe", "observe_all", "summarize"]


def _own_fields(p: LegacyPlayer) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A Legacy employee's own fields: its mystic fruit and Mug, the spaces it has visited."""
    fruit = {"fruit": p.fruit, "fruit_expended": p.fruit_expended, "mug": p.mug}
    return {}, fruit, {"visited": p.visited.copy()}


def observe(game: ClankLegacyGame, seat: int) -> dict[str, Any]:
    """The observation of `seat` (JSON-able)."""
    s = game.s
    check_seat(s.players_n, seat)
    rules = game.content.rules
    clank_area, bag_cubes = s.clank_area, s.bag_cubes
    players = players_view(s.players, "space", rules["health"], clank_area, bag_cubes, _own_fields)
    pending = pending_view(game.decision(), s.stack)
    if pending is not None:
        pending["votes"] = list(s.stack[-1].get("votes", []))
    rage_track = rules["rage_track"]
    me, turn = s.players[seat], s.turn
    return {
        "game": "clank_legacy",
        "seat": seat,
        "step": s.step,
        "round": s.round,
        "current": s.current,
        "phase": s.phase,
        "over": s.over,
        "board": s.board,
        "open_paths": s.open_paths.copy(),
        "you": {**you_view(me), "new_in_hand": me.new_hand.copy()},
        "players": players,
        "pool": pool_view(s.pool),
        "turn": {
            "acquired": turn.acquired,
            "defeated": turn.defeated,
            "patron_used": turn.patron_used,
            "waiting_conditions": [w["effect"] for w in turn.deferred] if turn.deferred else [],
        },
        "pending": pending,
        "row": s.row.copy(),
        "adventure_deck_size": len(s.adventure_deck),
        "adventure_discard": s.adventure_discard.copy(),
        "reserve": s.reserve.copy(),
        "patrons": s.patrons.copy(),
        "contracts": s.contracts.copy(),
        "claimed_contracts": dict(sorted(s.claimed.items())) if s.claimed else {},
        "market": s.market.copy(),
        "mugs_left": s.mugs,
        "rage": s.rage,
        "rage_draws": rage_track[s.rage] if s.rage < len(rage_track) else rage_track[-1],
        "bag": {"black": s.bag_black, "cubes": bag_cubes.copy()},
        "clank_area": clank_area.copy(),
        "artifacts": dict(sorted(s.artifacts.items())),
        "major_secrets": {r: len(v) for r, v in sorted(s.major_secrets.items()) if v},
        "bank": {"minor_secrets": len(s.bank_minor), "major_secrets": len(s.bank_major)},
        "fruit_spaces": sorted(s.fruit_spaces) if s.fruit_spaces else [],
        "fruit_supply": s.fruit_supply,
        "last_attack": s.last_attack.copy(),
        "end_reason": s.end_reason,
        "mvp": s.mvp,
        "prologue": s.prologue,
        "epilogue": s.epilogue,
        "choices": s.choices.copy(),
        "campaign": s.campaign,
        "campaign_now": s.campaign_now,
    }


def observe_all(game: ClankLegacyGame) -> dict[str, Any]:
    """Everything, for replay viewers and spectators of finished games."""
    s = game.s
    public = reveal_all(observe(game, s.current), s.players)
    public["adventure_deck"] = list(s.adventure_deck)
    public["face_down_major_secrets"] = {r: list(v) for r, v in sorted(s.major_secrets.items())}
    public["bank_minor"] = list(s.bank_minor)
    public["bank_major"] = list(s.bank_major)
    return public


def hidden_variant(game: ClankLegacyGame, seat: int, seed: int) -> ClankLegacyGame:
    """See Game.hidden_variant: re-deal what `seat` cannot know."""
    v = game.copy()
    s = v.s
    rng = RandomStreams(seed, {})
    redeal_hidden_cards(s.players, seat, rng)
    rng.shuffle("adventure", s.adventure_deck)
    rng.shuffle("minor", s.bank_minor)
    majors = [x for r in sorted(s.major_secrets) for x in s.major_secrets[r]] + s.bank_major
    rng.shuffle("major", majors)
    for r in sorted(s.major_secrets):
        n = len(s.major_secrets[r])
        s.major_secrets[r], majors = majors[:n], majors[n:]
    s.bank_major = majors
    s.rng = {name: rng.next64("rng") for name in s.rng}
    # a stream not used yet (the dragon bag before the first attack...) starts from the game's
    # seed: the variant gets its own, so no future draw is the real game's
    s.seed = seed
    v._decision = None
    return v


def summarize(game: ClankLegacyGame, obs: dict[str, Any]) -> list[str]:
    """A few readable lines of a Clank! Legacy observation (for `arena replay show`)."""
    lines = [f"phase {obs['phase']}, board {obs['board'] or '-'}, round {obs['round']}"]
    board = game.content.boards.get(obs["board"]) if obs["board"] else None
    for p in obs["players"]:
        where = p["space"]
        if board is not None and where in board.spaces:
            sp = board.spaces[where]
            where = f"{sp.name} [{sp.id}]{' (Danger Zone)' if sp.danger_zone else ''}"
        lines.append(
            f"seat {p['seat']}: {p['status']} in {where} hp {p['health']} gold {p['gold']}"
            f" artifacts {p['artifacts']} items {p['items']} fruit {p['fruit']}"
            f"{' mug' if p['mug'] else ''} clank {p['clank_area']} bag {p['bag_cubes']}"
            f" hand {p['hand_size']} deck {p['deck_size']}"
        )
    lines += summary_lines(game.content.cards, obs)
    lines.append(
        f"rage {obs['rage']} (draws {obs['rage_draws']}), bag black {obs['bag']['black']},"
        f" contracts {obs['contracts']}, patrons {obs['patrons']}"
    )
    return lines
