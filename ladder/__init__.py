"""Ladder storage, ratings, match queue and the HTTP API.

Modules (see ``ladder/README.md``)::

    schema        the tables (SQLAlchemy Core); migrations/ creates them (Alembic)
    db            engines, DATABASE_URL, upgrade(url), write transactions
    elo           free-for-all Elo (pure functions; constants in RATINGS.md)
    bots          register_bot / authenticate_bot / add_bot_version
    ladders       create_ladder / join_ladder / upgrade_ladder
    seasons       close_season / seasons / season_page: rating periods, archived standings
    match_queue   enqueue_match / claim_match / renew_lease / requeue_expired
    recording     record_result: result + replay + ratings in one idempotent transaction
    queries       read-side queries for the API and the page
    api           create_app(engine): FastAPI JSON API, home page, /metrics
"""

import logging as _logging

# Alembic logs one INFO line per built-in plugin when it is imported (about ten lines at the start
# of every `arena beat` and `arena serve referee --db`, whose logs are at INFO); they say
# nothing to an operator. Migrations still log what they run (alembic.runtime.migration).
_logging.getLogger("alembic.runtime.plugins").setLevel(_logging.WARNING)
