"""A small ladder database with real games and their real replays, for the web tests."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import Engine

from ladder.bots import add_bot_version, register_bot
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from referee.core.game import canonical_json
from referee.replay import encode
from referee.runner import LocalGame
from referee.runner import play_local as _play_local

#: the bots of the Clank! ladder and the built-in bot that plays each
CLANK_BOTS = {"ada": "greedy", "bram": "random", "cleo": "greedy"}


@cache
def _played(game: str, bots: tuple[str, ...], seed_value: int) -> LocalGame:
    return _play_local(game, list(bots), seed_value)


def play_local(game: str, bots: list[str], seed_value: int) -> LocalGame:
    """A built-in game, played once per test session (games are deterministic); a copy."""
    return copy.deepcopy(_played(game, tuple(bots), seed_value))


@dataclass
class Seeded:
    """Ids of what :func:`seed` made."""

    ladder_id: int
    coop_ladder_id: int
    bot_ids: dict[str, int]
    version_ids: dict[str, int]
    #: match id -> the replay document stored for it
    replays: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: match id -> (bot name per seat, places) of every recorded match
    results: dict[int, tuple[list[str], list[int]]] = field(default_factory=dict)
    #: a match whose stored replay is garbage
    corrupt_match: int = 0
    #: a match still queued (no replay)
    queued_match: int = 0
    #: the match whose replay has incidents, strikes and an unsandboxed seat
    incident_match: int = 0
    #: a finished competition (:func:`seed_competition`), when one was made
    competition: int = 0


def seed(engine: Engine, games: int = 4) -> Seeded:
    """A 2-player Clank! ladder (ada, bram, cleo) with `games` played matches, a corrupt one and a
    queued one; a cooperative Alien ladder with one match."""
    ladder = create_ladder(engine, "clank-duel", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3)
    coop = create_ladder(
        engine, "alien-crew", "alien", 2, decision_ms=1000, bank_ms=30000, max_strikes=3, kind="coop"
    )
    bot_ids: dict[str, int] = {}
    versions: dict[str, int] = {}
    for name in (*CLANK_BOTS, "dana", "eli"):
        reg = register_bot(engine, name, f"owner-{name}")
        bot_ids[name] = reg.bot_id
        versions[name] = add_bot_version(engine, reg.bot_id, "1.0", f"python {name}.py")
        join_ladder(engine, coop if name in ("dana", "eli") else ladder, reg.bot_id)
    out = Seeded(ladder, coop, bot_ids, versions)
    queued: list[tuple[int, LocalGame]] = []
    pairs = [("ada", "bram"), ("bram", "cleo"), ("cleo", "ada"), ("ada", "cleo")]
    for i in range(games):
        a, b = pairs[i % len(pairs)]
        seed_value = 100 + i
        played = play_local("clank", [CLANK_BOTS[a], CLANK_BOTS[b]], seed_value)
        replay = played.replay
        replay["seats"] = [
            {"seat": 0, "bot": a, "kind": "hosted", "strikes": 0, "incidents": []},
            {"seat": 1, "bot": b, "kind": "hosted", "strikes": 0, "incidents": []},
        ]
        if i == 0:
            # what a referee writes for a seat that timed out once and ran unsandboxed
            replay["seats"][1].update(
                strikes=1,
                incidents=[{"kind": "timeout", "detail": "no answer in 1000 ms", "decision": 3}],
                sandbox={"kind": "none", "unsafe_no_sandbox": True},
            )
            replay["seats"][0]["sandbox"] = {
                "kind": "bwrap", "cpu_ms": 812, "memory_peak_bytes": 31457280,
                "output_bytes": 120, "output_truncated": False, "killed_for": None,
            }
            replay["steps"][1]["note"] = "greedy: the best card"
            replay["steps"][1]["ms"] = 17
        match_id = enqueue_match(engine, ladder, [versions[a], versions[b]], seed=seed_value)
        queued.append((match_id, played))
        out.replays[match_id] = replay
        out.results[match_id] = ([a, b], list(played.result.places))
        if i == 0:
            out.incident_match = match_id
    # recorded newest first, as workers that finish in another order than the matches were
    # queued record them: the rating history is then out of match-id order (the chart's order)
    for match_id, played in reversed(queued):
        # stored as the workers store it (format 2); the coop match below keeps format 1
        record_result(engine, match_id, played.result, encode(out.replays[match_id]), "finished")
    out.corrupt_match = enqueue_match(engine, ladder, [versions["ada"], versions["bram"]], seed=7)
    corrupt = play_local("clank", ["random", "random"], 7).result
    record_result(engine, out.corrupt_match, corrupt, b"this is not a replay", "finished")
    out.results[out.corrupt_match] = (["ada", "bram"], list(corrupt.places))
    out.queued_match = enqueue_match(engine, ladder, [versions["bram"], versions["ada"]], seed=8)
    alien = play_local("alien", ["random", "random"], 5)
    alien.replay["seats"] = [{"seat": 0, "bot": "dana"}, {"seat": 1, "bot": "eli"}]
    coop_match = enqueue_match(engine, coop, [versions["dana"], versions["eli"]], seed=5)
    record_result(engine, coop_match, alien.result, canonical_json(alien.replay).encode(), "finished")
    out.replays[coop_match] = alien.replay
    return out


def seed_competition(engine: Engine, db_url: str) -> int:
    """A finished round robin of two built-in bots (2 duplicate sets), played in-process; its id."""
    from ladder.competitions import create_competition, parse_entry
    from workers.tournament import Inline, run_competition

    field = [parse_entry("clank", name) for name in ("greedy", "random")]
    cid = create_competition(
        engine, game="clank", players=2, fmt="round-robin", field=field, sets=2, seed=3, name="web cup"
    )
    run_competition(engine, cid, Inline(db_url), timeout=120)
    # run_match keeps an engine per URL in the process: close its connections now, before the
    # session drops the database under them
    from workers.match_execution import engine_for

    engine_for(db_url).dispose()
    return cid
