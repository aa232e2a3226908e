"""The submission commands (``cli/client.py``) against a real ``arena serve api`` process.

Most commands run in-process through ``referee.cli.main`` (the same code the ``arena`` script
runs) so the file stays fast; the promises about the process itself — the exit status, one line
on stderr and never a traceback, the key never an argument — run ``arena`` as a subprocess.
"""

from __future__ import annotations

import http.server
import io
import json
import os
import socket
import ssl
import stat
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from cli.client import create_ladder_with_reference_bots
from ladder import accounts, client
from ladder.bots import authenticate_bot
from ladder.client import ArchiveError, pack_directory
from ladder.db import create_engine, upgrade
from ladder.match_queue import enqueue_match
from ladder.recording import record_result
from ladder.schema import bot_versions, bots
from referee.cli import main
from referee.core.game import Result
from tests.referee.certs import make_certs

REPO = Path(__file__).resolve().parents[1]
BOT_SOURCE = REPO / "bots" / "python" / "examples" / "random_bot.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path, verify: object = True) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the API exited: {log.read_text()[-2000:]}")
        try:
            httpx.get(f"{url}/api/ladders", timeout=1, verify=verify)  # type: ignore[arg-type]
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    pytest.fail(f"the API did not start: {log.read_text()[-2000:]}")


@dataclass(frozen=True)
class Api:
    """A running API, its database, and keys of two accounts (alice, bob) and an operator."""

    url: str
    db: str
    alice: str
    bob: str
    operator: str
    ladder_id: int


def _serve(
    db: str, log: Path, *extra: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    scheme = "https" if "--tls-cert" in extra else "http"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "api", "--db", db, "--port", str(port),
             "--log-level", "warning", *extra],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )
    return proc, f"{scheme}://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    folder = tmp_path_factory.mktemp("api")
    db = f"sqlite:///{folder / 'arena.db'}"
    upgrade(db)
    engine = create_engine(db)
    # a generous rate limit: this file makes more calls a minute than the default allows
    keys = {
        name: accounts.create_account(engine, name, is_operator=name == "op", rate_per_minute=10_000).api_key
        for name in ("alice", "bob", "op")
    }
    ladder_id = create_ladder_with_reference_bots(
        engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30_000, max_strikes=3,
        reference=("random",),
    )
    engine.dispose()
    proc, url = _serve(db, folder / "api.log")
    try:
        _wait_until_up(url, proc, folder / "api.log")
        yield Api(url, db, keys["alice"], keys["bob"], keys["op"], ladder_id)
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for name in ("ARENA_API_KEY", "ARENA_SERVER"):
        monkeypatch.delenv(name, raising=False)
    return home


def _arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _login(capsys: pytest.CaptureFixture[str], tmp_path: Path, server: str, key: str) -> None:
    key_file = tmp_path / "key.txt"
    key_file.write_text(key + "\n")
    code, _, err = _arena(capsys, "login", "--server", server, "--key-file", str(key_file))
    assert code == 0, err


def _bot_dir(tmp_path: Path, name: str = "mybot") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "main.py").write_text(BOT_SOURCE.read_text())
    (folder / "lib").mkdir()
    (folder / "lib" / "helper.py").write_text("X = 1\n")
    return folder


def _run_arena(
    *argv: str, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *argv],
        input=stdin, capture_output=True, text=True, timeout=60, env=env or dict(os.environ),
    )


# --- login and the credentials file ---------------------------------------------------------------


def test_login_checks_the_key_and_stores_it_mode_0600_from_the_first_byte(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    _config_home: Path,
) -> None:
    modes: list[int] = []
    real_fsync = os.fsync

    def spying_fsync(fd: int) -> None:  # the moment the key has been written, before the rename
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spying_fsync)
    old_umask = os.umask(0)  # a careless umask must not widen the file
    try:
        _login(capsys, tmp_path, api.url, api.alice)
    finally:
        os.umask(old_umask)
    path = _config_home / "arena" / "credentials.json"
    assert modes == [0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {"server": api.url, "key": api.alice}
    code, out, _ = _arena(capsys, "ladder", "list")  # later commands use it
    assert code == 0 and "clank-2p" in out


def test_login_takes_the_key_from_stdin_or_the_environment_never_an_argument(
    api: Api, _config_home: Path
) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(_config_home)}
    by_stdin = _run_arena("login", "--server", api.url, env=env, stdin=api.alice + "\n")
    assert by_stdin.returncode == 0 and "as alice" in by_stdin.stdout, by_stdin.stderr
    by_env = _run_arena("login", "--server", api.url, env={**env, "ARENA_API_KEY": api.bob})
    assert by_env.returncode == 0 and "as bob" in by_env.stdout
    as_argument = _run_arena("login", "--server", api.url, "--key", api.alice, env=env)
    assert as_argument.returncode == 2 and "unrecognized arguments" in as_argument.stderr


def test_a_refused_key_is_one_line_and_nothing_is_stored(
    api: Api, tmp_path: Path, _config_home: Path
) -> None:
    key_file = tmp_path / "k"
    key_file.write_text("arena_not-a-real-key\n")
    done = _run_arena("login", "--server", api.url, "--key-file", str(key_file),
                      env={**os.environ, "XDG_CONFIG_HOME": str(_config_home)})
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ") and "401" in done.stderr
    assert not (_config_home / "arena" / "credentials.json").exists()


def test_a_planted_symlink_does_not_redirect_the_credentials(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], _config_home: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = _config_home / "arena"
    folder.mkdir(parents=True)
    (folder / "credentials.json").symlink_to(victim)
    _login(capsys, tmp_path, api.url, api.alice)
    path = folder / "credentials.json"
    assert victim.read_text() == "precious\n"
    assert not path.is_symlink() and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_credentials_readable_by_others_are_refused(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], _config_home: Path
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    path = _config_home / "arena" / "credentials.json"
    path.chmod(0o644)
    code, _, err = _arena(capsys, "ladder", "list")
    assert code == 1 and "readable by others" in err and "chmod 600" in err


# --- the submission commands ----------------------------------------------------------------------


def test_create_upload_status_join_remote(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    code, out, err = _arena(capsys, "bot", "create", "cli-alice", "--game", "clank")
    assert code == 0 and "created bot cli-alice" in out, err

    folder = _bot_dir(tmp_path)
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("secret remote url\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    code, out, err = _arena(capsys, "bot", "upload", "cli-alice", str(folder), "--run", "python main.py",
                            "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["qualification"] == "pending" and first["files"] == 2  # main.py, lib/helper.py

    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(BOT_SOURCE, "main.py")
    code, out, err = _arena(capsys, "bot", "upload", "cli-alice", str(archive), "--run", "python main.py",
                            "--version", "zipped")
    assert code == 0 and "uploaded cli-alice version zipped" in out, err

    code, out, _ = _arena(capsys, "ladder", "join", "cli-alice", "clank-2p")
    assert code == 0 and "is on ladder clank-2p" in out
    code, _, err = _arena(capsys, "ladder", "join", "cli-alice", "no-such-ladder")
    assert code == 1 and "no ladder 'no-such-ladder' (ladders: clank-2p)" in err

    code, out, _ = _arena(capsys, "bot", "status", "cli-alice", "--json")
    status = json.loads(out)
    assert code == 0
    assert [(v["version"], v["qualification"]) for v in status["versions"]] == [
        (first["version"], "pending"), ("zipped", "pending")
    ]
    assert status["versions"][0]["archive_sha256"] == first["archive_sha256"]
    assert [entry["ladder_name"] for entry in status["ladders"]] == ["clank-2p"]
    code, out, _ = _arena(capsys, "bot", "status", "cli-alice")
    assert code == 0 and "pending" in out and "clank-2p: rating 1500.0" in out

    code, out, err = _arena(capsys, "bot", "remote", "cli-alice", "--referee", "ladder.example:50051")
    assert code == 0, err
    token = next(line.split("=", 1)[1] for line in out.splitlines() if "ARENA_BOT_TOKEN=" in line)
    assert "python main.py --referee ladder.example:50051" in out
    engine = create_engine(api.db)
    try:
        found = authenticate_bot(engine, token)  # the printed token is the bot's
    finally:
        engine.dispose()
    assert found is not None and found.name == "cli-alice"


def test_bot_remote_prints_the_published_referee_or_says_nobody_published_it(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena bot remote` and `arena bot status` give the referee's address and TLS as the
    server publishes them (ARENA_PUBLIC_REFEREE), the exact command to connect, and the
    version's honest state (pending, waiting for the bot); with nothing published, they say so
    and print a placeholder, never an address made up from the API's host."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_PUBLIC_REFEREE")}
    servers: list[subprocess.Popen[bytes]] = []
    try:
        published = {"ARENA_PUBLIC_REFEREE": "referee.example.org:443"}
        for name, extra in (("silent", {}), ("published", published)):
            proc, url = _serve(api.db, tmp_path / f"{name}.log", env={**base, **extra})
            servers.append(proc)
            _wait_until_up(url, proc, tmp_path / f"{name}.log")
            (tmp_path / name).mkdir()
            _login(capsys, tmp_path / name, url, api.alice)
            if name == "silent":
                code, out, err = _arena(capsys, "bot", "create", "cli-faraway", "--game", "clank")
                assert code == 0, err
            code, out, err = _arena(capsys, "bot", "remote", "cli-faraway")
            assert code == 0, err
            if name == "silent":
                assert "referee: unknown: the operator has not published the referee's address" in out
                assert "python main.py --referee HOST:PORT --tls" in out
                assert "50051" not in out and "127.0.0.1" not in out
            else:
                assert "referee: referee.example.org:443, TLS" in out
                assert "python main.py --referee referee.example.org:443 --tls" in out
                assert "HOST:PORT" not in out
            assert "qualification pending: once your bot is connected it plays" in out
        code, out, err = _arena(capsys, "bot", "status", "cli-faraway")
        assert code == 0, err
        assert out.count(" remote  pending ") == 2 and "waiting for the bot to connect" in out
        assert "referee: referee.example.org:443, TLS" in out
    finally:
        for proc in servers:
            proc.terminate()
            proc.wait(10)


def test_serve_api_refuses_a_malformed_public_referee_in_one_line(api: Api) -> None:
    env = {**os.environ, "ARENA_PUBLIC_REFEREE": "https://referee.example.org"}
    done = _run_arena("serve", "api", "--db", api.db, "--port", str(_free_port()), env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: $ARENA_PUBLIC_REFEREE must be one HOST:PORT")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_directory_upload_is_deterministic_and_keeps_node_modules(tmp_path: Path) -> None:
    folder = _bot_dir(tmp_path)
    (folder / "node_modules" / "dep").mkdir(parents=True)
    (folder / "node_modules" / "dep" / "index.js").write_text("module.exports = 1\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "link.py").symlink_to("main.py")
    (folder / ".DS_Store").write_bytes(b"junk")
    first = pack_directory(folder)
    os.utime(folder / "main.py", (1, 1))  # a touched file packs to the same bytes
    again = pack_directory(folder)
    assert first.data == again.data
    with tarfile.open(fileobj=io.BytesIO(first.data)) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert set(members) == {"lib", "lib/helper.py", "link.py", "main.py", "node_modules",
                            "node_modules/dep", "node_modules/dep/index.js", "run.sh"}
    assert members["run.sh"].mode & 0o100 and not members["main.py"].mode & 0o100
    assert members["link.py"].issym() and members["link.py"].linkname == "main.py"
    assert {m.mtime for m in members.values()} == {0}


@pytest.mark.parametrize("target", ["/etc/passwd", "../outside.txt"])
def test_a_symlink_out_of_the_bot_folder_is_refused_before_sending(tmp_path: Path, target: str) -> None:
    (tmp_path / "outside.txt").write_text("not the bot's\n")
    folder = _bot_dir(tmp_path)
    (folder / "lib" / "leak").symlink_to(target if target.startswith("/") else "../" + target)
    with pytest.raises(ArchiveError, match="symlink out of the bot's directory"):
        pack_directory(folder)


def _finished_match(
    api: Api, capsys: pytest.CaptureFixture[str], bot_name: str, seed: int, log: bytes, replay: bytes = b"{}"
) -> int:
    """A finished match of the logged-in account's new bot `bot_name` (seat 1, a hosted version)
    against the ladder's reference bot (seat 0), its seat-1 log `log`; the match id."""
    assert _arena(capsys, "bot", "create", bot_name, "--game", "clank")[0] == 0
    engine = create_engine(api.db)
    try:
        with engine.connect() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == bot_name)).scalar_one()
            reference = conn.execute(
                sa.select(bot_versions.c.id).where(bot_versions.c.command == "builtin:random")
            ).scalar_one()
        with engine.begin() as conn:
            version = conn.execute(
                sa.insert(bot_versions).values(
                    bot_id=bot_id, version="1", command="python main.py", qualification="passed",
                    created_at=datetime.now(UTC),
                ).returning(bot_versions.c.id)
            ).scalar_one()
        match_id = enqueue_match(engine, api.ladder_id, [reference, version], seed)
        record_result(
            engine, match_id, Result(scores=(1, 0), places=(1, 2), outcomes=("escaped", "knocked_out")),
            replay, "finished", logs={1: (log, False)},
        )
    finally:
        engine.dispose()
    return match_id


def test_an_empty_log_is_said_to_be_the_bots_silence(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    match_id = _finished_match(api, capsys, "quiet-bot", 8, b"")
    code, out, err = _arena(capsys, "bot", "logs", "quiet-bot", "--match", str(match_id))
    assert code == 0 and out == ""
    assert err.endswith(f"(seat 1 of match {match_id}: the bot wrote nothing)\n")


def test_another_accounts_bot_cannot_be_changed_and_its_logs_are_not_shown(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    match_id = _finished_match(api, capsys, "owned-by-alice", 7, b"alice's bot says hello\n")

    code, out, err = _arena(capsys, "bot", "logs", "owned-by-alice", "--match", str(match_id))
    assert code == 0 and out == "alice's bot says hello\n", err
    assert "wrote nothing" not in err
    assert err == f"match {match_id}: arena bot replay owned-by-alice --match {match_id} fetches its replay\n"
    code, out, _ = _arena(capsys, "bot", "logs", "owned-by-alice", "--match", "latest")
    assert code == 0 and "says hello" in out

    _login(capsys, tmp_path, api.url, api.bob)
    code, out, err = _arena(capsys, "bot", "logs", "owned-by-alice", "--match", str(match_id))
    assert code == 1 and out == "" and "403" in err and err.count("\n") == 1
    code, _, err = _arena(
        capsys, "bot", "upload", "owned-by-alice", str(_bot_dir(tmp_path)), "--run", "python main.py"
    )
    assert code == 1 and "403" in err and err.count("\n") == 1
    code, _, err = _arena(capsys, "ladder", "join", "owned-by-alice", str(api.ladder_id))  # ladder by id
    assert code == 1 and "403" in err


def test_bot_replay_downloads_a_replay_that_verifies_and_refuses_one_that_does_not(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.replay import encode, loads
    from referee.runner import play_local

    _login(capsys, tmp_path, api.url, api.alice)
    played = play_local("clank", ["random", "random"], 12)
    good = _finished_match(api, capsys, "replayed-bot", 12, b"", replay=encode(played.replay))
    monkeypatch.chdir(tmp_path)
    code, out, err = _arena(capsys, "bot", "replay", "replayed-bot", "--match", str(good))
    assert code == 0, err
    written = tmp_path / f"match-{good}.replay.json.gz"
    assert loads(written.read_bytes())["steps"] == played.replay["steps"]
    assert f"{len(played.replay['steps'])} steps" in out and "replayed-bot played seat 1" in out
    assert f"arena replay show {written} --seat 1" in out
    last = max(n for n, step in enumerate(played.replay["steps"], start=1) if step.get("seat") == 1)
    assert f'arena replay rerun {written} --seat 1 --step {last} --bot "python main.py"' in out

    # a stored replay that is not one (this fixture's default, b"{}") is refused, nothing written
    bad = _finished_match(api, capsys, "unreplayable-bot", 13, b"")
    target = tmp_path / "bad.replay.json.gz"
    code, out, err = _arena(
        capsys, "bot", "replay", "unreplayable-bot", "--match", "latest", "--out", str(target)
    )
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"match {bad}: the server's replay does not verify" in err
    assert not target.exists()


def test_bot_replay_suggests_node_for_a_bot_that_played_with_the_javascript_kit(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rerun line names the bot's language, read from its seat's record (the kit's hello):
    a JavaScript author is not told to rerun `python main.py`."""
    from referee.replay import encode, load

    repo = Path(__file__).resolve().parents[1]
    file = tmp_path / "js.replay.json.gz"
    played = subprocess.run(
        [str(Path(sys.executable).parent / "arena"), "match", "clank", "--seed", "14",
         "--bot", f"python {repo / 'bots' / 'python' / 'examples' / 'random_bot.py'}",
         "--bot", f"node {repo / 'bots' / 'javascript' / 'random_bot.js'}", "--replay", str(file)],
        capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    _login(capsys, tmp_path, api.url, api.alice)
    stored = encode(load(file))  # as the workers store a replay
    match_id = _finished_match(api, capsys, "js-replayed-bot", 14, b"", replay=stored)
    monkeypatch.chdir(tmp_path)
    code, out, err = _arena(capsys, "bot", "replay", "js-replayed-bot", "--match", str(match_id))
    assert code == 0, err
    assert '--seat 1 --step ' in out and ' --bot "node main.js"' in out, out


# --- errors: one line, never a traceback ------------------------------------------------------------


class _NotAnApi(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body>Welcome to nginx</body></html>"
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def not_an_api() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _NotAnApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_every_error_is_one_line_and_a_nonzero_status(
    api: Api, tmp_path: Path, not_an_api: str, _config_home: Path
) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(_config_home), "ARENA_API_KEY": api.alice}
    not_archive = tmp_path / "bot.rar"
    not_archive.write_bytes(b"Rar!")
    bad_ca = tmp_path / "ca.pem"
    bad_ca.write_text("not a certificate")
    cases = {
        "cannot reach": ["ladder", "list", "--server", f"http://127.0.0.1:{_free_port()}"],
        "not an Arena API answer (text/html): Welcome to nginx (HTTP 502)": [
            "ladder", "list", "--server", not_an_api
        ],
        "no bot named 'ghost'": ["bot", "status", "ghost", "--server", api.url],
        "no such file or directory": ["bot", "upload", "x", str(tmp_path / "nowhere"), "--run", "x",
                                      "--server", api.url],
        "not a directory, .tar.gz, .tgz or .zip": [
            "bot", "upload", "x", str(not_archive), "--run", "x", "--server", api.url
        ],
        "--ca": ["ladder", "list", "--server", "https://127.0.0.1:9", "--ca", str(bad_ca)],
        "no server: run `arena login": ["ladder", "list"],
    }
    for expected, argv in cases.items():
        done = _run_arena(*argv, env=env)
        assert done.returncode == 1, (argv, done.stderr)
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, (argv, done.stderr)
        assert expected in done.stderr and "Traceback" not in done.stderr, (argv, done.stderr)


def test_tls_with_the_ca_works_and_without_it_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    certs = make_certs(tmp_path / "certs")
    db = f"sqlite:///{tmp_path / 'tls.db'}"
    upgrade(db)
    engine = create_engine(db)
    key = accounts.create_account(engine, "tls-user").api_key
    engine.dispose()
    log = tmp_path / "tls-api.log"
    proc, url = _serve(db, log, "--tls-cert", str(certs.cert), "--tls-key", str(certs.key))
    try:
        _wait_until_up(url, proc, log, verify=ssl.create_default_context(cafile=str(certs.ca)))
        key_file = tmp_path / "key"
        key_file.write_text(key)
        code, _, err = _arena(capsys, "login", "--server", url, "--key-file", str(key_file))
        assert code == 1 and "TLS handshake" in err and "--ca" in err
        login = ("login", "--server", url, "--key-file", str(key_file))
        code, _, err = _arena(capsys, *login, "--ca", str(certs.other_ca))
        assert code == 1 and "TLS handshake" in err
        code, out, err = _arena(capsys, *login, "--ca", str(certs.ca))
        assert code == 0 and "as tls-user" in out, err
        code, out, err = _arena(capsys, "ladder", "list")  # the stored CA is used again
        assert code == 0 and "no ladders yet" in out, err
        plain = url.replace("https://", "http://")
        code, _, err = _arena(capsys, "ladder", "list", "--server", plain)
        assert code == 1 and err.startswith("error: ")
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_credentials_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert client.credentials_path() == tmp_path / "xdg" / "arena" / "credentials.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")  # the spec: only absolute paths count
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert client.credentials_path() == tmp_path / "home" / ".config" / "arena" / "credentials.json"


def test_a_bots_output_cannot_drive_the_owners_terminal_through_status(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "escaper", "--game", "clank")[0] == 0
    hostile = "\x1b]0;owned\x07\x1b[2J\rfake: passed\x9b31m"
    detail = {"reason": "game 1 of 2: forfeited: crashed: exit code 1" + hostile,
              "games": [{"game": 1, "faults": ["flood: " + hostile]}], "log_excerpt": hostile}
    engine = create_engine(api.db)
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "escaper")).scalar_one()
            conn.execute(sa.insert(bot_versions).values(
                bot_id=bot_id, version="1", command="python main.py", qualification="failed",
                qualification_detail=json.dumps(detail), created_at=datetime.now(UTC),
            ))
    finally:
        engine.dispose()
    code, out, _ = _arena(capsys, "bot", "status", "escaper")
    assert code == 0 and "failed" in out and "exit code 1" in out and "fake: passed" in out
    assert not any(ch in out for ch in "\x1b\x07\r\x9b")


def test_status_shows_the_line_that_explains_a_failure_above_a_node_stack(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JavaScript bot whose require fails: Node prints the error, then a stack and a tail
    (`code: 'MODULE_NOT_FOUND'`); the status names the error line itself."""
    (tmp_path / "main.js").write_text("require('no_such_kit');\n")
    crashed = subprocess.run(["node", "main.js"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert crashed.returncode == 1 and "MODULE_NOT_FOUND" in crashed.stderr
    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "nodekit", "--game", "clank")[0] == 0
    detail = {"reason": "game 1 of 2: forfeited: crashed: exit code 1", "log_excerpt": crashed.stderr}
    engine = create_engine(api.db)
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "nodekit")).scalar_one()
            conn.execute(sa.insert(bot_versions).values(
                bot_id=bot_id, version="1", command="node main.js", qualification="failed",
                qualification_detail=json.dumps(detail), created_at=datetime.now(UTC),
            ))
    finally:
        engine.dispose()
    code, out, _ = _arena(capsys, "bot", "status", "nodekit")
    assert code == 0 and "      error: Error: Cannot find module 'no_such_kit'\n" in out, out


def test_wait_follows_the_newest_version(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "waiter", "--game", "clank")[0] == 0
    engine = create_engine(api.db)
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "waiter")).scalar_one()
            reference = conn.execute(
                sa.select(bot_versions.c.id).where(bot_versions.c.command == "builtin:random")
            ).scalar_one()
            ids = [
                conn.execute(sa.insert(bot_versions).values(
                    bot_id=bot_id, version=label, command="python main.py", qualification=state,
                    created_at=datetime.now(UTC),
                ).returning(bot_versions.c.id)).scalar_one()
                for label, state in (("1", "passed"), ("2", "passed"), ("3", "failed"))
            ]
        # version 1 was rated; version 2, the newest that passed, has not played yet
        match_id = enqueue_match(engine, api.ladder_id, [reference, ids[0]], 3)
        lost = Result(scores=(0, 1), places=(2, 1), outcomes=("knocked_out", "escaped"))
        record_result(engine, match_id, lost, b"{}", "finished")
        code, _, err = _arena(capsys, "bot", "status", "waiter", "--wait", "rated", "--timeout", "1")
        assert code == 1 and "not rated after 1 s" in err
        code, out, _ = _arena(capsys, "bot", "status", "waiter", "--wait", "qualified")
        assert code == 1 and "failed" in out  # the newest upload failed: status 1, shown all the same
        match_id = enqueue_match(engine, api.ladder_id, [ids[1], reference], 4)
        won = Result(scores=(1, 0), places=(1, 2), outcomes=("escaped", "knocked_out"))
        record_result(engine, match_id, won, b"{}", "finished")
        code, out, _ = _arena(capsys, "bot", "status", "waiter", "--wait", "rated", "--timeout", "30")
        assert code == 0 and f"match {match_id}: done" in out
    finally:
        engine.dispose()


def test_wait_rated_ends_at_once_when_no_version_can_be_rated(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot whose only upload failed qualification can never be rated until a new upload:
    `--wait rated` says so and exits 1 at once, not after --timeout (600 s by default)."""
    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "doomed", "--game", "clank")[0] == 0
    engine = create_engine(api.db)
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "doomed")).scalar_one()
            conn.execute(sa.insert(bot_versions).values(
                bot_id=bot_id, version="v1", command="node main.js", qualification="failed",
                created_at=datetime.now(UTC),
            ))
    finally:
        engine.dispose()
    # without the check it would wait the 5 s and say "not rated after 5 s"
    code, out, err = _arena(capsys, "bot", "status", "doomed", "--wait", "rated", "--timeout", "5")
    assert code == 1
    assert "failed" in out  # the status, with its report, is printed all the same
    assert err == ("error: doomed: its newest version v1 failed qualification and no version has "
                   "passed, so none can be rated: fix the bot and upload it again (the report is above)\n")


def test_wait_rated_ends_at_once_for_a_bot_with_no_version(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot just created has nothing to rate: `--wait rated` says what to upload and exits 1 at
    once (it waited out --timeout, 600 s by default, then said only "not rated")."""
    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "empty", "--game", "clank")[0] == 0
    code, _out, err = _arena(capsys, "bot", "status", "empty", "--wait", "rated", "--timeout", "5")
    assert code == 1
    assert err == ("error: empty: it has no version yet, so none can be rated: upload one with "
                   "`arena bot upload empty FOLDER --run \"python main.py\"` (or `node main.js`)\n")


# --- a key goes only to the server it was stored for ------------------------------------------------


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers 404 to everything and notes each request's Authorization header."""

    seen: list[str | None]

    def do_GET(self) -> None:
        self.seen.append(self.headers.get("Authorization"))
        body = b'{"error": "nothing here", "status": 404}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[int, list[str | None]]]:
    """A little HTTP server on every address (so this host's own name reaches it, whatever it
    resolves to), and the Authorization headers it was sent."""
    seen: list[str | None] = []
    handler = type("Recording", (_Recorder,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("0.0.0.0", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1]), seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_stored_key_is_sent_only_to_the_server_it_was_stored_for(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    recorder: tuple[int, list[str | None]],
) -> None:
    port, seen = recorder
    _login(capsys, tmp_path, api.url, api.alice)
    other = f"http://127.0.0.1:{port}"
    for argv in (("bot", "status", "alice-bot", "--server", other), ("ladder", "list", "--server", other)):
        code, out, err = _arena(capsys, *argv)
        assert code == 1 and out == "", err
        assert err == (
            f"error: no API key for {other}: the stored key is for {api.url} and is sent to no other "
            f"server; run `arena login --server {other}` to use {other}\n"
        )
    monkeypatch.setenv("ARENA_SERVER", other)  # the environment names another server: the same
    code, _, err = _arena(capsys, "bot", "status", "alice-bot")
    assert code == 1 and f"arena login --server {other}" in err
    monkeypatch.delenv("ARENA_SERVER")
    # the same host and port under another scheme is another server too
    code, _, err = _arena(capsys, "ladder", "list", "--server", api.url.replace("http://", "https://"))
    assert code == 1 and "no API key for https://" in err
    assert seen == []
    # the stored server itself, named the same or with a trailing slash, gets it
    code, _, err = _arena(capsys, "bot", "status", "nobody-here", "--server", api.url + "/")
    assert code == 1 and "no bot named 'nobody-here'" in err


def test_no_key_goes_over_plain_http_to_another_host_unless_the_user_says_so(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    recorder: tuple[int, list[str | None]], _config_home: Path,
) -> None:
    port, seen = recorder
    # this host's name is not a loopback address as written, whatever it resolves to
    remote = f"http://{socket.gethostname()}:{port}"
    key_file = tmp_path / "key.txt"
    key_file.write_text(api.alice + "\n")
    code, _, err = _arena(capsys, "login", "--server", remote, "--key-file", str(key_file))
    assert code == 1 and err.count("\n") == 1
    assert "refusing to send an API key over plain http://" in err and "--allow-plain-http" in err
    assert not (_config_home / "arena" / "credentials.json").exists()
    monkeypatch.setenv("ARENA_API_KEY", api.alice)  # a key from the environment: the same rule
    code, _, err = _arena(capsys, "bot", "status", "alice-bot", "--server", remote)
    assert code == 1 and "refusing to send an API key over plain http://" in err
    assert seen == []
    # said so: it is sent (the recorder is a real server that would have seen it)
    code, _, err = _arena(capsys, "bot", "status", "alice-bot", "--server", remote, "--allow-plain-http")
    assert code == 1 and "nothing here (HTTP 404)" in err
    assert seen == [f"Bearer {api.alice}"]


# --- a hostile server's download is streamed to disk, up to a cap -----------------------------------


class _Hoarder(http.server.BaseHTTPRequestHandler):
    """Answers a bot and a match as the API would, then a replay body of `body_mib` MiB (no
    Content-Length unless `announce`), sent until the client hangs up."""

    body_mib: int
    announce: bool
    sent: list[int]
    #: the path whose answer is the huge body (its start); "" for every path but the bot's and
    #: the match's
    hog: str = ""

    def _json(self, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.hog and self.path.startswith(self.hog):
            self._hoard()
        elif self.path.startswith("/api/bots/by-name/"):
            self._json({"id": 1, "name": "hog-bot"})
        elif self.path == "/api/matches/7":
            self._json({"id": 7, "seats": [{"seat": 0, "bot_id": 1}]})
        else:
            self._hoard()

    def _hoard(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/gzip")
        if self.announce:
            self.send_header("Content-Length", str(self.body_mib * 1024 * 1024))
        self.end_headers()
        chunk = b"\x1f\x8b" + bytes(1024 * 1024 - 2)
        try:
            for _ in range(self.body_mib):
                self.wfile.write(chunk)
                self.sent[0] += len(chunk)
        except OSError:  # the client hung up: what it was meant to do
            pass

    def log_message(self, *_args: object) -> None:
        pass


#: run argv[2:] as a child, write its peak RSS (KiB) to argv[1], exit with its status
_SPAWN_AND_MEASURE = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[2], sys.argv[2:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


@pytest.mark.parametrize("announce", [False, True], ids=["unannounced", "content-length"])
def test_bot_replay_streams_a_hostile_download_to_disk_and_refuses_it_over_the_cap(
    tmp_path: Path, _config_home: Path, announce: bool
) -> None:
    """A server sending 1 GiB as a replay: the client stops at the cap (64 MiB), in one line,
    with nothing written, and its memory stays far below the body (it read the whole body: an
    unannounced 1 GiB took it past 1 GB)."""
    from referee.replay import MAX_INFLATED_BYTES

    sent = [0]
    handler = type("Hoarding", (_Hoarder,), {"body_mib": 1024, "announce": announce, "sent": sent})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    out = tmp_path / "hog.replay.json.gz"
    env = {**os.environ, "XDG_CONFIG_HOME": str(_config_home), "ARENA_API_KEY": "arena_whatever"}
    try:
        with (tmp_path / "stdout").open("wb") as stdout, (tmp_path / "stderr").open("wb") as stderr:
            # The client is started by a small spawner that reports the client's peak RSS: a child
            # forked straight from this (large) pytest process inherits its high-water mark in
            # ru_maxrss (Linux keeps the old memory's peak across exec), so in the full suite
            # the client "peaked" at the suite's size (552 MB) whatever it did.
            proc = subprocess.Popen(
                [sys.executable, "-c", _SPAWN_AND_MEASURE, str(tmp_path / "maxrss"),
                 sys.executable, "-m", "referee.cli", "bot", "replay", "hog-bot", "--match", "7",
                 "--out", str(out), "--server", f"http://127.0.0.1:{server.server_address[1]}"],
                stdout=stdout, stderr=stderr, env=env, cwd=tmp_path,
            )
            proc.wait()
    finally:
        server.shutdown()
        server.server_close()
    err = (tmp_path / "stderr").read_text()
    assert proc.returncode == 1, err
    assert err == (
        f"error: match 7: the server's replay is larger than {MAX_INFLATED_BYTES:,} bytes, the most "
        "it may be: refused, nothing written\n"
    )
    assert (tmp_path / "stdout").read_text() == ""
    assert list(tmp_path.glob("*hog*")) == []  # neither the file nor a partial one
    max_rss = int((tmp_path / "maxrss").read_text()) * 1024  # KiB on Linux
    print(f"client max RSS {max_rss / 2**20:.0f} MiB; the server sent {sent[0] / 2**20:.0f} MiB")
    assert sent[0] < 1024 * 1024 * 1024  # it was cut off
    assert max_rss < 200 * 1024 * 1024


@pytest.mark.parametrize("announce", [False, True], ids=["unannounced", "content-length"])
@pytest.mark.parametrize(
    ("argv", "hog", "call"),
    [
        (["bot", "status", "hog-bot"], "/api/bots/by-name/", "GET /api/bots/by-name/hog-bot"),
        (["bot", "logs", "hog-bot", "--match", "7"], "/api/matches/7/logs/", "GET /api/matches/7/logs/0"),
    ],
    ids=["status", "logs"],
)
def test_status_and_logs_refuse_a_hostile_servers_huge_answer_in_bounded_memory(
    tmp_path: Path, _config_home: Path, announce: bool, argv: list[str], hog: str, call: str
) -> None:
    """A server answering `arena bot status` (the bot's profile) or `arena bot logs` (a seat's
    log) with 1 GiB: the client reads at most its cap for an API answer (16 MiB), ends with one
    line naming the call and the cap, and its memory stays far below the body (it read the whole
    answer: past 1 GB). Measured as the replay download's test measures it (its spawner)."""
    from ladder.client import MAX_ANSWER_BYTES

    sent = [0]
    handler = type("Hoarding", (_Hoarder,), {"body_mib": 1024, "announce": announce, "sent": sent,
                                             "hog": hog})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {**os.environ, "XDG_CONFIG_HOME": str(_config_home), "ARENA_API_KEY": "arena_whatever"}
    try:
        with (tmp_path / "stdout").open("wb") as stdout, (tmp_path / "stderr").open("wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-c", _SPAWN_AND_MEASURE, str(tmp_path / "maxrss"),
                 sys.executable, "-m", "referee.cli", *argv, "--server", url],
                stdout=stdout, stderr=stderr, env=env, cwd=tmp_path,
            )
            proc.wait()
    finally:
        server.shutdown()
        server.server_close()
    err = (tmp_path / "stderr").read_text()
    assert proc.returncode == 1, err
    assert err == (
        f"error: {url}'s answer to {call} is larger than {MAX_ANSWER_BYTES:,} bytes, the most an API "
        "answer may be: refused\n"
    )
    assert (tmp_path / "stdout").read_text() == ""
    max_rss = int((tmp_path / "maxrss").read_text()) * 1024  # KiB on Linux
    print(f"client max RSS {max_rss / 2**20:.0f} MiB; the server sent {sent[0] / 2**20:.0f} MiB")
    assert sent[0] < 1024 * 1024 * 1024  # it was cut off
    assert max_rss < 200 * 1024 * 1024


def test_status_says_why_a_ladder_plays_no_match(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A qualified bot alone on a 4-seat ladder with one reference bot: `arena bot status` says
    under the ladder what is missing, and `--wait rated` ends with the same reason."""
    from ladder.ladders import create_ladder, join_ladder

    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "lonely", "--game", "clank")[0] == 0
    engine = create_engine(api.db)
    try:
        ladder_id = create_ladder(engine, "clank-4p-short", "clank", 4, decision_ms=1000, bank_ms=30_000,
                                  max_strikes=3)  # fmt: skip
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "lonely")).scalar_one()
            reference = conn.execute(
                sa.select(bot_versions.c.bot_id).where(bot_versions.c.command == "builtin:random")
            ).scalar_one()
            conn.execute(sa.insert(bot_versions).values(
                bot_id=bot_id, version="1", command="python main.py", qualification="passed",
                created_at=datetime.now(UTC),
            ))  # fmt: skip
        join_ladder(engine, ladder_id, bot_id)
        join_ladder(engine, ladder_id, reference)
    finally:
        engine.dispose()
    why = (
        "no match can start: it needs 4 seats and has 1 bot + 1 reference bot ready; an operator "
        "adds reference bots with `arena ladder reference-bots clank-4p-short`, or wait for 2 more "
        "bots to join and qualify"
    )
    code, out, err = _arena(capsys, "bot", "status", "lonely")
    assert code == 0, err
    assert f"  clank-4p-short: rating 1500.0 (provisional), 0 games, 0 wins\n    {why}\n" in out
    code, _, err = _arena(capsys, "bot", "status", "lonely", "--wait", "rated", "--timeout", "1")
    assert code == 1 and f"not rated after 1 s (clank-4p-short: {why})" in err


def test_an_upload_told_the_server_is_busy_is_sent_again_after_retry_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The API answers 503 with Retry-After past its uploads at once (ladder.api): the client
    waits that long and sends the upload again, once per answer, up to its tries."""
    answers = [(503, {"error": "busy", "status": 503}), (201, {"id": 5, "version": "v2"})]
    posts: list[bytes] = []

    class Busy(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            posts.append(self.rfile.read(int(self.headers["Content-Length"])))
            status, data = answers[min(len(posts), len(answers)) - 1]
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if status == 503:
                self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Busy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    archive = client.PackedArchive(b"\x1f\x8b archive", "application/gzip", 1, "x")
    try:
        with client.ApiClient(f"http://127.0.0.1:{server.server_address[1]}", "arena_k") as api:
            assert api.upload(3, archive, "python main.py", None) == {"id": 5, "version": "v2"}
            assert posts == [archive.data, archive.data]
            answers[1] = answers[0]  # busy for good: the last answer is the error
            posts.clear()
            monkeypatch.setattr(client, "UPLOAD_BUSY_TRIES", 2)
            with pytest.raises(client.ApiError) as caught:
                api.upload(3, archive, "python main.py", None)
    finally:
        server.shutdown()
        server.server_close()
    assert caught.value.status == 503 and len(posts) == client.UPLOAD_BUSY_TRIES


# --- debugging a match: 'latest' named, the printed rerun line runs as printed -----------------------


def _readme_bot() -> str:
    """The README's own bot (alice-bot/main.py of its walkthrough), as a reader copies it."""
    text = (REPO / "README.md").read_text()
    start = text.index("cat > alice-bot/main.py <<'EOF'\n") + len("cat > alice-bot/main.py <<'EOF'\n")
    return text[start:text.index("\nEOF\n", start) + 1]


def _matches_finished_out_of_order(api: Api, capsys: pytest.CaptureFixture[str], bot_name: str,
                                   replay: bytes) -> tuple[int, int]:
    """Two finished matches of a new bot (seat 1): the older id finished last. (older, newer)."""
    assert _arena(capsys, "bot", "create", bot_name, "--game", "clank")[0] == 0
    engine = create_engine(api.db)
    try:
        with engine.connect() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == bot_name)).scalar_one()
            reference = conn.execute(
                sa.select(bot_versions.c.id).where(bot_versions.c.command == "builtin:random")
            ).scalar_one()
        with engine.begin() as conn:
            version = conn.execute(
                sa.insert(bot_versions).values(
                    bot_id=bot_id, version="1", command="python main.py", qualification="passed",
                    created_at=datetime.now(UTC),
                ).returning(bot_versions.c.id)
            ).scalar_one()
        older, newer = (enqueue_match(engine, api.ladder_id, [reference, version], 12) for _ in range(2))
        result = Result(scores=(1, 0), places=(1, 2), outcomes=("escaped", "knocked_out"))
        for match_id, second in ((newer, 0), (older, 1)):
            record_result(engine, match_id, result, replay, "finished", logs={1: (b"hi\n", False)},
                          now=datetime(2030, 1, 1, 0, 0, second, tzinfo=UTC))
    finally:
        engine.dispose()
    return older, newer


def test_latest_is_the_match_that_finished_last_and_both_commands_name_it(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.replay import encode
    from referee.runner import play_local

    _login(capsys, tmp_path, api.url, api.alice)
    stored = encode(play_local("clank", ["random", "random"], 12).replay)
    older, newer = _matches_finished_out_of_order(api, capsys, "latest-bot", stored)
    assert older < newer  # the newer id finished first: 'latest' is not the highest id
    monkeypatch.chdir(tmp_path)
    code, out, err = _arena(capsys, "bot", "logs", "latest-bot", "--match", "latest")
    assert code == 0 and out == "hi\n", err
    assert err == (f"match {older} (its latest finished match): arena bot replay latest-bot "
                   f"--match {older} fetches its replay\n")
    code, out, err = _arena(capsys, "bot", "replay", "latest-bot", "--match", "latest")
    assert code == 0, err
    assert out.startswith(f"wrote match-{older}.replay.json.gz (match {older}, its latest finished "
                          "match; clank,"), out


@pytest.mark.parametrize("works", [True, False], ids=["readme-bot", "a-bot-that-cannot-start"])
def test_the_printed_rerun_line_runs_as_printed_from_the_bots_folder(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    works: bool,
) -> None:
    """`arena bot replay` from where the walkthrough stands, then its rerun line, split as a shell
    would and run from the bot's folder with nothing installed but arena: the README's bot
    answers ("No module named 'arena_bot'" before); a bot that cannot start shows its own line."""
    import shlex

    from referee.replay import encode
    from referee.runner import play_local

    _login(capsys, tmp_path, api.url, api.alice)
    name = f"rerun-bot-{works}".lower()
    match_id = _finished_match(api, capsys, name, 15, b"",
                               replay=encode(play_local("clank", ["random", "random"], 15).replay))
    folder = tmp_path / "alice-bot"
    folder.mkdir()
    (folder / "main.py").write_text(_readme_bot() if works else "import numpy_is_not_here\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = _arena(capsys, "bot", "replay", name, "--match", str(match_id))
    assert code == 0, err
    line = next(text.strip() for text in out.splitlines() if text.strip().startswith("arena replay rerun"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(shlex.split(line), cwd=folder, capture_output=True, text=True, timeout=120, env=env)
    if works:
        assert done.returncode == 0, done.stdout + done.stderr
        assert "  your bot: [" in done.stdout, done.stdout
    else:
        assert done.returncode == 1, done.stdout + done.stderr
        error = [text for text in done.stderr.splitlines() if text.startswith("error:")]
        assert len(error) == 1, done.stderr
        assert "it printed: ModuleNotFoundError: No module named 'numpy_is_not_here'" in error[0], error[0]


def test_an_upload_whose_run_names_a_missing_file_is_refused_by_the_client_and_by_the_api(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The version would only crash at its first qualification game ("can't open file"), 15 s
    later: `arena bot upload` refuses it before sending, the API (curl, an older client) too."""
    _login(capsys, tmp_path, api.url, api.alice)
    code, out, err = _arena(capsys, "bot", "create", "run-check-bot", "--game", "clank")
    assert code == 0, err
    folder = _bot_dir(tmp_path)  # main.py, lib/helper.py
    code, out, err = _arena(capsys, "bot", "upload", "run-check-bot", str(folder), "--run", "python bot.py")
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert "names bot.py, which is not in the archive" in err and "nothing was sent" in err, err
    bot = httpx.get(f"{api.url}/api/bots/by-name/run-check-bot", timeout=30).json()
    refused = httpx.post(
        f"{api.url}/api/bots/{bot['id']}/versions", params={"run": "python /home/alice/bot/main.py"},
        content=pack_directory(folder).data, timeout=30,
        headers={"Authorization": f"Bearer {api.alice}", "Content-Type": "application/gzip"},
    )
    assert refused.status_code == 422, refused.text
    assert "names /home/alice/bot/main.py, a path that will not exist in the sandbox" in refused.text
    code, out, err = _arena(capsys, "bot", "upload", "run-check-bot", str(folder),
                            "--run", "python lib/helper.py")
    assert code == 0, err
    versions = httpx.get(f"{api.url}/api/bots/by-name/run-check-bot", timeout=30).json()["versions"]
    assert len(versions) == 1  # the two refused were never stored


def test_a_failed_qualification_games_replay_is_its_owners_to_download(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena bot status` names the command, `arena bot replay --qualification` fetches it (the
    owner); another account is refused (403), no key 401."""
    import gzip
    import hashlib

    from ladder.schema import qualification_replays
    from referee.replay import encode, loads
    from referee.runner import play_local

    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "failed-qual-bot", "--game", "clank")[0] == 0
    played = play_local("clank", ["random", "random"], 21)
    raw = encode(played.replay)
    detail = {"reason": "game 1 of 2: forfeited: crashed: exit code 1 (step 3, after 1 decision)",
              "games": [{"game": 1, "seat": 1, "decisions": 1, "faults": ["forfeited: crashed"]}],
              "replay": {"game": 1, "seat": 1, "bytes": 1}}
    engine = create_engine(api.db)
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "failed-qual-bot")).scalar_one()
            version = conn.execute(
                sa.insert(bot_versions).values(
                    bot_id=bot_id, version="v1", command="python main.py", qualification="failed",
                    qualification_detail=json.dumps(detail), created_at=datetime.now(UTC),
                ).returning(bot_versions.c.id)
            ).scalar_one()
            conn.execute(sa.insert(qualification_replays).values(
                version_id=version, game=1, seat=1, data=gzip.compress(raw),
                sha256=hashlib.sha256(raw).hexdigest(), created_at=datetime.now(UTC),
            ))
    finally:
        engine.dispose()
    code, out, err = _arena(capsys, "bot", "status", "failed-qual-bot")
    assert code == 0, err
    assert "its failed game's replay (yours only): arena bot replay failed-qual-bot --qualification v1" in out
    monkeypatch.chdir(tmp_path)
    code, out, err = _arena(capsys, "bot", "replay", "failed-qual-bot", "--qualification", "v1")
    assert code == 0, err
    written = tmp_path / f"qualification-{version}.replay.json.gz"
    assert loads(written.read_bytes())["steps"] == played.replay["steps"]
    assert out.startswith(f"wrote {written.name} (qualification game 1 of version v1; clank,"), out
    assert f"arena replay show {written} --seat 1" in out

    path = f"{api.url}/api/bots/{bot_id}/versions/{version}/qualification/replay"
    assert httpx.get(path, timeout=30).status_code == 401
    other = httpx.get(path, headers={"Authorization": f"Bearer {api.bob}"}, timeout=30)
    assert other.status_code == 403 and "owner only" in other.text
    _login(capsys, tmp_path, api.url, api.bob)
    code, out, err = _arena(capsys, "bot", "replay", "failed-qual-bot", "--qualification", "v1",
                            "--out", str(tmp_path / "bob.replay.json.gz"))
    assert code == 1 and out == "" and err.count("\n") == 1 and "403" in err, err
    assert not (tmp_path / "bob.replay.json.gz").exists()


def test_upload_says_how_many_reference_bots_its_qualification_games_seat(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Qualification plays tables shaped like the bot's ladders, every seat but the candidate's a
    reference bot: `arena bot upload` (and `bot remote`) say "the reference bot" only for 2-seat
    tables (or no ladder yet), "3 reference bots" for a 4-seat ladder, "the reference bots" for
    both kinds (the ladder's seats come with the bot's profile)."""
    engine = create_engine(api.db)
    try:
        create_ladder_with_reference_bots(
            engine, "clank-4p-words", "clank", 4, decision_ms=1000, bank_ms=30_000, max_strikes=3,
            reference=("random", "greedy"),
        )  # fmt: skip
    finally:
        engine.dispose()
    _login(capsys, tmp_path, api.url, api.alice)
    folder = _bot_dir(tmp_path)

    def upload(name: str) -> str:
        code, out, err = _arena(capsys, "bot", "upload", name, str(folder), "--run", "python main.py")
        assert code == 0, err
        return out

    for name in ("two-seater", "four-seater"):
        assert _arena(capsys, "bot", "create", name, "--game", "clank")[0] == 0
    assert "a few games against the reference bot first;" in upload("two-seater")
    assert _arena(capsys, "ladder", "join", "four-seater", "clank-4p-words")[0] == 0
    assert "a few games against 3 reference bots first;" in upload("four-seater")
    code, out, err = _arena(capsys, "bot", "remote", "four-seater", "--referee", "ladder.example:50051")
    assert code == 0 and "a few games against 3 reference bots;" in out, out + err
    assert _arena(capsys, "ladder", "join", "four-seater", "clank-2p")[0] == 0
    assert "a few games against the reference bots first;" in upload("four-seater")


def test_reference_opponents_words_each_shape() -> None:
    """The words qualification's report and the CLI share (ladder.bots.reference_opponents)."""
    from ladder.bots import reference_opponents

    assert reference_opponents([]) == "the reference bot"  # on no ladder: a 2-seat table
    assert reference_opponents([2, 2]) == "the reference bot"
    assert reference_opponents([4]) == "3 reference bots"
    assert reference_opponents([2, 4]) == "the reference bots"


@pytest.mark.parametrize(
    ("files", "kit", "run"),
    [
        ({"main.js": "README"}, None, "node main.js"),  # the JavaScript README's bot, its folder
        ({"main.py": "BOT"}, None, "python main.py"),
        ({"main.js": "README", "notes.py": "BOT"}, "javascript", "node main.js"),
    ],
)
def test_bot_create_suggests_its_kits_upload_line_and_it_works_as_printed(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str], kit: str | None, run: str,
) -> None:
    """`arena bot create`, run in the bot's folder, suggests the upload command of the kit that
    folder's bot uses (`node main.js` to a JavaScript author, not `python main.py`), and that
    line, pasted through bash from the folder, uploads it."""
    from tests.doc_blocks import blocks

    folder = tmp_path / "my-bot"
    folder.mkdir()
    js_bot = next(b for b in blocks("bots/javascript/README.md") if b.info == "js").text
    for name, what in files.items():
        (folder / name).write_text(js_bot if what == "README" else BOT_SOURCE.read_text())
    _login(capsys, tmp_path, api.url, api.alice)
    monkeypatch.chdir(folder)
    name = f"kit-{run.split()[0]}-{len(files)}"
    chosen = ["--kit", kit] if kit else []
    code, out, err = _arena(capsys, "bot", "create", name, "--game", "clank", *chosen)
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("next")]
    assert line == f'next: arena bot upload {name} . --run "{run}"', line
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    pasted = subprocess.run(["bash", "-c", line.removeprefix("next: ")], cwd=folder, env=env,
                            capture_output=True, text=True, timeout=60)
    assert pasted.returncode == 0 and f"uploaded {name} version" in pasted.stdout, pasted.stderr
    code, out, _ = _arena(capsys, "bot", "status", name, "--json")
    assert code == 0 and json.loads(out)["versions"][0]["kind"] == "hosted"


def test_bot_create_outside_a_bots_folder_names_both_kits_commands(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _login(capsys, tmp_path, api.url, api.alice)
    monkeypatch.chdir(tmp_path)
    code, out, err = _arena(capsys, "bot", "create", "kitless", "--game", "clank")
    assert code == 0, err
    assert ('next, from your bot\'s folder: arena bot upload kitless . --run "python main.py" '
            '(a JavaScript bot: --run "node main.js")') in out, out
    code, out, err = _arena(capsys, "bot", "create", "kitless-js", "--game", "clank", "--kit", "javascript")
    assert code == 0, err
    assert ('next, from the folder holding your bot\'s main.js: arena bot upload kitless-js . '
            '--run "node main.js"') in out, out


def test_bot_status_shows_the_division_and_the_distance_to_the_boss(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena ladder create --divisions` makes the divisions and their bosses; a bot that joins
    starts in the bottom one, and `arena bot status` prints its division, its boss and how far
    the low end of its interval is from the boss's rating, then the top division once a
    matchmaking pass promoted it. Bad `--divisions` and a second set are one line each."""
    from ladder.divisions import promote_past_bosses

    code, out, err = _arena(capsys, "ladder", "create", "clank-leagues", "--game", "clank",
                            "--divisions", "Wood:random,Gold:greedy", "--db", api.db)
    assert code == 0, err
    assert ("divisions, bottom first: Wood (boss reference-clank-boss1-random), Gold (boss "
            "reference-clank-boss2-greedy); every bot starts in the bottom one") in out
    for argv, error in [
        (["create", "clank-bad", "--game", "clank", "--divisions", "Wood"],
         "error: --divisions: 2 to 10, bottom first (e.g. Wood,Bronze,Gold), got 'Wood'\n"),
        (["create", "alien-bad", "--game", "alien", "--divisions", "A,B"],
         "error: --divisions: alien's ladders are kind 'coop'; only free-for-all ladders have "
         "divisions\n"),
        (["divisions", "clank-leagues", "A,B"],
         "error: ladder clank-leagues has its divisions already (they are set once)\n"),
    ]:
        code, _, err = _arena(capsys, "ladder", *argv, "--db", api.db)
        assert (code, err) == (1, error)

    _login(capsys, tmp_path, api.url, api.alice)
    assert _arena(capsys, "bot", "create", "climber", "--game", "clank")[0] == 0
    assert _arena(capsys, "ladder", "join", "climber", "clank-leagues")[0] == 0
    engine = create_engine(api.db)
    try:
        with engine.begin() as conn:
            bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == "climber")).scalar_one()
            mine = conn.execute(sa.insert(bot_versions).values(
                bot_id=bot_id, version="1", command="python main.py", qualification="passed",
                created_at=datetime.now(UTC),
            ).returning(bot_versions.c.id)).scalar_one()
            boss = conn.execute(
                sa.select(bot_versions.c.id).join(bots, bots.c.id == bot_versions.c.bot_id)
                .where(bots.c.name == "reference-clank-boss1-random")
            ).scalar_one()
            ladder_id = conn.execute(
                sa.text("SELECT id FROM ladders WHERE name = 'clank-leagues'")
            ).scalar_one()

        def status() -> tuple[dict[str, object], str]:
            code, out, _ = _arena(capsys, "bot", "status", "climber", "--json")
            assert code == 0
            entry = next(e for e in json.loads(out)["ladders"] if e["ladder_name"] == "clank-leagues")
            code, out, _ = _arena(capsys, "bot", "status", "climber")
            assert code == 0
            return entry, out

        entry, out = status()
        assert (entry["division"], entry["boss_name"], entry["boss_rating"], entry["rating_low"]) == (
            "Wood", "reference-clank-boss1-random", 1500.0, 819.0,  # 1500 - 1.96 x 347.5: no game yet
        )
        assert ("    division Wood (1 of 2): boss reference-clank-boss1-random at 1500.0; the low end of "
                "your rating's interval, 819.0, is 681.0 below it; above it: promoted") in out.splitlines()
        for n in range(15):  # beats the Wood boss fifteen times
            match_id = enqueue_match(engine, ladder_id, [mine, boss], seed=n)
            record_result(engine, match_id, Result((5, 1), (1, 2), ("a", "b")), b"{}", "finished")
        entry, out = status()
        assert entry["division"] == "Wood" and entry["to_boss"] < 0  # past it, not moved yet
        assert (f"    division Wood (1 of 2): boss reference-clank-boss1-random at "
                f"{entry['boss_rating']:.1f}; the low end of your rating's interval, "
                f"{entry['rating_low']:.1f}, is {-entry['to_boss']:.1f} above it; promoted at the next "
                "matchmaking pass") in out.splitlines()
        assert [p.to_name for p in promote_past_bosses(engine, [ladder_id])] == ["Gold"]
    finally:
        engine.dispose()
    entry, out = status()
    assert (entry["division"], entry["boss_name"]) == ("Gold", "reference-clank-boss2-greedy")
    assert (f"    division Gold (2 of 2, the top): boss reference-clank-boss2-greedy at 1500.0; the low "
            f"end of your rating's interval, {entry['rating_low']:.1f}, is {entry['to_boss']:.1f} below "
            "it") in out.splitlines()
