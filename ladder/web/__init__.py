"""The web pages of the ladder: server-rendered HTML, the replay viewer, and local API docs.

:func:`install` adds them to the API app of :func:`ladder.api.create_app`. Everything a page
loads is served by the app itself (``/static``: the stylesheet, the viewer's script, and the
Swagger UI / ReDoc files shipped by the ``fastapi-offline`` package), so the pages work offline.
See ``ladder/web/README.md``.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

__all__ = ["STATIC", "install", "mount_static"]

#: our own assets
STATIC: Final = Path(__file__).parent / "static"


def _docs_assets() -> Path:
    """The folder of swagger-ui-bundle.js, swagger-ui.css and redoc.standalone.js."""
    return Path(str(files("fastapi_offline") / "static"))


#: ReDoc's sidebar shows a logo fetched from the vendor's CDN; offline that is a failed request
_REDOC_LOGO: Final = b'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"'
_BLANK_IMAGE: Final = b'src:"data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27/%3E"'


@cache
def _redoc_bundle() -> bytes:
    """redoc.standalone.js with its one CDN reference (the sidebar logo) made a blank image."""
    return (_docs_assets() / "redoc.standalone.js").read_bytes().replace(_REDOC_LOGO, _BLANK_IMAGE)


def mount_static(app: FastAPI) -> None:
    """Serve /static (our assets) and /static/docs (Swagger UI and ReDoc)."""
    app.mount("/static/docs", StaticFiles(directory=_docs_assets()), name="docs-static")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def install(app: FastAPI, engine: Engine) -> None:
    """Add the pages, /docs and /redoc (with local assets) and /static to `app`.

    `app` must be made with ``docs_url=None, redoc_url=None`` (these routes replace FastAPI's,
    which load their scripts from a CDN).
    """
    from ladder.web.pages import build_router

    # before the /static mount, which would otherwise answer this path
    @app.get("/static/docs/redoc.js", include_in_schema=False)
    def redoc_js() -> Response:
        return Response(_redoc_bundle(), media_type="text/javascript")

    mount_static(app)
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API docs",
            swagger_js_url="/static/docs/swagger-ui-bundle.js",
            swagger_css_url="/static/docs/swagger-ui.css",
            swagger_favicon_url="/static/docs/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url="/static/docs/redoc.js",
            redoc_favicon_url="/static/docs/favicon.png",
            with_google_fonts=False,
        )

    app.include_router(build_router(engine))
