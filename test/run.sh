#!/usr/bin/env bash
# Type-checks, then runs every test file with node's test runner (Node 20 does not expand
# globs or find .ts files itself, so the list is built here).
set -euo pipefail
cd "$(dirname "$0")/.."
npx --no-install tsc --noEmit -p .
mapfile -t files < <(find test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
exec node --import tsx --test --test-concurrency=2 "$@" "${files[@]}"
