"""A real uvicorn serving the API on a free port, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI

from ladder.api_server import uvicorn_limits


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def live_api(app: FastAPI, header_timeout_s: float | None = None, **overrides: Any) -> Iterator[str]:
    """Serve `app` with the production uvicorn settings (`overrides` on top); yield its URL."""
    port = free_port()
    limits = uvicorn_limits() if header_timeout_s is None else uvicorn_limits(header_timeout_s)
    settings = {**limits, **overrides}
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="none",
                            lifespan="off", **settings)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
