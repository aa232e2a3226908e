"""Prometheus metrics of match execution, matchmaking and the sweeper (all named ``arena_*``).

* ``arena_matches_started_total{game}``: matches claimed by a worker;
* ``arena_matches_finished_total{game,outcome}``: results recorded (`outcome`: ``finished``
  when the game ran to its end, ``forfeit`` when a seat forfeited);
* ``arena_matches_failed_total{game,reason}``: matches given up (`reason`: ``error``,
  ``unavailable``, ``time_limit``, ``lease_expired``, ``bad_match``);
* ``arena_match_duration_seconds{game}``: claim to recorded result;
* ``arena_decision_seconds{game}``: one bot decision, as the referee measured it;
* ``arena_timeouts_total{game}``: decisions that missed their deadline;
* ``arena_forfeits_total{game,reason}``: seats forfeited, by why;
* ``arena_queue_depth{ladder}``: queued matches, as the matchmaker last saw them;
* ``arena_rating_updates_total{game}``: bot ratings changed by recorded results;
* ``arena_matches_requeued_total``: matches the sweeper put back in the queue;
* ``arena_qualifications_total{game,outcome}``: qualifications of new bot versions ended
  (`outcome`: ``passed``, ``failed``, ``retry`` when the platform could not play them).

Celery runs tasks in forked pool processes, so the workers use prometheus_client's
multiprocess mode: set ``PROMETHEUS_MULTIPROC_DIR`` to an empty, writable folder before the
worker starts (``arena worker`` does it for you) and every process writes its samples there;
:func:`registry` merges them and :func:`serve_metrics` exposes the merge over HTTP. Without the
variable the metrics live in the process's default registry (the embedded demo, tests).
"""

from __future__ import annotations

from typing import Final

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess
from prometheus_client.exposition import start_http_server

__all__ = [
    "DECISION_SECONDS",
    "FORFEITS",
    "MATCHES_FAILED",
    "MATCHES_FINISHED",
    "MATCHES_PARKED",
    "MATCHES_REQUEUED",
    "MATCHES_STARTED",
    "MATCH_DURATION_SECONDS",
    "QUALIFICATIONS",
    "QUEUE_DEPTH",
    "RATING_UPDATES",
    "TIMEOUTS",
    "mark_process_dead",
    "multiprocess_enabled",
    "registry",
    "serve_metrics",
]

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"

MATCHES_STARTED: Final = Counter(
    "arena_matches_started", "Matches claimed by a worker, by game.", ["game"]
)
MATCHES_FINISHED: Final = Counter(
    "arena_matches_finished", "Match results recorded, by game and outcome.", ["game", "outcome"]
)
MATCHES_FAILED: Final = Counter(
    "arena_matches_failed", "Matches given up, by game and reason.", ["game", "reason"]
)
MATCH_DURATION_SECONDS: Final = Histogram(
    "arena_match_duration_seconds",
    "Time from claiming a match to recording its result, by game.",
    ["game"],
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800),
)
DECISION_SECONDS: Final = Histogram(
    "arena_decision_seconds",
    "Time a bot took to answer one decision, by game.",
    ["game"],
    buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
TIMEOUTS: Final = Counter(
    "arena_timeouts", "Decisions that missed their deadline, by game.", ["game"]
)
FORFEITS: Final = Counter(
    "arena_forfeits", "Seats forfeited, by game and reason.", ["game", "reason"]
)
QUEUE_DEPTH: Final = Gauge(
    "arena_queue_depth",
    "Queued matches on a ladder when the matchmaker last looked.",
    ["ladder"],
    multiprocess_mode="mostrecent",
)
RATING_UPDATES: Final = Counter(
    "arena_rating_updates", "Bot ratings changed by recorded results, by game.", ["game"]
)
MATCHES_REQUEUED: Final = Counter(
    "arena_matches_requeued", "Matches put back in the queue after their lease expired."
)
MATCHES_PARKED: Final = Counter(
    "arena_matches_parked",
    "Matches parked for an operator: their platform faults reached the budget, by game.",
    ["game"],
)

QUALIFICATIONS: Final = Counter(
    "arena_qualifications",
    "Qualifications of new bot versions that ended, by game and outcome (passed, failed, retry).",
    ["game", "outcome"],
)


def multiprocess_enabled() -> bool:
    """True when this process writes its samples to ``$PROMETHEUS_MULTIPROC_DIR``."""
    from referee.settings import current

    return bool(current().prometheus_multiproc_dir)


def registry() -> CollectorRegistry:
    """The registry to expose: every process's samples in multiprocess mode, else this one's."""
    if not multiprocess_enabled():
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged)  # type: ignore[no-untyped-call]
    return merged


def serve_metrics(port: int, addr: str = "0.0.0.0") -> None:
    """Expose :func:`registry` on ``http://addr:port/metrics`` from a background thread."""
    start_http_server(port, addr=addr, registry=registry())


def mark_process_dead(pid: int) -> None:
    """Drop a finished process's live gauges (call when a pool process exits)."""
    if multiprocess_enabled():
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
