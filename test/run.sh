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
# --test-force-exit: a file's process ends when its last test has, so a handle some test left open
# (a leak the shutdown tests should catch) cannot hang the whole run.
exec node --import tsx --test --test-concurrency=2 --test-force-exit "$@" "${files[@]}"
