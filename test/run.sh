#!/usr/bin/env bash
# Type-checks, checks the format (prettier), checks the import boundaries (test/boundaries: layering, cycles, barrels, the NATS
# client only in src/bus), then runs every test file with node's test runner (Node 20 does not
# expand globs or find .ts files itself, so the list is built here).
set -euo pipefail
cd "$(dirname "$0")/.."
npx --no-install tsc --noEmit -p .
# One format (.prettierrc.json): a file off it fails here, with its name; `npx prettier --write <file>` fixes it.
npx --no-install prettier --check --log-level warn '**/*.{ts,mjs,js}'
node --import tsx test/boundaries/check.ts
mapfile -t files < <(find test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
# The run's output is kept, so that a failed run ends with what failed: CI shows only the end of a
# long log, and a failing hook (its tests "cancelled") is otherwise found only far above it.
log="$(mktemp -t signalforge-test-XXXXXX.log)"
# --test-force-exit: a file's process ends when its last test has, so a handle some test left open
# (a leak the shutdown tests should catch) cannot hang the whole run.
set +e
node --import tsx --test --test-concurrency=2 --test-force-exit "$@" "${files[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "# ---- what failed (exit $status), from the output above ----"
  node test/failures.mjs "$log"
fi
rm -f "$log"
exit "$status"
