#!/usr/bin/env bash
# `make test`'s body, once the stack is up: the integration tests in the foreground and, beside them, the
# checks that need no stack (lint, then the unit tests). The integration tests spend much of their time
# waiting on OpenSearch and DynamoDB, so on two cores the CPU-bound checks fit in that time instead of
# adding to it. The side's output is printed after the integration tests' (not interleaved with it), and
# the exit status is non-zero if either failed. Usage: dev/run_tests.sh PYTHON [PYTEST_ARGS...]
set -uo pipefail
py=$1
shift
side_log=$(mktemp "${TMPDIR:-/tmp}/retrieval-checks.XXXXXX")
trap 'rm -f "$side_log"' EXIT

(
  make --no-print-directory lint &&
    "$py" -m pytest tests/unit -p no:cacheprovider "$@"
) >"$side_log" 2>&1 &
side=$!

status=0
"$py" -m pytest tests --ignore=tests/unit "$@" || status=$?
side_status=0
wait "$side" || side_status=$?

echo "=== lint and unit tests (run beside the integration tests) ==="
cat "$side_log"
if [ "$side_status" -ne 0 ]; then
  echo "lint or unit tests failed (exit $side_status)"
  status=$side_status
fi
exit "$status"
