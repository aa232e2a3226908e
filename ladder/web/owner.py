"""An owner's own pages: sign-in with an API key, my bots, my matches with my bots' output, my keys.

Routes (HTML; "session" = signed in through ``/signin``; "form" = a POST carrying the session's
CSRF token, from a page of this site)::

    GET  /signin                                   the sign-in form
    POST /signin                                   {api_key}: checked as the API checks a key
    POST /signout                                  form: ends the session
    GET  /me                                       session: my bots and my latest matches
    GET  /me/bots/{bot_id}                         session: each version, its qualification
                                                   games, what the bot printed, its kept replay
    GET  /me/bots/{bot_id}/versions/{version_id}/qualification/replay   the viewer, output beside
    GET  /me/matches/{match_id}/replay             the viewer with my bot's output beside it
    GET  /me/keys                                  session: my live keys
    POST /me/keys                                  form {scopes}: a new key, shown once
    POST /me/keys/{key_id}/rotate                  form: a new key for it, shown once (it is revoked)
    POST /me/keys/{key_id}/revoke                  form: revoke it (its sessions end)

Nobody else sees any of it: another account's bot, version, match or key is a 404 (as if it did
not exist); without a session every ``/me`` page is a 403 that links to the sign-in.

Protections: the cookie (:mod:`ladder.sessions`) is HttpOnly, SameSite=Lax, Secure when the
page is served over TLS, and holds an opaque id, never the key. A wrong key at sign-in counts
against the address in the API's failed-authentication limiter (``ApiLimits``:
20 a minute) and past it is a 429, as the API answers. Every POST must come from this site:
its ``Origin`` (or, without one, its ``Referer``) must be this server's own origin, else 403;
and the session's forms must carry its CSRF token (:func:`ladder.sessions.csrf_token`), else
403. Owner pages are ``Cache-Control: no-store`` and may not be framed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import Engine

from ladder import accounts, queries
from ladder.bots import read_bot_log, read_qualification_replay
from ladder.errors import Conflict, Forbidden, InvalidInput, NotFound
from ladder.schema import bots
from ladder.sessions import (
    COOKIE,
    SESSION_LIFETIME,
    Session,
    csrf_matches,
    csrf_token,
    end_session,
    move_session,
    session_for,
    start_session,
)
from ladder.web import data
from ladder.web.pages import frame_response, not_found, render, viewer_page
from ladder.web.viewer import Timeline, TimelineCache
from referee.replay import ReplayError, loads

__all__ = ["FailureLimiter", "build_owner_router"]

#: (client address) -> seconds to wait if it is over the failed-authentication limit, else None;
#: the API's own limiter (it spends one failure)
FailureLimiter = Callable[[str], int | None]
#: matches listed on /me
MY_MATCHES: Final = 50
#: form fields a POST may carry, and its longest body we parse
_MAX_FIELDS: Final = 8
_MAX_FORM_BYTES: Final = 4096
#: headers of every owner page: private (never cached), never framed by another site
_PRIVATE: Final = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "same-origin",
}


def _private(response: Response) -> Response:
    response.headers.update(_PRIVATE)
    return response


def _page(template: str, status: int = 200, **context: Any) -> Response:
    return _private(render(template, status, **context))


def _refused(status: int, message: str, heading: str = "Not allowed") -> Response:
    return _page("message.html", status, heading=heading, message=message, css="error")


def _own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}".lower()


def _same_origin(request: Request) -> bool:
    """True if the POST comes from one of this site's pages: its Origin is ours (or, when a
    browser sent none, its Referer's origin is). Neither: refused."""
    origin = request.headers.get("origin")
    if origin is None:
        referer = request.headers.get("referer")
        if not referer:
            return False
        parts = urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    return origin.lower() == _own_origin(request)


async def _form(request: Request) -> dict[str, str] | None:
    """The urlencoded form of a POST (one value per field), or None for another body."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return None
    body = await request.body()
    if len(body) > _MAX_FORM_BYTES:
        return None
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=_MAX_FIELDS,
                          strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return None
    return {name: values[0] for name, values in parsed.items()}


def _client(request: Request) -> str:
    # the peer address, as the API's limiter keys it (X-Forwarded-For is not trusted)
    return request.client.host if request.client else "unknown"


def _my_bot(conn: sa.Connection, bot_id: int, account_id: int) -> bool:
    row = conn.execute(sa.select(bots.c.account_id).where(bots.c.id == bot_id)).first()
    return row is not None and row.account_id == account_id


def _timeline(raw: bytes, name: str) -> tuple[Timeline | None, str | None]:
    try:
        return Timeline(loads(raw), name), None
    except ReplayError as exc:
        return None, str(exc)
    except Exception as exc:  # stored bytes are outside input: never a 500 for them
        return None, f"{type(exc).__name__}: {exc}"


def build_owner_router(
    engine: Engine, failures: FailureLimiter, cache: TimelineCache | None = None
) -> APIRouter:
    """The owner's pages over the database behind `engine`; `failures` is the API's limiter of
    failed authentications (a wrong key at sign-in spends from it)."""
    cache = cache or TimelineCache()
    router = APIRouter(include_in_schema=False)

    def cached(key: Any, raw: bytes, name: str) -> Timeline | None:
        """The timeline of replay bytes `raw` (cached under `key`), or None if they cannot be read."""
        found = cache.peek(key)
        if found is None:
            found, _problem = _timeline(raw, name)
            if found is not None:
                found = cache.get(key, lambda: found)
        return found

    def current(request: Request) -> tuple[Session, str] | None:
        sid = request.cookies.get(COOKIE, "")
        found = session_for(engine, sid) if sid else None
        return None if found is None else (found, sid)

    def signed_out() -> Response:
        return _page(
            "signin.html", 403, error="Sign in to see this page: it belongs to a signed-in owner.",
            signed_in=None,
        )

    def guard(request: Request, form: Mapping[str, str] | None) -> tuple[Session, str] | Response:
        """The session of a POST that may change something, or the 403 refusing it."""
        if not _same_origin(request):
            return _refused(403, "This form must be sent from this site's own pages (Origin check).")
        here = current(request)
        if here is None:
            return _refused(403, "No session: sign in first.")
        _session, sid = here
        if form is None or not csrf_matches(sid, form.get("csrf", "")):
            return _refused(403, "The form's CSRF token is missing or not this session's: reload the page.")
        return here

    @router.get("/signin")
    def signin_form(request: Request) -> Response:
        here = current(request)
        return _page("signin.html", signed_in=here[0].identity.account_name if here else None, error=None)

    @router.post("/signin")
    async def signin(request: Request) -> Response:
        if not _same_origin(request):
            return _refused(403, "Sign in from this site's own sign-in page (Origin check).")
        form = await _form(request)
        key = (form or {}).get("api_key", "").strip()
        identity = accounts.authenticate_key(engine, key) if key else None
        if identity is None:
            # as the API: a wrong key spends from the address's failure bucket; past the limit
            # the answer says only that (not whether this key was right)
            wait = failures(_client(request))
            if wait is not None:
                response = _page(
                    "signin.html", 429, signed_in=None,
                    error=f"Too many failed sign-ins from this address: wait {wait} s.",
                )
                response.headers["Retry-After"] = str(wait)
                return response
            return _page("signin.html", 401, signed_in=None, error="Unknown or revoked API key.")
        # a new id every time, and the one the browser held (perhaps planted) is deleted
        sid, _expires = start_session(engine, identity, replacing=request.cookies.get(COOKIE))
        response = RedirectResponse("/me", status_code=303)
        response.set_cookie(
            COOKIE, sid, max_age=int(SESSION_LIFETIME.total_seconds()), path="/", httponly=True,
            samesite="lax", secure=request.url.scheme == "https",
        )
        return _private(response)

    @router.post("/signout")
    async def signout(request: Request) -> Response:
        checked = guard(request, await _form(request))
        if isinstance(checked, Response):
            return checked
        end_session(engine, checked[1])
        response = RedirectResponse("/signin", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=request.url.scheme == "https")
        return _private(response)

    @router.get("/me")
    def my_bots(request: Request) -> Response:
        here = current(request)
        if here is None:
            return signed_out()
        session, sid = here
        me = session.identity
        with engine.connect() as conn:
            ids = list(conn.execute(
                sa.select(bots.c.id).where(bots.c.account_id == me.account_id).order_by(bots.c.name)
            ).scalars())
            mine = [b for b in (queries.bot_info(conn, i, with_output=True) for i in ids) if b]
            conds = [c for c in (data.played_by(conn, i) for i in ids) if c is not None]
            rows = data.match_page(conn, limit=MY_MATCHES, where=sa.or_(*conds))["rows"] if conds else []
            links = data.ladder_links(conn, (m["ladder_id"] for m in rows))
        mine_ids = set(ids)
        logs = {m["id"]: [s["seat"] for s in m["seats"] if s["bot_id"] in mine_ids] for m in rows}
        return _page("owner_bots.html", me=me, bots=mine, matches=rows, ladder_names=links,
                     my_seats=logs, csrf=csrf_token(sid))

    @router.get("/me/bots/{bot_id}")
    def my_bot(bot_id: str, request: Request) -> Response:
        here = current(request)
        if here is None:
            return signed_out()
        session, sid = here
        found = _id(bot_id)
        with engine.connect() as conn:
            mine = found is not None and _my_bot(conn, found, session.identity.account_id)
            bot = queries.bot_info(conn, found, with_output=True) if mine and found is not None else None
        if bot is None:
            return _private(not_found(f"bot {bot_id[:40]} of yours"))
        return _page("owner_bot.html", me=session.identity, bot=bot, csrf=csrf_token(sid))

    @router.get("/me/bots/{bot_id}/versions/{version_id}/qualification/replay")
    def qualification_viewer(bot_id: str, version_id: str, request: Request) -> Response:
        here = current(request)
        if here is None:
            return signed_out()
        found = _qualification(here[0], bot_id, version_id)
        if isinstance(found, Response):
            return found
        timeline, detail = found
        b, v = int(bot_id), int(version_id)
        seat = int(detail.get("replay", {}).get("seat", 0)) if isinstance(detail.get("replay"), dict) else 0
        outputs = [{
            "seat": seat,
            "name": "your bot",
            "text": str(detail.get("log_excerpt") or ""),
            "note": "the end of what it printed in qualification (its last lines)",
        }]
        return _private(viewer_page(
            timeline, title=f"Qualification of version {v}: the failed game",
            frames_url=f"/me/bots/{b}/versions/{v}/qualification/replay/frames/", allow_all=True,
            back_url=f"/me/bots/{b}", outputs=outputs, back_text="your bot",
        ))

    @router.get("/me/bots/{bot_id}/versions/{version_id}/qualification/replay/frames/{step}")
    def qualification_frame(bot_id: str, version_id: str, step: int, request: Request) -> Response:
        here = current(request)
        if here is None:
            return _private(Response('{"error": "sign in first", "status": 403}', 403,
                                     media_type="application/json"))
        found = _qualification(here[0], bot_id, version_id)
        if isinstance(found, Response):
            return found
        return _private(frame_response(found[0], step, request.query_params.get("seat", "0"), True))

    def _qualification(
        session: Session, bot_id: str, version_id: str
    ) -> tuple[Timeline, dict[str, Any]] | Response:
        """The kept qualification replay of one of my versions, or the page refusing it (404)."""
        b, v = _id(bot_id), _id(version_id)
        kept = None if b is None or v is None else read_qualification_replay(engine, b, v)
        if kept is None or kept.account_id != session.identity.account_id:
            return _private(not_found(f"kept qualification game for version {version_id[:20]} of yours"))
        timeline = cached(("qualification", v, kept.sha256), kept.data, f"qualification-{v}.replay.json.gz")
        if timeline is None:
            return _refused(422, "The kept qualification replay cannot be read.", "Unreadable replay")
        with engine.connect() as conn:
            bot = queries.bot_info(conn, b, with_output=True) if b is not None else None
        versions = bot["versions"] if bot is not None else []
        detail = next((x["qualification_detail"] for x in versions if x["id"] == v), None)
        return timeline, dict(detail or {})

    @router.get("/me/matches/{match_id}/replay")
    def match_viewer(match_id: str, request: Request) -> Response:
        here = current(request)
        if here is None:
            return signed_out()
        me = here[0].identity
        found = _id(match_id)
        with engine.connect() as conn:
            match = None if found is None else queries.match_info(conn, found)
            stored = None if found is None else queries.replay_data(conn, found)
            mine = sa.select(bots.c.id).where(bots.c.account_id == me.account_id)
            my_ids = set(conn.execute(mine).scalars())
        seats = [] if match is None else [s for s in match["seats"] if s["bot_id"] in my_ids]
        if match is None or found is None or not seats:
            # another account's match and a match that does not exist look alike
            return _private(not_found(f"match {match_id[:40]} of yours"))
        if stored is None:
            return _refused(404, f"Match #{found} has no replay yet (it is {match['status']}).",
                            "No replay yet")
        raw, sha = stored
        timeline = cached((found, sha), raw, f"match-{found}.replay.json.gz")
        if timeline is None:
            return _refused(422, "The stored replay cannot be read.", "Unreadable replay")
        outputs = []
        for s in seats:  # my seats only: another seat's output never reaches the page
            log = read_bot_log(engine, found, s["seat"])
            outputs.append({
                "seat": s["seat"],
                "name": s["bot_name"],
                "text": "" if log is None else log.text,
                "note": (
                    "no output kept (a built-in or remote bot, or none printed)" if log is None
                    else "cut at its limit: the last part is kept" if log.truncated else ""
                ),
            })
        return _private(viewer_page(
            timeline, title=f"Match #{found}: replay with your bot's output",
            frames_url=f"/matches/{found}/replay/frames/",
            allow_all=match["status"] in ("done", "failed"),
            seat_bots=[s["bot_id"] for s in match["seats"]], back_url=f"/matches/{found}",
            download_url=f"/api/matches/{found}/replay", outputs=outputs,
            default_seat=str(seats[0]["seat"]),
        ))

    def _keys_page(session: Session, sid: str, *, status: int = 200, new_key: str | None = None,
                   made: str = "", error: str | None = None) -> Response:
        info = accounts.account_info(engine, session.identity.account_id)
        return _page("owner_keys.html", status, me=session.identity, keys=info["keys"], csrf=csrf_token(sid),
                     new_key=new_key, made=made, error=error, session_key=session.identity.key_id,
                     may_operator=session.identity.has("operator"))

    @router.get("/me/keys")
    def my_keys(request: Request) -> Response:
        here = current(request)
        if here is None:
            return signed_out()
        return _keys_page(*here)

    @router.post("/me/keys")
    async def new_key(request: Request) -> Response:
        form = await _form(request)
        checked = guard(request, form)
        if isinstance(checked, Response):
            return checked
        session, sid = checked
        assert form is not None
        scopes = form.get("scopes", "bots").strip() or "bots"
        if not set(scopes.split()) <= session.identity.scopes:
            return _keys_page(session, sid, status=403,
                              error="A key can only be made with scopes the signed-in key has.")
        try:
            made = accounts.create_key(engine, session.identity.account_id, scopes)
        except (Conflict, InvalidInput, Forbidden) as exc:
            return _keys_page(session, sid, status=409 if isinstance(exc, Conflict) else 422, error=str(exc))
        return _keys_page(session, sid, status=201, new_key=made.api_key, made=f"New key {made.key_id}")

    @router.post("/me/keys/{key_id}/{action}")
    async def change_key(key_id: str, action: str, request: Request) -> Response:
        checked = guard(request, await _form(request))
        if isinstance(checked, Response):
            return checked
        session, sid = checked
        found = _id(key_id)
        if action not in ("rotate", "revoke") or found is None:
            return _private(not_found(f"key {key_id[:20]} of yours"))
        try:
            if action == "revoke":
                accounts.revoke_key(engine, session.identity.account_id, found)
            else:
                made = accounts.rotate_key(engine, session.identity.account_id, found)
        except NotFound:
            return _private(not_found(f"key {key_id[:20]} of yours"))
        if action == "rotate":
            if found == session.identity.key_id:
                move_session(engine, session, made.key_id)  # this browser stays signed in
            fresh = session_for(engine, sid)
            assert fresh is not None
            return _keys_page(fresh, sid, new_key=made.api_key,
                              made=f"Key {found} rotated: new key {made.key_id}")
        if found == session.identity.key_id:
            # the key this session signed in with: the session ends with it
            end_session(engine, sid)
            response = RedirectResponse("/signin", status_code=303)
            response.delete_cookie(COOKIE, path="/")
            return _private(response)
        return _private(RedirectResponse("/me/keys", status_code=303))

    return router


def _id(text: str) -> int | None:
    if not text.isdigit() or len(text) > 12:
        return None
    value = int(text)
    return value if queries.storable_id(value) else None
