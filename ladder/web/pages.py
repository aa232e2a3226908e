"""The server-rendered pages: home, ladder, bot, match, the replay viewer and its frames.

Every page reads the same :mod:`ladder.queries` functions as the JSON API, plus
:mod:`ladder.web.data` for what only a page shows. An unknown or malformed id is a 404 HTML page;
a stored replay that cannot be read is a message on the page, never a 500.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import Engine

from ladder import queries
from ladder.rating_policy import RatingPolicy
from ladder.schema import matches
from ladder.seasons import season_page, seasons
from ladder.waiting import why_no_match
from ladder.web import data
from ladder.web.charts import line_chart
from ladder.web.docs import ratings_html
from ladder.web.viewer import SEAT_COLOURS, Timeline, TimelineCache, percentile
from referee import settings
from referee.replay import ReplayError, loads

__all__ = ["TEMPLATES", "build_router", "match_facts", "render", "viewer_page"]

TEMPLATES: Final = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
TEMPLATES.globals["interval_min_games"] = queries.INTERVAL_MIN_GAMES
#: bots drawn on a ladder's rating chart
CHART_BOTS: Final = 5
#: standings rows per ladder on the home page
HOME_TOP: Final = 10
#: games listed on a competition page
MAX_GAMES_LISTED: Final = 500
#: incident lines listed on a match page
MAX_INCIDENT_LINES: Final = 200


def render(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A template rendered as an HTML response."""
    return HTMLResponse(TEMPLATES.get_template(template).render(**context), status_code=status)


def not_found(what: str) -> HTMLResponse:
    """The 404 page."""
    return render("message.html", 404, heading="Not found", message=f"There is no {what}.", css="error")


def _id(text: str) -> int | None:
    """A path id, or None when it cannot be one (then the page is a 404, like an unknown id)."""
    if not text.isdigit() or len(text) > 12:
        return None
    value = int(text)
    return value if queries.storable_id(value) else None


class BadQuery(ValueError):
    """A query parameter a list page cannot use; its message is the page's one line."""


#: a match's states, as /matches?status= takes them
MATCH_STATUSES: Final = ("queued", "running", "done", "failed")
#: longest text a list page takes in a query parameter (bot names are at most 64)
MAX_QUERY_TEXT: Final = 64


def bad_query(message: str) -> HTMLResponse:
    """The 400 page: one line saying which parameter and what it may be."""
    return render("message.html", 400, heading="Bad request", message=message, css="error")


def _id_param(params: Mapping[str, str], name: str) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 12 or not queries.storable_id(int(raw)):
        raise BadQuery(f"{name}: an id, 1 to {queries.MAX_ID} (got {raw[:20]!r})")
    return int(raw)


def _page_size(params: Mapping[str, str]) -> int:
    raw = params.get("limit")
    if raw is None or raw == "":
        return data.PAGE_SIZE
    if not raw.isdigit() or len(raw) > 6 or not 1 <= int(raw) <= data.MAX_PAGE_SIZE:
        raise BadQuery(f"limit: rows per page, 1 to {data.MAX_PAGE_SIZE} (got {raw[:20]!r})")
    return int(raw)


def _limit_text(params: Mapping[str, str]) -> str:
    # kept in the links to other pages only when it was given
    return params.get("limit", "")


def _text_param(params: Mapping[str, str], name: str) -> str:
    raw = params.get(name, "").strip()
    if len(raw) > MAX_QUERY_TEXT or any(ord(c) < 32 for c in raw):
        raise BadQuery(f"{name}: at most {MAX_QUERY_TEXT} printable characters")
    return raw


def _page_url(path: str, filters: Mapping[str, Any], key: Mapping[str, Any]) -> str:
    """`path` with the non-empty `filters` and the page key as its query string."""
    query = {k: v for k, v in filters.items() if v not in ("", None)}
    return f"{path}?{urlencode({**query, **key})}"


def _pager(
    path: str,
    filters: Mapping[str, Any],
    paged: Mapping[str, Any],
    key: str,
    *,
    previous: str,
    following: str,
) -> dict[str, str | None]:
    """The links to the previous and the next page (None where there is none): the previous
    page is keyed on this page's first row (`?previous=`), the next on its last (`?following=`)."""
    rows = paged["rows"]
    return {
        "previous_url": _page_url(path, filters, {previous: rows[0][key]}) if paged["has_previous"] else None,
        "next_url": _page_url(path, filters, {following: rows[-1][key]}) if paged["has_next"] else None,
    }


def _seat_name(record: Mapping[str, Any], seat: int) -> str:
    # a ladder match's record (bot_id) holds the ladder's name for the seat in bot_name, as its
    # match page shows it; "bot" may be only the built-in strategy behind it ("greedy" for two
    # different ladder bots, when the in-process executor played them)
    ladder_name = record.get("bot_name") if record.get("bot_id") is not None else None
    return str(ladder_name or record.get("bot") or record.get("name") or record.get("kind") or f"seat {seat}")


def match_facts(replay: Mapping[str, Any]) -> dict[str, Any]:
    """What a match page shows from its replay: decision-time percentiles per seat, the seats'
    records (sandbox, strikes) and every strike, incident, default action and forfeit in words."""
    steps: Sequence[Mapping[str, Any]] = replay.get("steps", [])
    records: list[Mapping[str, Any]] = [
        r if isinstance(r, Mapping) else {} for r in replay.get("seats", [])
    ]
    step_of: dict[int, int] = {}
    for n, step in enumerate(steps, start=1):
        if isinstance(step, Mapping) and isinstance(step.get("decision"), int):
            step_of.setdefault(step["decision"], n)
    timing = []
    for seat, record in enumerate(records):
        mine = [s for s in steps if isinstance(s, Mapping) and s.get("seat") == seat and "forfeit" not in s]
        ms = [float(s["ms"]) for s in mine if isinstance(s.get("ms"), int | float)]
        cpu = [float(s["cpu_ms"]) for s in mine if isinstance(s.get("cpu_ms"), int | float)]
        timing.append(
            {
                "seat": seat,
                "decisions": len(mine),
                "p50": round(percentile(ms, 50)) if ms else "-",
                "p90": round(percentile(ms, 90)) if ms else "-",
                "p99": round(percentile(ms, 99)) if ms else "-",
                "max": round(max(ms)) if ms else "-",
                "cpu_p50": round(percentile(cpu, 50)) if cpu else "-",
                "cpu_max": round(max(cpu)) if cpu else "-",
                "strikes": int(record.get("strikes", 0) or 0),
            }
        )
    lines: list[str] = []
    for seat, record in enumerate(records):
        who = f"Seat {seat} ({_seat_name(record, seat)})"
        for incident in record.get("incidents", []) or []:
            if not isinstance(incident, Mapping):
                continue
            at = incident.get("decision")
            where = f" at step {step_of[at]}" if isinstance(at, int) and at in step_of else ""
            detail = str(incident.get("detail", "")).strip()
            said = f": {detail}" if detail else ""
            lines.append(f"{who}: {incident.get('kind', 'incident')}{where}{said}")
        if record.get("incidents_omitted"):
            lines.append(f"{who}: {int(record['incidents_omitted'])} more incidents not recorded")
        if record.get("forfeit"):
            lines.append(f"{who} forfeited: {record['forfeit']}")
        if record.get("exit_code") not in (None, 0):
            lines.append(f"{who}: its process exited with code {record['exit_code']}")
        sandbox = record.get("sandbox")
        if isinstance(sandbox, Mapping):
            if sandbox.get("kind") == "none" or sandbox.get("unsafe_no_sandbox"):
                lines.append(f"{who} ran unsandboxed (an operator's choice)")
            if sandbox.get("killed_for"):
                lines.append(f"{who}'s sandbox killed it: {sandbox['killed_for']}")
    for n, step in enumerate(steps, start=1):
        if not isinstance(step, Mapping):
            continue
        if "forfeit" in step:
            lines.append(f"Step {n}: seat {step['forfeit']} forfeits: {step.get('reason', '')}")
        elif step.get("reason"):
            lines.append(
                f"Step {n}: seat {step.get('seat')} did not answer in time ({step['reason']}): "
                f"the referee played {step.get('action', {}).get('text', 'the default action')} (a strike)"
            )
    if len(lines) > MAX_INCIDENT_LINES:
        extra = len(lines) - MAX_INCIDENT_LINES
        lines = [*lines[:MAX_INCIDENT_LINES], f"… and {extra} more"]
    return {"timing": timing, "seat_records": records, "incidents": lines}


def viewer_page(
    timeline: Timeline,
    *,
    title: str,
    frames_url: str,
    allow_all: bool,
    back_url: str | None = None,
    download_url: str | None = None,
    standalone: bool = False,
    seat_bots: Sequence[int | None] = (),
    outputs: Sequence[Mapping[str, Any]] = (),
    back_text: str = "match page",
    default_seat: str = "0",
) -> HTMLResponse:
    """The viewer's page (its frames come from `frames_url` + step number); `standalone` (one
    file, `arena replay serve`: no ladders, no API) leaves out the links to the server's pages;
    `seat_bots` (a ladder match's bot per seat) links each seat's name to its bot's page;
    `outputs` (an owner's page, ladder.web.owner: ``seat``, ``name``, ``text``, ``note``) is what
    the owner's bots printed, shown beside the board; `default_seat` is the view first shown."""
    replay = timeline.replay
    seats = [_seat_name(r if isinstance(r, Mapping) else {}, i) for i, r in enumerate(replay["seats"])]
    return render(
        "viewer.html",
        title=title,
        replay=replay,
        seats=seats,
        seat_bots=list(seat_bots) if not standalone else [],
        colours=SEAT_COLOURS,
        total=timeline.total,
        error=timeline.error,
        frames_url=frames_url,
        allow_all=allow_all,
        default_seat=default_seat,
        back_url=back_url,
        back_text=back_text,
        outputs=list(outputs),
        download_url=download_url,
        standalone=standalone,
    )


def frame_response(timeline: Timeline, step: int, seat: str, allow_all: bool) -> JSONResponse:
    """One frame as JSON; 404 for a step or seat that does not exist, 403 for "all" when the
    whole state may not be shown."""
    if seat == "all":
        if not allow_all:
            return JSONResponse(
                {"error": "the whole state is shown once the match is over", "status": 403}, 403
            )
        who: int | None = None
    elif seat.isdigit() and len(seat) < 4 and int(seat) < timeline.seats:
        who = int(seat)
    else:
        return JSONResponse({"error": f"no seat {seat[:20]!r}", "status": 404}, 404)
    if not 1 <= step <= timeline.total:
        return JSONResponse({"error": f"no step {step} (1..{timeline.total})", "status": 404}, 404)
    return JSONResponse(timeline.frame(step, who))


def build_router(engine: Engine, cache: TimelineCache | None = None) -> APIRouter:
    """The pages' routes over the database behind `engine`."""
    cache = cache or TimelineCache()
    router = APIRouter(include_in_schema=False)


    @router.get("/", response_class=HTMLResponse)
    def home() -> HTMLResponse:
        with engine.connect() as conn:
            listed = queries.list_ladders(conn)
            pages = [p for p in (queries.standings(conn, ladder["id"]) for ladder in listed) if p]
            scenarios = {}
            for ladder in listed:
                if ladder["kind"] == "coop":
                    found = queries.scenario_ratings(conn, ladder["id"])
                    scenarios[ladder["id"]] = found["scenarios"] if found else []
            from ladder import competitions

            held = competitions.list_competitions(conn, limit=20)
            live = data.live_matches(conn)
        games: dict[str, list[queries.StandingsPage]] = {}
        for page in pages:
            games.setdefault(page["ladder"]["game"], []).append(page)
        return render(
            "home.html", games=sorted(games.items()), scenarios=scenarios, top=HOME_TOP, competitions=held,
            live=live,
        )

    @router.get("/ratings", response_class=HTMLResponse)
    def ratings_page() -> HTMLResponse:
        # what every interval on the pages links to
        return render("document.html", title="Ratings", source="ladder/RATINGS.md", body=ratings_html())

    @router.get("/ladders")
    def ladders_index() -> RedirectResponse:
        # every ladder, with its standings, is on the home page
        return RedirectResponse("/", status_code=307)

    @router.get("/matches", response_class=HTMLResponse)
    def matches_index(request: Request) -> HTMLResponse:
        try:
            params = request.query_params
            limit = _page_size(params)
            before, after = _id_param(params, "before"), _id_param(params, "after")
            ladder_id = _id_param(params, "ladder")
            status = params.get("status", "")
            if status and status not in MATCH_STATUSES:
                raise BadQuery(f"status: one of {', '.join(MATCH_STATUSES)}")
            bot_name = _text_param(params, "bot")
        except BadQuery as exc:
            return bad_query(str(exc))
        conds: list[sa.ColumnElement[bool]] = []
        missing = None
        with engine.connect() as conn:
            if ladder_id is not None:
                conds.append(matches.c.ladder_id == ladder_id)
            if status:
                conds.append(matches.c.status == status)
            if bot_name:
                found_bot = queries.bot_id_by_name(conn, bot_name)
                if found_bot is None:
                    missing = f"No bot is named {bot_name!r}."
                played = None if found_bot is None else data.played_by(conn, found_bot)
                conds.append(sa.false() if played is None else played)
            paged = data.match_page(
                conn, limit=limit, before=before, after=after, where=sa.and_(sa.true(), *conds)
            )
            links = data.ladder_links(conn, (m["ladder_id"] for m in paged["rows"]))
            choices = {ladder["id"]: ladder["name"] for ladder in queries.list_ladders(conn)}
        filters = {"bot": bot_name, "ladder": ladder_id or "", "status": status, "limit": _limit_text(params)}
        rows = paged["rows"]
        return render(
            "matches.html",
            matches=rows,
            ladder_names=links,
            ladder_choices=choices,
            filters=filters,
            missing=missing,
            statuses=MATCH_STATUSES,
            pager=_pager("/matches", filters, paged, "id", previous="after", following="before"),
        )

    @router.get("/bots", response_class=HTMLResponse)
    def bots_index(request: Request) -> HTMLResponse:
        try:
            params = request.query_params
            limit = _page_size(params)
            search = _text_param(params, "q")
            after, before = _text_param(params, "after"), _text_param(params, "before")
        except BadQuery as exc:
            return bad_query(str(exc))
        with engine.connect() as conn:
            paged = data.bot_directory(
                conn, limit, search=search, after=after or None, before=before or None
            )
        filters = {"q": search, "limit": _limit_text(params)}
        rows = paged["rows"]
        return render(
            "bots.html",
            bots=rows,
            search=search,
            pager=_pager("/bots", filters, paged, "name", previous="before", following="after"),
        )

    @router.get("/competitions", response_class=HTMLResponse)
    def competitions_index(request: Request) -> HTMLResponse:
        try:
            params = request.query_params
            limit = _page_size(params)
            before, after = _id_param(params, "before"), _id_param(params, "after")
        except BadQuery as exc:
            return bad_query(str(exc))
        with engine.connect() as conn:
            paged = data.competition_page(conn, limit=limit, before=before, after=after)
        filters = {"limit": _limit_text(params)}
        rows = paged["rows"]
        return render(
            "competitions.html",
            competitions=rows,
            pager=_pager("/competitions", filters, paged, "id", previous="after", following="before"),
        )

    @router.get("/campaigns/{campaign_id}", response_class=HTMLResponse)
    def campaign_page(campaign_id: str) -> HTMLResponse:
        found = _id(campaign_id)
        with engine.connect() as conn:
            view = None if found is None else data.campaign_view(conn, found)
        if view is None:
            return not_found(f"campaign {campaign_id[:40]}")
        return render("campaign.html", c=view)

    @router.get("/competitions/{competition_id}", response_class=HTMLResponse)
    def competition_page(competition_id: str) -> HTMLResponse:
        from ladder import competitions, formats

        found = _id(competition_id)
        with engine.connect() as conn:
            res = None if found is None else competitions.competition_results(conn, found)
            if res is None:
                return not_found(f"competition {competition_id[:40]}")
            bot_ids = data.entrant_bots(conn, res["competition"]["field"])
        return render(
            "competition.html",
            c=res["competition"],
            # its strength column and extra columns are the format's (ladder.formats)
            format=formats.get(res["competition"]["format"]),
            standings=res["standings"],
            crosstable=res["crosstable"],
            seats=res["seats"],
            scenarios=res.get("scenarios", []),
            counts=res["counts"],
            games=res["games"],
            max_games=MAX_GAMES_LISTED,
            bot_ids=bot_ids,
        )

    @router.get("/ladders/{ladder_id}", response_class=HTMLResponse)
    def ladder_page(ladder_id: str) -> Response:
        found = _id(ladder_id)
        with engine.connect() as conn:
            # a competition's or campaign's own ladder: its page is the competition's or campaign's
            owner = None if found is None else data.hidden_owner(conn, found)
            if owner is not None:
                return RedirectResponse(owner, status_code=307)
            page = None if found is None else queries.standings(conn, found)
            if page is None or found is None:
                return not_found(f"ladder {ladder_id[:40]}")
            held = data.ladder_campaigns(conn, found) if page["ladder"]["kind"] == "campaign" else []
            last = data.last_played(conn, found)
            top = [s["bot_id"] for s in page["standings"][:CHART_BOTS]]
            series = data.rating_series(conn, top, found)
            recent = data.recent_ladder_matches(conn, found)
            n_bots, n_matches = data.ladder_sizes(conn, found)
            scen = queries.scenario_ratings(conn, found) if page["ladder"]["kind"] == "coop" else None
            waiting = why_no_match(conn, found)
            listed = seasons(conn, found) or []
        names = {s["bot_id"]: s["bot_name"] for s in page["standings"]}
        chart = line_chart(
            [(names[b], SEAT_COLOURS[i % len(SEAT_COLOURS)], series.get(b, [])) for i, b in enumerate(top)]
        )
        policy = RatingPolicy(**page["ladder"]["rating_policy"])
        return render(
            "ladder.html",
            ladder=page["ladder"],
            level=round(100 * policy.confidence, 1),  # the interval the standings show and rank by
            z=policy.z,
            standings=page["standings"],
            divisions=page["divisions"],
            unranked=page["unranked"],
            last=last,
            chart=chart,
            chart_bots=len(top),
            recent=recent,
            ladder_names={page["ladder"]["id"]: (page["ladder"]["name"], f"/ladders/{found}")},
            campaigns=held,
            n_bots=n_bots,
            n_matches=n_matches,
            scenarios=scen["scenarios"] if scen else [],
            waiting=waiting,
            seasons=listed,
        )

    @router.get("/ladders/{ladder_id}/seasons/{number}", response_class=HTMLResponse)
    def season(ladder_id: str, number: str) -> Response:
        """A closed season's final standings (ladder/RATINGS.md, "Seasons")."""
        found, n = _id(ladder_id), _id(number)
        with engine.connect() as conn:
            page = None if found is None or n is None else season_page(conn, found, n)
        if page is None:
            return not_found(f"season {number[:12]} of ladder {ladder_id[:40]}")
        policy = RatingPolicy(**page["ladder"]["rating_policy"])
        return render(
            "season.html",
            ladder=page["ladder"],
            season=page["season"],
            standings=page["standings"],
            interval=any(s["rating_low"] is not None for s in page["standings"]),
            level=round(100 * policy.confidence, 1),
        )

    @router.get("/bots/{bot_id}", response_class=HTMLResponse)
    def bot_page(bot_id: str) -> HTMLResponse:
        found = _id(bot_id)
        with engine.connect() as conn:
            bot = None if found is None else queries.bot_info(conn, found)
            if bot is None or found is None:
                return not_found(f"bot {bot_id[:40]}")
            recent = queries.bot_matches(conn, found, 20) or []
            series = data.rating_series(conn, [found])
            by_seat, by_opponent, counted = data.seat_and_opponent_rates(conn, found)
            links = data.ladder_links(conn, (m["ladder_id"] for m in recent))
            unranked = queries.unranked_reasons(conn, [found]) if any(
                entry["games"] == 0 for entry in bot["ladders"]
            ) else {}
        versions = {v["id"] for v in bot["versions"]}
        rows = []
        for m in recent:
            seats = [s["seat"] for s in m["seats"] if s["bot_version_id"] in versions]
            places = m["places"]
            if places and seats:
                place = places[seats[0]]
                firsts = places.count(1)
                result = "win" if place == 1 and firsts == 1 else "draw" if place == 1 else f"place {place}"
            else:
                result = "-"
            rows.append((m, {"seat_text": ", ".join(map(str, seats)) or "-", "result": result}))
        chart = line_chart([(bot["name"], SEAT_COLOURS[1], series.get(found, []))])
        by_opponent, more_opponents = data.most_played(by_opponent, data.OPPONENT_ROWS)
        return render(
            "bot.html",
            bot=bot,
            recent=rows,
            chart=chart,
            ladder_names=links,
            by_seat=by_seat,
            by_opponent=by_opponent,
            more_opponents=more_opponents,
            counted=counted,
            unranked=unranked.get(found),
        )

    def _load(match_id: int) -> tuple[dict[str, Any] | None, str | None, str | None]:
        """(replay document, its sha256, problem) for a match's stored replay."""
        with engine.connect() as conn:
            stored = queries.replay_data(conn, match_id)
        if stored is None:
            return None, None, None
        raw, sha = stored
        try:
            return loads(raw), sha, None
        except ReplayError as exc:
            return None, sha, str(exc)
        except Exception as exc:  # stored bytes are outside input: never a 500 for them
            return None, sha, f"{type(exc).__name__}: {exc}"

    @router.get("/matches/{match_id}", response_class=HTMLResponse)
    def match_page(match_id: str) -> HTMLResponse:
        found = _id(match_id)
        with engine.connect() as conn:
            match = None if found is None else queries.match_info(conn, found)
            if match is None or found is None:
                return not_found(f"match {match_id[:40]}")
            ladder = queries.ladder_info(conn, match["ladder_id"])
            label, link = data.ladder_links(conn, [match["ladder_id"]]).get(match["ladder_id"], ("", ""))
        replay, _, problem = _load(found) if match["replay"] else (None, None, None)
        facts: dict[str, Any] = {"timing": [], "seat_records": [], "incidents": []}
        if replay is not None:
            try:
                facts = match_facts(replay)
            except Exception as exc:  # a well-formed file with odd contents
                problem = f"{type(exc).__name__}: {exc}"
                replay = None
        # a competition's or campaign's game moves only its hidden ladder's ratings, which mean
        # nothing (a competition is fitted whole, a campaign rated once): none is shown
        rated = link.startswith("/ladders/")
        changes = {c["bot_id"]: c for c in match["rating_changes"]} if rated else {}
        config = settings.current()
        return render(
            "match.html",
            live_delay=(config.live_delay_decisions, config.live_delay_seconds),
            colours=SEAT_COLOURS,
            match=match,
            ladder=ladder,
            part_of=None if rated else (label, link),
            replay=replay,
            replay_problem=problem,
            changes=changes,
            **facts,
        )

    def _timeline(match_id: int) -> tuple[Timeline | None, HTMLResponse | None]:
        # a cached timeline needs only the replay's digest (a frame must not re-read the blob)
        with engine.connect() as conn:
            digest = data.replay_sha256(conn, match_id)
        cached = None if digest is None else cache.peek((match_id, digest))
        if cached is not None:
            return cached, None
        replay, sha, problem = _load(match_id)
        if replay is None:
            if problem is None:
                return None, not_found(f"replay for match {match_id}")
            return None, render(
                "message.html", 422, heading=f"Match #{match_id}: unreadable replay",
                message=f"The stored replay cannot be read: {problem}.", css="error",
            )
        try:
            name = f"match-{match_id}.replay.json.gz"
            return cache.get((match_id, sha), lambda: Timeline(replay, name)), None
        except ReplayError as exc:
            return None, render(
                "message.html", 422, heading=f"Match #{match_id}: the replay does not re-simulate",
                message=str(exc), css="error",
            )

    def _finished(match_id: int) -> bool:
        with engine.connect() as conn:
            match = queries.match_info(conn, match_id)
        return match is not None and match["status"] in ("done", "failed")

    @router.get("/matches/{match_id}/replay", response_class=HTMLResponse)
    def viewer(match_id: str) -> HTMLResponse:
        found = _id(match_id)
        if found is None:
            return not_found(f"match {match_id[:40]}")
        timeline, problem = _timeline(found)
        if timeline is None:
            assert problem is not None
            return problem
        with engine.connect() as conn:
            match = queries.match_info(conn, found)
        seat_bots = [s["bot_id"] for s in match["seats"]] if match else []
        return viewer_page(
            timeline,
            title=f"Match #{found}: replay",
            frames_url=f"/matches/{found}/replay/frames/",
            allow_all=match is not None and match["status"] in ("done", "failed"),
            seat_bots=seat_bots,
            back_url=f"/matches/{found}",
            download_url=f"/api/matches/{found}/replay",
        )

    @router.get("/matches/{match_id}/replay/frames/{step}")
    def frame(match_id: str, step: int, request: Request) -> JSONResponse:
        found = _id(match_id)
        timeline = None if found is None else _timeline(found)[0]
        if found is None or timeline is None:
            missing = {"error": f"no readable replay for match {match_id[:40]}", "status": 404}
            return JSONResponse(missing, 404)
        seat = request.query_params.get("seat", "0")
        return frame_response(timeline, step, seat, _finished(found))

    return router
