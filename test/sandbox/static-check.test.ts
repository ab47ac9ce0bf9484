/**
 * The AST check against a corpus of strategies. Each corpus file starts with
 * `# expect: ok` or `# expect: rule@line rule@line …`: the exact set of violations it must yield.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkStrategyCode, MAX_CODE_BYTES } from '../../src/sandbox/static-check.ts';
import { configureSandbox, sandboxSettings } from '../../src/sandbox/jail-command.ts';

const CORPUS = join(import.meta.dirname, 'corpus');
const files = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.py'))
  .sort();

function expected(source: string): string[] {
  const m = /^# expect: (.*)$/m.exec(source.split('\n')[0] ?? '');
  assert.ok(m, 'corpus file must start with "# expect: ..."');
  return m[1]!.trim() === 'ok' ? [] : m[1]!.trim().split(/\s+/).sort();
}

test('the corpus is big enough and has both kinds', () => {
  assert.ok(files.length >= 40, `only ${files.length} corpus files`);
  assert.ok(files.filter((f) => f.startsWith('valid_')).length >= 5);
  assert.ok(files.filter((f) => f.startsWith('bad_')).length >= 35);
});

for (const file of files) {
  test(`corpus ${file}`, async () => {
    const source = readFileSync(join(CORPUS, file), 'utf8');
    const want = expected(source);
    const result = await checkStrategyCode(source);
    const got = [...new Set(result.violations.map((v) => `${v.rule}@${v.line}`))].sort();
    assert.deepEqual(got, want, JSON.stringify(result.violations, null, 1));
    assert.equal(result.ok, want.length === 0);
    if (file.startsWith('bad_')) assert.ok(!result.ok, 'hostile code must be refused');
    for (const v of result.violations) {
      assert.ok(v.col >= 1 && v.hint.length > 0 && !v.hint.includes('\n'), `col and one-line hint: ${JSON.stringify(v)}`);
    }
  });
}

test('all violations come at once, in source order', async () => {
  const source = readFileSync(join(CORPUS, 'bad_three_problems.py'), 'utf8');
  const { violations } = await checkStrategyCode(source);
  assert.deepEqual(
    violations.map((v) => v.rule),
    ['negative-shift', 'cut-qcut', 'forbidden-builtin'],
  );
});

test('banned packages are named in the message', async () => {
  const source = readFileSync(join(CORPUS, 'bad_banned_many.py'), 'utf8');
  const { violations } = await checkStrategyCode(source);
  assert.deepEqual(
    violations.map((v) => /'(\w+)'/.exec(v.message)?.[1]),
    ['talib', 'ta', 'statsmodels'],
  );
});

test('columns count characters, not UTF-8 bytes', async () => {
  const source = readFileSync(join(CORPUS, 'bad_unicode_col.py'), 'utf8');
  const { violations } = await checkStrategyCode(source);
  assert.deepEqual(
    violations.map((v) => [v.line, v.col]),
    [[7, 18]],
  );
});

test('a syntax error is one violation at its position', async () => {
  const { violations } = await checkStrategyCode('def feature_engineering(df, close, open_, high, low):\n    return df[\n');
  assert.equal(violations.length, 1);
  assert.equal(violations[0]!.rule, 'syntax');
  assert.equal(violations[0]!.line, 2);
});

test('null bytes and empty code are answered, not crashed on', async () => {
  assert.equal((await checkStrategyCode('x = 1\0')).violations[0]!.rule, 'syntax');
  const empty = await checkStrategyCode('');
  assert.deepEqual(
    empty.violations.map((v) => v.rule),
    ['missing-function', 'missing-function'],
  );
});

test('deeply nested code is refused, not a checker crash', async () => {
  const { ok } = await checkStrategyCode(`x = ${'('.repeat(5000)}1${')'.repeat(5000)}\n`);
  assert.equal(ok, false);
});

test('code over the size limit is refused without running the checker', async () => {
  const result = await checkStrategyCode('#'.repeat(MAX_CODE_BYTES + 1));
  assert.deepEqual(
    result.violations.map((v) => v.rule),
    ['too-large'],
  );
});

test('a missing interpreter is an UnavailableError, not a pass', async () => {
  const saved = sandboxSettings();
  configureSandbox({ python: '/usr/nonexistent/python3' });
  try {
    await assert.rejects(checkStrategyCode('x = 1\n'), { name: 'UnavailableError' });
  } finally {
    configureSandbox(saved);
  }
});
