/**
 * The signal stage: thresholds (the confirm step) and the entry mask of the signal bar's values
 * (entry rules, entry filter, min NATR, trend, exits). Session hours and skipped days are judged on
 * the fill bar by the engine: test/backtest/engine-core.test.ts, entry-times.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runBacktest, toBarColumns } from '../../src/backtest/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { options } from '../backtest/fixtures.ts';
import { entryMask, labelMode, maskedSide, natr, toSignals } from '../../src/scoring/index.ts';
import { INDICATORS } from '../../src/indicators/index.ts';

test('toSignals: p ≥ t long, p ≤ 1 − t short, else flat; NaN flat', () => {
  const p = Float32Array.from([0.9, 0.6, 0.55, 0.5, 0.45, 0.4, 0.1, Number.NaN]);
  assert.deepEqual(Array.from(toSignals(p, 0.6)), [1, 1, 0, 0, 0, -1, -1, 0]);
  // the same in float64 (float32 0.4 is 0.40000000596…: compared with 1 − 0.6 rounded to float32 alike)
  assert.deepEqual(
    Array.from(toSignals(Float64Array.from([0.9, 0.6, 0.55, 0.5, 0.45, 0.4, 0.1, Number.NaN]), 0.6)),
    [1, 1, 0, 0, 0, -1, -1, 0],
  );
  // threshold 0.5: every number is a signal, exactly 0.5 long
  assert.deepEqual(Array.from(toSignals(Float64Array.from([0.5, 0.49, 0.51]), 0.5)), [1, -1, 1]);
  assert.throws(() => toSignals(p, 0.4), /threshold/);
});

test('toSignals in meta mode: the side whose rule fires, when P(win) ≥ t; both rules or none: flat; threshold 0 takes every rule bar', () => {
  const p = Float32Array.from([0.7, 0.7, 0.3, 0.3, 0.7, 0.7, Number.NaN, 0.6]);
  const long = Float64Array.from([1, 0, 1, 0, 1, 0, 1, 1]);
  const short = Float64Array.from([0, 1, 0, 1, 1, 0, 0, 0]);
  assert.deepEqual(Array.from(toSignals(p, 0.6, { long, short })), [1, -1, 0, 0, 0, 0, 0, 1]);
  // a low P(win) never turns into the other side (it is not p(up))
  assert.deepEqual(Array.from(toSignals(p, 0.6, { long, short: null })), [1, 0, 0, 0, 1, 0, 0, 1]);
  assert.deepEqual(
    Array.from(toSignals(p, 0, { long, short })),
    [1, -1, 1, -1, 0, 0, 0, 1],
    'the rule alone (NaN: a warm-up bar, no trade)',
  );
  assert.throws(() => toSignals(p, 1.2, { long, short }), /threshold/);
  assert.throws(() => toSignals(p, 0.6, { long: long.subarray(1), short: null }), /rule column/);
});

test('labelMode: meta when either entry rule is set', () => {
  assert.equal(labelMode({}), 'direction');
  assert.equal(labelMode({ entry_long: null, entry_short: null }), 'direction');
  assert.equal(labelMode({ entry_short: 'rsi_cross_down' }), 'meta');
});

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Hourly bars from 2024-01-08 00:00 UTC with the given closes (open = high = low = close). */
const hourly = (closes: number[]) =>
  toBarColumns(closes.map((c, i) => ({ ts: Date.UTC(2024, 0, 8, i), open: c, high: c, low: c, close: c })));

test("no rule or filter: every bar allows both sides, whatever its time (session and days are the engine's, on the fill bar)", () => {
  const bars = hourly(Array.from({ length: 24 * 7 }, () => 1.1));
  assert.ok(entryMask(bars, { minAtr: null, trendColumn: null }).every((m) => m === 3));
});

test('entry_long / entry_short: a side opens only where its rule column is > 0 (NaN: not); with either rule, a side without one opens nothing', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1, 1.1]);
  const entryLong = Float64Array.from([1, 0, 1, Number.NaN, 0]);
  const entryShort = Float64Array.from([0, 1, 1, 1, -1]);
  assert.deepEqual(Array.from(entryMask(bars, { minAtr: null, trendColumn: null, entryLong, entryShort })), [1, 2, 3, 2, 0]);
  // only a long rule: shorts never open
  assert.deepEqual(Array.from(entryMask(bars, { minAtr: null, trendColumn: null, entryLong })), [1, 0, 1, 0, 0]);
  // only a short rule: longs never open
  assert.deepEqual(Array.from(entryMask(bars, { minAtr: null, trendColumn: null, entryShort })), [0, 2, 2, 2, 0]);
  // with the other filters: every one must allow the side; exits still pass
  const trend = Float64Array.from([1.0, 1.2, 1.0, 1.0, 1.0]);
  const entryFilter = Float64Array.from([1, 1, 0, 1, 1]);
  const exitLong = Float64Array.from([0, 0, 0, 0, 1]);
  assert.deepEqual(
    Array.from(entryMask(bars, { minAtr: null, trendColumn: trend, entryFilter, entryLong, entryShort, exitLong })),
    [1, 2, 0, 0, 4],
  );
  assert.throws(
    () => entryMask(bars, { minAtr: null, trendColumn: null, entryLong: entryLong.subarray(1) }),
    /entry rule column has 4 values for 5 bars/,
  );
});

test("maskedSide: the signal's side where its entry bit allows it, else 0", () => {
  assert.deepEqual(
    [1, -1, 0].map((sig) => [0, 1, 2, 3, 1 | 4, 2 | 8].map((m) => maskedSide(sig, m))),
    [
      [0, 1, 0, 1, 1, 0],
      [0, 0, -1, -1, 0, -1],
      [0, 0, 0, 0, 0, 0],
    ],
  );
});

test('trend_filter: longs only above the column, shorts only below, NaN neither', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1]);
  const trend = Float64Array.from([1.09, 1.11, 1.1, Number.NaN]);
  assert.deepEqual(Array.from(entryMask(bars, { minAtr: null, trendColumn: trend })), [1, 2, 0, 0]);
  assert.throws(() => entryMask(bars, { minAtr: null, trendColumn: trend.subarray(0, 2) }), /trend column/);
});

test('min_atr: NATR(14) = ATR / close × 100 from the indicator registry; none during its warm-up', () => {
  // a saw-tooth of 10 pips a bar: true range 0.0010 on every bar after the first
  const n = 500;
  const rows = Array.from({ length: n }, (_, i) => {
    const c = 1 + (i % 2) * 0.001;
    return { ts: Date.UTC(2024, 0, 8) + i * 3_600_000, open: c, high: c, low: c, close: c };
  });
  const bars = toBarColumns(rows);
  const [atr] = INDICATORS.atr.compute(bars, { period: 14 });
  const v = natr(bars);
  const warmup = INDICATORS.atr.warmup({ period: 14 });
  assert.ok(Number.isNaN(v[warmup - 1]!) && !Number.isNaN(v[warmup]!));
  assert.equal(v[warmup], (atr![warmup]! / bars.close[warmup]!) * 100);
  // NATR ≈ 0.001 / 1.0005… × 100 ≈ 0.0999 or 0.1 %: a minimum of 0.05 passes every bar after the warm-up
  const loose = entryMask(bars, { minAtr: 0.05, trendColumn: null });
  assert.ok(loose.subarray(0, warmup).every((m) => m === 0));
  assert.ok(loose.subarray(warmup).every((m) => m === 3));
  // 0.0999 (close 1.001) fails a minimum of 0.09995 while 0.1 (close 1.000) passes: alternate bars
  const strict = entryMask(bars, { minAtr: 0.09995, trendColumn: null });
  assert.deepEqual(Array.from(strict.subarray(warmup + 1, warmup + 5)), warmup % 2 ? [3, 0, 3, 0] : [0, 3, 0, 3]);
});

test('entry_filter: entries only where the column is > 0 (NaN: none), both sides', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1]);
  const entryFilter = Float64Array.from([1, 0, Number.NaN, 0.5]);
  assert.deepEqual(Array.from(entryMask(bars, { minAtr: null, trendColumn: null, entryFilter })), [3, 0, 0, 3]);
  assert.throws(() => entryMask(bars, { minAtr: null, trendColumn: null, entryFilter: entryFilter.subarray(1) }), /entry filter/);
});

test('exit columns: > 0 sets the exit bit of that side and clears its entry bit, after every filter', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1]);
  const exitLong = Float64Array.from([0, 1, 0, Number.NaN]);
  const exitShort = Float64Array.from([0, 0, 1, 1]);
  assert.deepEqual(Array.from(entryMask(bars, { minAtr: null, trendColumn: null, exitLong, exitShort })), [3, 2 | 4, 1 | 8, 1 | 8]);
  // a filter that allows nothing still lets the exit through
  assert.deepEqual(
    Array.from(entryMask(bars, { minAtr: null, trendColumn: null, entryFilter: new Float64Array(4), exitLong })),
    [0, 4, 0, 0],
  );
  assert.throws(() => entryMask(bars, { minAtr: null, trendColumn: null, exitLong: exitLong.subarray(0, 2) }), /exit column/);
});

test("property: through the engine, every entry's signal bar satisfies its side's rule, and a side without a rule never trades", () => {
  const random = seededRandom(35);
  let entries = 0;
  for (let run = 0; run < 60; run++) {
    const n = 400;
    let p = 1.1;
    const bars = toBarColumns(
      Array.from({ length: n }, (_, i) => {
        const open = p;
        p += (random() - 0.5) * 0.002;
        return {
          ts: Date.UTC(2024, 0, 8) + i * 3_600_000,
          open,
          high: Math.max(open, p) + 0.0003,
          low: Math.min(open, p) - 0.0003,
          close: p,
        };
      }),
    );
    const column = () => Float64Array.from({ length: n }, () => (random() < 0.05 ? Number.NaN : random() - 0.6));
    const rules = pick(random, ['both', 'long', 'short'] as const);
    const entryLong = rules === 'short' ? null : column();
    const entryShort = rules === 'long' ? null : column();
    const exitLong = random() < 0.5 ? column() : null;
    const signals = Int8Array.from({ length: n }, () => (random() < 0.5 ? (random() < 0.5 ? 1 : -1) : 0));
    const mask = entryMask(bars, { minAtr: null, trendColumn: null, entryLong, entryShort, exitLong });
    const onOpposite = pick(random, ['reverse', 'close_only', 'ignore'] as const);
    const trades = runBacktest(
      options({ onOpposite, maxPositions: pick(random, [1, 3]), stop: { unit: 'pips', value: 15 } }),
      bars,
      signals,
      { from: 0, to: n },
      mask,
    ).trades;
    for (const t of trades) {
      const s = bars.ts.indexOf(t.entryTs) - 1;
      const rule = t.side > 0 ? entryLong : entryShort;
      assert.ok(rule, `run ${run}: a ${t.side > 0 ? 'long' : 'short'} opened without a rule for its side`);
      assert.ok(rule[s]! > 0, `run ${run}: entry at bar ${s + 1} but the rule was ${rule[s]} at its signal bar`);
      assert.equal(signals[s], t.side, 'the model confirmed it');
    }
    entries += trades.length;
  }
  assert.ok(entries > 500, `${entries} entries: too few to judge`);
});
