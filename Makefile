# Arena — `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: help install services test test-fast check lint typecheck bench bench-ismcts demo clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,lab]'
	touch $(STAMP)

# the bench extra (RLCard, numpy) apart: `make test` does not need it
BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[dev,bench]'
	touch $(BENCH_STAMP)

install: $(STAMP) $(BENCH_STAMP)  ## create .venv and install Arena with its dev tools and the bench's references

services:  ## start PostgreSQL and Redis if they are not running; install the sandbox's tools and chromium
	bash deploy/ensure-services.sh
	bash deploy/ensure-sandbox.sh
	bash deploy/ensure-browser.sh

test: $(STAMP) services  ## what CI runs: ruff, mypy --strict and the whole test suite (tests/run_suite.sh)
	VENV=$(VENV) bash tests/run_suite.sh

# the engine suites (tests/run_suite.sh's ENGINE_SUITES) and unit tests that start no service
FAST_TESTS = tests/clank tests/alien tests/clank_legacy tests/clank_core tests/test_conformance.py \
	tests/test_layers.py tests/test_engine_versions.py tests/test_settings.py \
	tests/referee/test_static_content.py tests/referee/test_codecs.py tests/referee/test_rulings.py

test-fast: $(STAMP)  ## engine + unit tiers only, no PostgreSQL/Redis/Celery/sandbox/browser
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider -m "not idle" $(FAST_TESTS)

lint: $(STAMP)  ## ruff
	$(VENV)/bin/ruff check referee bots workers ladder bench cli tests

typecheck: $(STAMP)  ## mypy --strict on the packages
	$(VENV)/bin/mypy

check: lint typecheck test  ## everything CI checks, plus lint and types

bench: $(BENCH_STAMP)  ## benchmarks (figures, not pass/fail)
	$(PY) -m bench.engines
	$(PY) -m bench.lab
	$(PY) -m bench.workers

bench-ismcts: $(STAMP)  ## builtin:ismcts vs coop, Alien 2p, 200 paired seeds at 4 samples a decision (~1 CPU-hour)
	$(PY) -m bench.ismcts_alien --games 200 --iterations 4 --jobs 2

demo: $(STAMP)  ## play a local ladder season on embedded defaults
	$(VENV)/bin/arena demo

clean:  ## remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

# --- gRPC referee, bot SDKs (referee/server, bots/python, bots/javascript) -------------------
JS_KIT := bots/javascript
JS_STAMP := $(JS_KIT)/node_modules/.installed

.PHONY: golden proto js bench-referee

golden: $(STAMP)  ## write the golden replays of GAME's new engine version: make golden GAME=clank (tests/golden/README.md)
	$(PY) tests/golden/make_golden.py $(GAME)

proto: $(STAMP)  ## regenerate the Python stubs from proto/ (SDK's and referee's copies, proto/README.md)
	$(PY) proto/generate.py

$(JS_STAMP): $(JS_KIT)/package.json $(JS_KIT)/package-lock.json
	cd $(JS_KIT) && npm ci --no-audit --no-fund
	touch $@

js: $(JS_STAMP)  ## install the JavaScript bot kit's packages (npm ci)

test: $(JS_STAMP)

bench-referee: $(STAMP)  ## gRPC referee: decision round trip and concurrent matches, each vs a bare echo in the same run
	$(PY) -m bench.referee_server

bench: bench-referee

.PHONY: bench-sandbox
bench-sandbox: $(STAMP) services  ## hosted-bot sandbox: start-up, per-decision overhead, memory per bot, vs plain processes
	$(PY) -m bench.sandbox

bench: bench-sandbox

.PHONY: bench-recording
bench-recording: $(STAMP) services  ## ladder: record_result vs a raw-SQL transaction of the same shape, 8 writer processes (PostgreSQL)
	$(PY) -m bench.recording

bench: bench-recording

# --- several hosts: network-namespace hosts, a season, one host killed (deploy/multihost) ------
.PHONY: multihost

multihost: $(STAMP)  ## three netns hosts (db, 2 workers+referees+remote bots), 100+ matches, one host killed; one JSON line (root)
	$(PY) -m deploy.multihost --matches 100 --phase-seconds 30

# --- deployment files (deploy/: compose, Kubernetes, Prometheus) -----------------------------
.PHONY: deploy-tools deploy-check

deploy-tools:  ## install promtool and docker-compose (Debian) if missing, for deploy-check
	bash deploy/ensure-deploy-tools.sh

# tests/deploy runs the same checks, so the test suite needs the tools too
services: deploy-tools

deploy-check: $(STAMP) deploy-tools  ## validate deploy/ with promtool, the Kubernetes and Compose schemas, and against the code
	$(PY) -m deploy.checks
