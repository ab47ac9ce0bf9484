/**
 * The finer-bar resolver: which of SL and TP a coarse bar reached first. Hourly bar at 10:00 UTC,
 * 15-min bars beneath; a long from 1.1000 with SL 1.0990 and TP 1.1020.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finerBarResolver, toBarColumns } from '../../src/backtest/index.ts';
import { lowerBound } from '../../src/backtest/intrabar.ts';

const H = 3_600_000;
const T = Date.UTC(2024, 0, 9, 10);
type Row = [open: number, high: number, low: number, close: number];
const flat = (p: number): Row => [p, p, p, p];
const finer = (rows: Row[], start = T) =>
  toBarColumns(rows.map(([open, high, low, close], i) => ({ ts: start + i * (H / 4), open, high, low, close })));

const SL = 1.099;
const TP = 1.102;
const longFirst = (rows: Row[], offset = 0) => finerBarResolver(finer(rows)).firstTouch(T, T + H, true, SL, TP, offset);

test('the first finer bar reaching a level decides', () => {
  assert.equal(longFirst([flat(1.1), [1.1, 1.1021, 1.0999, 1.1015], [1.1015, 1.1015, 1.0985, 1.099], flat(1.099)]), 'TP');
  assert.equal(longFirst([flat(1.1), [1.1, 1.1005, 1.0989, 1.0995], [1.0995, 1.1025, 1.0995, 1.102], flat(1.102)]), 'SL');
});

test('a finer bar reaching both from an open between them cannot tell: SL', () => {
  assert.equal(longFirst([[1.1, 1.1025, 1.0985, 1.1], flat(1.1), flat(1.1), flat(1.1)]), 'SL');
});

test('a finer bar opening beyond a level: that level came first (its open is its first price)', () => {
  // 10:15 opens at 1.1022 ≥ TP, then falls through SL within the same bar: TP first
  assert.equal(longFirst([[1.1, 1.1005, 1.0995, 1.1005], [1.1022, 1.1025, 1.0985, 1.099], flat(1.099), flat(1.099)]), 'TP');
  assert.equal(longFirst([[1.1, 1.1005, 1.0995, 1.0995], [1.0988, 1.1025, 1.0985, 1.102], flat(1.102), flat(1.102)]), 'SL');
});

test('no finer bar reaching either level (missing or inconsistent data): SL', () => {
  assert.equal(longFirst([flat(1.1), flat(1.1), flat(1.1), flat(1.1)]), 'SL');
  assert.equal(finerBarResolver(finer([[1.1, 1.1025, 1.1, 1.102]], T + 2 * H)).firstTouch(T, T + H, true, SL, TP, 0), 'SL');
});

test('only finer bars inside [from, to) count', () => {
  // the bar before 10:00 reaches TP, the one at 11:00 too; inside, 10:30 reaches SL
  const rows: Row[] = [[1.1, 1.1025, 1.1, 1.1], flat(1.1), flat(1.1), [1.1, 1.1, 1.0985, 1.0995], flat(1.1), [1.1, 1.1025, 1.1, 1.1]];
  const r = finerBarResolver(finer(rows, T - H / 2));
  assert.equal(r.firstTouch(T, T + H, true, SL, TP, 0), 'SL');
});

test('a short: the stop above, the take below, compared on bid + offset (the ask)', () => {
  // short from 1.1000: SL 1.1010, TP 1.0980 (ask levels); offset 0.0002
  const r = finerBarResolver(finer([[1.1, 1.1, 1.0979, 1.0985], [1.0985, 1.1015, 1.0985, 1.1], flat(1.1), flat(1.1)]));
  // bid low 1.0979 → ask 1.0981 does not reach 1.0980; 10:15 ask high 1.1017 reaches the stop
  assert.equal(r.firstTouch(T, T + H, false, 1.101, 1.098, 0.0002), 'SL');
  // at the bid, 1.0979 reaches the take first
  assert.equal(r.firstTouch(T, T + H, false, 1.101, 1.098, 0), 'TP');
});

test('lowerBound: the first index at or after t', () => {
  const ts = Float64Array.from([10, 20, 20, 30]);
  assert.deepEqual(
    [5, 10, 15, 20, 25, 30, 35].map((t) => lowerBound(ts, t)),
    [0, 0, 1, 1, 3, 3, 4],
  );
});
