/**
 * Issue 35's goal on the second blind set: prompts written after the change, apart from the tuning
 * corpus, are read as the traders mean them (a mean case score of at least 0.95). The score and
 * every miss are printed, so the figure reported is this one, honestly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND_SET_2 } from './blind-set-2.ts';
import { scoreByCategory, scoreCase } from './score.ts';

test('the second blind set has at least 70 prompts, each with its own id, all in the blind category', () => {
  const ids = new Set(BLIND_SET_2.map((c) => c.id));
  assert.equal(ids.size, BLIND_SET_2.length, 'every id is unique');
  assert.ok(ids.size >= 70, `at least 70 prompts (has ${ids.size})`);
  assert.ok(
    BLIND_SET_2.every((c) => c.category === 'blind'),
    'every case is in the blind category',
  );
});

test('the second blind set is read as the traders mean it: mean case score >= 0.95', (t) => {
  const results = BLIND_SET_2.map(scoreCase);
  const { blind } = scoreByCategory(results);
  assert.ok(blind, 'the set was scored');
  t.diagnostic(`blind set 2: ${blind.cases} prompts, ${blind.checks} checks, mean case score ${blind.score}`);
  const prompts = new Map(BLIND_SET_2.map((c) => [c.id, c.prompt]));
  for (const r of results) {
    if (!r.failed.length) continue;
    t.diagnostic(`${r.id} (${r.checks - r.failed.length}/${r.checks}) "${prompts.get(r.id)}"`);
    for (const miss of r.failed) t.diagnostic(`  ${r.id} miss: ${miss}`);
  }
  assert.ok(blind.score >= 0.95, `mean case score ${blind.score} is under 0.95 (the misses are listed above)`);
});
