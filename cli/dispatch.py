"""Where the commands' matches are played: in this process, on a local pool, or on Celery
workers (``BROKER_URL`` set: :attr:`referee.settings.Settings.distributed`, the one place that
is decided). Shared by ``arena tournament``, ``arena sprt`` and ``arena campaign``."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from referee.settings import current

__all__ = ["campaign_dispatcher", "dispatcher"]


@contextlib.contextmanager
def dispatcher(db_url: str, workers: int | None) -> Iterator[Any]:
    """In this process (0), Celery ($BROKER_URL), or the local pool (default)."""
    from workers.tournament import Inline

    if workers == 0:
        yield Inline(db_url)
        return
    if current().distributed:
        from workers.demo import _celery_dispatcher  # the demo's: reuse workers on the queue

        with _celery_dispatcher(workers or 1, db_url) as celery:
            yield celery
        return
    from workers.local_pool import DEFAULT_POOL_SIZE, LocalPool

    # the bots' crashes are reported once, with the entrant (_print_results), not per game
    with LocalPool(db_url, workers or DEFAULT_POOL_SIZE, log_level=logging.ERROR) as pool:
        yield pool  # an exception (an interrupt) terminates the pool instead of waiting for it


@contextlib.contextmanager
def campaign_dispatcher(db_url: str, workers: int) -> Iterator[Any]:
    """Celery when BROKER_URL is set, else a local pool of `workers` (0: in this process)."""
    if current().distributed:
        with dispatcher(db_url, max(1, workers)) as celery:
            yield celery
        return
    from workers.tournament import Inline

    if workers == 0:
        yield Inline(db_url)
        return
    from workers.local_pool import LocalPool

    with LocalPool(db_url, workers) as pool:  # an interrupt terminates it (LocalPool.__exit__)
        yield pool
