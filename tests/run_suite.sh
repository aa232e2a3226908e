#!/usr/bin/env bash
# What `make test` (and so CI) runs: ruff, mypy --strict and the whole test suite.
#
# Tests marked `idle` mostly wait (a remote bot held idle in the lobby for three minutes, to prove
# the keepalive policies agree): they run in a second pytest process beside the main one, and mypy
# beside them too, so their waiting costs no wall time. Every test still runs, every time; the
# exit code is non-zero if any part fails.
set -u
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
"$VENV/bin/ruff" check referee bots workers ladder tests || exit 1
side=$(mktemp -d)
trap 'rm -rf "$side"' EXIT
("$VENV/bin/mypy" >"$side/mypy.out" 2>&1; echo $? >"$side/mypy.rc") &
("$VENV/bin/python" -m pytest -q -p no:cacheprovider -m idle >"$side/idle.out" 2>&1
 echo $? >"$side/idle.rc") &
"$VENV/bin/python" -m pytest -q --durations=25 -m "not idle"
main_rc=$?
wait
echo "--- mypy --strict"
cat "$side/mypy.out"
echo "--- the tests marked idle (run beside the main suite)"
cat "$side/idle.out"
mypy_rc=$(cat "$side/mypy.rc")
idle_rc=$(cat "$side/idle.rc")
echo "--- exit codes: tests $main_rc, idle tests $idle_rc, mypy $mypy_rc"
[ "$main_rc" = 0 ] && [ "$idle_rc" = 0 ] && [ "$mypy_rc" = 0 ]
