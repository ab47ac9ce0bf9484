/**
 * Property over the generator's prompt corpora (test/generation/offline/prompts.ts and
 * test/generation/corpus/intent-corpus.ts): every generated strategy that states a session or
 * days to skip, backtested on real bars, opens no position on a skipped day or outside its session
 * — judged on the trades' entry times (the fill bar), not on the code.
 *
 * Fixed sample: the corpora's strategies with a session_filter or skip_days (those without one have
 * nothing to break), distinct code only; each on 6,000 real 15-minute bars of its symbol from
 * 2017-01-02 (HistData, ~3 months; seeded synthetic bars for BTCUSD), its own features from the
 * sandbox, its strategy_config's mask and engine options through the scoring chain's functions.
 * The model is a seeded random p(up) through the strategy's threshold (no fit: the time filters
 * must hold whatever the model says, and a random p signals on many bars of both sides). The same
 * runs without the time filters show the property has teeth: they do open at filtered times.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runBacktest, weekdayOf } from '../../src/backtest/index.ts';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { engineOptions, strategyMask, toSignals } from '../../src/scoring/index.ts';
import { allowedAt, forEachCase, generatedCases, runnable } from '../helpers/generated-strategies.ts';

const BARS = 6_000;

describe('generated strategies on real bars: no position opens on a skipped day or outside the session', () => {
  let runtime: StrategyRuntime;
  // The corpora's strategies with a time filter (those without one have nothing to break).
  const all = generatedCases((config) => config.session_filter !== null || !!config.skip_days?.length);
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
  });
  after(() => runtime?.stop());

  it('the sample: strategies with sessions and with skipped days, from both corpora', () => {
    assert.ok(all.filter((c) => c.config.session_filter !== null).length >= 20, 'sessions');
    assert.ok(all.filter((c) => c.config.skip_days?.length).length >= 15, 'skipped days');
    assert.ok(all.some((c) => c.id.startsWith('prompts/')) && all.some((c) => c.id.startsWith('intent/')));
  });

  it('every entry of every strategy opens at an allowed time; without the filters they would not have', async (t) => {
    const violations: string[] = [];
    let entries = 0;
    let wouldHave = 0;
    await forEachCase(all, 2, async (c, k) => {
      const { bars, features, spec, p: pUp } = await runnable(runtime, c, BARS, k + 1);
      const signals = toSignals(pUp, spec.settings.confidence_threshold);
      const mask = strategyMask(bars, spec, features);
      const options = engineOptions(spec, null);
      const range = { from: 0, to: bars.ts.length };
      const trades = runBacktest(options, bars, signals, range, mask).trades;
      entries += trades.length;
      for (const t of trades)
        if (!allowedAt(c.config, t.entryTs))
          violations.push(
            `${c.id} (${c.symbol}): entry at ${new Date(t.entryTs).toISOString()} (${weekdayOf(t.entryTs)}), session ${JSON.stringify(c.config.session_filter)}, skip ${JSON.stringify(c.config.skip_days ?? [])}`,
          );
      const unfiltered = runBacktest({ ...options, entryTimes: null }, bars, signals, range, mask).trades;
      if (unfiltered.some((t) => !allowedAt(c.config, t.entryTs))) wouldHave++;
    });
    t.diagnostic(`${all.length} strategies, ${entries} entries; ${wouldHave} would open at a filtered time without the filters`);
    assert.deepEqual(violations, []);
    assert.ok(entries > all.length * 20, `${entries} entries over ${all.length} strategies: too few to judge`);
    assert.ok(
      wouldHave >= all.length * 0.8,
      `only ${wouldHave} of ${all.length} strategies would open at a filtered time without the filters`,
    );
  });
});
