"""The benchmarks: figures, not pass/fail (``make bench``). Each module measures one part of the
platform beside a reference measured in the same run, and prints both with their ratio:

    engines         ``python -m bench.engines`` (``make bench``): the engines vs RLCard's Uno
    replay          ``python -m bench.replay``: replay bytes per decision and recorder cost
    referee_server  ``python -m bench.referee_server`` (``make bench-referee``): the gRPC referee
    sandbox         ``python -m bench.sandbox`` (``make bench-sandbox``): the hosted-bot sandbox
    workers         ``python -m bench.workers`` (``make bench``): matches/min on the workers
    tournament      ``python -m bench.tournament``: competitions on built-in bots
    api             ``python -m bench.api``: the standings endpoint, with and without auth
    recording       ``python -m bench.recording`` (``make bench-recording``): recording results
    web             ``python -m bench.web``: the ladder page at scale, a long replay

``bench.pages`` is the part of ``bench.api --matches`` that seeds and times the pages;
``bench.scratch`` is the throw-away PostgreSQL database the ladder benches seed.

They sit apart from the product packages (they import the components, none imports them);
tests that check what a bench measures import them from here.
"""
