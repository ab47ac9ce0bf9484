/**
 * The per-phrase coverage check (issue 35): every indicator the words name and every part of a
 * clause worded as a condition is expressed (a rule, a filter, an exit, the trend or volatility
 * filter, an ATR stop) or said (an approximation or a remark) — never dropped or swapped in silence.
 * `intent.uncovered` is what the check found before its own remark; the corpora report it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withMarket } from '../../../src/generation/market-mention.ts';
import { buildIntent } from '../../../src/generation/offline/index.ts';
import { INTENT_CORPUS } from '../corpus/intent-corpus.ts';
import { PROMPTS } from './prompts.ts';

const read = (description: string) => buildIntent({ description, symbol: 'EURUSD', timeframe: '15min' } as never);

describe('offline generator: the per-phrase coverage check', () => {
  it('finds an indicator named with no condition and says it in a remark', () => {
    const intent = read('RSI mean reversion with a MACD filter');
    assert.deepEqual(intent.uncovered.map((u) => u.what).sort(), ['MACD(12,26,9)', 'RSI(14)']);
    assert.ok(intent.remarks.some((r) => r.startsWith('RSI(14) is named but in no rule, filter or exit')));
  });

  it('finds a part of a clause that gave no condition where the rest did', () => {
    const intent = read(
      'buy when RSI 14 is below 30 and price is above the 200 SMA, sell when RSI is above 70 and the moon is above the treeline',
    );
    assert.ok(
      intent.uncovered.some((u) => u.kind === 'condition' && u.what.includes('moon')),
      JSON.stringify(intent.uncovered),
    );
  });

  it('an indicator expressed in a rule, a filter or an exit is covered', () => {
    for (const text of [
      'Buy when RSI 14 is below 30 only when ADX is above 25',
      'Go long when RSI 14 crosses above 30, exit on a close below the 20 EMA',
      'RSI 14 below 30, only trade with the trend',
    ]) {
      assert.deepEqual(read(text).uncovered, [], text);
    }
  });

  it("the issue's named indicators are all expressed: nothing of theirs is left to a remark", () => {
    for (const c of INTENT_CORPUS.filter((x) => x.category === 'issue' && Number(x.id.split('-')[1]) >= 6 && x.id !== 'issue-18')) {
      assert.deepEqual(buildIntent(withMarket({ description: c.prompt })).uncovered, [], c.prompt);
    }
  });

  it('over both corpora, everything the check finds is said in a remark (the report lists what it found)', (t) => {
    const requests = [
      ...INTENT_CORPUS.map((c) => ({ id: c.id, request: withMarket({ description: c.prompt }) })),
      ...PROMPTS.map((p) => ({ id: p.id, request: { ...p.request, symbol: 'EURUSD' as const, timeframe: '15min' as const } })),
    ];
    const found: string[] = [];
    for (const { id, request } of requests) {
      const intent = buildIntent(request as never);
      for (const u of intent.uncovered) {
        found.push(`${id}: ${u.kind} ${u.what}`);
        assert.ok(
          intent.remarks.some((r) => r.includes(u.what.slice(0, 40))),
          `${id}: ${u.what} is not said`,
        );
      }
    }
    t.diagnostic(`uncovered (said in a remark): ${found.length} in ${requests.length} prompts: ${found.join(' | ')}`);
  });
});
