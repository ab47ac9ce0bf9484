/** The signal stage: thresholds and the entry mask (session, min NATR, trend). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toBarColumns } from '../../src/backtest/index.ts';
import { entryMask, natr, toSignals, weekdayOf } from '../../src/scoring/index.ts';
import { INDICATORS } from '../../src/indicators/index.ts';

test('toSignals: p ≥ t long, p ≤ 1 − t short, else flat; NaN flat', () => {
  const p = Float32Array.from([0.9, 0.6, 0.55, 0.5, 0.45, 0.4, 0.1, Number.NaN]);
  assert.deepEqual(Array.from(toSignals(p, 0.6)), [1, 1, 0, 0, 0, -1, -1, 0]);
  // the same in float64 (float32 0.4 is 0.40000000596…: compared with 1 − 0.6 rounded to float32 alike)
  assert.deepEqual(Array.from(toSignals(Float64Array.from([0.9, 0.6, 0.55, 0.5, 0.45, 0.4, 0.1, Number.NaN]), 0.6)), [1, 1, 0, 0, 0, -1, -1, 0]);
  // threshold 0.5: every number is a signal, exactly 0.5 long
  assert.deepEqual(Array.from(toSignals(Float64Array.from([0.5, 0.49, 0.51]), 0.5)), [1, -1, 1]);
  assert.throws(() => toSignals(p, 0.4), /threshold/);
});

/** Hourly bars from 2024-01-08 00:00 UTC with the given closes (open = high = low = close). */
const hourly = (closes: number[]) =>
  toBarColumns(closes.map((c, i) => ({ ts: Date.UTC(2024, 0, 8, i), open: c, high: c, low: c, close: c })));

test('session_filter [start, end) UTC of the bar open; wraps past midnight when start > end', () => {
  const bars = hourly(Array.from({ length: 24 }, () => 1.1));
  const day = entryMask(bars, { sessionFilter: [8, 17], minAtr: null, trendColumn: null });
  assert.deepEqual([...day.keys()].filter((h) => day[h] === 3), [8, 9, 10, 11, 12, 13, 14, 15, 16]);
  assert.ok([...day].every((m) => m === 0 || m === 3));
  const night = entryMask(bars, { sessionFilter: [22, 3], minAtr: null, trendColumn: null });
  assert.deepEqual([...night.keys()].filter((h) => night[h] === 3), [0, 1, 2, 22, 23]);
  assert.ok(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null }).every((m) => m === 3));
});

test('trend_filter: longs only above the column, shorts only below, NaN neither', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1]);
  const trend = Float64Array.from([1.09, 1.11, 1.1, Number.NaN]);
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: trend })), [1, 2, 0, 0]);
  assert.throws(() => entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: trend.subarray(0, 2) }), /trend column/);
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
  const loose = entryMask(bars, { sessionFilter: null, minAtr: 0.05, trendColumn: null });
  assert.ok(loose.subarray(0, warmup).every((m) => m === 0));
  assert.ok(loose.subarray(warmup).every((m) => m === 3));
  // 0.0999 (close 1.001) fails a minimum of 0.09995 while 0.1 (close 1.000) passes: alternate bars
  const strict = entryMask(bars, { sessionFilter: null, minAtr: 0.09995, trendColumn: null });
  assert.deepEqual(Array.from(strict.subarray(warmup + 1, warmup + 5)), warmup % 2 ? [3, 0, 3, 0] : [0, 3, 0, 3]);
});

test('skip_days: no entry on a bar whose open falls on a skipped UTC day (ts of the bar, not of the next open)', () => {
  // daily bars Monday 2024-01-08 … Sunday 2024-01-14
  const bars = toBarColumns(Array.from({ length: 7 }, (_, d) => ({ ts: Date.UTC(2024, 0, 8 + d, 23), open: 1.1, high: 1.1, low: 1.1, close: 1.1 })));
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, skipDays: ['fri'] })), [3, 3, 3, 3, 0, 3, 3]);
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, skipDays: ['mon', 'sun'] })), [0, 3, 3, 3, 3, 3, 0]);
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, skipDays: [] })), [3, 3, 3, 3, 3, 3, 3]);
  assert.equal(weekdayOf(Date.UTC(2024, 0, 12, 23, 59)), 'fri');
  assert.equal(weekdayOf(Date.UTC(2024, 0, 13, 0, 0)), 'sat');
});

test('entry_filter: entries only where the column is > 0 (NaN: none), both sides', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1]);
  const entryFilter = Float64Array.from([1, 0, Number.NaN, 0.5]);
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, entryFilter })), [3, 0, 0, 3]);
  assert.throws(() => entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, entryFilter: entryFilter.subarray(1) }), /entry filter/);
});

test('exit columns: > 0 sets the exit bit of that side and clears its entry bit, after every filter', () => {
  const bars = hourly([1.1, 1.1, 1.1, 1.1]);
  const exitLong = Float64Array.from([0, 1, 0, Number.NaN]);
  const exitShort = Float64Array.from([0, 0, 1, 1]);
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, exitLong, exitShort })), [3, 2 | 4, 1 | 8, 1 | 8]);
  // a session that allows nothing still lets the exit through
  assert.deepEqual(Array.from(entryMask(bars, { sessionFilter: [20, 21], minAtr: null, trendColumn: null, exitLong })), [0, 4, 0, 0]);
  assert.throws(() => entryMask(bars, { sessionFilter: null, minAtr: null, trendColumn: null, exitLong: exitLong.subarray(0, 2) }), /exit column/);
});
