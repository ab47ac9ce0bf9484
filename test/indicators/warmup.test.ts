import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { IndicatorRequest } from '../../schemas/indicators.ts';
import { computeIndicators, INDICATORS, parseIndicatorsObject, warmupBars, type Ohlc } from '../../src/indicators/index.ts';
import { ewm, givenAlpha, seedBars, spanAlpha } from '../../src/indicators/math.ts';
import { loadFxBars } from './fx-data.ts';

/**
 * The warm-up promise POST /indicators relies on: computed over only `warmup` bars before a row,
 * the row equals the full-history value within 1e-9 (checked at every start, since the worst case
 * is a rare seed bar), and no value is NaN from there on.
 */
const ROWS = 20_000;
const TOLERANCE = 1e-9;

const slice = (o: Ohlc, from: number, to: number): Ohlc => ({
  open: o.open.subarray(from, to),
  high: o.high.subarray(from, to),
  low: o.low.subarray(from, to),
  close: o.close.subarray(from, to),
});

const lists: Record<string, { list: IndicatorRequest[]; step: number }> = {
  defaults: { list: parseIndicatorsObject(Object.fromEntries(Object.keys(INDICATORS).map((n) => [`${n}_enabled`, true]))), step: 1 },
  others: {
    list: parseIndicatorsObject({
      sma_period: 7,
      ema_period: 50,
      wma_period: 9,
      bb_period: 30,
      bb_std: 2.5,
      rsi_period: 2,
      macd_fast: 5,
      macd_slow: 35,
      macd_signal: 5,
      stoch_k_period: 5,
      stoch_d_period: 1,
      atr_period: 7,
    }),
    step: 1,
  },
  long: {
    list: parseIndicatorsObject({ ema_period: 200, rsi_period: 50, macd_fast: 50, macd_slow: 120, macd_signal: 40, atr_period: 100 }),
    step: 13,
  },
};

describe('warm-up: after it, values do not depend on where the history starts', () => {
  let ohlc: Ohlc;
  before(() => {
    ohlc = loadFxBars(ROWS);
  });

  for (const [label, { list, step }] of Object.entries(lists)) {
    it(`${label}: a row computed over just its warm-up equals the full-history row (every ${step === 1 ? '' : `${step}th `}start)`, () => {
      const full = computeIndicators(ohlc, list);
      for (const request of list) {
        const w = warmupBars([request]);
        let worst = 0;
        for (let start = w; start < ROWS; start += step) {
          const part = computeIndicators(slice(ohlc, start - w, start + 1), [request]);
          for (const [col, values] of Object.entries(part)) {
            const got = values[w]!;
            assert.ok(!Number.isNaN(got), `${col}[${start}] is NaN after ${w} bars of warm-up`);
            worst = Math.max(worst, Math.abs(got - full[col]![start]!));
          }
        }
        assert.ok(worst <= TOLERANCE, `${request.name} ${JSON.stringify(request.params)}: off by ${worst} after ${w} bars`);
      }
    });
  }

  it('is NaN exactly for the warm-up bars, for every column', () => {
    for (const { list } of Object.values(lists)) {
      const cols = computeIndicators(ohlc, list);
      for (const { name, params } of list) {
        const w = warmupBars([{ name, params }]);
        for (const col of INDICATORS[name].columns(params)) {
          const values = cols[col]!;
          assert.equal(
            values.findIndex((v) => !Number.isNaN(v)),
            w,
            `${col}: first value vs warm-up ${w}`,
          );
          assert.equal(values.subarray(w).some(Number.isNaN), false, `${col}: NaN after the warm-up`);
        }
      }
    }
  });

  it('a quarter of the warm-up would not do: the seed still shows (so the check above can fail)', () => {
    const start = 13_000;
    for (const [label, x, alpha] of [
      ['ema 20', ohlc.close, spanAlpha(20)],
      ['atr 14 (on high − low)', ohlc.high.map((h, i) => h - ohlc.low[i]!), givenAlpha(1 / 14)],
    ] as const) {
      const w = seedBars(alpha);
      const full = ewm(x, alpha)[start]!;
      const short = ewm(x.slice(start - Math.floor(w / 4), start + 1), alpha).at(-1)!;
      assert.ok(Math.abs(short - full) > TOLERANCE, `${label}: ${Math.abs(short - full)}`);
    }
  });
});
