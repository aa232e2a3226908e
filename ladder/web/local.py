"""`arena replay serve FILE`: the web replay viewer for a replay file on this machine.

The same viewer as ``/matches/{id}/replay``, over one file and no database. The file is the
user's own, so every perspective is offered, the whole state included.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse

from ladder.web import mount_static
from ladder.web.pages import frame_response, viewer_page
from ladder.web.viewer import Timeline
from referee.replay import ReplayError, loads

__all__ = ["MAX_REPLAY_BYTES", "file_app", "read_replay", "serve_file"]

#: a replay file is refused past this size, compressed or inflated (a file from someone else
#: may be a gzip bomb: it is inflated in bounded chunks, never whole)
MAX_REPLAY_BYTES: Final = 256 * 1024 * 1024


def read_replay(path: Path, limit: int = MAX_REPLAY_BYTES) -> bytes:
    """The replay file's JSON bytes, inflated if gzip; ReplayError past `limit` bytes."""
    with path.open("rb") as raw:
        head = raw.read(2)
    if head != b"\x1f\x8b":
        if path.stat().st_size > limit:
            raise ReplayError(f"the replay is over {limit} bytes")
        return path.read_bytes()
    out = bytearray()
    try:
        with gzip.open(path, "rb") as inflated:
            while chunk := inflated.read(1024 * 1024):
                out += chunk
                if len(out) > limit:
                    raise ReplayError(f"the replay inflates to over {limit} bytes")
    except (OSError, EOFError) as exc:
        raise ReplayError(f"not a replay file: {exc}") from None
    return bytes(out)


def file_app(path: Path, limit: int = MAX_REPLAY_BYTES) -> FastAPI:
    """An app showing the replay at `path` at ``/`` (raises ReplayError/OSError if unreadable)."""
    timeline = Timeline(loads(read_replay(path, limit)), path.name)
    app = FastAPI(title="Arena replay viewer", docs_url=None, redoc_url=None, openapi_url=None)
    mount_static(app)

    @app.get("/", response_class=HTMLResponse)
    def viewer() -> HTMLResponse:
        return viewer_page(timeline, title=path.name, frames_url="/frames/", allow_all=True, standalone=True)

    @app.get("/frames/{step}")
    def frame(step: int, request: Request) -> JSONResponse:
        return frame_response(timeline, step, request.query_params.get("seat", "0"), True)

    return app


def serve_file(path: Path, host: str, port: int) -> None:
    """Serve the viewer of `path` until interrupted, printing its address."""
    import uvicorn

    app = file_app(path)
    print(f"Replay viewer for {path}: http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
