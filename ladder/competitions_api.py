"""The competitions' HTTP endpoints (``ladder.competitions``), included by ``ladder.api.create_app``.

    GET    /api/competitions                     public: the newest competitions
    POST   /api/competitions                     operator key: create one (status "created")
    POST   /api/competitions/{id}/start          operator key: mark it running (``arena beat``
                                                 plays it; so does ``arena tournament start ID``)
    GET    /api/competitions/{id}                public: settings, field, game counts
    GET    /api/competitions/{id}/results        public: standings, crosstable, seat effect, games
    GET    /api/competitions/{id}/standings.csv  public: the standings as CSV

Over HTTP a field entry is a built-in bot's name, ``bot:NAME`` or ``version:ID``: a hosted
command needs its files, which come with a bot upload (``arena bot upload``), not with this call.
"""

# no `from __future__ import annotations`: FastAPI must see the route annotations, which name
# the local dependency `Key`, as objects
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Engine

from ladder import competitions as store
from ladder.accounts import Identity
from ladder.competition_results import standings_csv
from ladder.errors import Conflict, Forbidden, InvalidInput, NotFound
from ladder.formats import FORMATS

__all__ = ["NewCompetition", "competitions_router"]

CompetitionId = Annotated[int, Path(ge=1, le=2**31 - 1)]


class NewCompetition(BaseModel):
    """A competition to create."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(max_length=32)
    players: int = Field(ge=1, le=6)
    format: str = Field(json_schema_extra={"enum": list(FORMATS)})
    field: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        min_length=1, max_length=store.MAX_ENTRANTS
    )
    sets: int = Field(default=1, ge=1, le=store.MAX_SETS)
    rounds: int | None = Field(default=None, ge=1, le=64)
    scenarios: list[dict[str, Any]] | None = Field(default=None, max_length=32)
    seed: int = Field(default=1, ge=0, le=2**63 - 1)
    name: str | None = Field(default=None, min_length=1, max_length=128)
    decision_ms: int = Field(default=1000, ge=1, le=600_000)
    bank_ms: int = Field(default=30_000, ge=0, le=3_600_000)
    max_strikes: int = Field(default=3, ge=0, le=100)


def competitions_router(
    engine: Engine,
    require_key: Callable[..., Identity],
    errors: Callable[..., dict[int | str, dict[str, Any]]],
) -> APIRouter:
    """The routes over `engine`; `require_key` is the API's key dependency, `errors` its
    OpenAPI error responses helper."""
    router = APIRouter()
    Key = Annotated[Identity, Depends(require_key)]

    def operator(who: Identity) -> None:
        if not who.has("operator"):
            raise Forbidden("competitions are created and started with an operator key")

    @router.get("/api/competitions", responses=errors())
    def list_competitions() -> list[dict[str, Any]]:
        """The newest competitions first (at most 100)."""
        with engine.connect() as conn:
            return store.list_competitions(conn)

    @router.post(
        "/api/competitions", status_code=201, responses=errors(400, 401, 403, 404, 408, 409, 422, 429)
    )
    def create(body: NewCompetition, who: Key) -> dict[str, Any]:
        """Create a competition (operator key). It starts with POST .../start."""
        operator(who)
        field = [store.parse_entry(body.game, text) for text in body.field]
        for entry in field:
            if entry.kind == "command":
                raise InvalidInput(
                    f"field: {entry.spec[:40]!r} is not a built-in bot, bot:NAME or version:ID "
                    "(a hosted bot plays once uploaded)"
                )
        competition_id = store.create_competition(
            engine,
            game=body.game,
            players=body.players,
            fmt=body.format,
            field=field,
            sets=body.sets,
            rounds=body.rounds,
            scenarios=body.scenarios,
            seed=body.seed,
            name=body.name,
            decision_ms=body.decision_ms,
            bank_ms=body.bank_ms,
            max_strikes=body.max_strikes,
        )
        with engine.connect() as conn:
            info = store.competition_info(conn, competition_id)
        assert info is not None
        return info

    @router.post("/api/competitions/{competition_id}/start", responses=errors(401, 403, 404, 409, 422, 429))
    def start(competition_id: CompetitionId, who: Key) -> dict[str, Any]:
        """Mark a created competition running (operator key); ``arena beat`` then plays it."""
        operator(who)
        with engine.connect() as conn:
            info = store.competition_info(conn, competition_id)
        if info is None:
            raise NotFound(f"no competition {competition_id}")
        if info["status"] not in ("created", "running"):
            raise Conflict(f"competition {competition_id} is {info['status']}")
        store.set_status(engine, competition_id, "running")
        info["status"] = "running"
        return info

    @router.get("/api/competitions/{competition_id}", responses=errors(404, 422))
    def competition(competition_id: CompetitionId) -> dict[str, Any]:
        """A competition's settings, field and game counts by status."""
        with engine.connect() as conn:
            info = store.competition_info(conn, competition_id)
        if info is None:
            raise NotFound(f"no competition {competition_id}")
        return info

    def _results(competition_id: int) -> dict[str, Any]:
        with engine.connect() as conn:
            res = store.competition_results(conn, competition_id)
        if res is None:
            raise NotFound(f"no competition {competition_id}")
        return res

    @router.get("/api/competitions/{competition_id}/results", responses=errors(404, 422))
    def results(competition_id: CompetitionId) -> dict[str, Any]:
        """Standings (Elo with 95% intervals, W/D/L), crosstable, seat effect, every game."""
        return _results(competition_id)

    @router.get(
        "/api/competitions/{competition_id}/standings.csv",
        response_class=PlainTextResponse,
        responses={**errors(404, 422), 200: {"content": {"text/csv": {"schema": {"type": "string"}}}}},
    )
    def standings_as_csv(competition_id: CompetitionId) -> PlainTextResponse:
        """The standings as CSV."""
        return PlainTextResponse(standings_csv(_results(competition_id)["standings"]), media_type="text/csv")

    return router
