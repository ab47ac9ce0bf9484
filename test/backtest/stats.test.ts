/** TradeStats on hand-made trade lists, including the no-loss and no-trade conventions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tradeStats } from '../../src/backtest/index.ts';
import { TradeStats } from '../../schemas/backtest.ts';

const trades = (...pnl: number[]) => pnl.map((p) => ({ pnl: p }));

test('a mixed list, every field by hand', () => {
  // pnl 100, −50, 200, 0, −150 on capital 10,000
  const s = tradeStats(trades(100, -50, 200, 0, -150), 10_000);
  // equity 10,000 → 10,100 → 10,050 → 10,250 → 10,250 → 10,100; peaks 10,100 … 10,250
  // drawdowns −50 / 10,000 = −0.005 and −150 / 10,000 = −0.015
  assert.deepEqual(s, {
    n: 5,
    wins: 2, // the 0 trade is neither a win nor a loss
    losses: 2,
    wr: 0.4,
    ret: 0.01, // np 100 / 10,000
    pf: 1.5, // 300 / 200
    rr: 1.5, // average win 150 / average loss 100
    expect: 20, // 100 / 5
    mdd: -0.015,
    np: 100,
    avg: 0.002, // 100 / 5 / 10,000
    best: 0.02,
    worst: -0.015,
  });
  assert.deepEqual(TradeStats.parse(s), s);
});

test('no losing trade: pf and rr are 999 with a win, 0 without', () => {
  const s = tradeStats(trades(100, 50), 10_000);
  assert.equal(s.pf, 999);
  assert.equal(s.rr, 999);
  assert.equal(s.mdd, 0);
  assert.equal(s.wr, 1);
  const z = tradeStats(trades(0, 0), 10_000);
  assert.deepEqual([z.pf, z.rr, z.wins, z.losses, z.wr], [0, 0, 0, 0, 0]);
});

test('only losses: pf and rr 0, drawdown from the start', () => {
  const s = tradeStats(trades(-10, -30), 1000);
  assert.deepEqual([s.pf, s.rr, s.mdd, s.ret, s.expect, s.best, s.worst], [0, 0, -0.04, -0.04, -20, -0.01, -0.03]);
});

test('no trades: all zero', () => {
  assert.deepEqual(tradeStats([], 10_000), {
    n: 0,
    wins: 0,
    losses: 0,
    wr: 0,
    ret: 0,
    pf: 0,
    rr: 0,
    expect: 0,
    mdd: 0,
    np: 0,
    avg: 0,
    best: 0,
    worst: 0,
  });
});

test('capital must be positive', () => {
  assert.throws(() => tradeStats([], 0), /capital/);
});
