"""The web app served for real in tests: uvicorn on a free port, in a thread of the test process
(the browser tests, the live-match tests and the campaign page share it)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from sqlalchemy import Engine

from ladder.api import create_app

__all__ = ["free_port", "serve"]


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(engine: Engine) -> Iterator[str]:
    """The app over `engine` in uvicorn on a free port (a thread of this process): its URL."""
    port = free_port()
    config = uvicorn.Config(create_app(engine), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
