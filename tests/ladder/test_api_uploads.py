"""Uploads against a real ``arena serve api`` process on PostgreSQL: its memory and its limit.

Six 63 KB archives, each unpacking to 62 MiB, sent at once took the API from 153 MB to 1,042 MB
(each upload held its unpacked files, then the tar, then a copy) and one got a 409 from two
uploads picking the same version label. Here the process's peak RSS (``VmHWM``) must stay under
400 MB, every upload either lands (with its own label) or is told to come back (503 with
``Retry-After``), and the upload past ``ARENA_API_CONCURRENT_UPLOADS`` is that 503.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from ladder.accounts import authenticate_key, create_account
from ladder.bots import create_bot
from ladder.db import create_engine

from .live_api import free_port

UNPACKED = 62 * 1024 * 1024
CONCURRENT = 4  # the default of ARENA_API_CONCURRENT_UPLOADS, set explicitly below


def _bomb() -> bytes:
    """A tar.gz of a few bytes of code and 62 MiB of zeros (two files): about 63 KB."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        main = tarfile.TarInfo("main.py")
        main.size = 12
        tar.addfile(main, io.BytesIO(b"print('hi')\n"))
        for i in range(2):
            info = tarfile.TarInfo(f"data/{i}.bin")
            info.size = UNPACKED // 2
            tar.addfile(info, io.BytesIO(bytes(UNPACKED // 2)))
    return gzip.compress(raw.getvalue(), compresslevel=9)


def _peak_rss(pid: int) -> int:
    """The process's peak resident set (VmHWM), bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    assert match, status
    return int(match.group(1)) * 1024


@dataclass(frozen=True)
class Served:
    url: str
    pid: int
    key: str
    bot_id: int


@pytest.fixture
def served(pg_url: str, tmp_path: Path) -> Iterator[Served]:
    engine = create_engine(pg_url)
    try:
        account = create_account(engine, "hoarder", rate_per_minute=10_000)
        who = authenticate_key(engine, account.api_key)
        assert who is not None
        bot_id = create_bot(engine, who, "hoarder-bot", "clank").bot_id
    finally:
        engine.dispose()
    port = free_port()
    log = tmp_path / "api.log"
    env = {**os.environ, "ARENA_API_CONCURRENT_UPLOADS": str(CONCURRENT)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "api", "--db", pg_url, "--port", str(port),
             "--log-level", "warning"],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                httpx.get(f"{url}/api/ladders", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        yield Served(url, proc.pid, account.api_key, bot_id)
    finally:
        proc.terminate()
        proc.wait(20)


def _upload(served: Served, data: bytes) -> httpx.Response:
    return httpx.post(
        f"{served.url}/api/bots/{served.bot_id}/versions", params={"run": "python main.py"},
        content=data, headers={"Authorization": f"Bearer {served.key}",
                               "Content-Type": "application/gzip"},
        timeout=120,
    )


@pytest.mark.slow
def test_six_uploads_of_62_mib_at_once_keep_the_api_under_400_mb(served: Served) -> None:
    bomb = _bomb()
    assert len(bomb) < 100_000
    before = _peak_rss(served.pid)
    start = threading.Barrier(6)
    answers: list[httpx.Response] = []

    def send() -> None:
        start.wait()
        answers.append(_upload(served, bomb))

    threads = [threading.Thread(target=send) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    peak = _peak_rss(served.pid)
    print(f"API peak RSS {before / 2**20:.0f} MiB before, {peak / 2**20:.0f} MiB after six uploads; "
          f"answers {sorted(r.status_code for r in answers)}")
    assert peak < 400 * 1024 * 1024
    statuses = sorted(r.status_code for r in answers)
    assert set(statuses) <= {201, 503}, [r.text for r in answers]
    assert statuses.count(201) >= CONCURRENT
    for busy in (r for r in answers if r.status_code == 503):
        assert int(busy.headers["retry-after"]) >= 1
    labels = [r.json()["version"] for r in answers if r.status_code == 201]
    assert len(set(labels)) == len(labels)
    assert all(r.json()["bytes"] == UNPACKED + 12 for r in answers if r.status_code == 201)


def _held_upload(served: Served, size: int) -> socket.socket:
    """An upload whose headers and first bytes are sent, the rest held back: it holds a slot."""
    host, port = served.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = (
        f"POST /api/bots/{served.bot_id}/versions?run=python+main.py HTTP/1.1\r\n"
        f"Host: {host}\r\nAuthorization: Bearer {served.key}\r\n"
        f"Content-Type: application/gzip\r\nContent-Length: {size}\r\n\r\n"
    ).encode()
    sock.sendall(head)
    return sock


def _uploads_checking(served: Served) -> float:
    text = httpx.get(f"{served.url}/metrics", timeout=10).text
    match = re.search(r"^arena_api_uploads_checking(?:\{[^}]*\})? (\S+)$", text, re.MULTILINE)
    assert match, text[-2000:]
    return float(match.group(1))


def test_an_upload_past_the_limit_is_503_with_retry_after(served: Served) -> None:
    archive = _bomb()
    held = [_held_upload(served, len(archive)) for _ in range(CONCURRENT)]
    try:
        for sock in held:
            sock.sendall(archive[:1000])
        deadline = time.monotonic() + 30  # waits for the server to take the slots; asserts nothing
        while _uploads_checking(served) < CONCURRENT and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _uploads_checking(served) == CONCURRENT
        busy = _upload(served, archive)
        assert busy.status_code == 503, busy.text
        assert busy.json() == {
            "error": f"the server is checking {CONCURRENT} uploads at once, the most it takes; send it "
            "again in a few seconds", "status": 503,
        }
        assert busy.headers["retry-after"] == "5"
        # one held upload finishes: its slot is free again
        held[0].sendall(archive[1000:])
        answer = held[0].recv(65536)
        assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
        assert _upload(served, archive).status_code == 201
    finally:
        for sock in held:
            sock.close()
