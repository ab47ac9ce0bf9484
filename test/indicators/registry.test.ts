import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IndicatorSchema, INDICATOR_NAMES, parseIndicators, type IndicatorRequest } from '../../schemas/indicators.ts';
import { BadRequestError } from '../../src/errors.ts';
import {
  computeIndicators,
  featureColumns,
  formatIndicatorData,
  INDICATOR_RULES,
  INDICATORS,
  IndicatorsRequest,
  indicatorSchema,
  pandasCode,
  parseIndicatorsObject,
  warmupBars,
  type Ohlc,
} from '../../src/indicators/index.ts';

/** Bars from closes (high/low default to the close). */
const bars = (close: number[], high = close, low = close): Ohlc => ({
  open: Float64Array.from(close),
  high: Float64Array.from(high),
  low: Float64Array.from(low),
  close: Float64Array.from(close),
});
const one = (ohlc: Ohlc, name: IndicatorRequest['name'], params: Record<string, number>) => computeIndicators(ohlc, [{ name, params }]);
const near = (actual: number | undefined, expected: number, what: string, tol = 1e-12) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected}`);
const range = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

describe('indicators: hand-computed values', () => {
  it('SMA(3) of 1..5 is NaN, NaN, 2, 3, 4', () => {
    assert.deepEqual([...one(bars([1, 2, 3, 4, 5]), 'sma', { period: 3 }).sma_3!], [NaN, NaN, 2, 3, 4]);
  });

  it('WMA(3) weights the newest bar 3, then 2, then 1', () => {
    const wma = one(bars([1, 2, 3, 4]), 'wma', { period: 3 }).wma_3!;
    assert.ok(Number.isNaN(wma[1]!));
    near(wma[2], (3 * 3 + 2 * 2 + 1) / 6, 'wma[2]');
    near(wma[3], (4 * 3 + 3 * 2 + 2) / 6, 'wma[3]');
  });

  it('EMA(2) (alpha 2/3) of a step from 0 to 1 closes 2/3 of the gap each bar', () => {
    const ema = one(bars([...range(30, () => 0), 1, 1, 1]), 'ema', { period: 2 }).ema_2!;
    assert.equal(warmupBars([{ name: 'ema', params: { period: 2 } }]), 26); // 3^-26 < 1e-12 ≤ 3^-25
    assert.ok(Number.isNaN(ema[25]!));
    assert.equal(ema[29], 0);
    near(ema[30], 2 / 3, 'ema[30]');
    near(ema[31], 8 / 9, 'ema[31]');
    near(ema[32], 26 / 27, 'ema[32]');
  });

  it('Bollinger(4, 2) uses the population standard deviation (ddof=0)', () => {
    const bb = one(bars([1, 2, 3, 4, 6]), 'bb', { period: 4, std: 2 });
    near(bb.bb_middle_4_2![3], 2.5, 'middle[3]');
    near(bb.bb_upper_4_2![3], 2.5 + 2 * Math.sqrt(1.25), 'upper[3]'); // var = 5 / 4, not 5 / 3
    near(bb.bb_lower_4_2![3], 2.5 - 2 * Math.sqrt(1.25), 'lower[3]');
    near(bb.bb_upper_4_2![4], 3.75 + 2 * Math.sqrt(8.75 / 4), 'upper[4]');
  });

  it('RSI(2): 100 while only rising, 50 then 25 as losses come in, 50 when flat', () => {
    const close = [...range(80, (i) => i), 78, 77];
    const rsi = one(bars(close), 'rsi', { period: 2 }).rsi_2!;
    assert.equal(warmupBars([{ name: 'rsi', params: { period: 2 } }]), 51); // 1 + bars until 2^-k ≤ 1e-15
    assert.ok(Number.isNaN(rsi[50]!));
    assert.equal(rsi[51], 100);
    assert.equal(rsi[79], 100);
    near(rsi[80], 50, 'rsi[80]'); // gain 1 → 0.5, loss 0 → 0.5
    near(rsi[81], 25, 'rsi[81]'); // 0.25 vs 0.75
    assert.equal(one(bars(range(60, () => 1.1)), 'rsi', { period: 2 }).rsi_2![59], 50);
  });

  it('MACD(12, 26, 9) of a ramp settles at the lag difference (26 − 12) / 2 per unit slope, histogram 0', () => {
    const slope = 0.001;
    const m = one(bars(range(700, (i) => 1 + slope * i)), 'macd', { fast: 12, slow: 26, signal: 9 });
    const w = warmupBars([{ name: 'macd', params: { fast: 12, slow: 26, signal: 9 } }]);
    assert.equal(w, 360 + 124);
    assert.ok(Number.isNaN(m.macd_12_26_9![w - 1]!));
    for (const t of [w, 699]) {
      near(m.macd_12_26_9![t], 7 * slope, `line[${t}]`, 1e-13);
      near(m.macd_signal_12_26_9![t], 7 * slope, `signal[${t}]`, 1e-13);
      near(m.macd_hist_12_26_9![t], 0, `hist[${t}]`, 1e-13);
    }
  });

  it('Stochastic(3, 2): %K from the 3-bar range, %D its 2-bar mean, 50 on a zero range', () => {
    const s = one(bars([9, 10, 11, 10, 9], [10, 11, 12, 11, 10], [8, 9, 10, 9, 8]), 'stoch', { k_period: 3, d_period: 2 });
    assert.ok(Number.isNaN(s.stoch_k_3_2![2]!), 'warm-up covers the first %D window');
    near(s.stoch_k_3_2![3], 100 / 3, 'k[3]'); // (10 − 9) / (12 − 9)
    near(s.stoch_k_3_2![4], 25, 'k[4]'); // (9 − 8) / (12 − 8)
    near(s.stoch_d_3_2![4], (100 / 3 + 25) / 2, 'd[4]');
    assert.equal(one(bars([5, 5, 5, 5]), 'stoch', { k_period: 3, d_period: 1 }).stoch_k_3_1![3], 50);
  });

  it('ATR(2): true range includes the gap from the previous close; Wilder alpha 1/2', () => {
    const close = [...range(60, () => 10), 10, 14.5];
    const high = [...range(60, () => 11), 12, 15];
    const low = [...range(60, () => 9), 8, 14];
    const atr = one(bars(close, high, low), 'atr', { period: 2 }).atr_2!;
    assert.equal(warmupBars([{ name: 'atr', params: { period: 2 } }]), 40);
    assert.equal(atr[59], 2);
    near(atr[60], 3, 'atr[60]'); // (2 + 4) / 2
    near(atr[61], 4, 'atr[61]'); // (3 + max(1, |15 − 10|, |14 − 10|)) / 2
  });

  it('refuses columns of different lengths', () => {
    const o = bars([1, 2, 3]);
    assert.throws(() => computeIndicators({ ...o, high: new Float64Array(2) }, [{ name: 'sma', params: { period: 2 } }]), RangeError);
  });
});

describe('indicators object: parsing', () => {
  const issues = (input: unknown) => {
    const r = parseIndicators(input, INDICATOR_RULES);
    assert.equal(r.ok, false, `expected a refusal of ${JSON.stringify(input)}`);
    return r.ok ? [] : r.issues;
  };

  it('enables by <name>_enabled or by any parameter; false leaves out; defaults filled; registry order', () => {
    assert.deepEqual(parseIndicatorsObject({}), []);
    assert.deepEqual(parseIndicatorsObject({ atr_enabled: true, rsi_period: 10, sma_enabled: true }), [
      { name: 'sma', params: { period: 20 } },
      { name: 'rsi', params: { period: 10 } },
      { name: 'atr', params: { period: 14 } },
    ]);
    assert.deepEqual(parseIndicatorsObject({ macd_enabled: false, macd_fast: 5, bb_enabled: true, bb_std: 2.5 }), [
      { name: 'bb', params: { period: 20, std: 2.5 } },
    ]);
  });

  it('names every unknown key', () => {
    const found = issues({ foo: 1, rsi_length: 3, vwap_enabled: true, rsi_enabled: true });
    assert.deepEqual(found.map((i) => i.key).sort(), ['foo', 'rsi_length', 'vwap_enabled']);
    assert.throws(
      () => parseIndicatorsObject({ foo: 1, rsi_length: 3 }),
      (e: unknown) => e instanceof BadRequestError && e.status === 400 && /foo/.test(e.message) && /rsi_length/.test(e.message),
    );
  });

  it('checks types and bounds (inclusive), naming the key, even for a disabled indicator', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ rsi_period: 1 }, 'rsi_period', /between 2 and 500/],
      [{ rsi_period: 501 }, 'rsi_period', /between 2 and 500/],
      [{ rsi_period: 14.5 }, 'rsi_period', /integer/],
      [{ rsi_period: '14' }, 'rsi_period', /number/],
      [{ rsi_enabled: 'yes' }, 'rsi_enabled', /true or false/],
      [{ bb_std: 0.05 }, 'bb_std', /between 0.1 and 10/],
      [{ sma_enabled: false, sma_period: 0 }, 'sma_period', /between/],
      [{ macd_fast: 30 }, 'macd_fast', /less than macd_slow \(26\)/],
      [{ macd_fast: 12, macd_slow: 12 }, 'macd_fast', /less than/],
    ];
    for (const [input, key, message] of cases) {
      const found = issues(input);
      assert.ok(
        found.some((i) => i.key === key && message.test(i.message)),
        `${JSON.stringify(input)}: ${JSON.stringify(found)}`,
      );
    }
    for (const ok of [{ rsi_period: 2 }, { rsi_period: 500 }, { bb_std: 0.1 }, { bb_std: 10 }, { stoch_d_period: 1 }, { macd_fast: 25 }]) {
      assert.equal(parseIndicators(ok, INDICATOR_RULES).ok, true, JSON.stringify(ok));
    }
    assert.deepEqual(
      issues(null).map((i) => i.key),
      [''],
    );
    assert.deepEqual(
      issues([1]).map((i) => i.key),
      [''],
    );
  });

  it('the POST /indicators body takes its defaults from the contract', () => {
    const body = IndicatorsRequest.parse({ indicators: { rsi_enabled: true } });
    assert.deepEqual(body, {
      indicators: [{ name: 'rsi', params: { period: 14 } }],
      symbol: 'EURUSD',
      timeframe: '15min',
      format: 'columns',
      limit: 500,
    });
    assert.equal(IndicatorsRequest.safeParse({ indicators: {}, limit: 5001 }).success, false);
    assert.equal(IndicatorsRequest.safeParse({ indicators: { nope: 1 } }).success, false);
  });
});

describe('indicators: names, warm-up, code and schema from one registry', () => {
  const defaults = parseIndicatorsObject(Object.fromEntries(INDICATOR_NAMES.map((n) => [`${n}_enabled`, true])));

  it('names the default columns <indicator>[_<output>]_<params>', () => {
    assert.deepEqual(featureColumns(defaults), [
      'sma_20',
      'ema_20',
      'wma_20',
      'bb_upper_20_2',
      'bb_middle_20_2',
      'bb_lower_20_2',
      'rsi_14',
      'macd_12_26_9',
      'macd_signal_12_26_9',
      'macd_hist_12_26_9',
      'stoch_k_14_3',
      'stoch_d_14_3',
      'atr_14',
    ]);
    assert.deepEqual(featureColumns(parseIndicatorsObject({ bb_std: 2.5, bb_period: 10 })), [
      'bb_upper_10_2p5',
      'bb_middle_10_2p5',
      'bb_lower_10_2p5',
    ]);
    assert.deepEqual(Object.keys(computeIndicators(bars(range(30, (i) => i)), defaults)), featureColumns(defaults));
  });

  it('warm-up is the largest of the list', () => {
    assert.equal(warmupBars([]), 0);
    assert.equal(warmupBars(defaults), 484); // MACD 12/26/9
    assert.equal(warmupBars(parseIndicatorsObject({ sma_period: 50, stoch_enabled: true })), 49);
  });

  it('pandas code adds each column to df using only np, pd and the OHLC series', () => {
    const code = pandasCode(defaults);
    for (const col of featureColumns(defaults)) assert.ok(code.includes(`df['${col}'] = `), col);
    assert.doesNotMatch(code, /\bimport\b|__|shift\(-|\.cut\(|\.qcut\(/);
    const names = new Set(code.match(/\b[A-Za-z_]\w*(?=\.)/g));
    for (const n of names) assert.match(n, /^(np|pd|close|high|low|_\w+)$/, `${n} is a known name`);
  });

  it('GET /indicator-schema data: every indicator, parameter keys, defaults inside bounds, default columns', () => {
    const schema = IndicatorSchema.parse(indicatorSchema());
    assert.equal(schema.count, 8);
    assert.deepEqual(
      schema.indicators.map((i) => i.name),
      [...INDICATOR_NAMES],
    );
    for (const info of schema.indicators) {
      assert.equal(info.enabled_key, `${info.name}_enabled`);
      for (const p of info.params) {
        assert.equal(p.key, `${info.name}_${p.name}`);
        assert.ok(p.min <= p.default && p.default <= p.max, p.key);
      }
      assert.deepEqual(info.columns.defaults, INDICATORS[info.name].columns({}));
      assert.equal(info.warmup.bars, INDICATORS[info.name].warmup({}));
    }
    assert.deepEqual(
      schema.indicators.find((i) => i.name === 'macd')!.params.map((p) => [p.key, p.default]),
      [
        ['macd_fast', 12],
        ['macd_slow', 26],
        ['macd_signal', 9],
      ],
    );
  });
});

describe('indicators: response formatting', () => {
  const cols = { sma_2: Float64Array.from([NaN, 1.5, 2.5]), rsi_14: Float64Array.from([NaN, NaN, 60]) };
  const ts = ['2024-01-01T00:00:00.000Z', '2024-01-01T00:15:00.000Z', '2024-01-01T00:30:00.000Z'];

  it('columns: one array per column, NaN as null, skipping the warm-up bars', () => {
    assert.deepEqual(formatIndicatorData('columns', ts, cols), { timestamp: ts, sma_2: [null, 1.5, 2.5], rsi_14: [null, null, 60] });
    assert.deepEqual(formatIndicatorData('columns', ts, cols, 1), { timestamp: ts.slice(1), sma_2: [1.5, 2.5], rsi_14: [null, 60] });
  });

  it('rows: one object per bar', () => {
    assert.deepEqual(formatIndicatorData('rows', ts, cols, 1), [
      { timestamp: ts[1], sma_2: 1.5, rsi_14: null },
      { timestamp: ts[2], sma_2: 2.5, rsi_14: 60 },
    ]);
  });
});
