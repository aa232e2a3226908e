"""Prometheus metrics of the ladder's HTTP API, and the ASGI middleware that moves them.

* ``arena_api_requests_total{method,route,status}``: requests answered;
* ``arena_api_request_seconds{method,route}``: time to answer;
* ``arena_api_uploads_checking``: uploads being received and checked now (at most
  ``ApiLimits.concurrent_uploads`` a process).

`route` is the route's path template (``/api/bots/{bot_id}``), never the raw path, so the
number of series stays bounded; requests that match no route are counted as ``unmatched``.
``GET /metrics`` exposes the process's default registry, or, in Prometheus multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR`` set, as `arena demo` and `arena worker` do), the merge of every
process's samples, so the API also shows the match metrics of the worker processes.
"""

from __future__ import annotations

from time import perf_counter
from typing import Final

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.settings import current

__all__ = [
    "API_REQUESTS",
    "API_REQUEST_SECONDS",
    "API_UPLOADS_CHECKING",
    "UNMATCHED_ROUTE",
    "RequestMetrics",
    "exposed_registry",
]


def exposed_registry() -> CollectorRegistry:
    """What ``GET /metrics`` shows: every process's samples in multiprocess mode, else ours."""
    if not current().prometheus_multiproc_dir:
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged)  # type: ignore[no-untyped-call]
    return merged

UNMATCHED_ROUTE: Final = "unmatched"

API_REQUESTS: Final = Counter(
    "arena_api_requests",
    "HTTP API requests answered, by method, route template and status code.",
    ["method", "route", "status"],
)
API_REQUEST_SECONDS: Final = Histogram(
    "arena_api_request_seconds",
    "Time to answer an HTTP API request, by method and route template.",
    ["method", "route"],
)

API_UPLOADS_CHECKING: Final = Gauge(
    "arena_api_uploads_checking",
    "Uploads being received and checked now (ApiLimits.concurrent_uploads at most per process).",
    multiprocess_mode="livesum",
)


class RequestMetrics:
    """ASGI middleware counting and timing every HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap `app`."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, then count it under its route template and status."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # if the app raises before answering, the server answers 500

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        start = perf_counter()
        try:
            await self.app(scope, receive, send_and_note_status)
        finally:
            # the router stores the matched route in the (shared) scope
            route = getattr(scope.get("route"), "path", None) or UNMATCHED_ROUTE
            method = str(scope.get("method", ""))
            API_REQUESTS.labels(method=method, route=route, status=str(status)).inc()
            API_REQUEST_SECONDS.labels(method=method, route=route).observe(perf_counter() - start)
