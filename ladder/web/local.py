"""`arena replay serve FILE`: the web replay viewer for a replay file on this machine.

The same viewer as ``/matches/{id}/replay``, over one file and no database. The file is the
user's own, so every perspective is offered, the whole state included.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse

from ladder.web import mount_static
from ladder.web.pages import frame_response, viewer_page
from ladder.web.viewer import Timeline
from referee.replay import load

__all__ = ["file_app", "serve_file"]


def file_app(path: Path) -> FastAPI:
    """An app showing the replay at `path` at ``/`` (raises ReplayError/OSError if unreadable)."""
    timeline = Timeline(load(path))
    app = FastAPI(title="Arena replay viewer", docs_url=None, redoc_url=None, openapi_url=None)
    mount_static(app)

    @app.get("/", response_class=HTMLResponse)
    def viewer() -> HTMLResponse:
        return viewer_page(timeline, title=path.name, frames_url="/frames/", allow_all=True)

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
