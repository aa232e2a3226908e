#!/usr/bin/env bash
# What `make test` (and so CI) runs: ruff, mypy --strict and the whole test suite.
#
# The machine has two cores and most of the suite waits on processes, sockets and databases, so
# the suite runs as three pytest processes side by side, plus mypy:
# - the main lane: everything not listed below (the referee, the workers, the sandbox, the CLI);
# - the second lane: first the pure engine and lab suites (rules, conformance, leak, replay
#   files, determinizers, search: CPU-bound, no services, no fixed ports), then the ladder,
#   competition, web, deployment, multi-host and CLI-error tests. Those make their own databases,
#   queues and ports
#   (tests/databases.py, tests/workers/conftest.py), so they share nothing with the main lane
#   but the PostgreSQL and Redis servers, as two users of one platform would;
# - the idle lane: tests marked `idle` (a remote bot held idle in the lobby for three minutes,
#   to prove the keepalive policies agree), which mostly wait.
# Every test still runs, every time; the exit code is non-zero if any part fails.
set -u
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
"$VENV/bin/ruff" check referee bots workers ladder bench cli tests || exit 1
# The engine suites: pure Python over the engines, no services, no fixed ports.
ENGINE_SUITES=(tests/clank tests/alien tests/clank_legacy tests/clank_core tests/test_conformance.py tests/lab
               tests/test_ismcts.py tests/test_fastcopy.py)
# the multi-host drill and the CLI error tests (about 3 min) go to the second lane too: at
# f6d409a the main lane took 27.5 min and the second 14.4 (a loaded machine)
SECOND_LANE=("${ENGINE_SUITES[@]}" tests/competitions tests/ladder tests/web tests/deploy tests/multihost
             tests/test_cli_errors.py)
ignore_second=()
for suite in "${SECOND_LANE[@]}"; do ignore_second+=("--ignore=$suite"); done
side=$(mktemp -d)
trap 'rm -rf "$side"' EXIT
("$VENV/bin/mypy" >"$side/mypy.out" 2>&1; echo $? >"$side/mypy.rc") &
("$VENV/bin/python" -m pytest -q -p no:cacheprovider -m idle >"$side/idle.out" 2>&1
 echo $? >"$side/idle.rc") &
("$VENV/bin/python" -m pytest -q -p no:cacheprovider --durations=15 -m "not idle" "${SECOND_LANE[@]}" \
   >"$side/second.out" 2>&1
 echo $? >"$side/second.rc") &
"$VENV/bin/python" -m pytest -q --durations=25 -m "not idle" "${ignore_second[@]}"
main_rc=$?
wait
echo "--- mypy --strict"
cat "$side/mypy.out"
echo "--- the second lane (run beside the main lane): ${SECOND_LANE[*]}"
cat "$side/second.out"
echo "--- the tests marked idle (run beside the main suite)"
cat "$side/idle.out"
mypy_rc=$(cat "$side/mypy.rc")
idle_rc=$(cat "$side/idle.rc")
second_rc=$(cat "$side/second.rc")
echo "--- exit codes: main lane $main_rc, second lane $second_rc, idle lane $idle_rc, mypy $mypy_rc"
[ "$main_rc" = 0 ] && [ "$second_rc" = 0 ] && [ "$idle_rc" = 0 ] && [ "$mypy_rc" = 0 ]
