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
import { createHash } from 'node:crypto';
import { SYMBOLS, type Symbol } from '../../schemas/common.ts';
import type { StrategyConfig } from '../../schemas/strategy.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { runBacktest, toBarColumns, weekdayOf } from '../../src/backtest/index.ts';
import { withMarket } from '../../src/generation/market-mention.ts';
import { generateOffline } from '../../src/generation/offline/index.ts';
import { warmupBars } from '../../src/indicators/index.ts';
import { createLogger } from '../../src/log.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { engineOptions, featureRows, strategyMask, toSignals } from '../../src/scoring/index.ts';
import { modelSettings } from '../../src/training/index.ts';
import { INTENT_CORPUS } from '../generation/corpus/intent-corpus.ts';
import { PROMPTS } from '../generation/offline/prompts.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const BARS = 6_000;
const FX = SYMBOLS.filter((s) => s !== 'BTCUSD');

interface Case {
  id: string;
  symbol: Symbol;
  code: string;
  config: StrategyConfig;
  features: string[];
  warmup: number;
}

/** The corpora's strategies with a time filter, one per distinct code. */
function cases(): Case[] {
  const requests = [
    ...PROMPTS.map((e, i) => ({ id: `prompts/${e.id}`, request: { ...e.request, symbol: FX[i % FX.length]!, timeframe: '15min' as const } })),
    ...INTENT_CORPUS.map((c) => ({ id: `intent/${c.id}`, request: { ...withMarket({ description: c.prompt }), timeframe: '15min' as const } })),
  ];
  const seen = new Set<string>();
  const out: Case[] = [];
  for (const { id, request } of requests) {
    const { code, intent } = generateOffline(request);
    const { config } = intent;
    if (config.session_filter === null && !config.skip_days?.length) continue;
    const key = createHash('sha256').update(`${request.symbol}\n${code}`).digest('hex');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id, symbol: request.symbol, code, config, features: intent.features, warmup: warmupBars(intent.indicators) });
  }
  return out;
}

/** Whether a position may open at a bar opening at ts, by the config's session and days. */
function allowedAt(config: StrategyConfig, ts: number): boolean {
  const hour = new Date(ts).getUTCHours();
  const session = config.session_filter;
  const inside = session === null || (session[0] > session[1] ? hour >= session[0] || hour < session[1] : hour >= session[0] && hour < session[1]);
  return inside && !(config.skip_days ?? []).includes(weekdayOf(ts));
}

describe('generated strategies on real bars: no position opens on a skipped day or outside the session', () => {
  let runtime: StrategyRuntime;
  const all = cases();
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
    let next = 0;
    await Promise.all(Array.from({ length: 2 }, async () => {
      while (next < all.length) {
        const c = all[next++]!;
        const m = loadBars(c.symbol, '15min', BARS);
        const bars = toBarColumns(Array.from(m.ts, (ts, i) => ({ ts, open: m.open[i]!, high: m.high[i]!, low: m.low[i]!, close: m.close[i]! })));
        const features = featureRows(await runtime.features(c.code, bars, { timeoutMs: 120_000 }), c.warmup, c.features);
        const spec = { symbol: c.symbol, timeframe: '15min' as const, config: c.config, settings: modelSettings(TrainRequest.parse({ code: c.code, timeframe: '15min' }), c.config) };
        const random = seededRandom(next);
        const pUp = Float64Array.from(bars.ts, (_, i) => (i < c.warmup ? Number.NaN : random()));
        const signals = toSignals(pUp, spec.settings.confidence_threshold);
        const mask = strategyMask(bars, spec, features);
        const options = engineOptions(spec, null);
        const range = { from: 0, to: bars.ts.length };
        const trades = runBacktest(options, bars, signals, range, mask).trades;
        entries += trades.length;
        for (const t of trades) if (!allowedAt(c.config, t.entryTs)) violations.push(`${c.id} (${c.symbol}): entry at ${new Date(t.entryTs).toISOString()} (${weekdayOf(t.entryTs)}), session ${JSON.stringify(c.config.session_filter)}, skip ${JSON.stringify(c.config.skip_days ?? [])}`);
        const unfiltered = runBacktest({ ...options, entryTimes: null }, bars, signals, range, mask).trades;
        if (unfiltered.some((t) => !allowedAt(c.config, t.entryTs))) wouldHave++;
      }
    }));
    t.diagnostic(`${all.length} strategies, ${entries} entries; ${wouldHave} would open at a filtered time without the filters`);
    assert.deepEqual(violations, []);
    assert.ok(entries > all.length * 20, `${entries} entries over ${all.length} strategies: too few to judge`);
    assert.ok(wouldHave >= all.length * 0.8, `only ${wouldHave} of ${all.length} strategies would open at a filtered time without the filters`);
  });
});
