/**
 * The fifth blind set (issue 35), scored on its own and reported honestly: every miss is printed
 * with its prompt and failed checks. These prompts are not tuning data. FIRST_RUN holds the score
 * of its first, blind run, so the reading of fresh words cannot slip back below it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND_SET_5 } from './blind-set-5.ts';
import { scoreByCategory, scoreCase } from './score.ts';

/** The score of the first run (0.9117 over 90 prompts, 706 checks), before anyone read these prompts' misses. */
const FIRST_RUN = 0.911;

test('blind set 5: traders\' own words are understood as they mean them', (t) => {
  const ids = new Set(BLIND_SET_5.map((c) => c.id));
  assert.equal(ids.size, BLIND_SET_5.length, 'ids must be unique');
  assert.ok(BLIND_SET_5.every((c) => c.category === 'blind'), 'every case is in the blind category');
  assert.ok(ids.size >= 80, `at least 80 prompts (got ${ids.size})`);

  const results = BLIND_SET_5.map(scoreCase);
  const { blind } = scoreByCategory(results);
  assert.ok(blind, 'the blind category is scored');
  const prompts = new Map(BLIND_SET_5.map((c) => [c.id, c.prompt]));
  t.diagnostic(`blind set 5: ${blind.cases} prompts, ${blind.checks} checks, mean case score ${blind.score}`);
  for (const r of results) {
    if (!r.failed.length) continue;
    t.diagnostic(`${r.id} (${r.checks - r.failed.length}/${r.checks}) "${prompts.get(r.id)}"`);
    for (const miss of r.failed) t.diagnostic(`  ${r.id} miss: ${miss}`);
  }
  assert.equal(blind.cases, BLIND_SET_5.length);
  assert.ok(blind.score >= FIRST_RUN, `mean case score ${blind.score} fell below its first, blind run (${FIRST_RUN})`);
});
