"""Hosted bots run from a checkout in a private folder, with no ``node_modules`` in it
(issue 23: "make test fails in a private folder", "a JavaScript bot cannot reach the ladder").

A copy of this checkout's files (what git tracks, so no ``bots/javascript/node_modules``) goes
into a 0700 folder, as a clone in a home folder; the code under test runs from that copy
(``PYTHONPATH``) in subprocesses, with a staging folder of its own: so the SDK, gRPC and the
JavaScript kit are staged from a tree the bots' uids cannot reach, and the kit's packages come
from ``npm ci`` into the staging folder (npm's cache makes that offline here). The JavaScript
bot is the one ``bots/javascript/README.md`` prints, as printed.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from cli.ladder import sandbox_warnings
from ladder.accounts import create_account
from ladder.api import create_app
from ladder.bots import add_bot_version, register_bot
from ladder.client import pack_directory
from ladder.db import create_engine
from ladder.ladders import create_ladder, join_ladder
from ladder.match_queue import enqueue_match
from ladder.schema import bot_versions, rating_history, results
from tests.databases import qualification_of
from workers.bot_commands import builtin_command
from workers.executor import reset_referee_executor
from workers.qualification import qualify_version

from .conftest import REPO, attach_files
from .test_sandbox_attacks import reachable_dir

pytestmark = [pytest.mark.slow, pytest.mark.integration]

JS_README = REPO / "bots" / "javascript" / "README.md"
PY_BOT = REPO / "bots" / "python" / "examples" / "random_bot.py"
JS_BOT = Path(__file__).resolve().parent / "sandbox_bots" / "js_bot" / "main.js"


def readme_js_bot() -> str:
    """The bot of the JavaScript README's "Your bot", exactly as printed."""
    blocks = re.findall(r"```js\n(.*?)```", JS_README.read_text(), re.S)
    (bot,) = [b for b in blocks if "run(bot)" in b]
    return bot


def _copy_checkout(dest: Path) -> None:
    """The files git tracks (and new ones not ignored): what a fresh clone holds."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


class Clone:
    """A copy of the checkout in a private folder, and the environment that runs code from it."""

    def __init__(self, home: Path, stage: Path) -> None:
        self.home = home
        self.root = home / "arena"
        self.stage = stage
        self.env = {
            k: v for k, v in os.environ.items()
            if k not in ("ARENA_REFEREE_EXECUTOR", "ARENA_REFEREE_ADDR", "ARENA_BOT_FILES_DIR")
            and not k.startswith("ARENA_SANDBOX_")
        }  # fmt: skip
        # the clone's packages, and its SDK under its one name (pyproject.toml installs
        # bots/python/arena_bot as arena_bot)
        path = os.pathsep.join([str(self.root), str(self.root / "bots" / "python")])
        self.env.update({"PYTHONPATH": path, "ARENA_SANDBOX_STAGE_DIR": str(stage)})

    def python(self, code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run `code` with this clone's packages first on the path."""
        return subprocess.run(
            [sys.executable, "-c", code, *args], cwd=cwd or self.root, env=self.env,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip


@pytest.fixture(scope="module")
def clone() -> Iterator[Clone]:
    home = Path(tempfile.mkdtemp(prefix="arena-home-"))  # 0700, as a home folder
    stage = reachable_dir("arena-stage-test-")
    made = Clone(home, stage)
    try:
        assert home.stat().st_mode & 0o777 == 0o700
        _copy_checkout(made.root)
        assert not (made.root / "bots" / "javascript" / "node_modules").exists()
        where = made.python("import workers, arena_bot as s; print(workers.__file__, s.__file__)")
        assert where.stdout.split() and all(p.startswith(str(made.root)) for p in where.stdout.split()), where
        yield made
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)


def test_arena_match_sandbox_from_a_clone_in_a_private_folder(clone: Clone) -> None:
    """The README's JavaScript bot and the Python example, in a bot folder inside a private
    folder, under `arena match --sandbox` run from the private clone."""
    assert os.geteuid() == 0, "the sandbox tests run as root (each bot gets a uid of its own)"
    folder = clone.home / "my-bot"  # 0755 itself, in the 0700 home
    folder.mkdir(mode=0o755)
    (folder / "main.js").write_text(readme_js_bot())
    shutil.copy(PY_BOT, folder / "main.py")
    out = clone.python(
        "from cli.main import main; raise SystemExit(main())",
        "match", "clank", "--sandbox", "--seed", "2", "--bot", "python main.py", "--bot", "node main.js",
        cwd=folder,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "calls itself 'my-bot'" in out.stdout and "game_over" in out.stdout, out.stdout
    assert out.stdout.count(", 0 strikes") == 2 and "forfeit" not in out.stdout, out.stdout
    # the kit's packages were installed into the staging folder, not taken from the clone
    staged = list(clone.stage.glob("runtime/javascript-*/node_modules/@grpc/grpc-js/package.json"))
    assert len(staged) == 1, staged


def _tar_gz(entries: list[tuple[str, bytes | None, str]]) -> bytes:
    """(name, data, link target) entries: a file when data is given, else a symlink."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data, target in entries:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


QUALIFY = (
    "import sys; from workers.qualification import qualify_version; "
    "print(qualify_version(sys.argv[1], int(sys.argv[2])))"
)
PLAY = (
    "import sys; from workers.match_execution import run_match; "
    "print(run_match(sys.argv[1], int(sys.argv[2]), 'w'))"
)


def test_the_js_readme_bot_uploaded_with_node_modules_qualifies_and_plays_rated(
    clone: Clone, sqlite_url: str, tmp_path: Path
) -> None:
    """Upload (the client's packing, the API's checks) → qualification → a rated match, by a
    worker running from the private clone, which has no bots/javascript/node_modules."""
    engine = create_engine(sqlite_url)
    try:
        ladder_id = create_ladder(
            engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
        )
        refs = []
        for strategy in ("random", "greedy"):
            ref = register_bot(engine, f"ref-{strategy}", "operator")
            refs.append(add_bot_version(engine, ref.bot_id, "1", builtin_command(strategy)))
            join_ladder(engine, ladder_id, ref.bot_id)
        alice = create_account(engine, "alice")
        auth = {"Authorization": f"Bearer {alice.api_key}"}
        # the README's bot, with a package installed beside it as `npm install` leaves one
        folder = tmp_path / "my-bot"
        (folder / "node_modules" / "left-pad" / "bin").mkdir(parents=True)
        (folder / "main.js").write_text(readme_js_bot())
        (folder / "node_modules" / "left-pad" / "index.js").write_text("module.exports = (s) => s;\n")
        cli = folder / "node_modules" / "left-pad" / "bin" / "cli.js"
        cli.write_text("#!/usr/bin/env node\nrequire('..');\n")
        cli.chmod(0o755)
        (folder / "node_modules" / ".bin").mkdir()
        (folder / "node_modules" / ".bin" / "left-pad").symlink_to("../left-pad/bin/cli.js")
        packed = pack_directory(folder)
        with TestClient(create_app(engine)) as client:
            bot = client.post("/api/bots", json={"name": "js-readme", "game": "clank"}, headers=auth).json()
            upload = client.post(
                f"/api/bots/{bot['id']}/versions", params={"run": "node main.js"}, content=packed.data,
                headers={**auth, "Content-Type": packed.content_type},
            )  # fmt: skip
            assert upload.status_code == 201, upload.text
            version_id = int(upload.json()["id"])
            # a link out of the archive stays refused
            escaping = _tar_gz([("main.js", b"1", ""), ("node_modules/.bin/x", None, "../../../etc/passwd")])
            refused = client.post(
                f"/api/bots/{bot['id']}/versions", params={"run": "node main.js"}, content=escaping,
                headers={**auth, "Content-Type": "application/gzip"},
            )  # fmt: skip
            assert refused.status_code == 422 and "link out of the archive" in refused.text, refused.text
        join_ladder(engine, ladder_id, int(bot["id"]))

        qualified = clone.python(QUALIFY, sqlite_url, str(version_id))
        assert qualified.returncode == 0, qualified.stdout + qualified.stderr
        status, detail = qualification_of(engine, version_id)
        assert status == "passed", detail

        match_id = enqueue_match(engine, ladder_id, [version_id, refs[1]], seed=5)
        played = clone.python(PLAY, sqlite_url, str(match_id))
        assert played.returncode == 0 and "recorded" in played.stdout, played.stdout + played.stderr
        with engine.connect() as conn:
            result = sa.select(results.c.reason).where(results.c.match_id == match_id)
            reason = conn.execute(result).scalar_one()
            history = sa.select(sa.func.count()).select_from(rating_history)
            rated = conn.execute(history.where(rating_history.c.match_id == match_id)).scalar_one()
        assert reason == "finished" and rated == 2
    finally:
        engine.dispose()


def test_a_worker_without_node_says_so_at_start_and_in_the_qualification(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No `node` on this worker: one warning naming the runtime at start, and a JavaScript
    upload's qualification fails with that reason as its bot's output."""
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda name, *a, **kw: None if name == "node" else real_which(name, *a, **kw)
    )
    for name in ("ARENA_REFEREE_EXECUTOR", "ARENA_REFEREE_ADDR", "ARENA_QUALIFICATION_GAMES"):
        monkeypatch.delenv(name, raising=False)
    warnings = sandbox_warnings()
    assert warnings == [
        "warning: no javascript runtime for hosted bots on this worker: node is not installed (no node "
        "in /usr/local/bin or /usr/bin); such a bot ends at its start with this reason, and its version "
        "fails qualification"
    ], warnings
    engine = create_engine(sqlite_url)
    reset_referee_executor()
    try:
        ladder_id = create_ladder(
            engine, "clank-2p", "clank", 2, decision_ms=1000, bank_ms=30000, max_strikes=3
        )
        for strategy in ("random", "greedy"):
            ref = register_bot(engine, f"ref-{strategy}", "operator")
            add_bot_version(engine, ref.bot_id, "1", builtin_command(strategy))
            join_ladder(engine, ladder_id, ref.bot_id)
        bot = register_bot(engine, "js-bot", "alice")
        join_ladder(engine, ladder_id, bot.bot_id)
        version_id = add_bot_version(engine, bot.bot_id, "1", "node main.js")
        attach_files(engine, version_id, {"main.js": JS_BOT})
        with engine.begin() as conn:
            pending = sa.update(bot_versions).where(bot_versions.c.id == version_id)
            conn.execute(pending.values(qualification="pending"))
        assert qualify_version(sqlite_url, version_id).status == "failed"
        status, detail = qualification_of(engine, version_id)
        said = "arena: this worker has no javascript runtime for its bots: node is not installed"
        assert status == "failed" and said in detail["log_excerpt"], detail
    finally:
        engine.dispose()
        reset_referee_executor()
