"""Running ladder matches: the match function, its executors, matchmaking, the sweeper.

Modules (see ``workers/README.md``)::

    bot_commands     what a bot version's ``command`` means (built-in, hosted, remote)
    executor         MatchExecutor: the seam between a match and whoever plays it
    match_execution  run_match(db_url, match_id, worker_id): claim, play, record, exactly once
    matchmaker       pairing (pure) and keeping each ladder's queue at its target depth
    sweeper          requeue matches whose lease expired and dispatch them again
    local_pool       the embedded default: a process pool calling run_match
    celery_app       the production default: Celery tasks arena.* over a Redis broker
    season           play N matches on a ladder with either dispatcher (the demo, tests)
    demo             ``arena demo``
    metrics          Prometheus metrics (``arena_*``), multiprocess-aware
    campaign_play    a stored campaign played game after game (``arena campaign``, campaign ladders)

The ``arena`` command's modules are in ``cli/``, the HTTP API's client in ``ladder/client.py``,
the benchmarks in ``bench/``.
"""
