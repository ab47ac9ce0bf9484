/**
 * Every ta.* function with a twin in the indicator registry computes the registry's values: on
 * real bars of several symbols and timeframes, the Pine plot equals INDICATORS[x].compute to
 * 1e-9 wherever the registry gives a value (it masks its warm-up with NaN).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import { INDICATORS, type Ohlc } from '../../src/indicators/index.ts';
import { runJob } from '../../src/pine/index.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const TOLERANCE = 1e-9;

/** Pine expression per registry column, for given parameters. */
const TWINS: { name: keyof typeof INDICATORS; params: Record<string, number>; pine: string[] }[] = [
  { name: 'sma', params: { period: 20 }, pine: ['ta.sma(close, 20)'] },
  { name: 'sma', params: { period: 200 }, pine: ['ta.sma(close, 200)'] },
  { name: 'ema', params: { period: 12 }, pine: ['ta.ema(close, 12)'] },
  { name: 'ema', params: { period: 50 }, pine: ['ta.ema(close, 50)'] },
  { name: 'wma', params: { period: 9 }, pine: ['ta.wma(close, 9)'] },
  { name: 'bb', params: { period: 20, std: 2 }, pine: ['bbU', 'bbM', 'bbL'] },
  { name: 'rsi', params: { period: 14 }, pine: ['ta.rsi(close, 14)'] },
  { name: 'rsi', params: { period: 7 }, pine: ['ta.rsi(close, 7)'] },
  { name: 'macd', params: { fast: 12, slow: 26, signal: 9 }, pine: ['mL', 'mS', 'mH'] },
  { name: 'stoch', params: { k_period: 14, d_period: 3 }, pine: ['stK', 'ta.sma(stK, 3)'] },
  { name: 'atr', params: { period: 14 }, pine: ['ta.atr(14)'] },
];

const SCRIPT = [
  '//@version=5',
  'indicator("twins")',
  '[bbM, bbU, bbL] = ta.bb(close, 20, 2)',
  '[mL, mS, mH] = ta.macd(close, 12, 26, 9)',
  'stK = ta.stoch(close, high, low, 14)',
  ...TWINS.flatMap((t, i) => t.pine.map((e, j) => `plot(${e}, "t${i}_${j}")`)),
].join('\n');

const CASES: [Symbol, Timeframe, number][] = [
  ['EURUSD', '15min', 3000],
  ['GBPUSD', '1h', 2500],
  ['USDJPY', '5min', 3000],
];

describe('ta.* twins of the indicator registry', () => {
  for (const [symbol, timeframe, count] of CASES) {
    it(`equal the registry on real ${symbol} ${timeframe} bars`, () => {
      const m = loadBars(symbol, timeframe, count);
      const ohlc: Ohlc = { open: m.open, high: m.high, low: m.low, close: m.close };
      const r = runJob({
        id: 1,
        source: SCRIPT,
        bars: { ...ohlc, ts: m.ts, volume: new Float64Array(m.close.length).fill(1) },
        timeframe,
        symbol,
        mintick: 0.00001,
        wallMs: 20_000,
      });
      assert.ok(r.ok, JSON.stringify(r));
      let compared = 0;
      TWINS.forEach((t, i) => {
        const want = INDICATORS[t.name].compute(ohlc, t.params);
        want.forEach((col, j) => {
          const got = r.result.plots.find((p) => p.title === `t${i}_${j}`)!.values;
          for (let k = 0; k < col.length; k++) {
            if (Number.isNaN(col[k]!)) continue;
            assert.ok(
              Math.abs(got[k]! - col[k]!) <= TOLERANCE,
              `${t.name} ${JSON.stringify(t.params)} column ${j} bar ${k}: ${got[k]} vs ${col[k]}`,
            );
            compared++;
          }
        });
      });
      assert.ok(compared > 10 * count, `compared ${compared} values`);
    });
  }
});
