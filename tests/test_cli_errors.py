"""`arena` as a user meets it: mistakes get one line and status 2 (never a traceback, and before
any game is played), every option has help, seats have names, `python` is arena's interpreter,
a bot that never played fails the command, and the output is in words.

Every command runs as a real process (`.venv/bin/arena`), with real bots and a real referee.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from psycopg import sql
from sqlalchemy.engine import make_url

from ladder.db import create_engine, downgrade, normalize_url, upgrade
from ladder.schema import matches
from referee.cli import build_parser
from referee.cli_checks import seat_names, short_name
from referee.replay import load, save
from referee.replay_view import describe_incident, place_notes, render
from referee.runner import play_local
from referee.server.launcher import interpreter_env
from tests.databases import DEFAULT_ADMIN_URL
from workers.demo import crash_forfeits

REPO = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).parent / "arena")
EXAMPLES = REPO / "bots" / "python" / "examples"
NAMES_BOT = REPO / "tests" / "cli_bots" / "names_bot.py"
#: a PATH without the project's virtualenv: `python` there is not the interpreter arena runs on
BARE_PATH = "/usr/local/bin:/usr/bin:/bin"


def arena(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
          timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=env)


def one_error_line(out: subprocess.CompletedProcess[str]) -> str:
    """Status 2, exactly one line on stderr, no traceback; the line."""
    assert "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.splitlines()
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert len(lines) == 1, out.stderr
    return lines[0]


# --- one line, status 2, nothing played -----------------------------------------------------------


def _bad_play_invocations(tmp: Path) -> list[tuple[list[str], str]]:
    a_file = tmp / "a-file"
    a_file.write_text("x")
    return [
        (["play", "clank", "--players", "7"], "2 to 4 players"),
        (["play", "clank", "--players", "0"], "--players"),
        (["play", "clank", "--board", "side_z"], "side_z"),
        (["play", "clank", "--games", "0"], "--games: must be at least 1"),
        (["play", "clank", "--games", "-3"], "--games: must be at least 1"),
        (["play", "clank", "--games", "many"], "not a whole number"),
        (["play", "nosuchgame"], "unknown game"),
        (["play", "clank", "--replay-dir", str(a_file / "sub")], "--replay-dir"),
        # a folder that exists and that even root cannot write in
        (["play", "clank", "--replay-dir", "/proc"], "--replay-dir /proc: cannot write"),
        (["bot", "check", "python bot.py", "--games", "0"], "--games"),
        (["bot", "check", "python bot.py", "--game", "nosuchgame"], "unknown game 'nosuchgame'"),
        (["demo", "--matches", "0", "--no-serve"], "--matches"),
        (["replay", "show"], "file"),
        (["serve", "api", "--port", "99999"], "a port is 0 to 65535"),
        (["replay", "serve", "x.json", "--port", "-1"], "a port is 0 to 65535"),
        (["db", "upgrade", "--url", "nosuch://x"], "not a database URL"),
        (["demo", "--db", "nosuch://x", "--no-serve"], "not a database URL"),
    ]


def test_bad_play_and_other_invocations_get_one_line_and_status_2(tmp_path: Path) -> None:
    for args, expected in _bad_play_invocations(tmp_path):
        out = arena(*args, cwd=tmp_path)
        line = one_error_line(out)
        assert expected in line, (args, line)
        assert out.stdout == "", (args, out.stdout)  # no results table: nothing was played
    assert not (tmp_path / "arena-demo.db").exists()  # the demo stopped before its database


def test_bad_match_invocations_are_refused_before_any_bot_starts(tmp_path: Path) -> None:
    # each "bot" would leave a file behind if it were ever started
    bot = f"touch {tmp_path / 'started'}"
    cases = [
        (["--bot", bot, "--bot", bot, "--replay", "/nonexistent/dir/r.json"],
         "/nonexistent/dir does not exist"),
        (["--bot", bot, "--bot", bot, "--replay", str(tmp_path / "r")], "name the file .json"),
        (["--bot", bot, "--bot", bot, "--replay", str(tmp_path)], "is a folder"),
        (["--bot", bot, "--bot", bot, "--name", "only-one"], "--name given 1 times for 2"),
        (["--bot", bot, "--bot", bot, "--bot-logs", "/proc/arena-logs"], "--bot-logs"),
        (["--bot", bot], "Clank! is for 2 to 4 players"),
        (["--bot", bot, "--bot", bot, "--decision-ms", "-5"], "decision"),
        ([], "--bot"),
    ]
    for extra, expected in cases:
        out = arena("match", "clank", *extra, cwd=tmp_path)
        assert expected in one_error_line(out), (extra, out.stderr)
    out = arena("match", "nosuchgame", "--bot", bot, "--bot", bot, cwd=tmp_path)
    assert "unknown game 'nosuchgame'" in one_error_line(out)
    assert not (tmp_path / "started").exists()


def _walk(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _walk(child, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            yield path, action


def test_every_option_of_every_command_has_help_text() -> None:
    seen = list(_walk(build_parser(), "arena"))
    assert len({p for p, _ in seen}) > 25  # the walk reaches the nested commands (arena bot check, ...)
    missing = [
        f"{path} {'/'.join(a.option_strings) or a.dest}" for path, a in seen
        if not a.help or not a.help.strip()
    ]
    assert missing == [], "options without help text: " + ", ".join(missing)


def quiet_pipe_end(out: subprocess.CompletedProcess[str]) -> None:
    """A command whose reader went away: nothing on stderr (no line, no traceback, no "Exception
    ignored"), status 141 as a tool ended by SIGPIPE."""
    assert out.stderr == "", out.stderr
    assert out.returncode == 141, (out.returncode, out.stdout)


def test_output_closed_by_its_reader_ends_quietly(tmp_path: Path) -> None:
    """`arena replay show FILE | head -1`: the show is far longer than a pipe holds (~740 KB),
    so the reader's going away reaches arena mid-output."""
    played = play_local("clank", ["random"] * 4, 7)
    path = tmp_path / "long.replay.json.gz"
    save(played.replay, path)
    assert sum(len(line) + 1 for line in render(played.replay, None)) > 10 * 65536
    out = subprocess.run(
        f"{ARENA} replay show {path} | head -1; exit ${{PIPESTATUS[0]}}",
        shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=120,
    )
    assert out.stdout.startswith("clank seed 7") and out.stdout.count("\n") == 1
    quiet_pipe_end(out)
    # as a user types it, without PIPESTATUS: only head's lines
    typed = subprocess.run(f"{ARENA} replay show {path} | head", shell=True, capture_output=True,
                           text=True, timeout=120)
    assert typed.stderr == "" and typed.returncode == 0 and typed.stdout.count("\n") == 10


def test_a_results_table_into_a_closed_pipe_ends_quietly() -> None:
    """The reader is gone before arena starts (the read end is closed): the rich tables of
    `arena play` and `arena tournament run` and the JSON meet a broken pipe on their first write."""
    tournament = ["tournament", "run", "--game", "clank", "--format", "round-robin", "--bots",
                  "greedy,random", "--workers", "0"]
    for argv in (["play", "clank", "--games", "2"], ["play", "clank", "--games", "2", "--json"], tournament):
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run([ARENA, *argv], stdout=write, stderr=subprocess.PIPE, text=True,
                                  timeout=120)
        finally:
            os.close(write)
        quiet_pipe_end(done)  # (rich alone would exit 1)


def test_a_client_command_into_a_closed_pipe_ends_quietly_too(tmp_path: Path) -> None:
    """The API client's commands (`arena bot status --json | head`, here `arena logout`, which
    needs no server) meet the broken pipe like the others: quietly, not "unexpected
    BrokenPipeError"."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([ARENA, "logout"], stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=60, env={**os.environ, "HOME": str(tmp_path)})
    finally:
        os.close(write)
    quiet_pipe_end(done)


# --- names, the interpreter, crashed seats ------------------------------------------------------


def test_short_names_never_show_the_command_line() -> None:
    assert short_name("FOO=secret python bots/python/examples/random_bot.py --fast") == "random_bot"
    assert short_name("A=1 B=2 /usr/bin/python3.11 -u my_bot.py") == "my_bot"
    assert short_name("python -m mypkg.bot") == "mypkg.bot"
    assert short_name("node bots/javascript/random_bot.js") == "random_bot"
    assert short_name("./target/release/mybot --level 3") == "mybot"
    assert short_name("env TOKEN=x ./run.sh") == "run"
    assert short_name("sh -c 'exec ./bot'") == "sh"
    assert seat_names(["python a.py", "python b.py"], []) == ["a", "b"]
    assert seat_names(["python a.py", "python b.py"], ["alice", "bob"]) == ["alice", "bob"]


def test_opponents_and_the_replay_see_names_not_commands_and_python_is_arenas(tmp_path: Path) -> None:
    """`python` in the bot commands runs, though the shell's PATH has no virtualenv; opponents'
    GameStart and the replay name each seat by its short name or --name; the secret in an
    environment assignment appears nowhere."""
    dump = tmp_path / "names.json"
    replay = tmp_path / "m.replay.json"
    env = {**os.environ, "PATH": BARE_PATH}
    env.pop("VIRTUAL_ENV", None)
    out = arena(
        "match", "clank", "--seed", "3", "--connect-ms", "60000",
        "--bot", f"NAMES_DUMP={dump} SECRET=hunter2 python {NAMES_BOT}",
        "--bot", f"SECRET=hunter2 python {EXAMPLES / 'random_bot.py'}",
        "--replay", str(replay), "--json", cwd=tmp_path, env=env,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    summary = json.loads(out.stdout)
    assert [s["name"] for s in summary["seats"]] == ["names_bot", "random_bot"]
    assert [s["bot"] for s in summary["seats"]] == ["names", "random"]  # what each calls itself
    assert summary["crashed_before_playing"] == [] and summary["ended_by"] == "game_over"
    assert json.loads(dump.read_text()) == ["names_bot", "random_bot"]
    text = replay.read_text()  # .json: plain JSON, as its name says
    doc = json.loads(text)
    assert [s["bot"] for s in doc["seats"]] == ["names_bot", "random_bot"]
    assert "hunter2" not in text and "hunter2" not in out.stderr  # (--json echoes the user's command)

    named = arena(
        "match", "clank", "--seed", "3", "--connect-ms", "60000",
        "--bot", f"NAMES_DUMP={dump} python {NAMES_BOT}", "--name", "alice",
        "--bot", f"python {EXAMPLES / 'random_bot.py'}", "--name", "bob",
        "--replay", str(tmp_path / "n.replay.json.gz"), cwd=tmp_path, env=env,
    )
    assert named.returncode == 0, named.stdout + named.stderr
    assert json.loads(dump.read_text()) == ["alice", "bob"]
    assert [s["bot"] for s in load(tmp_path / "n.replay.json.gz")["seats"]] == ["alice", "bob"]
    with gzip.open(tmp_path / "n.replay.json.gz") as f:  # .gz: gzip, as its name says
        assert json.loads(f.read())["seed"] == 3
    # the events, in words, name every seat, seat 0 included
    assert "seat 0 (alice) connected as 'names'" in named.stderr
    assert "seat 1 (bob) connected as 'random'" in named.stderr


def test_interpreter_env_puts_this_interpreter_first() -> None:
    env = interpreter_env({"PATH": BARE_PATH, "HOME": "/x"})
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert env["HOME"] == "/x"
    assert interpreter_env(env) == env  # not added twice


def test_a_seat_that_crashes_before_playing_fails_the_match(tmp_path: Path) -> None:
    # A connect window of ten minutes: the match must not wait it out for the seat that crashed
    # (once the other seat connects, it starts; waiting would hit the subprocess timeout).
    out = arena(
        "match", "clank", "--seed", "1", "--connect-ms", "600000",
        "--bot", "sh -c 'echo cannot start: no model file >&2; exit 3'",
        "--bot", f"python {EXAMPLES / 'greedy_clank_bot.py'}",
        "--bot-logs", str(tmp_path / "logs"), cwd=tmp_path, timeout=150,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, out.stderr
    assert "seat 0 (sh) ended before playing (crashed: exit code 3)" in errors[0]
    assert "cannot start: no model file" in errors[0] and str(tmp_path / "logs" / "seat0.log") in errors[0]
    assert "seat 0 (sh) forfeits: crashed: exit code 3" in out.stderr  # the event, in words
    row = r"seat 0 \(sh\): place \d, score 0, forfeited, 0 strikes; forfeited: crashed"
    assert re.search(row, out.stdout), out.stdout
    good = arena(
        "match", "clank", "--seed", "1", "--connect-ms", "60000",
        "--bot", f"python {EXAMPLES / 'random_bot.py'}",
        "--bot", f"python {EXAMPLES / 'greedy_clank_bot.py'}", cwd=tmp_path,
    )
    assert good.returncode == 0, good.stdout + good.stderr


def test_the_readmes_bot_outside_the_sandbox_is_told_how_to_get_the_sdk(tmp_path: Path) -> None:
    """README's bot imports `arena_bot`, the SDK's one name: the project's virtualenv has it
    (make install), so `arena match` plays it outside the sandbox as is. A Python without the
    SDK (here `python -S`, no site-packages) sees "No module named 'arena_bot'": `arena match`
    and `arena bot check` without --sandbox say what to install."""
    (tmp_path / "main.py").write_text(
        "from arena_bot import Bot, run\n\n\nclass B(Bot):\n    def act(self, observation, legal_actions):\n"
        "        return 0\n\n\nraise SystemExit(run(B()))\n"
    )
    fix = "install the SDK here: pip install ./bots/python"
    other = f"python {EXAMPLES / 'random_bot.py'}"
    plays = arena("match", "clank", "--bot", "python main.py", "--bot", other, cwd=tmp_path, timeout=150)
    assert plays.returncode == 0 and fix not in plays.stderr, plays.stderr
    out = arena("match", "clank", "--bot", "python -S main.py", "--bot", other, cwd=tmp_path, timeout=150)
    errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
    assert out.returncode == 1 and len(errors) == 1, out.stderr
    assert "No module named 'arena_bot'" in errors[0] and fix in errors[0], errors[0]
    check = arena("bot", "check", "python -S main.py", cwd=tmp_path, timeout=150)
    assert check.returncode == 1 and "FAIL:" in check.stdout + check.stderr
    assert fix in check.stdout + check.stderr, check.stdout + check.stderr
    fine = arena("bot", "check", f"python {EXAMPLES / 'random_bot.py'}", cwd=tmp_path, timeout=150)
    assert fine.returncode == 0 and fix not in fine.stdout + fine.stderr

def test_a_javascript_bot_that_crashes_before_playing_is_told_its_error_line(tmp_path: Path) -> None:
    """Node.js ends an uncaught error's report with stack frames and its version line: the error
    line names the error itself (here a module a sandboxed bot cannot reach), not "Node.js v20"."""
    bot = "const { run } = require('/nowhere/arena_bot');\nrun({ act: () => 0 });\n"
    (tmp_path / "main.js").write_text(bot)
    out = arena(
        "match", "clank", "--bot", "node main.js", "--bot", "builtin:greedy", cwd=tmp_path, timeout=150
    )
    errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
    assert out.returncode == 1 and len(errors) == 1, out.stderr
    assert "it printed: Error: Cannot find module '/nowhere/arena_bot';" in errors[0], errors[0]



def test_bot_check_says_its_cpu_clock_options_do_not_apply() -> None:
    """`arena bot check` has no --sandbox: its bot is on the wall clock whatever --cpu-decision-ms
    says. Its help and a note say so (as `arena match` without --sandbox does), rather than a
    silent PASS for a bot far over the CPU allowance."""
    bot = f"python {EXAMPLES / 'random_bot.py'}"
    told = arena("bot", "check", bot, "--games", "1", "--cpu-decision-ms", "5", timeout=150)
    assert told.returncode == 0, told.stdout + told.stderr
    assert "note: the CPU clock applies to sandboxed bots and the check runs yours outside" in told.stderr
    plain = arena("bot", "check", bot, "--games", "1", timeout=150)
    assert plain.returncode == 0 and "note:" not in plain.stderr, plain.stderr
    helped = " ".join(arena("bot", "check", "--help").stdout.split())
    assert "the check runs yours outside the sandbox, so it has no effect here" in helped


# --- the demo and the API server ----------------------------------------------------------------


def _taken_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_a_second_demo_on_a_taken_port_says_so_before_the_season(tmp_path: Path) -> None:
    with _taken_port() as sock:
        port = sock.getsockname()[1]
        out = arena("demo", "--matches", "4", "--port", str(port), cwd=tmp_path)
    line = one_error_line(out)
    assert f"127.0.0.1:{port}" in line and "another demo" in line
    assert out.stdout == "" and not (tmp_path / "arena-demo.db").exists()


def test_servers_on_a_taken_port_say_so_in_one_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'api.db'}"
    with _taken_port() as sock:
        port = str(sock.getsockname()[1])
        for args in (["serve", "referee", "--insecure", "--port", port],
                     ["serve", "api", "--upgrade", "--db", db, "--port", port]):
            out = arena(*args, timeout=60)
            assert f"cannot listen on 127.0.0.1:{port}" in one_error_line(out), args


def test_the_replay_viewer_on_a_taken_port_says_so_in_one_line(tmp_path: Path) -> None:
    """Before announcing the viewer's address: not an address printed, then uvicorn's log."""
    replay = tmp_path / "game.replay.json.gz"
    save(play_local("clank", ["random", "random"], 3).replay, replay)
    with _taken_port() as sock:
        port = sock.getsockname()[1]
        out = arena("replay", "serve", str(replay), "--port", str(port), timeout=60)
    line = one_error_line(out)
    assert line.startswith(f"error: cannot serve on 127.0.0.1:{port} (Address already in use)"), line
    assert "Give --port N" in line and out.stdout == "", out.stdout


def test_the_demo_counts_matches_with_a_crashed_bot_as_failed(tmp_path: Path) -> None:
    """A hosted bot on the demo ladder that exits at once: its matches are recorded (and rated)
    but the demo's summary counts them as failed and it exits 1."""
    url = f"sqlite:///{tmp_path / 'demo.db'}"
    setup = subprocess.run(
        [sys.executable, "-c", (
            "import sys\n"
            "from ladder.db import create_engine, upgrade\n"
            "from ladder.bots import add_bot_version, register_bot\n"
            "from ladder.ladders import join_ladder\n"
            "from workers.demo import setup_demo_ladder\n"
            "upgrade(sys.argv[1]); engine = create_engine(sys.argv[1])\n"
            "ladder = setup_demo_ladder(engine).ladder_id\n"
            "bot = register_bot(engine, 'crasher', 'someone').bot_id\n"
            "add_bot_version(engine, bot, '1', 'exit 3')\n"
            "join_ladder(engine, ladder, bot)\n"
        ), url],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )
    assert setup.returncode == 0, setup.stderr
    out = arena("demo", "--matches", "10", "--no-serve", "--workers", "1", "--seed", "1", "--db", url,
                cwd=tmp_path, timeout=300)
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            ids = [row.id for row in conn.execute(sa.select(matches.c.id))]
            statuses = {row.status for row in conn.execute(sa.select(matches.c.status))}
        crashed = crash_forfeits(engine, ids)
    finally:
        engine.dispose()
    assert statuses == {"done"} and len(ids) == 10  # recorded, as the ladder records them
    assert crashed > 0, "the crasher was never drawn: the test proves nothing"
    assert f"10 matches recorded, {crashed} failed ({crashed} with a bot that crashed" in out.stdout
    assert out.returncode == 1, out.stdout + out.stderr


@pytest.fixture
def blank_postgres() -> Iterator[str]:
    """An empty PostgreSQL database (no migrations run), dropped afterwards."""
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", DEFAULT_ADMIN_URL)
    name = f"arena_blank_{os.getpid()}"
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_url(normalize_url(admin_url)).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_serve_api_refuses_an_unmigrated_database_and_says_what_to_run(
    tmp_path: Path, blank_postgres: str
) -> None:
    out = arena("serve", "api", "--db", blank_postgres, "--port", "0", timeout=60)
    assert "run `arena db upgrade`" in one_error_line(out) and "no Arena tables" in out.stderr
    older = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(older)
    downgrade(older, "-1")
    out = arena("serve", "api", "--db", older, "--port", "0", timeout=60)
    line = one_error_line(out)
    assert "the database is at migration" in line and "this build needs" in line
    assert "arena db upgrade" in line
    out = arena("serve", "api", "--db", "postgresql://postgres@127.0.0.1:1/none", "--port", "0", timeout=60)
    assert "cannot reach the database" in one_error_line(out)
    out = arena("db", "upgrade", "--url", "postgresql://postgres@127.0.0.1:1/none", timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) == 1 and "the database is unreachable" in out.stderr


# --- readable output ----------------------------------------------------------------------------


def _crashed_at_once() -> dict[str, object]:
    """A 2-seat Clank! replay in which seat 0 crashed before its first decision."""
    from referee.games import game_class
    from referee.replay import ReplayRecorder

    cls = game_class("clank")
    config = cls.default_config(2)
    game = cls.new_game(config, 1)
    recorder = ReplayRecorder(game, 1, config, [
        {"seat": 0, "bot": "crasher", "forfeit": "crashed: exit code 1", "incidents": [
            {"kind": "process_exit", "detail": "exit code 1"}]},
        {"seat": 1, "bot": "first", "bot_name": "first-legal"},
    ])
    game.forfeit(0)
    recorder.forfeit(0, "crashed: exit code 1")
    while not game.is_over():
        d = game.decision()
        assert d is not None
        recorder.action(d.id, d.seat, 0, game.apply_index(0))
    return recorder.finish()


def test_a_crashed_seat_sharing_first_place_is_explained() -> None:
    replay = _crashed_at_once()
    assert replay["result"]["places"] == [1, 1] and replay["result"]["scores"] == [0, 0]  # type: ignore[index]
    lines = list(render(replay, None))
    result = lines[lines.index("result:") + 1]
    assert result.startswith("  seat 0 (crasher): place 1, score 0, forfeited (shared: tied on 0 points "
                             "with seat 1; places rank scores only")
    assert "  seat 1 (first, calls itself 'first-legal'): place 1, score 0, knocked out" in lines
    assert "[step 1] seat 0 (crasher) forfeits: crashed: exit code 1" in lines
    assert "    incident: process exit: exit code 1" in lines
    assert place_notes([1, 2], [5, 0], ["forfeited", "knocked_out"])[0].startswith("placed by its score")
    assert place_notes([1, 2], [5, 0], ["escaped", "forfeited"]) == {}
    assert describe_incident({"kind": "timeout", "decision": 7, "detail": "took 1200 ms"}) == (
        "timeout at decision 7: took 1200 ms")


def test_replay_show_lists_the_legal_actions_and_the_chosen_one(tmp_path: Path) -> None:
    played = play_local("clank", ["random", "greedy"], 5)
    path = tmp_path / "g.replay.json.gz"
    save(played.replay, path)
    out = arena("replay", "show", str(path), "--seat", "1", "--actions")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("[step") and "to act" in line)
    n = next(n for n, step in enumerate(played.replay["steps"], start=1) if step.get("seat") == 1)
    assert lines[first].startswith(f"[step {n}] seat 1 (greedy) to act")
    legal = int(re.search(r"(\d+) legal", lines[first]).group(1))  # type: ignore[union-attr]
    listed = [line for line in lines[first + 1:] if re.match(r"      \[\d+\] ", line)][:legal]
    assert [int(line.split("]")[0].strip(" [")) for line in listed] == list(range(legal))
    chosen = next(line for line in lines[first:] if line.startswith("  -> "))
    step = played.replay["steps"][n - 1]
    assert chosen.startswith(f"  -> [{step['index']}] {step['action']['text']}")
    assert f"      [{step['index']}] {step['action']['text']}" in listed
    plain = arena("replay", "show", str(path), "--seat", "1")
    assert not any(re.match(r"      \[\d+\] ", line) for line in plain.stdout.splitlines())


def test_the_alien_view_spells_out_the_complex() -> None:
    played = play_local("alien", ["coop", "coop"], 1)
    lines = list(render(played.replay, 0))
    legend = [line for line in lines if line.startswith("legend: complex")]
    assert len(legend) == 1 and "'??' (a face-down Hive card" in legend[0] and "'-' (empty)" in legend[0]
    assert any(line.strip().startswith("complex: ") for line in lines)
    clank = list(render(play_local("clank", ["random", "random"], 1).replay, 0))
    assert not any(line.startswith("legend:") for line in clank)


def test_replay_show_and_rerun_give_a_bad_seat_or_step_status_2_and_a_bad_file_status_1(
    tmp_path: Path,
) -> None:
    played = play_local("clank", ["random", "greedy"], 5)
    path = tmp_path / "g.replay.json.gz"
    save(played.replay, path)
    bot = str(EXAMPLES / "random_bot.py")
    for args, wanted in (
        (["replay", "show", str(path), "--seat", "7"], "seat 7 does not exist"),
        (["replay", "rerun", str(path), "--step", "99999", "--seat", "0", "--bot", bot], "no step 99999"),
        (["replay", "rerun", str(path), "--step", "1", "--seat", "5", "--bot", bot], "no seat 5"),
    ):
        assert wanted in one_error_line(arena(*args)), args  # a mistake on the command line
    broken = tmp_path / "broken.replay.json.gz"
    broken.write_bytes(b"\x1f\x8b not a gzip stream")
    for args in (
        ["replay", "show", str(broken)],
        ["replay", "rerun", str(broken), "--step", "1", "--seat", "0", "--bot", bot],
    ):
        out = arena(*args)
        assert out.returncode == 1 and out.stderr.startswith("error: "), (args, out.stderr)


def test_a_javascript_rerun_without_the_kits_packages_prints_the_command_that_installs_them(
    tmp_path: Path,
) -> None:
    """In a checkout where the JavaScript kit's `npm ci` was never run (no
    bots/javascript/node_modules), the README's bot fails `arena replay rerun` with Node's
    "Cannot find module '@grpc/grpc-js'". The error line ends with the command that installs the
    kit, for this checkout; pasted as printed (through bash, from the bot's folder) it makes the
    same rerun line work. A clean checkout and a real `npm ci` (from npm's cache): about 20 s."""
    from tests.doc_blocks import blocks, checkout

    root = checkout(tmp_path / "arena")
    assert not (root / "bots/javascript/node_modules").exists()
    folder = tmp_path / "my-bot"
    folder.mkdir()
    readme_bot = next(b for b in blocks("bots/javascript/README.md") if b.info == "js")
    (folder / "main.js").write_text(readme_bot.text)
    played = play_local("clank", ["random", "greedy"], 5)
    path = tmp_path / "g.replay.json.gz"
    save(played.replay, path)
    step = next(n for n, s in enumerate(played.replay["steps"], start=1) if s.get("seat") == 0)
    # the clean checkout's arena (its referee, its kit), on this virtualenv's interpreter
    env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
    env["PYTHONPATH"] = str(root)
    rerun = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())",
             "replay", "rerun", str(path), "--seat", "0", "--step", str(step), "--bot", "node main.js"]
    failed = subprocess.run(rerun, cwd=folder, env=env, capture_output=True, text=True, timeout=150)
    errors = [line for line in failed.stderr.splitlines() if line.startswith("error:")]
    assert failed.returncode == 1 and len(errors) == 1, failed.stderr
    assert "it printed: Error: Cannot find module '@grpc/grpc-js'" in errors[0], errors[0]
    lead = "install them (make js does the same): "
    assert lead in errors[0], errors[0]
    command = errors[0].split(lead, 1)[1]
    assert command == f"(cd {root / 'bots/javascript'} && npm ci)", command
    pasted = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                            timeout=300)
    assert pasted.returncode == 0, pasted.stdout + pasted.stderr
    fixed = subprocess.run(rerun, cwd=folder, env=env, capture_output=True, text=True, timeout=150)
    assert fixed.returncode == 0 and "  your bot: [" in fixed.stdout, fixed.stdout + fixed.stderr
