"""The ``arena`` command: its composition root and the commands of the ladder side.

    main        the composition root (pyproject's ``arena`` script): wires every component's
                commands together, the referee's (``referee/cli.py``,
                ``referee/server/commands.py``) and these
    ladder      demo, db, serve api, worker, beat, audit, bot rename (the operator's side)
    tournament  sprt, tournament
    campaign    campaign run|resume
    client      login, logout, account, bot create|upload|remote|status|logs, ladder (a bot
                author's side, over the ladder's HTTP API: ``ladder/client.py``)

It sits on top of every component (referee, ladder, workers); none imports it
(tests/test_layers.py). What the commands run lives in those components: the Celery tasks,
matchmaker and campaign playing in ``workers/``, the HTTP client beside the API in ``ladder/``.
"""
