/**
 * A symbol/timeframe's bars in memory: bars appended, replaced and inserted out of order keep the
 * columns sorted and whole, and columns() hands out one object while nothing was added (every
 * deployed model asks for it on every bar), a new one once a bar is added or the columns grow.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BarSeries } from '../../src/market/bar-series.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { noBars } from '../helpers/hostile-model-host.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 4, 1);

const bar = (i: number, close = 1 + i / 100): BarMessage => ({
  symbol: 'EURUSD',
  timeframe: '1h',
  ts: T0 + i * HOUR,
  open: close,
  high: close + 0.001,
  low: close - 0.001,
  close,
  volume: 10 + i,
  ticks: 10 + i,
  spread: 0.00002,
  source: 'live',
});

describe('BarSeries', () => {
  it('keeps bars sorted by time, whatever order they come in, a repeat replacing its bar', () => {
    const series = new BarSeries(noBars());
    for (const i of [0, 1, 3, 2]) series.upsert(bar(i));
    series.upsert(bar(1, 2.5));
    const c = series.columns();
    assert.deepEqual(
      [...c.ts],
      [0, 1, 2, 3].map((i) => T0 + i * HOUR),
    );
    assert.deepEqual([...c.close], [1, 2.5, 1.02, 1.03]);
    assert.deepEqual([...c.ticks], [10, 11, 12, 13]);
    assert.equal(series.length, 4);
  });

  it('hands out the same columns until a bar is added, a replaced bar visible in them at once', () => {
    const series = new BarSeries(noBars());
    series.upsert(bar(0));
    series.upsert(bar(1));
    const first = series.columns();
    assert.equal(series.columns(), first);
    assert.ok(Object.isFrozen(first), 'shared by every caller: none can swap a column');

    series.upsert(bar(1, 9));
    assert.equal(series.columns(), first);
    assert.equal(first.close[1], 9);

    series.upsert(bar(2));
    const second = series.columns();
    assert.notEqual(second, first);
    assert.equal(second.ts.length, 3);
    assert.equal(first.ts.length, 2, 'an earlier view keeps the bars it had');
  });

  it('hands out new columns once they grow, holding every bar', () => {
    const series = new BarSeries(noBars());
    const seen = new Set<unknown>();
    for (let i = 0; i < 3_000; i++) {
      series.upsert(bar(i));
      const c = series.columns();
      seen.add(c);
      assert.equal(c.ts.length, i + 1);
      assert.equal(c.ts[i], T0 + i * HOUR);
      assert.equal(c.ts[0], T0);
    }
    assert.equal(seen.size, 3_000);
  });
});
