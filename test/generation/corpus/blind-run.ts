/**
 * One blind set scored on its own and reported honestly: every miss is printed with its prompt and
 * failed checks, and the mean case score is held at or above the set's first, blind run, so the
 * reading of fresh words cannot slip back below it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IntentCase } from './intent-corpus.ts';
import { scoreByCategory, scoreCase } from './score.ts';

export function blindSetTest(label: string, cases: readonly IntentCase[], firstRun: number, minPrompts: number): void {
  test(`${label}: traders' own words are understood as they mean them`, (t) => {
    const ids = new Set(cases.map((c) => c.id));
    assert.equal(ids.size, cases.length, 'ids must be unique');
    assert.ok(
      cases.every((c) => c.category === 'blind'),
      'every case is in the blind category',
    );
    assert.ok(ids.size >= minPrompts, `at least ${minPrompts} prompts (got ${ids.size})`);

    const results = cases.map(scoreCase);
    const { blind } = scoreByCategory(results);
    assert.ok(blind, 'the blind category is scored');
    const prompts = new Map(cases.map((c) => [c.id, c.prompt]));
    t.diagnostic(`${label}: ${blind.cases} prompts, ${blind.checks} checks, mean case score ${blind.score}`);
    for (const r of results) {
      if (!r.failed.length) continue;
      t.diagnostic(`${r.id} (${r.checks - r.failed.length}/${r.checks}) "${prompts.get(r.id)}"`);
      for (const miss of r.failed) t.diagnostic(`  ${r.id} miss: ${miss}`);
    }
    assert.equal(blind.cases, cases.length);
    assert.ok(blind.score >= firstRun, `mean case score ${blind.score} fell below its first, blind run (${firstRun})`);
  });
}
