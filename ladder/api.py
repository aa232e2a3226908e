"""The ladder's HTTP API and home page (FastAPI).

Routes (JSON unless said otherwise; "key" = needs ``Authorization: Bearer <API key>``)::

    GET    /                                    HTML pages: see ladder/web (ladders, bots, matches, replays)
    GET    /signin, /me, ...                    an owner's pages, signed in with a key (ladder/web/owner.py)
    GET    /api/ladders                         ladders
    GET    /api/ladders/{ladder_id}/standings   (cooperative ladders: wins are team wins)
    GET    /api/ladders/{ladder_id}/scenarios   a cooperative ladder's scenario ratings
    GET    /api/ladders/{ladder_id}/seasons     its seasons, the current one last (RATINGS.md, "Seasons")
    GET    /api/ladders/{ladder_id}/seasons/{n} closed season n with its archived standings
    POST   /api/ladders/{ladder_id}/entries     key: put your bot on the ladder {"bot_id"}
    POST   /api/accounts                        operator key (or open sign-up): {"name"} -> api_key
    GET    /api/me                              key: your account and its keys
    POST   /api/keys                            key: a new key {"scopes"?} -> api_key, once
    DELETE /api/keys/{key_id}                   key: revoke one of your keys
    POST   /api/bots                            key: a bot {"name", "game"} -> its token, once
    GET    /api/bots/{bot_id}                   a bot's profile, versions, ratings, recent matches
    GET    /api/bots/by-name/{name}             the same, by name
    GET    /api/bots/{bot_id}/matches           its latest matches (?limit=, at most 200)
    POST   /api/bots/{bot_id}/versions          key: upload an archive (?run=, ?version=)
    POST   /api/bots/{bot_id}/versions/remote   key: a remote version, a new bot token, where to connect
    GET    /api/referee                         where remote bots connect ($ARENA_PUBLIC_REFEREE)
    GET    /api/matches/{match_id}              seats, result, rating changes, replay link
    GET    /api/matches/{match_id}/replay       the gzip replay, as an application/gzip download
    GET    /api/matches/{match_id}/logs/{seat}  key (owner or operator): a seat's captured output
    GET    /metrics                             Prometheus text format

Every error is ``{"error": "<message>", "status": <code>}`` with that HTTP status: 401 (with
``WWW-Authenticate: Bearer``) without a valid key, 403 for a key lacking the scope or another
account's bot, 404 for an unknown id or route, 405 (with ``Allow``) for a wrong method, 408 for a
body that arrives too slowly, 409 for a taken name, 413 for a body over its limit (431 for
headers), 415 for an
upload that is not gzip/zip, 422 for a malformed request, 429 (with ``Retry-After``) over a rate
limit, 500 otherwise. An id outside the id columns' range (``queries.MAX_ID``) is an unknown id,
404 on SQLite and PostgreSQL alike: the database is never asked about it. Every string field
refuses control characters (NUL included) by its schema pattern, so they never reach a database.

Limits (``ladder.api_limits``): bodies 1 MiB (10 MiB for an upload), counted as they arrive;
30 s for a body to arrive; per account ``rate_per_minute`` (of the key calling, default 60) calls
to the endpoints that need a key, all the account's keys drawing from one bucket; at most
``accounts.MAX_KEYS_PER_ACCOUNT`` live keys an account; 20 failed authentications a minute per
client address (a key that verifies is never refused for them); 5 open sign-ups a minute per
client address; ``ApiLimits.concurrent_uploads`` uploads checked at once (503 beyond). The
buckets live in the API process (see README).
"""

# no `from __future__ import annotations`: FastAPI reads the route functions' annotations, which
# name dependencies local to create_app (Key, bearer)
import re
import tempfile
from typing import Annotated, Any, Final

from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator
from sqlalchemy import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException

from ladder import accounts, archives, queries
from ladder.accounts import NAME_PATTERN, Identity
from ladder.api_limits import ApiLimits, BodyLimits, RateLimiter
from ladder.bots import (
    WAITING_FOR_CONNECTION,
    add_remote_version,
    add_uploaded_version,
    authorize_bot,
    create_bot,
    enter_ladder,
    missing_log_reason,
    read_bot_log,
    read_qualification_replay,
)
from ladder.errors import (
    Busy,
    Conflict,
    Forbidden,
    InvalidInput,
    LadderError,
    NotFound,
    RateLimited,
    TooLarge,
    Unauthorized,
)
from ladder.ladders import ladder_policy
from ladder.metrics import API_UPLOADS_CHECKING, RequestMetrics, exposed_registry
from ladder.remote_bots import PublicReferee, RefereeInfo, public_referee
from ladder.seasons import SeasonInfo, SeasonPage, season_page, seasons
from ladder.web import install as install_web
from referee import settings
from referee.games import GAMES

__all__ = [
    "CONCURRENT_UPLOADS_ENV",
    "OPEN_SIGNUP_ENV",
    "ApiLimits",
    "NewAccountRequest",
    "NewBot",
    "NewBotToken",
    "create_app",
    "default_limits",
]

#: set to 1 to let anyone create an account (POST /api/accounts without a key)
OPEN_SIGNUP_ENV: Final = "ARENA_OPEN_SIGNUP"
#: uploads one API process receives and checks at once (ApiLimits.concurrent_uploads)
CONCURRENT_UPLOADS_ENV: Final = "ARENA_API_CONCURRENT_UPLOADS"
#: printable text: no control characters (C0, DEL), NUL included
TEXT_PATTERN: Final = r"^[^\x00-\x1f\x7f]*$"
#: a run line: printable, with at least one non-blank character
RUN_PATTERN: Final = r"^[^\x00-\x1f\x7f]*[^\x00-\x20\x7f][^\x00-\x1f\x7f]*$"
SCOPES_PATTERN: Final = r"^(bots|operator)( (bots|operator))*$"
#: the archive's format is read from its first bytes; the type only has to say "an archive"
UPLOAD_TYPES: Final = (
    "application/gzip", "application/x-gzip", "application/zip", "application/octet-stream"
)
_UPLOAD_PATH: Final = r"/api/bots/[^/]+/versions"


_ERROR_TEXT: Final = {
    400: "The body is not JSON (or not UTF-8)",
    401: "No API key, or an unknown or revoked one (WWW-Authenticate: Bearer)",
    403: "The key lacks the scope, or the bot belongs to another account",
    404: "No such thing (or an id outside the id range)",
    408: "The request body did not arrive in time",
    409: "Conflict with what exists (a taken name, already on the ladder, another game, the "
    "account's most live keys)",
    413: "The request body (or the unpacked archive) is over its limit",
    415: "The upload is not application/gzip, application/zip or application/octet-stream",
    422: "Malformed request: a field, parameter or archive fails its constraints",
    429: "Over a rate limit; wait Retry-After seconds",
    431: "The request headers are over their limit (16 KiB)",
    503: "The server is checking as many uploads as it takes at once; wait Retry-After seconds",
}


#: the error body's schema, written out (not a model reference) so that routes answering
#: text/plain or application/gzip still document their errors as JSON
_ERROR_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "status": {"type": "integer"}},
    "required": ["error", "status"],
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses (413 and 431 are possible on every route)."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in sorted({*codes, 413, 431}):
        entry: dict[str, Any] = {
            "description": _ERROR_TEXT[code],
            "content": {"application/json": {"schema": _ERROR_SCHEMA}},
        }
        if code == 401:
            entry["headers"] = {
                "WWW-Authenticate": {"schema": {"type": "string"}, "description": "Bearer"}
            }
        if code in (429, 503):
            entry["headers"] = {
                "Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}
            }
        out[code] = entry
    return out


#: every route that needs a key; _JSON_BODY: every route that reads a JSON body
_KEYED: Final = (401, 403, 422, 429)
_JSON_BODY: Final = (400, 408)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewAccountRequest(_Strict):
    """An account to create."""

    name: str = Field(pattern=NAME_PATTERN, min_length=1, max_length=64)


class NewAccountResponse(BaseModel):
    """A new account and its first key: store the key now, it is never shown again."""

    id: int
    name: str
    api_key: str


class NewKeyRequest(_Strict):
    """A new key's scopes (space-separated; at most the scopes of the key asking)."""

    scopes: str = Field("bots", pattern=SCOPES_PATTERN, max_length=255)


class NewKeyResponse(BaseModel):
    """A new key: store it now, it is never shown again."""

    id: int
    api_key: str


class NewBot(_Strict):
    """A bot to register for the authenticated account."""

    name: str = Field(pattern=NAME_PATTERN, min_length=1, max_length=64)
    # the registry's games, stated in the schema as an enum
    game: str = Field(json_schema_extra={"enum": list[JsonValue](sorted(GAMES))})

    @field_validator("game")
    @classmethod
    def _known_game(cls, value: str) -> str:
        if value not in GAMES:
            raise ValueError(f"one of {', '.join(sorted(GAMES))}")
        return value


class NewBotToken(BaseModel):
    """A registered bot and its token: store the token now, it is never shown again."""

    id: int
    name: str
    owner: str
    game: str | None
    token: str


class NewVersionResponse(BaseModel):
    """An uploaded version, waiting for its qualification games."""

    id: int
    version: str
    qualification: str
    archive_sha256: str
    files: int
    bytes: int


class RemoteVersionResponse(BaseModel):
    """A remote version and the bot's new token (the old token no longer works), and where the
    bot connects. It is "pending" until its bot has connected and played its qualification games."""

    id: int
    version: str
    qualification: str
    #: why it is pending (waiting for the bot to connect)
    qualification_detail: dict[str, Any]
    token: str
    #: where remote bots connect (``configured`` false: the operator has not said)
    referee: RefereeInfo


class BotProfile(queries.BotInfo):
    """A bot's public profile; `referee` says where its remote versions connect (null for a bot
    with no remote version)."""

    referee: RefereeInfo | None


class JoinLadder(_Strict):
    """The bot to put on the ladder."""

    bot_id: int


class LadderEntry(BaseModel):
    """A bot on a ladder."""

    ladder_id: int
    bot_id: int
    rating: float


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers)


def _status_of(exc: LadderError) -> int:
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict):
        return 409
    if isinstance(exc, TooLarge):
        return 413
    if isinstance(exc, InvalidInput):
        return 422
    if isinstance(exc, Unauthorized):
        return 401
    if isinstance(exc, Forbidden):
        return 403
    if isinstance(exc, RateLimited):
        return 429
    if isinstance(exc, Busy):
        return 503
    return 400


def _describe(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(parts)


def _allowed_methods(request: Request, given: str) -> str:
    """The Allow header of a 405: `given` (what Starlette's route said) and every method the
    OpenAPI schema documents for a path template matching the request's path.

    Starlette names only the methods of the first route matching the path; a path served by
    several routes (GET and POST registered apart, or in an included router) supports all.
    """
    methods = {m.strip().upper() for m in given.split(",") if m.strip()}
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, request.url.path):
            methods |= {m.upper() for m in operations if m.upper() in _HTTP_METHODS}
    return ", ".join(sorted(methods))


_HTTP_METHODS: Final = frozenset({"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"})


def _client(request: Request) -> str:
    # the peer address: X-Forwarded-For is not trusted (anyone can send it)
    return request.client.host if request.client else "unknown"


def default_limits() -> ApiLimits:
    """:class:`ApiLimits` with the uploads checked at once from ``$ARENA_API_CONCURRENT_UPLOADS``.

    Raises ValueError for a value that is not a whole number of at least 1."""
    return ApiLimits(concurrent_uploads=settings.current().api_concurrent_uploads)


def create_app(
    engine: Engine,
    *,
    open_signup: bool | None = None,
    limits: ApiLimits | None = None,
    referee: PublicReferee | None = None,
) -> FastAPI:
    """The API and web app over the ladder database behind `engine` (owned by the caller).

    `open_signup` lets anyone create an account (default: ``$ARENA_OPEN_SIGNUP`` is 1);
    `limits` overrides the default :class:`ApiLimits`; `referee` is where remote bots connect
    (default: ``$ARENA_PUBLIC_REFEREE``, ``ladder.remote_bots.public_referee``, which raises
    ValueError for a malformed value).
    """
    if open_signup is None:
        open_signup = settings.current().open_signup
    referee_info = (referee or public_referee()).info()
    limits = limits or default_limits()
    app = FastAPI(
        title="Arena ladder",
        version="2",
        description="Reads are public; writes need an API key (Authorization: Bearer arena_...).",
        # /docs and /redoc are served by ladder.web with local assets (FastAPI's load from a CDN)
        docs_url=None,
        redoc_url=None,
    )
    app.state.engine = engine
    app.state.open_signup = open_signup
    app.state.uploads_running = 0
    app.add_middleware(BodyLimits, limits=limits, upload_path=_UPLOAD_PATH)
    app.add_middleware(RequestMetrics)
    account_buckets = RateLimiter()
    failure_buckets = RateLimiter()
    signup_buckets = RateLimiter()
    bearer = HTTPBearer(auto_error=False, description="an API key: arena_...")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            # Starlette names only the methods of the first route on the path; a path served
            # by several routes (GET and POST registered apart) supports all of theirs
            allow = _allowed_methods(request, (headers or {}).get("Allow", ""))
            headers = {**(headers or {}), "Allow": allow}
        return _error(exc.status_code, str(exc.detail), headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, _describe(exc))

    @app.exception_handler(LadderError)
    async def ladder_error(_request: Request, exc: LadderError) -> JSONResponse:
        headers = None
        if isinstance(exc, Unauthorized):
            headers = {"WWW-Authenticate": "Bearer"}
        elif isinstance(exc, RateLimited | Busy):
            headers = {"Retry-After": str(exc.retry_after)}
        return _error(_status_of(exc), str(exc), headers)

    @app.exception_handler(Exception)
    async def internal_error(_request: Request, _exc: Exception) -> JSONResponse:
        return _error(500, "internal server error")

    def _authenticate(request: Request, credentials: HTTPAuthorizationCredentials | None) -> Identity:
        if credentials is None:
            raise Unauthorized("an API key is required: Authorization: Bearer <key>")
        address = _client(request)
        # a key that verifies is accepted whatever its address's failures (someone else's
        # guesses must not lock a user out); an unknown one from an address over the failure
        # limit is refused without saying whether it was right, so guessing gains nothing
        identity = accounts.authenticate_key(engine, credentials.credentials)
        if identity is None:
            wait = failure_buckets.take(address, limits.auth_failures_per_minute)
            if wait is not None:
                raise RateLimited("too many failed authentications from this address", wait)
            raise Unauthorized("unknown or revoked API key")
        # one bucket per account, whichever of its keys calls: more keys are not more calls
        wait = account_buckets.take(f"account:{identity.account_id}", identity.rate_per_minute)
        if wait is not None:
            raise RateLimited(
                f"this account's limit is {identity.rate_per_minute} requests a minute", wait
            )
        return identity

    def require_key(
        request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
    ) -> Identity:
        """The caller's identity; 401 without a valid key, 429 over a limit."""
        return _authenticate(request, credentials)

    Key = Annotated[Identity, Depends(require_key)]

    def optional_key(
        request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
    ) -> Identity | None:
        """The caller's identity if it sent a key (401 for a bad one, as everywhere), else None:
        for what anyone may read but its owner sees more of."""
        return None if credentials is None else _authenticate(request, credentials)

    MaybeKey = Annotated[Identity | None, Depends(optional_key)]

    from ladder.competitions_api import competitions_router  # /api/competitions (ladder.competitions)

    app.include_router(competitions_router(engine, require_key, _errors))

    from ladder.live_api import live_router  # /api/matches/{id}/live (ladder.live)

    app.include_router(live_router(engine))

    # the web pages (/, /ladders/.., /bots/.., /matches/.., the replay viewer), /docs, /redoc, /static
    install_web(app, engine)
    from ladder.web.owner import build_owner_router  # /signin, /signout, /me...: an owner's pages

    # a wrong key at /signin spends from the same failure bucket as a wrong key on the API
    app.include_router(build_owner_router(
        engine, lambda address: failure_buckets.take(address, limits.auth_failures_per_minute)
    ))

    @app.get("/api/ladders", responses=_errors())
    def ladders() -> list[queries.LadderInfo]:
        with engine.connect() as conn:
            return queries.list_ladders(conn)

    @app.get("/api/ladders/{ladder_id}/standings", responses=_errors(404, 422))
    def standings(ladder_id: int) -> queries.StandingsPage:
        with engine.connect() as conn:
            page = queries.standings(conn, ladder_id)
        if page is None:
            raise NotFound(f"no ladder {ladder_id}")
        return page

    @app.get("/api/ladders/{ladder_id}/scenarios", responses=_errors(404, 422))
    def ladder_scenarios(ladder_id: int) -> queries.ScenariosPage:
        with engine.connect() as conn:
            page = queries.scenario_ratings(conn, ladder_id)
        if page is None:
            raise NotFound(f"no ladder {ladder_id}")
        return page

    @app.get("/api/ladders/{ladder_id}/seasons", responses=_errors(404, 422))
    def ladder_seasons(ladder_id: int) -> list[SeasonInfo]:
        """The ladder's seasons, the first first and the current one last (ladder/RATINGS.md,
        "Seasons")."""
        with engine.connect() as conn:
            listed = seasons(conn, ladder_id)
        if listed is None:
            raise NotFound(f"no ladder {ladder_id}")
        return listed

    @app.get("/api/ladders/{ladder_id}/seasons/{number}", responses=_errors(404, 422))
    def ladder_season(ladder_id: int, number: int) -> SeasonPage:
        """A closed season with its standings as they were when it closed (the current season's
        are at /standings)."""
        with engine.connect() as conn:
            page = season_page(conn, ladder_id, number)
        if page is None:
            raise NotFound(f"no closed season {number} of ladder {ladder_id}")
        return page

    @app.post(
        "/api/ladders/{ladder_id}/entries",
        status_code=201,
        responses=_errors(*_KEYED, *_JSON_BODY, 404, 409),
    )
    def join(ladder_id: int, body: JoinLadder, who: Key) -> LadderEntry:
        """Put your bot on a ladder (it must play the ladder's game; 409 if it is on it)."""
        enter_ladder(engine, who, ladder_id, body.bot_id)
        with engine.connect() as conn:
            rating = ladder_policy(conn, ladder_id).initial_rating  # where the ladder starts a bot
        return LadderEntry(ladder_id=ladder_id, bot_id=body.bot_id, rating=rating)

    def may_create_account(
        request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
    ) -> None:
        """401/403/429 unless the caller may create an account. A dependency, so it answers
        before the body is read: an unauthenticated caller never learns the body's schema."""
        # a key, if given, must be valid; an operator's is enough on its own
        operator = credentials is not None and _authenticate(request, credentials).has("operator")
        if not operator:
            if not open_signup:
                if credentials is None:
                    raise Unauthorized("creating accounts needs an operator key")
                raise Forbidden("creating accounts needs an operator key")
            wait = signup_buckets.take(_client(request), limits.signups_per_minute)
            if wait is not None:
                raise RateLimited("too many sign-ups from this address", wait)

    @app.post(
        "/api/accounts",
        status_code=201,
        responses=_errors(*_KEYED, *_JSON_BODY, 409),
        description="Needs an operator key, unless the server runs with open sign-up "
        f"({OPEN_SIGNUP_ENV}=1): then anyone may, a few times a minute per address.",
    )
    def new_account(
        body: NewAccountRequest, _allowed: Annotated[None, Depends(may_create_account)]
    ) -> NewAccountResponse:
        made = accounts.create_account(engine, body.name)
        return NewAccountResponse(id=made.account_id, name=made.name, api_key=made.api_key)

    @app.get("/api/me", responses=_errors(401, 429))
    def me(who: Key) -> accounts.AccountInfo:
        """Your account and its live keys (prefixes only)."""
        return accounts.account_info(engine, who.account_id)

    @app.post("/api/keys", status_code=201, responses=_errors(*_KEYED, *_JSON_BODY, 409))
    def new_key(body: NewKeyRequest, who: Key) -> NewKeyResponse:
        """A new key for your account, with at most the scopes of the key you call with (409 once
        the account holds its most live keys: revoke one first)."""
        wanted = set(body.scopes.split())
        if not wanted <= who.scopes:
            raise Forbidden("a key can only make keys with scopes it has itself")
        made = accounts.create_key(engine, who.account_id, body.scopes)
        return NewKeyResponse(id=made.key_id, api_key=made.api_key)

    @app.delete(
        "/api/keys/{key_id}",
        status_code=204,
        response_class=Response,
        responses=_errors(401, 404, 422, 429),
    )
    def revoke(key_id: int, who: Key) -> Response:
        """Revoke one of your keys (it stops working at once)."""
        if not queries.storable_id(key_id):
            raise NotFound(f"no key {key_id} on this account")
        accounts.revoke_key(engine, who.account_id, key_id)
        return Response(status_code=204)

    @app.post("/api/bots", status_code=201, responses=_errors(*_KEYED, *_JSON_BODY, 409))
    def new_bot(body: NewBot, who: Key) -> NewBotToken:
        """Register a bot for your account; the bot token (for remote play) is shown once."""
        reg = create_bot(engine, who, body.name, body.game)
        return NewBotToken(id=reg.bot_id, name=reg.name, owner=reg.owner, game=body.game, token=reg.token)

    def _may_change(conn: Any, bot_id: int, who: Identity) -> bool:
        try:
            authorize_bot(conn, bot_id, who)
        except (Forbidden, NotFound):
            return False
        return True

    def _authorize(bot_id: int, who: Identity) -> None:
        with engine.connect() as conn:
            authorize_bot(conn, bot_id, who)

    def _bot(bot_id: int, who: Identity | None) -> BotProfile:
        with engine.connect() as conn:
            owner = who is not None and _may_change(conn, bot_id, who)
            info = queries.bot_info(conn, bot_id, with_output=owner)
        if info is None:
            raise NotFound(f"no bot {bot_id}")
        remote = any(v["remote"] for v in info["versions"])
        return {**info, "referee": referee_info if remote else None}

    # a key is optional here (it shows the owner more): "no security" is one of the alternatives
    optional_auth: dict[str, Any] = {"security": [{}]}

    @app.get("/api/bots/by-name/{name}", responses=_errors(401, 404, 422), openapi_extra=optional_auth)
    def bot_by_name(
        name: Annotated[str, Path(pattern=NAME_PATTERN, min_length=1, max_length=64)], who: MaybeKey
    ) -> BotProfile:
        """A bot's profile, by its name."""
        with engine.connect() as conn:
            bot_id = queries.bot_id_by_name(conn, name)
        if bot_id is None:
            raise NotFound(f"no bot named {name!r}")
        return _bot(bot_id, who)

    @app.get("/api/bots/{bot_id}", responses=_errors(401, 404, 422), openapi_extra=optional_auth)
    def bot(bot_id: int, who: MaybeKey) -> BotProfile:
        """A bot's profile: owner, game, versions with qualification, ratings, recent matches;
        where its remote versions connect. What the bot printed in qualification (the record's
        `log_excerpt`) is there for its owner's key (or an operator's) only."""
        return _bot(bot_id, who)

    @app.get("/api/bots/{bot_id}/matches", responses=_errors(404, 422))
    def bot_matches(
        bot_id: int, limit: Annotated[int, Query(ge=1, le=200)] = 50
    ) -> list[queries.MatchSummary]:
        with engine.connect() as conn:
            found = queries.bot_matches(conn, bot_id, limit)
        if found is None:
            raise NotFound(f"no bot {bot_id}")
        return found

    upload_body = {
        "requestBody": {
            "required": True,
            "description": "a zip, or a tar.gz, of the bot's files "
            f"(at most {archives.MAX_COMPRESSED_BYTES} bytes, {archives.MAX_ENTRIES} entries, "
            f"{archives.MAX_UNPACKED_BYTES} bytes unpacked; no links, devices or '..')",
            "content": {
                "application/gzip": {"schema": {"type": "string", "format": "binary"}},
                "application/zip": {"schema": {"type": "string", "format": "binary"}},
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    }

    @app.post(
        "/api/bots/{bot_id}/versions",
        status_code=201,
        responses=_errors(*_KEYED, 404, 408, 409, 415, 503),
        openapi_extra=upload_body,
    )
    async def upload_version(
        request: Request,
        bot_id: int,
        run: Annotated[str, Query(min_length=1, max_length=1024, pattern=RUN_PATTERN,
                                  description="the command that starts the bot, e.g. python main.py")],
        who: Key,
        version: Annotated[str | None, Query(min_length=1, max_length=64, pattern=NAME_PATTERN,
                                             description="a label (default v<N>)")] = None,
    ) -> NewVersionResponse:
        """Upload a new hosted version: it qualifies (plays reference bots) before it is rated."""
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in UPLOAD_TYPES:
            raise StarletteHTTPException(
                415, "send the archive as application/gzip (tar.gz), application/zip or "
                "application/octet-stream"
            )
        # ownership before reading 10 MiB: a stranger's upload is refused unread
        await run_in_threadpool(_authorize, bot_id, who)
        # a slot before reading the body: past the limit, the next upload waits its turn with
        # the client, not in this process's memory or disk (the check runs between the awaits
        # of one event loop, so the count needs no lock)
        if app.state.uploads_running >= limits.concurrent_uploads:
            raise Busy(
                f"the server is checking {limits.concurrent_uploads} uploads at once, the most it "
                "takes; send it again in a few seconds", limits.upload_retry_after_s,
            )
        app.state.uploads_running += 1
        API_UPLOADS_CHECKING.inc()
        try:
            # the body goes to a file once past 1 MiB, and the check streams from it
            with tempfile.SpooledTemporaryFile(max_size=1024 * 1024) as body:
                async for chunk in request.stream():
                    body.write(chunk)
                normal = await run_in_threadpool(archives.validate_archive, body)
        finally:
            app.state.uploads_running -= 1
            API_UPLOADS_CHECKING.dec()
        made = await run_in_threadpool(add_uploaded_version, engine, who, bot_id, normal, run, version)
        return NewVersionResponse(
            id=made.version_id,
            version=made.version,
            qualification=made.qualification,
            archive_sha256=normal.sha256,
            files=normal.files,
            bytes=normal.bytes,
        )

    @app.post(
        "/api/bots/{bot_id}/versions/remote",
        status_code=201,
        responses=_errors(*_KEYED, 404, 409),
    )
    def remote_version(
        bot_id: int,
        who: Key,
        version: Annotated[str | None, Query(min_length=1, max_length=64, pattern=NAME_PATTERN,
                                             description="a label (default v<N>)")] = None,
    ) -> RemoteVersionResponse:
        """A remote version (the bot connects from your machine) and a NEW bot token, shown once,
        with where to connect (`referee`).

        The previous token stops working. The version is "pending" until its bot connects and
        plays its qualification games (as an upload does); only then is it rated.
        """
        made = add_remote_version(engine, who, bot_id, version)
        assert made.token is not None
        return RemoteVersionResponse(
            id=made.version_id,
            version=made.version,
            qualification=made.qualification,
            qualification_detail={"reason": WAITING_FOR_CONNECTION, "waiting": "connection"},
            token=made.token,
            referee=referee_info,
        )

    @app.get("/api/referee", responses=_errors())
    def referee_address() -> RefereeInfo:
        """Where remote bots connect: the referee's address and whether it serves TLS, as the
        operator published them (``configured`` false, with a message, when they have not)."""
        return referee_info

    @app.get("/api/matches/{match_id}", responses=_errors(404, 422))
    def match(match_id: int) -> queries.MatchInfo:
        with engine.connect() as conn:
            info = queries.match_info(conn, match_id)
        if info is None:
            raise NotFound(f"no match {match_id}")
        return info

    @app.get(
        "/api/matches/{match_id}/replay",
        response_class=Response,
        responses={
            200: {"content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}}},
            **_errors(404, 422),
        },
    )
    def replay(match_id: int) -> Response:
        with engine.connect() as conn:
            found = queries.replay_data(conn, match_id)
        if found is None:
            raise NotFound(f"no replay for match {match_id}")
        data, sha256 = found
        headers = {
            "Content-Disposition": f'attachment; filename="match-{match_id}.replay.json.gz"',
            "ETag": f'"{sha256}"',
            "X-Replay-SHA256": sha256,
        }
        return Response(content=data, media_type="application/gzip", headers=headers)

    @app.get(
        "/api/matches/{match_id}/logs/{seat}",
        response_class=PlainTextResponse,
        responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
                   **_errors(401, 403, 404, 422, 429)},
    )
    def bot_log(match_id: int, seat: int, who: Key) -> PlainTextResponse:
        """A seat's captured stdout/stderr: for the bot's owner or an operator only."""
        found = read_bot_log(engine, match_id, seat)
        if found is None:
            raise NotFound(missing_log_reason(engine, match_id, seat))
        if not who.has("operator") and (
            not who.has("bots") or found.account_id is None or found.account_id != who.account_id
        ):
            raise Forbidden("logs are shown to the bot's owner only")
        headers = {"X-Log-Truncated": "true" if found.truncated else "false"}
        return PlainTextResponse(found.text, headers=headers)

    @app.get(
        "/api/bots/{bot_id}/versions/{version_id}/qualification/replay",
        response_class=Response,
        responses={
            200: {"content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}}},
            **_errors(401, 403, 404, 422, 429),
        },
    )
    def qualification_replay(bot_id: int, version_id: int, who: Key) -> Response:
        """The replay of the qualification game that failed the version (gzip, as a match's):
        for the bot's owner or an operator only, as qualification games are theirs. Headers
        `X-Qualification-Game` (its number) and `X-Qualification-Seat` (the version's seat)."""
        found = read_qualification_replay(engine, bot_id, version_id)
        if found is None:
            raise NotFound(
                f"no kept qualification replay for version {version_id} of bot {bot_id}: only a "
                "failed qualification game's is kept"
            )
        if not who.has("operator") and (
            not who.has("bots") or found.account_id is None or found.account_id != who.account_id
        ):
            raise Forbidden("qualification games are shown to the bot's owner only")
        headers = {
            "Content-Disposition": (
                f'attachment; filename="qualification-{version_id}.replay.json.gz"'
            ),
            "ETag": f'"{found.sha256}"',
            "X-Replay-SHA256": found.sha256,
            "X-Qualification-Game": str(found.game),
            "X-Qualification-Seat": str(found.seat),
        }
        return Response(content=found.data, media_type="application/gzip", headers=headers)

    @app.get("/metrics", include_in_schema=False)
    def metrics() -> Response:
        return Response(generate_latest(exposed_registry()), media_type=CONTENT_TYPE_LATEST)

    return app
