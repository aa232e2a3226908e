"""The API behind a real uvicorn (the production settings of `arena serve api`), real sockets.

What only a real server shows: a chunked body with no Content-Length cut off at its limit,
malformed HTTP answered in the JSON error shape, slow headers and slow bodies timed out, and the
connection still usable after a NUL-bearing request (on PostgreSQL it used to be reset).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from ladder.accounts import NewAccount, create_account
from ladder.api import ApiLimits, create_app
from ladder.db import create_engine
from ladder.schema import bots

from .live_api import live_api


@pytest.fixture
def alice(engine: Engine) -> NewAccount:
    return create_account(engine, "alice")


@pytest.fixture
def server(engine: Engine) -> Iterator[str]:
    """The API on `engine` (SQLite, then PostgreSQL), with 1 s header and body timeouts."""
    app = create_app(engine, limits=ApiLimits(body_timeout_s=1.0))
    with live_api(app, header_timeout_s=1.0) as url:
        yield url


@pytest.fixture
def http_server(sqlite_url: str) -> Iterator[str]:
    """The same on SQLite only, for what happens before any database is asked."""
    engine = create_engine(sqlite_url)
    try:
        with live_api(create_app(engine), header_timeout_s=1.0) as url:
            yield url
    finally:
        engine.dispose()


def _raw(url: str, request: bytes, *, pause: float = 0.0, rest: bytes = b"") -> bytes:
    """Send `request` (then `rest` after `pause` s) on a raw socket; everything the server says."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(request)
        if pause:
            time.sleep(pause)
            with contextlib.suppress(OSError):  # the server closed on us: read what it said
                sock.sendall(rest)
        chunks = []
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    return b"".join(chunks)


def _json_body(response: bytes) -> dict[str, object]:
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"application/json" in head.lower(), head
    value = json.loads(body)
    assert isinstance(value, dict)
    return value


def _bots(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(bots)).scalar_one())


def test_anonymous_writes_are_401_over_http(server: str, engine: Engine) -> None:
    response = httpx.post(f"{server}/api/bots", json={"name": "x", "game": "clank"})
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    assert response.json() == {"error": "an API key is required: Authorization: Bearer <key>", "status": 401}
    assert _bots(engine) == 0


def test_a_chunked_body_without_length_is_cut_at_the_limit(server: str, engine: Engine,
                                                           alice: NewAccount) -> None:
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        yield b'{"name": "big", "game": "clank", "pad": "'
        for _ in range(64):  # 4 MiB offered, the limit is 1 MiB
            sent += 65536
            yield b"x" * 65536
        yield b'"}'

    try:
        response = httpx.post(f"{server}/api/bots", content=body(), timeout=20,
                              headers={"Authorization": f"Bearer {alice.api_key}",
                                       "Content-Type": "application/json"})
    except httpx.HTTPError:
        pytest.fail("the server should answer 413, not drop the connection unanswered")
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json() == {"error": "request body larger than 1048576 bytes", "status": 413}
    assert _bots(engine) == 0


def test_malformed_http_gets_the_json_error_shape(http_server: str) -> None:
    for garbage in (b"NOT HTTP AT ALL\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
                    b"GET /api/ladders HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n"):
        answer = _raw(http_server, garbage)
        assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
        body = _json_body(answer)
        assert body["status"] == 400 and str(body["error"]).startswith("malformed HTTP request")


def test_oversize_headers_are_refused(http_server: str) -> None:
    # all at once: refused by the app (431)
    pad = b"X-Pad: " + b"a" * 20_000
    answer = _raw(http_server, b"GET /api/ladders HTTP/1.1\r\nHost: x\r\n" + pad + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert _json_body(answer)["status"] == 431
    # in pieces, never finished: refused by h11's limit on an incomplete head (400)
    answer = _raw(http_server, b"GET /api/ladders HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 20_000, pause=0.2,
                  rest=b"a" * 20_000)
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert _json_body(answer)["status"] == 400


def test_slow_headers_are_timed_out(http_server: str) -> None:
    """A slowloris: the request line, then nothing more (the timeout here is 1 s)."""
    answer = _raw(http_server, b"GET /api/ladders HTTP/1.1\r\nHost: x\r\n", pause=2.0,
                  rest=b"X-Late: 1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert _json_body(answer) == {"error": "request headers not received in time", "status": 408}
    # a connection that never says anything is closed too
    assert _raw(http_server, b"", pause=2.0).startswith(b"HTTP/1.1 408 ")


def test_slow_bodies_are_timed_out(server: str, engine: Engine, alice: NewAccount) -> None:
    head = (
        "POST /api/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {alice.api_key}\r\nContent-Length: 40\r\n\r\n"
    ).encode()
    answer = _raw(server, head + b'{"name": ', pause=2.0, rest=b'"slow", "game": "clank"}')
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b"connection: close" in answer.lower()
    assert _json_body(answer)["status"] == 408
    assert _bots(engine) == 0


def test_a_nul_byte_is_422_and_the_connection_lives_on(server: str, engine: Engine,
                                                        alice: NewAccount) -> None:
    auth = {"Authorization": f"Bearer {alice.api_key}"}
    with httpx.Client(base_url=server, headers=auth) as client:
        for _ in range(3):
            response = client.post("/api/bots", json={"name": "nul\x00bot", "game": "clank"})
            assert response.status_code == 422 and response.json()["status"] == 422
            # the same keep-alive connection answers the next request
            assert client.get("/api/ladders").status_code == 200
        assert client.post("/api/bots", json={"name": "fine", "game": "clank"}).status_code == 201
    assert _bots(engine) == 1
