"""`arena serve api --tls-cert --tls-key`: the ladder API over HTTPS, as a real process."""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from ladder.db import upgrade

from .certs import make_certs
from .conftest import REPO

pytestmark = pytest.mark.integration

ARENA = [sys.executable, "-m", "referee.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_api_answers_over_tls_and_refuses_plaintext(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "certs")
    url = f"sqlite:///{tmp_path / 'api.db'}"
    upgrade(url)
    port = _free_port()
    server = subprocess.Popen(
        [*ARENA, "serve", "api", "--db", url, "--host", "localhost", "--port", str(port),
         "--log-level", "warning", "--tls-cert", str(certs.cert), "--tls-key", str(certs.key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )
    trusting = ssl.create_default_context(cafile=str(certs.ca))
    try:
        assert server.stdout is not None
        assert f"https://localhost:{port}/" in server.stdout.readline()
        deadline = time.monotonic() + 30
        while True:
            try:
                reply = httpx.get(f"https://localhost:{port}/api/ladders", verify=trusting, timeout=5)
                break
            except httpx.ConnectError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "arena serve api did not come up"
                time.sleep(0.2)
        assert reply.status_code == 200 and reply.json() == []
        assert reply.url.scheme == "https"
        # plaintext HTTP to the TLS port gets no answer from the API
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://localhost:{port}/api/ladders", timeout=5)
        # a client that does not trust the CA fails the handshake
        other = ssl.create_default_context(cafile=str(certs.other_ca))
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(f"https://localhost:{port}/api/ladders", verify=other, timeout=5)
    finally:
        server.terminate()
        server.wait(timeout=20)
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()


def test_the_api_will_not_serve_plaintext_beyond_this_host(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'api.db'}"
    done = subprocess.run(
        [*ARENA, "serve", "api", "--db", url, "--host", "0.0.0.0", "--port", str(_free_port())],
        capture_output=True, text=True, timeout=60, cwd=REPO, env=dict(os.environ),
    )
    assert done.returncode == 2 and "without TLS" in done.stderr
    half = subprocess.run(
        [*ARENA, "serve", "api", "--db", url, "--tls-cert", "x.pem"],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )
    assert half.returncode == 2 and "both --tls-cert and --tls-key" in half.stderr


def test_the_compose_dev_certificates_secure_a_referee(tmp_path: Path) -> None:
    """deploy/make-dev-certs.sh makes what deploy/docker-compose.yml mounts; a referee started
    the way compose starts it (certificate, key, token file) serves TLS to a client trusting ca.pem."""
    import shutil

    from arena_bot._proto.arena.v1 import admin_pb2
    from arena_bot.wire import Tls

    from .test_security import serve_referee

    shutil.copy(REPO / "deploy" / "make-dev-certs.sh", tmp_path / "make-dev-certs.sh")
    made = subprocess.run(["sh", str(tmp_path / "make-dev-certs.sh")], capture_output=True, text=True,
                          timeout=120)
    assert made.returncode == 0, made.stderr
    certs, token_file = tmp_path / "certs", tmp_path / "secrets" / "admin-token"
    assert (token_file.stat().st_mode & 0o077) in (0o044, 0o000)  # no one may write it
    assert oct((tmp_path / "secrets").stat().st_mode & 0o777) == "0o700"
    ref = serve_referee(
        tmp_path / "ref", "--host", "localhost",
        "--tls-cert", str(certs / "referee.pem"), "--tls-key", str(certs / "referee.key"),
        "--admin-token-file", str(token_file),
        tls=Tls(True, certs / "ca.pem"),
    )
    try:
        ref.admin_token = token_file.read_text().strip()
        listing = ref.admin("ListBots", admin_pb2.ListBotsRequest(), admin_pb2.ListBotsResponse)
        assert list(listing.bots) == []
    finally:
        ref.stop()
    # run again: nothing is replaced (a running stack keeps its CA and token)
    before = (certs / "ca.pem").read_bytes(), token_file.read_bytes()
    again = subprocess.run(["sh", str(tmp_path / "make-dev-certs.sh")], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0 and ((certs / "ca.pem").read_bytes(), token_file.read_bytes()) == before
