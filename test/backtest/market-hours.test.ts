/**
 * The next bar's expected open (src/backtest/market-hours.ts): the next bar of the timeframe, or
 * the weekly reopening at Sunday 17:00 New York after Friday 17:00; on real HistData bars it is
 * never later than the bar that came, and equal except at feed gaps and holiday closes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectedNextOpen } from '../../src/backtest/index.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const M = 60_000;
const M15 = 15 * M;
const H = 60 * M;

test('inside the week: the next bar of the timeframe', () => {
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 10, 13, 45), M15, false), Date.UTC(2024, 0, 10, 14, 0));
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 11, 23, 45), M15, false), Date.UTC(2024, 0, 12, 0, 0)); // Thursday → Friday 00:00
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 12, 21, 30), M15, false), Date.UTC(2024, 0, 12, 21, 45)); // Friday, before the close
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 14, 22, 0), H, false), Date.UTC(2024, 0, 14, 23, 0)); // Sunday after the reopening
});

test('after Friday 17:00 New York: the bar holding Sunday 17:00 New York (22:00 UTC on EST, 21:00 on EDT)', () => {
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 12, 21, 45), M15, false), Date.UTC(2024, 0, 14, 22, 0));
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 12, 21, 0), H, false), Date.UTC(2024, 0, 14, 22, 0));
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 12, 21, 59), M, false), Date.UTC(2024, 0, 14, 22, 0));
  assert.equal(expectedNextOpen(Date.UTC(2024, 6, 12, 20, 45), M15, false), Date.UTC(2024, 6, 14, 21, 0));
  // a stray bar inside the close (Saturday) still looks ahead to the reopening
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 13, 10, 0), H, false), Date.UTC(2024, 0, 14, 22, 0));
  // an instrument trading weekends never closes
  assert.equal(expectedNextOpen(Date.UTC(2024, 0, 12, 21, 45), M15, true), Date.UTC(2024, 0, 12, 22, 0));
});

test('real EURUSD 2017 bars: every next bar comes where expected, weekends included (no gap in these months)', () => {
  for (const [timeframe, ms] of [
    ['15min', M15],
    ['1h', H],
  ] as const) {
    const { ts } = loadBars('EURUSD', timeframe, timeframe === '1h' ? 4_000 : 16_000);
    let weekends = 0;
    for (let i = 0; i + 1 < ts.length; i++) {
      const expected = expectedNextOpen(ts[i]!, ms, false);
      assert.equal(
        expected,
        ts[i + 1],
        `${timeframe}: after ${new Date(ts[i]!).toISOString()} expected ${new Date(expected).toISOString()}, the bar came at ${new Date(ts[i + 1]!).toISOString()}`,
      );
      if (ts[i + 1]! - ts[i]! > 24 * H) weekends++;
    }
    assert.ok(weekends >= 10, `${timeframe}: only ${weekends} weekends crossed`);
  }
});
