/**
 * The boundary check `npm test` runs before the tests (test/run.sh): prints every import that
 * breaks the layering (rules.ts; test/boundaries/README.md) and exits 1 when there is one.
 * Usage: node --import tsx test/boundaries/check.ts [ROOT]
 */
import { resolve } from 'node:path';
import { checkBoundaries } from './rules.ts';

const root = resolve(process.argv[2] ?? new URL('../..', import.meta.url).pathname);
const violations = checkBoundaries(root);
for (const v of violations) process.stderr.write(`boundaries: ${v.rule}: ${v.at}: ${v.message}\n`);
if (violations.length > 0) {
  process.stderr.write(`boundaries: ${violations.length} import(s) against the layering (test/boundaries/rules.ts)\n`);
  process.exit(1);
}
process.stdout.write('boundaries: every import follows the layering\n');
