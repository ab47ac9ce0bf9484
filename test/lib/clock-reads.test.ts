/**
 * Time of day is read at the edges only: everything else reads the `Clock` it was given
 * (`clock?: Clock` in its deps, defaulting to `liveClock`), so a test or a replay can say what time
 * it is. A `Date.now()` (or `new Date()` with no argument) anywhere else in src/ or actors/ fails
 * here, named by file and line. `performance.now()` measures durations and is not a clock read.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');

/** The edges, each with why a wall-clock read is the point there. */
const allowed = new Map<string, string>([
  ['src/lib/clock.ts', 'liveClock: the one reading of the machine clock that the rest inject'],
  [
    'src/store/bars-repo.ts',
    "row versions of ClickHouse's ReplacingMergeTree: they must grow across processes and restarts, whatever a replay's clock says",
  ],
]);

const clockRead = /\bDate\.now\b|\bnew Date\(\)/;

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });

/** `file:line: text` for each clock read outside a comment in `source`. */
export function clockReads(file: string, source: string): string[] {
  return source.split('\n').flatMap((line, i) => {
    const code = line.replace(/\/\/.*$/, '').trim();
    if (code.startsWith('*') || code.startsWith('/*')) return [];
    return clockRead.test(code) ? [`${file}:${i + 1}: ${line.trim()}`] : [];
  });
}

test('Date.now() appears only in the named edge files', () => {
  const found = ['src', 'actors']
    .flatMap((dir) => sourceFiles(join(root, dir)))
    .map((path) => relative(root, path))
    .filter((file) => !allowed.has(file))
    .flatMap((file) => clockReads(file, readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(found, [], `read the injected clock (deps.clock ?? liveClock, src/lib/clock.ts) instead of:\n${found.join('\n')}`);
});

test('the check sees a clock read and passes over comments', () => {
  assert.deepEqual(clockReads('x.ts', 'const t = Date.now();'), ['x.ts:1: const t = Date.now();']);
  assert.deepEqual(clockReads('x.ts', 'a;\nconst f = Date.now;'), ['x.ts:2: const f = Date.now;']);
  assert.deepEqual(clockReads('x.ts', 'const d = new Date();'), ['x.ts:1: const d = new Date();']);
  assert.deepEqual(clockReads('x.ts', '// Date.now() here\n * Date.now()\nnew Date(ts)'), []);
});

test('every allowed file still exists and still reads the clock (the list does not rot)', () => {
  for (const file of allowed.keys()) {
    const reads = clockReads(file, readFileSync(join(root, file), 'utf8'));
    assert.ok(reads.length > 0, `${file} no longer reads Date.now(): take it off the allowed list`);
  }
});
