"""The worker suite's real-stack fixtures (a private Redis queue, Celery worker processes)."""

from tests.workers.conftest import broker, worker_farm

__all__ = ["broker", "worker_farm"]
