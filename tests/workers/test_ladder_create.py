"""`arena ladder create`: a ladder of the game's own kind, read from its spec (a campaign game's
ladders are campaign ladders, a cooperative game's coop ladders), and campaigns started on a
campaign ladder with `arena campaign run --ladder ID` are rated on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from cli.main import main
from ladder.db import create_engine, upgrade
from ladder.errors import InvalidInput
from ladder.ladders import create_ladder
from ladder.schema import bots, ladder_entries, ladders
from referee.games import all_specs


def _arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _kinds(db: str) -> dict[str, tuple[str, str, int]]:
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(ladders.c.name, ladders.c.kind, ladders.c.game, ladders.c.players))
            return {r.name: (r.kind, r.game, r.players) for r in rows}
    finally:
        engine.dispose()


def test_each_game_gets_a_ladder_of_its_own_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path}/k.db"
    upgrade(db)
    for spec in all_specs():
        code, out, err = _arena(
            capsys, "ladder", "create", f"{spec.name}-l", "--game", spec.name,
            "--players", str(max(2, spec.min_players)), "--db", db,
        )  # fmt: skip
        assert code == 0, err
        want = "coop" if spec.cooperative else "campaign" if spec.campaign else "ffa"
        assert f"kind {want}" in out
        assert _kinds(db)[f"{spec.name}-l"][0] == want
        assert ("arena campaign run --ladder" in out) == spec.campaign
    assert _kinds(db)["clank_legacy-l"][0] == "campaign"


def test_create_ladder_reads_the_campaign_flag(tmp_path: Path) -> None:
    """The ladder layer itself: a campaign game has campaign ladders only, another game none."""
    db = f"sqlite:///{tmp_path}/f.db"
    upgrade(db)
    engine = create_engine(db)
    try:
        for spec in all_specs():
            players = max(2, spec.min_players)
            if spec.campaign:
                create_ladder(engine, f"{spec.name}-c", spec.name, players, decision_ms=1, bank_ms=0,
                              max_strikes=0, kind="campaign")  # fmt: skip
                with pytest.raises(InvalidInput, match=f"{spec.name} is played in campaigns, .* 'campaign'"):
                    create_ladder(engine, f"{spec.name}-f", spec.name, players, decision_ms=1, bank_ms=0,
                                  max_strikes=0)  # fmt: skip
            else:
                with pytest.raises(InvalidInput, match="campaign ladders are for clank_legacy, not"):
                    create_ladder(engine, f"{spec.name}-c", spec.name, players, decision_ms=1, bank_ms=0,
                                  max_strikes=0, kind="campaign")  # fmt: skip
    finally:
        engine.dispose()


def test_a_wrong_kind_or_game_is_one_line(tmp_path: Path) -> None:
    """Through the `arena` process: status 1, one `error:` line naming the fix, nothing created."""
    db = f"sqlite:///{tmp_path}/e.db"
    upgrade(db)
    for argv, words in (
        (["--game", "clank_legacy", "--players", "4", "--kind", "ffa"], "give --kind campaign"),
        (["--game", "clank", "--kind", "campaign"], "clank's ladders are kind 'ffa'"),
        (["--game", "nosuch"], "unknown game 'nosuch'"),
        (["--game", "clank_legacy", "--players", "5"], "players"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "referee.cli", "ladder", "create", "x", *argv, "--db", db],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert words in proc.stderr and "Traceback" not in proc.stderr
    assert _kinds(db) == {}


def test_a_campaign_started_on_the_created_ladder_is_rated_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The documented path: create the campaign ladder with its reference bots, then `arena
    campaign run --ladder ID` seats them (bot:NAME) and the finished campaign is rated there."""
    db = f"sqlite:///{tmp_path}/c.db"
    upgrade(db)
    code, out, err = _arena(
        capsys, "ladder", "create", "legacy-2p", "--game", "clank_legacy", "--players", "2",
        "--reference-bots", "--db", db,
    )  # fmt: skip
    assert code == 0, err
    # what README.md and workers/README.md say: `arena beat` plays it, no single games
    assert "the matchmaker plays no single games on it: `arena beat` starts campaigns on it" in out
    assert "start one by hand with: arena campaign run --ladder 1 --players 2" in out
    code, out, err = _arena(
        capsys, "campaign", "run", "--ladder", "1", "--players", "2", "--games", "2", "--seed", "3",
        "--bots", "bot:reference-clank_legacy-greedy,bot:reference-clank_legacy-random", "--db", db, "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["status"] == "finished"
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.select(bots.c.name, ladder_entries.c.games)
                .join(bots, bots.c.id == ladder_entries.c.bot_id)
                .where(ladder_entries.c.ladder_id == 1)
            ).all()
    finally:
        engine.dispose()
    assert sorted((r.name, r.games) for r in rows) == [
        ("reference-clank_legacy-greedy", 1),
        ("reference-clank_legacy-ismcts", 0),  # on the ladder, not named by the campaign
        ("reference-clank_legacy-random", 1),
    ]


def test_an_unmigrated_database_is_one_line_naming_the_upgrade(tmp_path: Path) -> None:
    """The operator tools on a database `arena db upgrade` has not made: status 1, one `error:`
    line saying to run it, never the driver's error with its SQL (`no such table: ladders`)."""
    db = f"sqlite:///{tmp_path}/new.db"
    for argv in (
        ["ladder", "create", "clank-2p", "--game", "clank", "--reference-bots", "--db", db],
        ["account", "create", "operator", "--operator", "--key-file", str(tmp_path / "op.key"), "--db", db],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "referee.cli", *argv], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert "no Arena tables yet: run `arena db upgrade` first" in proc.stderr, proc.stderr
        assert "SQL" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "op.key").exists()


def test_db_upgrade_takes_the_database_as_every_other_command_does(tmp_path: Path) -> None:
    """`arena db upgrade --db URL` (the option `serve api`, `ladder create` and the rest take),
    and `--url` as before; then `ladder create --db` on it works."""
    for option in ("--db", "--url"):
        db = f"sqlite:///{tmp_path}/{option.strip('-')}.db"
        up = subprocess.run(
            [sys.executable, "-m", "referee.cli", "db", "upgrade", option, db],
            capture_output=True, text=True, timeout=60,
        )
        assert up.returncode == 0, up.stderr
        assert "database at migration head" in up.stdout
        made = subprocess.run(
            [sys.executable, "-m", "referee.cli", "ladder", "create", "c2", "--game", "clank", "--db", db],
            capture_output=True, text=True, timeout=60,
        )
        assert made.returncode == 0, made.stderr


def _reference_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> sa.Engine:
    """A migrated SQLite database holding ladder 1, made by `arena ladder create --reference-bots`
    (Clank!, 2 players); an engine on it."""
    db = f"sqlite:///{tmp_path}/ladder.db"
    upgrade(db)
    code, _, err = _arena(
        capsys, "ladder", "create", "clank-2p", "--game", "clank", "--reference-bots", "--db", db
    )
    assert code == 0, err
    return create_engine(db)


def test_a_ladder_of_reference_bots_only_stays_quiet_until_a_bot_joins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena ladder create --reference-bots`, then the matchmaker: no match while only the
    reference bots are on it (they would play each other around the clock); once a bot joins,
    every match seats it (and the reference bots play it)."""
    import random

    from ladder.bots import add_bot_version, register_bot
    from ladder.ladders import join_ladder
    from ladder.schema import bot_versions, matches
    from workers.matchmaker import fill_queues

    engine = _reference_ladder(tmp_path, capsys)
    try:
        dispatched: list[int] = []
        assert fill_queues(engine, dispatched.append, target_depth=4, rng=random.Random(1)) == []
        alice = register_bot(engine, "alice-bot", "alice", game="clank")
        version = add_bot_version(engine, alice.bot_id, "1", "builtin:random")
        join_ladder(engine, 1, alice.bot_id)
        made = fill_queues(engine, dispatched.append, target_depth=4, rng=random.Random(1))
        assert len(made) == 4 and dispatched == made
        with engine.connect() as conn:
            seatings = [list(map(int, r.seats)) for r in conn.execute(sa.select(matches.c.seats))]
            others = sa.select(bot_versions.c.id).where(bot_versions.c.bot_id != alice.bot_id)
            reference_versions = set(conn.execute(others).scalars())
    finally:
        engine.dispose()
    assert all(version in seats for seats in seatings), seatings
    assert {v for seats in seatings for v in seats} - {version} == reference_versions


def test_an_account_named_like_the_reference_owner_does_not_make_reference_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user who names their account "arena" gets ordinary bots: theirs anchor matches."""
    import random

    from ladder.accounts import create_account
    from ladder.bots import REFERENCE_OWNER, add_bot_version, register_bot
    from ladder.ladders import join_ladder
    from workers.matchmaker import fill_queues

    engine = _reference_ladder(tmp_path, capsys)
    try:
        account = create_account(engine, REFERENCE_OWNER)
        eve = register_bot(engine, "eve-bot", REFERENCE_OWNER, account_id=account.account_id, game="clank")
        add_bot_version(engine, eve.bot_id, "1", "builtin:random")
        join_ladder(engine, 1, eve.bot_id)
        assert len(fill_queues(engine, lambda _match: None, target_depth=3, rng=random.Random(1))) == 3
    finally:
        engine.dispose()


def test_a_campaign_run_by_hand_on_a_ladder_plays_at_its_time_control_among_its_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena campaign run --ladder ID --bots greedy,random` on a campaign ladder: its games are
    played at the ladder's time control (1,000 ms a decision, not the command's 10,000), the
    built-in names are the ladder's reference bots, and no bot is added to the ladder (it added
    `builtin-greedy`). A different time control, or a seat the ladder cannot fill, is one line."""
    from ladder.schema import campaigns

    db = f"sqlite:///{tmp_path}/h.db"
    upgrade(db)
    code, _, err = _arena(
        capsys, "ladder", "create", "legacy-2p", "--game", "clank_legacy", "--players", "2",
        "--reference-bots", "--db", db,
    )  # fmt: skip
    assert code == 0, err
    code, out, err = _arena(
        capsys, "campaign", "run", "--ladder", "1", "--players", "2", "--games", "1", "--seed", "5",
        "--bots", "greedy,random", "--db", db, "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["status"] == "finished"
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            played_at = conn.execute(
                sa.select(ladders.c.decision_ms, ladders.c.bank_ms, ladders.c.max_strikes)
                .join(campaigns, campaigns.c.ladder_id == ladders.c.id)
            ).one()
            on_ladder = conn.execute(
                sa.select(bots.c.name, ladder_entries.c.games)
                .join(bots, bots.c.id == ladder_entries.c.bot_id)
                .where(ladder_entries.c.ladder_id == 1)
                .order_by(bots.c.name)
            ).all()
    finally:
        engine.dispose()
    assert tuple(played_at) == (1000, 30_000, 3)
    assert [tuple(r) for r in on_ladder] == [
        ("reference-clank_legacy-greedy", 1),
        ("reference-clank_legacy-ismcts", 0),  # on the ladder, not named by the campaign
        ("reference-clank_legacy-random", 1),
    ]
    for argv, words in (
        (["--bots", "greedy,random", "--decision-ms", "10000"],
         "--decision-ms 10000: ladder 1 plays at --decision-ms 1000"),
        (["--bots", "greedy,greedy"], "ladder 1 has no more reference bots playing 'greedy'"),
    ):  # fmt: skip
        code, out, err = _arena(
            capsys, "campaign", "run", "--ladder", "1", "--players", "2", "--games", "1", *argv, "--db", db
        )
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
        assert words in err, err


# --- the platform's names are reserved -------------------------------------------------------------


def test_an_account_cannot_register_the_platforms_bot_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the API, as the attacker did: the reference bots' names (any case), the built-in
    bots' names and a prefix the operator reserves are refused (409); other names are not."""
    from fastapi.testclient import TestClient

    from ladder.accounts import create_account
    from ladder.api import create_app

    db = f"sqlite:///{tmp_path}/r.db"
    upgrade(db)
    engine = create_engine(db)
    monkeypatch.setenv("ARENA_RESERVED_BOT_PREFIXES", "house-, staff.")
    try:
        mallory = create_account(engine, "mallory").api_key
        operator = create_account(engine, "root", is_operator=True).api_key
        with TestClient(create_app(engine)) as client:
            def register(name: str, key: str = mallory) -> tuple[int, str]:
                answer = client.post("/api/bots", json={"name": name, "game": "alien"},
                                     headers={"Authorization": f"Bearer {key}"})
                return answer.status_code, answer.json().get("error", "")

            for name in ("reference-clank_legacy-greedy", "reference-alien-coop", "Reference-Alien-Coop",
                         "reference-random", "builtin-greedy", "greedy", "Random", "coop", "house-bot",
                         "STAFF.pick"):
                status, error = register(name)
                assert status == 409, (name, status, error)
                assert error.startswith(f"bot name {name!r} is not available: ") and "reserved" in error
            assert register("reference-alien-coop", operator)[0] == 409  # an operator's key too
            assert register("referenced-bot")[0] == 201 and register("my-greedy")[0] == 201
        with engine.connect() as conn:
            assert sorted(conn.execute(sa.select(bots.c.name)).scalars()) == ["my-greedy", "referenced-bot"]
    finally:
        engine.dispose()


def test_squatted_reference_names_are_never_seated_and_the_audit_says_how_to_free_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bots an account registered under the reference bots' names before they were reserved:
    `arena ladder create --reference-bots` seated them as the references. Now it refuses in one
    line and makes no ladder; `arena audit` lists them with the commands that fix them, and run
    as printed those leave the ladder with the platform's own reference bot."""
    from ladder.accounts import create_account
    from ladder.bots import REFERENCE_OWNER, add_bot_version, register_bot
    from ladder.ladders import join_ladder

    db = f"sqlite:///{tmp_path}/s.db"
    upgrade(db)
    engine = create_engine(db)
    try:
        mallory = create_account(engine, "mallory")
        squats = {}
        for name, game in (("reference-alien-coop", "alien"),
                           ("reference-clank_legacy-greedy", "clank_legacy")):
            made = register_bot(engine, name, "mallory", account_id=mallory.account_id, game=game)
            squats[name] = made.bot_id
            add_bot_version(engine, squats[name], "1", "builtin:random")
        # one already sits on a ladder as if a reference bot (what the old command did)
        old = create_ladder(engine, "alien-old", "alien", 2, decision_ms=1000, bank_ms=30_000,
                            max_strikes=3, kind="coop")
        join_ladder(engine, old, squats["reference-alien-coop"])
    finally:
        engine.dispose()

    code, out, err = _arena(capsys, "ladder", "create", "alien-2p", "--game", "alien", "--reference-bots",
                            "--db", db)
    assert code == 1 and out == ""
    assert err == (
        f"error: bot {squats['reference-alien-coop']} 'reference-alien-coop' belongs to mallory, not the "
        "platform: it is not seated as a reference bot, and none can be made under its name; "
        "`arena audit` says how to free the name\n"
    )
    assert "alien-2p" not in _kinds(db)

    code, out, err = _arena(capsys, "audit", "--db", db)
    assert code == 1, err
    lines = out.splitlines()
    assert lines == [
        f"bot {squats['reference-alien-coop']} 'reference-alien-coop' of mallory holds a reserved name "
        "(names starting 'reference-' are reserved for the platform's bots); it sits on ladder "
        f"alien-old. Fix: arena bot rename reference-alien-coop mallory-reference-alien-coop --db {db}, "
        f"then arena ladder reference-bots alien-old --db {db}",
        f"bot {squats['reference-clank_legacy-greedy']} 'reference-clank_legacy-greedy' of mallory holds "
        "a reserved name (names starting 'reference-' are reserved for the platform's bots). Fix: arena "
        f"bot rename reference-clank_legacy-greedy mallory-reference-clank_legacy-greedy --db {db}",
    ]
    for line in lines:  # the fix, run exactly as printed
        for command in line.partition("Fix: ")[2].split(", then "):
            assert command.startswith("arena ")
            code, _, err = _arena(capsys, *command.removeprefix("arena ").split())
            assert code == 0, (command, err)
    code, out, _ = _arena(capsys, "audit", "--db", db)
    assert code == 0 and out == "no problems found: no bot outside the platform holds a reserved name\n"
    code, _, err = _arena(capsys, "ladder", "create", "alien-2p", "--game", "alien", "--reference-bots",
                          "--db", db)
    assert code == 0, err
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            seated = conn.execute(
                sa.select(ladders.c.name, bots.c.name, bots.c.owner, bots.c.account_id)
                .join(ladder_entries, ladder_entries.c.bot_id == bots.c.id)
                .join(ladders, ladders.c.id == ladder_entries.c.ladder_id)
                .where(bots.c.name.like("reference-%"))
                .order_by(ladders.c.name)
            ).all()
    finally:
        engine.dispose()
    assert sorted(tuple(row) for row in seated) == [
        ("alien-2p", "reference-alien-coop", REFERENCE_OWNER, None),
        ("alien-2p", "reference-alien-ismcts", REFERENCE_OWNER, None),
        ("alien-old", "reference-alien-coop", REFERENCE_OWNER, None),
        ("alien-old", "reference-alien-ismcts", REFERENCE_OWNER, None),
    ]
