#!/usr/bin/env bash
# What `make test` (and so CI) runs: ruff, mypy --strict and the whole test suite.
#
# The machine has two cores and most of the suite waits on processes, sockets and databases, so
# the suite runs as three pytest processes side by side, plus mypy:
# - the main process: everything not listed below;
# - the engine process: the pure engine suites (rules, conformance, leak, replay files), which
#   are CPU-bound and touch no service, so they cannot collide with the main process;
# - the idle process: tests marked `idle` (a remote bot held idle in the lobby for three minutes,
#   to prove the keepalive policies agree), which mostly wait.
# Every test still runs, every time; the exit code is non-zero if any part fails.
set -u
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
"$VENV/bin/ruff" check referee bots workers ladder bench tests || exit 1
# The engine suites: pure Python over the engines, no services, no fixed ports.
ENGINE_SUITES=(tests/clank tests/alien tests/clank_legacy tests/test_conformance.py)
ignore_engine=()
for suite in "${ENGINE_SUITES[@]}"; do ignore_engine+=("--ignore=$suite"); done
side=$(mktemp -d)
trap 'rm -rf "$side"' EXIT
("$VENV/bin/mypy" >"$side/mypy.out" 2>&1; echo $? >"$side/mypy.rc") &
("$VENV/bin/python" -m pytest -q -p no:cacheprovider -m idle >"$side/idle.out" 2>&1
 echo $? >"$side/idle.rc") &
("$VENV/bin/python" -m pytest -q -p no:cacheprovider --durations=10 -m "not idle" "${ENGINE_SUITES[@]}" \
   >"$side/engine.out" 2>&1
 echo $? >"$side/engine.rc") &
"$VENV/bin/python" -m pytest -q --durations=25 -m "not idle" "${ignore_engine[@]}"
main_rc=$?
wait
echo "--- mypy --strict"
cat "$side/mypy.out"
echo "--- the engine suites (run beside the main suite): ${ENGINE_SUITES[*]}"
cat "$side/engine.out"
echo "--- the tests marked idle (run beside the main suite)"
cat "$side/idle.out"
mypy_rc=$(cat "$side/mypy.rc")
idle_rc=$(cat "$side/idle.rc")
engine_rc=$(cat "$side/engine.rc")
echo "--- exit codes: tests $main_rc, engine tests $engine_rc, idle tests $idle_rc, mypy $mypy_rc"
[ "$main_rc" = 0 ] && [ "$engine_rc" = 0 ] && [ "$idle_rc" = 0 ] && [ "$mypy_rc" = 0 ]
