/**
 * A fixed sample of the corpus (15 prompts, each on its own symbol and timeframe: every model
 * class, every indicator, filters, defaults) through the sandboxed runtime on real bars (HistData
 * 1-minute bars resampled; synthetic for BTCUSD): the dynamic analysis finds no problem and a
 * finite warm-up, the columns are the intent's, strategy_config() returns the intent's config,
 * the entry rules (issue 35) are 0/1 columns that fire, and the strategy trains. The full corpus × 8 symbols × 4 timeframes is the generator-matrix bench.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import { warmupBars } from '../../../src/indicators/index.ts';
import { createLogger } from '../../../src/log.ts';
import { generateOffline } from '../../../src/generation/offline/index.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { barsFor, loadBars } from '../../helpers/strategy-bars.ts';
import { PROMPTS } from './prompts.ts';

/** [prompt id, symbol, timeframe, bars (default: enough for the warm-up)]. */
const SAMPLE: Array<[string, Symbol, Timeframe, number?]> = [
  ['example-4-mean-reversion', 'EURUSD', '15min'], // XGBoost, RSI, London, pips
  // gradient boosting, RSI + SMA 200 trend filter, sessions; its entry rule (RSI dropping below 30 in an
  // uptrend, in session) is rare: the meta-label trainer needs 10 rule bars in its training span (50 for no warning)
  ['long-1', 'GBPUSD', '15min', 15_000],
  ['long-2', 'USDJPY', '5min'], // extra trees, MACD + stochastic + Bollinger, hours
  ['fields-all', 'AUDUSD', '15min'], // random forest, every field, min_atr
  ['model-lr', 'USDCHF', '1min'], // logistic regression
  ['model-ada', 'NZDUSD', '15min'], // AdaBoost
  ['ind-all', 'USDCAD', '1h'], // all 8 indicators
  ['unit-usd', 'BTCUSD', '5min'], // synthetic bars, dollars
  ['example-8-breakout', 'EURUSD', '1min'], // breakout + ATR filter
  ['ind-ema-three', 'GBPUSD', '15min'], // EMA 200: the longest warm-up of the corpus
  ['typo-2', 'BTCUSD', '1min'], // misspelt
  ['empty', 'USDJPY', '1h'], // the default strategy
  ['rules-cloud-dmi', 'EURUSD', '15min'], // entry rules both sides: Ichimoku cloud top/bottom, DMI lines, a day filter
  ['rules-willr-vwap-r1', 'GBPUSD', '15min'], // entry rules: Williams %R, VWAP, CCI cross, pivot R1 touch
  ['rules-breakouts', 'AUDUSD', '1h'], // signed rules: Keltner breakout, SAR flip, inside bar breakout
];

describe('offline generator: sampled strategies run in the sandbox', { concurrency: 2 }, () => {
  let runtime: StrategyRuntime;
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
  });
  after(() => runtime.stop());

  for (const [id, symbol, timeframe, count] of SAMPLE) {
    it(`${id} on ${symbol} ${timeframe}: analysis clean, warm-up finite, config as understood, trains`, async () => {
      const entry = PROMPTS.find((p) => p.id === id);
      assert.ok(entry, `no prompt ${id}`);
      const { code, intent } = generateOffline({ ...entry.request, symbol, timeframe });
      const bars = loadBars(symbol, timeframe, count ?? barsFor(warmupBars(intent.indicators)));
      const analysis = await runtime.analyze(code, bars, { timeoutMs: 120_000 });
      assert.deepEqual(analysis.problems, []);
      assert.ok(
        analysis.warmup !== null && analysis.warmup < bars.ts.length * 0.75,
        `warm-up ${analysis.warmup} of ${bars.ts.length} bars`,
      );
      assert.ok(
        analysis.warmup >= warmupBars(intent.indicators),
        `warm-up ${analysis.warmup} below the registry's ${warmupBars(intent.indicators)}`,
      );
      assert.deepEqual(analysis.featureColumns, intent.features);
      assert.deepEqual(await runtime.config(code), intent.config);
      // Entry rules: strategy_config names rule columns the code adds, 0/1 on every bar, firing on some.
      const rules = [intent.config.entry_long, intent.config.entry_short].filter((r): r is string => typeof r === 'string');
      if (rules.length) {
        const computed = await runtime.features(code, bars, { timeoutMs: 120_000 });
        let fired = 0;
        for (const rule of rules) {
          const values = computed.values[computed.columns.indexOf(rule)];
          assert.ok(values, `${rule} not computed`);
          assert.ok(
            values.every((v) => v === 0 || v === 1),
            `${rule} is not 0/1`,
          );
          fired += values.filter((v) => v === 1).length;
        }
        assert.ok(fired > 0, `no rule of ${rules.join(', ')} fires on ${bars.ts.length} bars`);
      }
      const trained = await runtime.train(code, bars, { warmup: analysis.warmup }, { timeoutMs: 120_000 });
      assert.deepEqual(trained.features, intent.features);
      assert.equal(trained.config.model_type, intent.config.model_type);
      assert.ok(trained.rowsTrain > 500 && trained.rowsTest > 100, `${trained.rowsTrain} train / ${trained.rowsTest} test rows`);
      assert.ok(trained.onnx.length > 0);
      assert.ok(trained.probaUp.every((p) => p >= 0 && p <= 1));
    });
  }

  it('a generated strategy reads its periods from strategy_config()["indicators"]: other values give the columns, names and values of code written with them', async () => {
    const gen = (text: string) => generateOffline({ description: text, symbol: 'EURUSD', timeframe: '15min' } as never);
    const own = gen('buy when RSI 14 is below 30 and EMA 12 crosses above EMA 26, MACD histogram above 0');
    assert.deepEqual(own.intent.config.indicators, { ema_period: 12, rsi_period: 14, macd_fast: 12, macd_slow: 26, macd_signal: 9 });
    const written = gen('buy when RSI 21 is below 30 and EMA 30 crosses above EMA 26, MACD(8,21,5) histogram above 0');
    const bars = loadBars('EURUSD', '15min', 3000);
    const tuned = await runtime.features(
      own.code,
      bars,
      { timeoutMs: 60_000 },
      { rsi_period: 21, ema_period: 30, macd_fast: 8, macd_slow: 21, macd_signal: 5 },
    );
    const literal = await runtime.features(written.code, bars, { timeoutMs: 60_000 });
    assert.ok(
      tuned.columns.includes('rsi_21_lt_30') &&
        tuned.columns.includes('ema_30_xup_ema_26') &&
        tuned.columns.includes('macd_hist_8_21_5_pct'),
      tuned.columns.join(','),
    );
    assert.deepEqual([...tuned.columns].sort(), [...literal.columns].sort());
    for (const name of literal.columns)
      assert.deepEqual(tuned.values[tuned.columns.indexOf(name)], literal.values[literal.columns.indexOf(name)], name);
    const analysis = await runtime.analyze(own.code, bars, { timeoutMs: 120_000 }, { indicators: { rsi_period: 21, ema_period: 30 } });
    assert.deepEqual(analysis.problems, []);
  });
});
