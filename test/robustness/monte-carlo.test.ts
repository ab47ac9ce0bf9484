/** The bootstrap of the trades against cases whose answer is known exactly. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MonteCarlo } from '../../schemas/robustness.ts';
import { tradeStats } from '../../src/backtest/index.ts';
import { fanTrades, monteCarlo } from '../../src/robustness/index.ts';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);

test('all trades equal: every run is the same, so every percentile is that run', () => {
  const up = monteCarlo({ pnl: new Array(20).fill(50), capital: 10_000, seed: 1 });
  assert.deepEqual(MonteCarlo.parse(up), up);
  assert.equal(up.runs, 1000);
  for (const p of [up.final_return.p5, up.final_return.p50, up.final_return.p95]) close(p, 0.1, 1e-12, 'final return');
  assert.deepEqual(up.max_drawdown, { p5: 0, p50: 0, p95: 0 });
  assert.equal(up.prob_half_loss, 0);
  assert.equal(up.fan.length, 21);
  for (const point of up.fan)
    for (const v of [point.p5, point.p50, point.p95]) close(v, 10_000 + 50 * point.trade, 1e-9, `fan at ${point.trade}`);

  // −300 × 20 on 10,000: −60 %, the equity reaches 4,900 ≤ 5,000 at trade 17 in every run.
  const down = monteCarlo({ pnl: new Array(20).fill(-300), capital: 10_000, seed: 1 });
  for (const p of [down.final_return.p5, down.final_return.p50, down.final_return.p95]) close(p, -0.6, 1e-12, 'final return');
  for (const p of [down.max_drawdown.p5, down.max_drawdown.p50, down.max_drawdown.p95])
    close(p, tradeStats(new Array(20).fill({ pnl: -300 }), 10_000).mdd, 1e-12, 'mdd');
  assert.equal(down.prob_half_loss, 1);
});

/** Binomial probabilities P(W = k), W ~ Bin(n, p). */
function binomial(n: number, p: number): number[] {
  const out: number[] = [];
  let c = 1;
  for (let k = 0; k <= n; k++) {
    out.push(c * p ** k * (1 - p) ** (n - k));
    c = (c * (n - k)) / (k + 1);
  }
  return out;
}

/** P(a ±step walk of n steps, up with probability p, ever falls `down` steps below its start), by dynamic programming. */
function ruinProbability(n: number, p: number, down: number): number {
  let alive = new Map<number, number>([[0, 1]]);
  let ruined = 0;
  for (let i = 0; i < n; i++) {
    const next = new Map<number, number>();
    for (const [level, q] of alive) {
      next.set(level + 1, (next.get(level + 1) ?? 0) + q * p);
      if (level - 1 <= -down) ruined += q * (1 - p);
      else next.set(level - 1, (next.get(level - 1) ?? 0) + q * (1 - p));
    }
    alive = next;
  }
  return ruined;
}

test('a two-valued P&L: percentiles of final return are the binomial quantiles, P(half lost) the ruin probability', () => {
  // 6 trades of +200 and 4 of −200 on 1,000: each draw wins with probability 0.6; final = 200·(2W − 10)/1,000.
  const pnl = [200, 200, 200, 200, 200, 200, -200, -200, -200, -200];
  const runs = 100_000;
  const mc = monteCarlo({ pnl, capital: 1000, runs, seed: 42 });
  // Bin(10, 0.6): P(W ≤ 2) = 0.0123, P(W ≤ 3) = 0.0548 → 5 % point W = 3; median W = 6; P(W ≤ 7) = 0.833, P(W ≤ 8) = 0.954 → 95 % point W = 8.
  const probs = binomial(10, 0.6);
  const cdf = (k: number) => probs.slice(0, k + 1).reduce((s, x) => s + x, 0);
  close(cdf(3), 0.0548, 1e-4, 'P(W ≤ 3)');
  close(cdf(8), 0.9536, 1e-4, 'P(W ≤ 8)');
  close(mc.final_return.p5, (200 * (2 * 3 - 10)) / 1000, 1e-12, '5 % point');
  close(mc.final_return.p50, (200 * (2 * 6 - 10)) / 1000, 1e-12, 'median');
  close(mc.final_return.p95, (200 * (2 * 8 - 10)) / 1000, 1e-12, '95 % point');
  // Half of 1,000 is lost once the equity is ≤ 500: three net losing steps (400 is the first level at or below 500).
  const ruin = ruinProbability(10, 0.6, 3);
  const sd = Math.sqrt((ruin * (1 - ruin)) / runs);
  close(mc.prob_half_loss, ruin, 4 * sd, 'P(half lost)');
});

test('drawdown as tradeStats measures it (peak from the capital): two trades of ±100 give 0, −1 %, −1 %, −2 % equally often', () => {
  const mc = monteCarlo({ pnl: [100, -100], capital: 10_000, runs: 20_000, seed: 5 });
  assert.deepEqual(
    [mc.max_drawdown.p5, mc.max_drawdown.p50, mc.max_drawdown.p95],
    [tradeStats([{ pnl: -100 }, { pnl: -100 }], 10_000).mdd, tradeStats([{ pnl: 100 }, { pnl: -100 }], 10_000).mdd, 0],
  );
  assert.deepEqual([mc.max_drawdown.p5, mc.max_drawdown.p50], [-0.02, -0.01]);
});

test('the fan: at most 100 points from trade 0 (the capital) to the last trade; its last median is the final return’s', () => {
  const pnl = Array.from({ length: 500 }, (_, i) => (i % 3 === 0 ? -120 : 80));
  const mc = monteCarlo({ pnl, capital: 10_000, seed: 8 });
  assert.equal(mc.fan.length, 100);
  assert.deepEqual(mc.fan[0], { trade: 0, p5: 10_000, p50: 10_000, p95: 10_000 });
  assert.equal(mc.fan.at(-1)!.trade, 500);
  close(mc.fan.at(-1)!.p50, 10_000 * (1 + mc.final_return.p50), 1e-6, 'last fan median');
  for (let i = 1; i < mc.fan.length; i++) {
    const f = mc.fan[i]!;
    assert.ok(f.trade > mc.fan[i - 1]!.trade && f.p5 <= f.p50 && f.p50 <= f.p95, `fan point ${i}`);
  }
  assert.deepEqual(fanTrades(3, 100), [0, 1, 2, 3]);
});

test('no trades: nothing moves; the same seed gives the same answer; bad input is refused', () => {
  const none = monteCarlo({ pnl: [], capital: 5000, seed: 1, runs: 10 });
  assert.deepEqual(none, {
    runs: 10,
    seed: 1,
    final_return: { p5: 0, p50: 0, p95: 0 },
    max_drawdown: { p5: 0, p50: 0, p95: 0 },
    prob_half_loss: 0,
    fan: [{ trade: 0, p5: 5000, p50: 5000, p95: 5000 }],
  });
  const pnl = [120, -80, 30, -200, 75];
  assert.deepEqual(monteCarlo({ pnl, capital: 1000, seed: 3 }), monteCarlo({ pnl, capital: 1000, seed: 3 }));
  assert.throws(() => monteCarlo({ pnl, capital: 0, seed: 1 }), /capital/);
  assert.throws(() => monteCarlo({ pnl, capital: 10, seed: 1, fanPoints: 101 }), /fanPoints/);
});
