"""`make multihost`: a season on three network-namespace "hosts" of this machine, one killed.

``python -m deploy.multihost [--matches N]`` (root: it makes network namespaces) builds

* ``db`` — a private PostgreSQL cluster (initdb into the run folder, password auth from the
  bridge) and Redis (password in its config file), the API (`arena serve api`, TLS) and the
  control process (`arena beat`);
* ``w1``, ``w2`` — each a Celery worker (`arena worker`), a referee (`arena serve referee --db`,
  TLS) and remote bots (the SDK's example bot with a bot token and a list of both referees),

on a bridge of its own (``10.213.<n>.0/24``; traffic stays on this machine). Each worker host
has its own hostname (a UTS namespace), so a worker's lease owner names its host. Secrets (the
database password, Redis password, admin token) go through the environment and files, never
the command line. The ladder holds hosted bots (the example bot, uploaded), remote bots (two
per worker host, each listing both referees, in different orders) and built-in bots.

The run: the matchmaker (`arena beat`) keeps the queue full (refilled on each completion);
first only ``w1``'s worker plays (matches/min on one host), then ``w2``'s too (on two); then
every process of ``w2`` is SIGKILLed mid-match (worker, referee, its remote bots). Its matches'
leases run out and the sweeper requeues them; matches ``w1`` was playing on ``w2``'s referee are
handed back at once (``workers.lease.HandBack``); remote bots that held a stream to ``w2``'s
referee reconnect to ``w1``'s. Once N matches are scheduled the matchmaker stops
(``ARENA_QUEUE_DEPTH=0``) and the run waits for every match to end, then prints one JSON line.

A status trigger (installed by the run in its private database) logs every match transition
with the database's clock; the figures come from it. Everything is torn down in a ``finally``
(and namespaces of earlier runs whose process is gone are removed at start).
"""

from deploy.multihost.run import MultihostReport, run_multihost

__all__ = ["MultihostReport", "run_multihost"]
