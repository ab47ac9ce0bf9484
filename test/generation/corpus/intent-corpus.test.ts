/**
 * The intent corpus (intent-corpus.ts: over 300 prompts in trader styles) read from the prompt
 * alone, as POST /generate reads a description: the intent score per category (the share of each
 * case's expectations that hold: market, direction, columns, session, days, roles, model…) is at
 * least 98 %, and every prompt's code passes the static check and the strategy_config schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StrategyConfig } from '../../../schemas/strategy.ts';
import { withMarket } from '../../../src/generation/market-mention.ts';
import { generateOffline } from '../../../src/generation/offline/index.ts';
import { checkStrategyCode } from '../../../src/sandbox/static-check.ts';
import { INTENT_CORPUS } from './intent-corpus.ts';
import { scoreByCategory, scoreCase } from './score.ts';

describe('offline generator: the intent corpus', () => {
  it('has at least 300 prompts with unique ids, in every style', () => {
    assert.ok(INTENT_CORPUS.length >= 300, `${INTENT_CORPUS.length} prompts`);
    assert.equal(new Set(INTENT_CORPUS.map((c) => c.id)).size, INTENT_CORPUS.length);
    assert.deepEqual([...new Set(INTENT_CORPUS.map((c) => c.category))].sort(), [
      'blind',
      'chatty',
      'compound',
      'contradiction',
      'issue',
      'misspelled',
      'terse',
      'words',
    ]);
  });

  it('reads the intent: score per category at least 98 %, the issue’s prompts exactly', (t) => {
    const results = INTENT_CORPUS.map(scoreCase);
    const scores = scoreByCategory(results);
    t.diagnostic(`intent score per category: ${JSON.stringify(scores)}`);
    const failures = results.filter((r) => r.failed.length).map((r) => `${r.id}: ${r.failed.join('; ')}`);
    if (failures.length) t.diagnostic(`misread: ${failures.join(' | ')}`);
    for (const [category, s] of Object.entries(scores))
      assert.ok(s.score >= 0.98, `${category}: ${s.score} < 0.98 (${failures.join(' | ')})`);
    assert.equal(scores.issue!.score, 1, failures.join(' | '));
  });

  it('gives code that passes the static check and the strategy_config schema for every prompt', async () => {
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < INTENT_CORPUS.length) {
          const c = INTENT_CORPUS[next++]!;
          const { code, intent } = generateOffline(withMarket({ description: c.prompt }));
          const check = await checkStrategyCode(code);
          const schema = StrategyConfig.safeParse(intent.config);
          if (!check.ok || !schema.success)
            failures.push(`${c.id}: ${JSON.stringify(check.violations)} ${schema.success ? '' : schema.error.message}`);
        }
      }),
    );
    assert.deepEqual(failures, []);
  });
});
