"""The referee's cap on TCP connections per address: deploy/referee-connlimit.nft, applied as
compose applies it (deploy/referee-entrypoint.sh), against an attacker on a network of its own.

Three network namespaces joined by veth pairs: the referee's, an attacker's (one address) and an
honest author's (another). The referee is started inside its namespace by the compose entrypoint
itself: it loads the shipped rule file unchanged, then runs `arena serve referee` as uid 10001
with no capability. The attacker opens 300 connections that each send the HTTP/2 preface (so
the referee would keep them for its idle timeout): no more than the file's cap are accepted,
the rest are reset, while the honest address still connects and plays a whole match. Once the
attacker lets go, its address connects again. Needs root and nftables
(`deploy/ensure-deploy-tools.sh`, run by `make services`); a missing `nft` fails the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "deploy" / "referee-connlimit.nft"
ENTRYPOINT = REPO / "deploy" / "referee-entrypoint.sh"
CLIENT = Path(__file__).with_name("connlimit_client.py")
PORT = 50051
ATTACKS = 300


def _run(*args: str) -> str:
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, f"{' '.join(args)}: {done.stderr.strip()}"
    return done.stdout


def shipped_cap() -> int:
    """The number in the rule file's `ct count over N` rules (IPv4 and IPv6: the same)."""
    caps = {int(n) for n in re.findall(r"ct count over (\d+)", RULES.read_text())}
    assert len(caps) == 1, caps
    return caps.pop()


@dataclass(frozen=True)
class Net:
    """The namespaces: the referee's at 10.0.1.1 (seen by the attacker, 10.0.1.2) and 10.0.2.1
    (seen by the honest author, 10.0.2.2)."""

    referee: str
    attacker: str
    honest: str

    def run(self, ns: str, *argv: str, env: dict[str, str] | None = None,
            stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
        return subprocess.Popen(
            ["ip", "netns", "exec", ns, *argv], stdin=stdin, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}, cwd=REPO,
        )


@pytest.fixture
def net() -> Iterator[Net]:
    assert os.geteuid() == 0, "this test needs root (network namespaces, nftables)"
    assert shutil.which("nft"), "nft is not installed (run deploy/ensure-deploy-tools.sh)"
    tag = f"arena-cl-{os.getpid()}-{secrets.token_hex(2)}"
    made = Net(f"{tag}-ref", f"{tag}-atk", f"{tag}-ok")
    try:
        for ns in (made.referee, made.attacker, made.honest):
            _run("ip", "netns", "add", ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        for subnet, peer in ((1, made.attacker), (2, made.honest)):
            # both ends are made inside their namespaces: no name in the host's to collide with
            _run("ip", "link", "add", f"ref{subnet}", "netns", made.referee, "type", "veth",
                 "peer", "name", "ref0", "netns", peer)
            _run("ip", "-n", made.referee, "addr", "add", f"10.0.{subnet}.1/24", "dev", f"ref{subnet}")
            _run("ip", "-n", made.referee, "link", "set", f"ref{subnet}", "up")
            _run("ip", "-n", peer, "addr", "add", f"10.0.{subnet}.2/24", "dev", "ref0")
            _run("ip", "-n", peer, "link", "set", "ref0", "up")
        yield made
    finally:
        for ns in (made.referee, made.attacker, made.honest):
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True,
                                  check=False).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


@pytest.fixture
def searchable_checkout() -> Iterator[None]:
    """The referee runs as uid 10001 from this checkout's venv, as the image runs it from its own
    install: a checkout under a private folder (a `mktemp -d` clone, mode 700) is not reachable
    by that uid. For the test's length, each folder above the checkout and the interpreter that
    others may not enter gets search permission only (o+x: no listing, no reading), restored
    afterwards."""
    changed: list[tuple[Path, int]] = []
    for leaf in (REPO, Path(sys.executable).resolve()):
        for folder in [leaf, *leaf.parents] if leaf.is_dir() else leaf.parents:
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH and folder not in {f for f, _ in changed}:
                changed.append((folder, mode))
                folder.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
    try:
        yield
    finally:
        for folder, mode in reversed(changed):
            folder.chmod(stat.S_IMODE(mode))


def test_one_address_gets_no_more_than_the_cap_and_another_still_plays(
    net: Net, searchable_checkout: None
) -> None:
    cap = shipped_cap()
    assert cap < ATTACKS
    token = secrets.token_urlsafe(24)
    # the referee runs as uid 10001: a HOME and a working folder it may use, nothing written here
    home = tempfile.mkdtemp(prefix="arena-cl-home-")
    os.chmod(home, 0o777)
    env = {
        "ARENA_ADMIN_TOKEN": token, "HOME": home, "PYTHONDONTWRITEBYTECODE": "1",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
    }
    referee = net.run(net.referee, str(ENTRYPOINT), "serve", "referee", "--host", "0.0.0.0",
                      "--port", str(PORT), "--insecure", env=env)
    attacker = None
    try:
        assert referee.stdout is not None
        line = referee.stdout.readline()
        assert line.startswith("referee listening on "), (line, referee.stderr and referee.stderr.read())
        # the rule is in the referee's namespace, and the referee runs unprivileged
        assert "arena_referee" in _run("ip", "netns", "exec", net.referee, "nft", "list", "tables")
        status = Path(f"/proc/{_referee_pid(net)}/status").read_text()
        assert re.search(r"^Uid:\s+10001\s", status, re.M) and re.search(r"^CapEff:\s+0+$", status, re.M)

        attacker = net.run(net.attacker, sys.executable, str(CLIENT), "flood", f"10.0.1.1:{PORT}",
                           str(ATTACKS), stdin=subprocess.PIPE)
        assert attacker.stdout is not None
        flood = json.loads(attacker.stdout.readline() or "null") or attacker.stderr
        print(f"\n{ATTACKS} connections from one address, cap {cap}: {flood}")
        assert flood["accepted"] <= cap, flood
        assert flood["accepted"] + flood["refused"] == ATTACKS, flood
        assert flood["answered"] == flood["accepted"], flood  # the referee itself holds those

        # while the attacker holds its share, another address connects and plays a whole match
        honest = net.run(net.honest, sys.executable, str(CLIENT), "play", f"10.0.2.1:{PORT}", env=env)
        out, err = honest.communicate(timeout=180)
        played = json.loads(out.strip().splitlines()[-1]) if out.strip() else err
        print(f"the other address: {played}")
        assert played["state"] == "FINISHED" and played["ended_by"] == "game_over", played
        assert played["forfeited"] == [False, False] and played["bot_exits"] == [0, 0], played

        # the attacker lets go: its address is counted down and may connect again
        attacker.communicate(input="", timeout=30)
        again = net.run(net.attacker, sys.executable, str(CLIENT), "flood", f"10.0.1.1:{PORT}", "3",
                        stdin=subprocess.PIPE)
        out, _ = again.communicate(input="", timeout=60)
        assert json.loads(out.splitlines()[0])["accepted"] == 3, out
    finally:
        for proc in (attacker, referee):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


def _referee_pid(net: Net) -> int:
    """The `arena serve referee` process in the referee's namespace (the entrypoint exec'd it)."""
    for pid in subprocess.run(["ip", "netns", "pids", net.referee], capture_output=True, text=True,
                              check=False).stdout.split():
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"serve" in cmdline and b"referee" in cmdline:
            return int(pid)
    raise AssertionError("no referee process in its namespace")
