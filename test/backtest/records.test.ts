/** The API shapes: Trade records, the sampled equity curve and drawdown series. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawdownSeries, drawdowns, equityCurve, sampleIndexes, toTradeRecords, type ClosedTrade } from '../../src/backtest/index.ts';
import { Trade } from '../../schemas/backtest.ts';

const trade: ClosedTrade = {
  side: -1,
  entryTs: Date.UTC(2024, 0, 8, 1),
  exitTs: Date.UTC(2024, 0, 8, 3),
  entryPrice: 1.1,
  exitPrice: 1.099,
  lots: 2,
  units: 200_000,
  reason: 'TP',
  pips: 10,
  grossPnl: 200,
  commission: 14,
  swap: -3,
  pnl: 183,
  barsHeld: 3,
  nights: 1,
  notional: 220_000,
  stopLoss: 1.101,
  takeProfit: 1.099,
};

test('toTradeRecords: ISO times, side names, margin = notional / leverage or null, the position’s levels', () => {
  const [r] = toTradeRecords([trade], 50);
  assert.deepEqual(r, {
    side: 'short',
    entry_time: '2024-01-08T01:00:00.000Z',
    exit_time: '2024-01-08T03:00:00.000Z',
    entry_price: 1.1,
    exit_price: 1.099,
    lots: 2,
    units: 200_000,
    exit_reason: 'TP',
    pips: 10,
    gross_pnl: 200,
    commission: 14,
    swap: -3,
    pnl: 183,
    bars_held: 3,
    margin: 4400, // 220,000 / 50
    stop_loss: 1.101,
    take_profit: 1.099,
  });
  assert.deepEqual(Trade.parse(r), r);
  assert.equal(toTradeRecords({ trades: [trade] })[0]!.margin, null);
  assert.equal(toTradeRecords([trade], null)[0]!.margin, null);
});

test('sampleIndexes: evenly spaced, first and last included, at most maxPoints', () => {
  assert.deepEqual(sampleIndexes(4, 10), [0, 1, 2, 3]);
  assert.deepEqual(sampleIndexes(11, 3), [0, 5, 10]);
  assert.deepEqual(sampleIndexes(10, 4), [0, 3, 6, 9]);
  const many = sampleIndexes(370_000, 1000);
  assert.equal(many.length, 1000);
  assert.equal(many.at(-1), 369_999);
  assert.ok(many.every((v, i) => i === 0 || v > many[i - 1]!));
});

test('drawdowns: (equity − running peak) / capital, the peak starting at capital', () => {
  const dd = drawdowns(Float64Array.from([9900, 10_100, 10_000, 10_200, 9_800]), 10_000);
  assert.deepEqual(
    Array.from(dd, (x) => Math.round(x * 1e9) / 1e9),
    [-0.01, 0, -0.01, 0, -0.04],
  );
});

test('equityCurve and drawdownSeries: the same bars, times as ISO', () => {
  const ts = Float64Array.from({ length: 5 }, (_, i) => Date.UTC(2024, 0, 8, i));
  const run = { ts, equity: Float64Array.from([10_000, 10_100, 9_999, 10_050, 10_300]), capital: 10_000 };
  const eq = equityCurve(run, 3);
  const dd = drawdownSeries(run, 3);
  assert.deepEqual(
    eq.map((p) => p.time),
    ['2024-01-08T00:00:00.000Z', '2024-01-08T02:00:00.000Z', '2024-01-08T04:00:00.000Z'],
  );
  assert.deepEqual(
    eq.map((p) => p.equity),
    [10_000, 9_999, 10_300],
  );
  assert.deepEqual(
    dd.map((p) => p.time),
    eq.map((p) => p.time),
  );
  // the peak 10,100 (bar 1, not sampled) still counts: (9,999 − 10,100) / 10,000 = −0.0101
  assert.ok(Math.abs(dd[1]!.drawdown + 0.0101) < 1e-12);
  assert.equal(dd[0]!.drawdown, 0);
});
