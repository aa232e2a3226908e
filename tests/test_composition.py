"""The `arena` command's composition root (cli/main.py) and the referee on its own.

The referee's commands register without the ladder or the workers: what they need from above
(the bot-token check of `serve referee --db`, the sandbox of `match --sandbox`) is handed to
them as functions by the root. These tests build the referee's commands alone, in a fresh
interpreter, and check that no higher layer was loaded and that the two options that need one
say so in one line; and that `python -m referee.cli` is the installed root.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_REFEREE_ALONE = """
import argparse, json, sys
from referee import cli
from referee.cli_checks import Commands, OneLineParser
from referee.server import commands

parser = OneLineParser(prog="arena")
sub = Commands(parser.add_subparsers(dest="command", required=True),
               {"serve": ("servers", "serve_command"), "bot": ("bot tools", "bot_command")})
cli.register(sub)
commands.register(sub)
argv = sys.argv[1:]
code = cli.run(parser, argv) if argv else 0
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"ladder", "workers", "bots"})
print(json.dumps({"code": code, "loaded": loaded}))
"""


def _referee_alone(*argv: str, cwd: Path = REPO) -> tuple[dict[str, object], str]:
    out = subprocess.run(
        [sys.executable, "-c", _REFEREE_ALONE, *argv],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )
    assert out.stdout.strip(), out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def test_the_referee_registers_and_runs_without_any_higher_layer(tmp_path: Path) -> None:
    report, _ = _referee_alone()
    assert report == {"code": 0, "loaded": []}
    report, _ = _referee_alone("play", "clank", "--games", "1", "--json", cwd=tmp_path)
    assert report == {"code": 0, "loaded": []}


def test_without_the_root_db_and_sandbox_are_refused_in_one_line(tmp_path: Path) -> None:
    report, err = _referee_alone("serve", "referee", "--db", "sqlite:///x.db", "--insecure", cwd=tmp_path)
    assert report["code"] == 2 and report["loaded"] == []
    assert err.strip() == "error: --db: this arena has no ladder to check bot tokens against"
    report, err = _referee_alone("match", "clank", "--sandbox", "--bot", "true", "--bot", "true",
                                 cwd=tmp_path)
    assert report["code"] == 2 and report["loaded"] == []
    assert err.strip() == "error: the sandbox cannot run here: this arena has no sandbox"


def test_python_m_referee_cli_is_the_installed_root() -> None:
    """`python -m referee.cli` (used by scripts and tests) hands over to cli/main.py: the
    same commands as `python -m cli.main`, the ladder's and the workers' included."""
    helps = [
        subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True,
                       timeout=60, cwd=REPO, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
        for module in ("referee.cli", "cli.main")
    ]
    assert [h.returncode for h in helps] == [0, 0], [h.stderr for h in helps]
    assert helps[0].stdout == helps[1].stdout
    for command in ("demo", "worker", "login", "tournament", "match", "serve"):
        assert command in helps[0].stdout
