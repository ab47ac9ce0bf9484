/**
 * The third blind set (issue 35), scored on its own and reported honestly: every miss is printed
 * with its prompt and failed checks. These prompts are not tuning data. Its first run, the honest
 * measure, scored 0.942 against the goal of 0.95 (bench generator-intent reports the score
 * and the goal); this test holds that floor so the reading of fresh words cannot slip back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND_SET_3 } from './blind-set-3.ts';
import { scoreByCategory, scoreCase } from './score.ts';

/** The score of the first run, before anyone read these prompts' misses. */
const FIRST_RUN = 0.942;

test('blind set 3: traders\' own words are understood as they mean them', (t) => {
  const ids = new Set(BLIND_SET_3.map((c) => c.id));
  assert.equal(ids.size, BLIND_SET_3.length, 'ids must be unique');
  assert.ok(BLIND_SET_3.every((c) => c.category === 'blind'), 'every case is in the blind category');
  assert.ok(ids.size >= 70, `at least 70 prompts (got ${ids.size})`);

  const results = BLIND_SET_3.map(scoreCase);
  const { blind } = scoreByCategory(results);
  assert.ok(blind, 'the blind category is scored');
  const prompts = new Map(BLIND_SET_3.map((c) => [c.id, c.prompt]));
  t.diagnostic(`blind set 3: ${blind.cases} prompts, ${blind.checks} checks, mean case score ${blind.score}`);
  for (const r of results) {
    if (!r.failed.length) continue;
    t.diagnostic(`${r.id} (${r.checks - r.failed.length}/${r.checks}) "${prompts.get(r.id)}"`);
    for (const miss of r.failed) t.diagnostic(`  ${r.id} miss: ${miss}`);
  }
  assert.equal(blind.cases, BLIND_SET_3.length);
  assert.ok(blind.score >= FIRST_RUN, `mean case score ${blind.score} fell below its first, blind run (${FIRST_RUN})`);
});
