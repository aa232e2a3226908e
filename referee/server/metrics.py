"""Prometheus metrics of the gRPC referee (`arena serve referee --metrics-port P`).

Named `arena_referee_*` so they never add up with the workers' `arena_matches_*` (a ladder match
run by a worker on a referee is counted once by each, as two different things):

* `arena_referee_matches_started_total{game}` / `arena_referee_matches_finished_total{game,ended_by}`
* `arena_referee_match_duration_seconds{game}`
* `arena_referee_active_matches`
* `arena_referee_decision_seconds{game}`: a bot's answer time, as the referee measured it
* `arena_referee_decision_cpu_seconds{game}`: a bot's CPU time on a decision (measured seats)
* `arena_referee_timeouts_total{game}`, `arena_referee_strikes_total{game,reason}`
* `arena_referee_cpu_timeouts_total{game}`: decisions ruled out of CPU time (strike `cpu_time`)
* `arena_referee_forfeits_total{game,reason}`: reason is the short kind (`crashed`,
  `disconnected`, `strikes`, ...), the full text is in the replay.
* `arena_referee_auth_failures_total{kind}`: failed authentications (`admin`, `seat`, `token`:
  an unknown seat-or-bot token, `none`: no token); `arena_referee_auth_refused_total`: calls
  refused because their address is over the failed-authentication limit.
* `arena_referee_process_restarts{process}`: a child of `serve referee --processes N`, process
  `i`: how many times its supervisor restarted process `i` (the count is the supervisor's, given
  to each child it starts: referee/server/processes.py); absent outside a supervised group.
"""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter, Gauge, Histogram

__all__ = [
    "ACTIVE_MATCHES",
    "AUTH_FAILURES",
    "AUTH_REFUSED",
    "CPU_TIMEOUTS",
    "DECISION_CPU_SECONDS",
    "DECISION_SECONDS",
    "FORFEITS",
    "MATCHES_FINISHED",
    "MATCHES_STARTED",
    "MATCH_SECONDS",
    "PROCESS_RESTARTS",
    "STRIKES",
    "TIMEOUTS",
    "short_reason",
]

MATCHES_STARTED: Final = Counter("arena_referee_matches_started", "Matches started by the referee.", ["game"])
MATCHES_FINISHED: Final = Counter(
    "arena_referee_matches_finished", "Matches the referee ended, by how they ended.", ["game", "ended_by"]
)
MATCH_SECONDS: Final = Histogram(
    "arena_referee_match_duration_seconds",
    "Wall time of a match on the referee.",
    ["game"],
    buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600),
)
ACTIVE_MATCHES: Final = Gauge("arena_referee_active_matches", "Matches running on this referee now.")
DECISION_SECONDS: Final = Histogram(
    "arena_referee_decision_seconds",
    "Time a bot took to answer a decision.",
    ["game"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
DECISION_CPU_SECONDS: Final = Histogram(
    "arena_referee_decision_cpu_seconds",
    "CPU time a bot used on a decision (seats whose launcher measures it).",
    ["game"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
TIMEOUTS: Final = Counter("arena_referee_timeouts", "Decisions that ran out of time.", ["game"])
CPU_TIMEOUTS: Final = Counter("arena_referee_cpu_timeouts", "Decisions that ran out of CPU time.", ["game"])
STRIKES: Final = Counter("arena_referee_strikes", "Strikes given, by reason.", ["game", "reason"])
FORFEITS: Final = Counter("arena_referee_forfeits", "Seats forfeited, by reason.", ["game", "reason"])
AUTH_FAILURES: Final = Counter(
    "arena_referee_auth_failures", "Failed authentications, by what was presented.", ["kind"]
)
AUTH_REFUSED: Final = Counter(
    "arena_referee_auth_refused", "Calls refused: their address is over the failed-authentication limit."
)

PROCESS_RESTARTS: Final = Gauge(
    "arena_referee_process_restarts",
    "Times the supervisor of `serve referee --processes N` restarted this process's slot.",
    ["process"],
)


def short_reason(reason: str) -> str:
    """The kind of a reason text ("crashed: exit code 3" -> "crashed"), for a bounded label."""
    return reason.split(":", 1)[0].strip() or "unknown"
