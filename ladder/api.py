"""The ladder's HTTP API and home page (FastAPI).

Routes (all JSON unless said otherwise)::

    GET  /                                 HTML: every ladder and its standings
    GET  /api/ladders                      ladders
    GET  /api/ladders/{ladder_id}/standings   (cooperative ladders: wins are team wins)
    GET  /api/ladders/{ladder_id}/scenarios   a cooperative ladder's scenario ratings
    GET  /api/bots/{bot_id}                a bot's profile, versions and ratings
    GET  /api/bots/{bot_id}/matches        its latest matches (?limit=, at most 200)
    POST /api/bots                         register {"name", "owner"}; 201 with the token, once
    GET  /api/matches/{match_id}           seats, result, rating changes, replay link
    GET  /api/matches/{match_id}/replay    the gzip replay, as an application/gzip download
    GET  /metrics                          Prometheus text format

Every error is ``{"error": "<message>", "status": <code>}`` with that HTTP status: 404 for an
unknown id or route, 409 for a taken name, 422 for a malformed request, 500 otherwise. An id
outside the id columns' range (``queries.MAX_ID``; negative, or any number of digits) is an
unknown id, 404 on SQLite and PostgreSQL alike: the database is never asked about it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field
from sqlalchemy import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException

from ladder import queries
from ladder.bots import register_bot
from ladder.errors import Conflict, InvalidInput, LadderError, NotFound
from ladder.metrics import RequestMetrics, exposed_registry
from ladder.web_page import render_home

__all__ = ["NewBot", "NewBotToken", "create_app"]


class NewBot(BaseModel):
    """A bot registration request."""

    name: str = Field(min_length=1, max_length=64)
    owner: str = Field(min_length=1, max_length=128)


class NewBotToken(BaseModel):
    """A registered bot and its token: store the token now, it is never shown again."""

    id: int
    name: str
    owner: str
    token: str


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status)


def _status_of(exc: LadderError) -> int:
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict):
        return 409
    if isinstance(exc, InvalidInput):
        return 422
    return 400


def _describe(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(parts)


def create_app(engine: Engine) -> FastAPI:
    """The API and web app over the ladder database behind `engine` (owned by the caller)."""
    app = FastAPI(title="Arena ladder", version="1")
    app.state.engine = engine
    app.add_middleware(RequestMetrics)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, _describe(exc))

    @app.exception_handler(LadderError)
    async def ladder_error(_request: Request, exc: LadderError) -> JSONResponse:
        return _error(_status_of(exc), str(exc))

    @app.exception_handler(Exception)
    async def internal_error(_request: Request, _exc: Exception) -> JSONResponse:
        return _error(500, "internal server error")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home() -> HTMLResponse:
        with engine.connect() as conn:
            listed = queries.list_ladders(conn)
            pages = [queries.standings(conn, ladder["id"]) for ladder in listed]
            scenario_pages = [
                queries.scenario_ratings(conn, ladder["id"]) for ladder in listed if ladder["kind"] == "coop"
            ]
        scenario_tables = {p["ladder"]["id"]: p["scenarios"] for p in scenario_pages if p is not None}
        return HTMLResponse(render_home([p for p in pages if p is not None], scenario_tables))

    @app.get("/api/ladders")
    def ladders() -> list[queries.LadderInfo]:
        with engine.connect() as conn:
            return queries.list_ladders(conn)

    @app.get("/api/ladders/{ladder_id}/standings")
    def standings(ladder_id: int) -> queries.StandingsPage:
        with engine.connect() as conn:
            page = queries.standings(conn, ladder_id)
        if page is None:
            raise NotFound(f"no ladder {ladder_id}")
        return page

    @app.get("/api/ladders/{ladder_id}/scenarios")
    def ladder_scenarios(ladder_id: int) -> queries.ScenariosPage:
        with engine.connect() as conn:
            page = queries.scenario_ratings(conn, ladder_id)
        if page is None:
            raise NotFound(f"no ladder {ladder_id}")
        return page

    @app.get("/api/bots/{bot_id}")
    def bot(bot_id: int) -> queries.BotInfo:
        with engine.connect() as conn:
            info = queries.bot_info(conn, bot_id)
        if info is None:
            raise NotFound(f"no bot {bot_id}")
        return info

    @app.get("/api/bots/{bot_id}/matches")
    def bot_matches(
        bot_id: int, limit: Annotated[int, Query(ge=1, le=200)] = 50
    ) -> list[queries.MatchSummary]:
        with engine.connect() as conn:
            found = queries.bot_matches(conn, bot_id, limit)
        if found is None:
            raise NotFound(f"no bot {bot_id}")
        return found

    @app.post("/api/bots", status_code=201)
    def new_bot(body: NewBot) -> NewBotToken:
        reg = register_bot(engine, body.name, body.owner)
        return NewBotToken(id=reg.bot_id, name=reg.name, owner=reg.owner, token=reg.token)

    @app.get("/api/matches/{match_id}")
    def match(match_id: int) -> queries.MatchInfo:
        with engine.connect() as conn:
            info = queries.match_info(conn, match_id)
        if info is None:
            raise NotFound(f"no match {match_id}")
        return info

    @app.get(
        "/api/matches/{match_id}/replay",
        response_class=Response,
        responses={200: {"content": {"application/gzip": {}}}},
    )
    def replay(match_id: int) -> Response:
        with engine.connect() as conn:
            found = queries.replay_data(conn, match_id)
        if found is None:
            raise NotFound(f"no replay for match {match_id}")
        data, sha256 = found
        headers = {
            "Content-Disposition": f'attachment; filename="match-{match_id}.replay.gz"',
            "ETag": f'"{sha256}"',
            "X-Replay-SHA256": sha256,
        }
        return Response(content=data, media_type="application/gzip", headers=headers)

    @app.get("/metrics", include_in_schema=False)
    def metrics() -> Response:
        return Response(generate_latest(exposed_registry()), media_type=CONTENT_TYPE_LATEST)

    return app
