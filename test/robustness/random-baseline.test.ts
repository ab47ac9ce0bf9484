/**
 * The random-entry baseline: the engine's money rules on a random trade, where random entries
 * land, p-values uniform when there is no edge (a KS test over 200 seeded markets) and small
 * when an edge is planted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RandomBaseline } from '../../schemas/robustness.ts';
import { runBacktest, tradeStats } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { randomBaseline } from '../../src/robustness/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { sortSlots } from '../../src/robustness/random-baseline.ts';
import { edgeSignals, ksUniform, noiseSignals, randomWalk } from './synthetic.ts';
import { options } from '../backtest/fixtures.ts';

test('a trade that fills the range has one place to go: its P&L is the engine’s to the cent (spread, commission, swap, a USD-based pair)', () => {
  for (const side of [1, -1] as const) {
    const bars = randomWalk(200, 5, { start: 151.5, vol: 0.08, spread: 0.012 });
    const opts = options({
      instrument: INSTRUMENTS.USDJPY,
      lotSize: 0.7,
      commissionPerLot: 3.5,
      swapLong: -6.1,
      swapShort: 2.3,
      fillAtBidAsk: true,
      capital: 25_000,
    });
    // The signal on bar 0 enters at bar 1's open; the position is still open at the end (closed at the last close).
    const signals = new Int8Array(200);
    signals[0] = side;
    const run = runBacktest(opts, bars, signals, { from: 0, to: 200 });
    assert.equal(run.trades.length, 1);
    const trade = run.trades[0]!;
    assert.ok(trade.nights > 0 && trade.swap !== 0 && trade.commission > 0, 'the trade pays swap and commission');
    const baseline = randomBaseline({ bars, range: { from: 1, to: 200 }, trades: run.trades, options: opts, runs: 50, seed: 1 });
    assert.deepEqual(RandomBaseline.parse(baseline), baseline);
    assert.equal(trade.barsHeld, 199);
    assert.ok(Math.abs(baseline.strategy_return - trade.pnl / 25_000) < 1e-15);
    // Every run is that same trade: one bin holding all 50, at the engine's return.
    assert.deepEqual(baseline.returns.counts, [50]);
    assert.ok(
      Math.abs(baseline.returns.edges[0]! - trade.pnl / 25_000) < 1e-12,
      `random ${baseline.returns.edges[0]} vs engine ${trade.pnl / 25_000}`,
    );
    assert.equal(baseline.return_p_value, 1, 'all 50 runs reach the strategy’s return: (50 + 1) / 51');
  }
});

test('random entries are uniform over the range: a one-bar long gains only on the one bar that moves', () => {
  const n = 40;
  const bars = randomWalk(n, 1, { vol: 0 });
  bars.close[17] = bars.open[17]! + 0.01; // bar 17 rises 100 pips; every other bar is flat
  const runs = 20_000;
  const baseline = randomBaseline({
    bars,
    range: { from: 0, to: n },
    trades: [{ side: 1, barsHeld: 1, pnl: 0 }],
    options: options(),
    runs,
    seed: 3,
  });
  // Runs that drew bar 17 earned 1,000 USD (+10 %); the rest 0. Expected share 1/40 = 500 runs; ±4 sd ≈ ±88.
  const top = baseline.returns.counts[baseline.returns.counts.length - 1]!;
  assert.ok(Math.abs(top - runs / n) < 4 * Math.sqrt(runs * (1 / n) * (1 - 1 / n)), `${top} runs entered on bar 17`);
  assert.ok(Math.abs(baseline.returns.edges.at(-1)! - 0.1) < 1e-9);
});

test('trades placed side by side never overlap: n one-bar trades filling n bars earn exactly the whole move', () => {
  // 30 bars each rising 10 pips; 30 longs of one bar must cover every bar once: always +300 pips, no matter the order.
  const bars = randomWalk(30, 1, { vol: 0 });
  for (let i = 0; i < 30; i++) {
    bars.open[i] = 1.1 + i * 0.001;
    bars.close[i] = bars.open[i]! + 0.001;
  }
  const trades = Array.from({ length: 30 }, () => ({ side: 1 as const, barsHeld: 1, pnl: 100 }));
  const baseline = randomBaseline({ bars, range: { from: 0, to: 30 }, trades, options: options(), runs: 100, seed: 9 });
  assert.deepEqual(baseline.returns.counts, [100]);
  assert.ok(Math.abs(baseline.returns.edges[0]! - 0.3) < 1e-9);
});

test('no edge: the return p-value is uniform over 200 seeded random-walk markets (KS below the 1 % critical value)', () => {
  const pReturn: number[] = [];
  const pPf: number[] = [];
  const opts = options({ fillAtBidAsk: true, commissionPerLot: 2 });
  for (let seed = 1; seed <= 200; seed++) {
    const bars = randomWalk(1500, 1000 + seed);
    const run = runBacktest(opts, bars, noiseSignals(1500, 5000 + seed, 0.05), { from: 0, to: 1500 });
    const b = randomBaseline({ bars, range: { from: 0, to: 1500 }, trades: run.trades, options: opts, runs: 199, seed });
    pReturn.push(b.return_p_value);
    pPf.push(b.pf_p_value);
  }
  // Asymptotic 1 % critical value of the one-sample KS statistic: 1.628 / √n.
  const critical = 1.628 / Math.sqrt(200);
  const d = ksUniform(pReturn);
  assert.ok(d < critical, `KS ${d.toFixed(4)} ≥ ${critical.toFixed(4)}: return p-values are not uniform`);
  assert.ok(ksUniform(pPf) < critical, `KS ${ksUniform(pPf).toFixed(4)}: profit-factor p-values are not uniform`);
});

test('a planted edge (the next bar’s direction, right 60 % of the time) gets p < 0.01 for return and profit factor', () => {
  const opts = options({ fillAtBidAsk: true, commissionPerLot: 2 });
  for (const seed of [1, 2, 3]) {
    const bars = randomWalk(3000, 70 + seed);
    const run = runBacktest(opts, bars, edgeSignals(bars, seed), { from: 0, to: 3000 });
    const stats = tradeStats(run.trades, 10_000);
    const b = randomBaseline({ bars, range: { from: 0, to: 3000 }, trades: run.trades, options: opts, runs: 1000, seed });
    assert.ok(stats.n > 300, `${stats.n} trades`);
    assert.ok(b.return_p_value < 0.01 && b.pf_p_value < 0.01, `seed ${seed}: p ${b.return_p_value} / ${b.pf_p_value}`);
    assert.ok(
      Math.abs(b.strategy_return - stats.ret) < 1e-12 && Math.abs(b.strategy_pf - stats.pf) < 1e-12,
      'the strategy’s figures are tradeStats’',
    );
  }
});

test('the same seed gives the same baseline; a range outside the bars is refused', () => {
  const bars = randomWalk(300, 2);
  const run = runBacktest(options(), bars, noiseSignals(300, 2, 0.1), { from: 0, to: 300 });
  const a = randomBaseline({ bars, range: { from: 0, to: 300 }, trades: run.trades, options: options(), runs: 100, seed: 11 });
  const b = randomBaseline({ bars, range: { from: 0, to: 300 }, trades: run.trades, options: options(), runs: 100, seed: 11 });
  assert.deepEqual(a, b);
  assert.throws(() => randomBaseline({ bars, range: { from: 0, to: 301 }, trades: [], options: options(), seed: 1 }), /range/);
});

test('random placements tile the range: trades of 1–4 bars that fill it exactly always earn the whole move, never a bar outside', () => {
  // 120 longs of 1, 2, 3, 4, … bars (Σ 300) over bars 100…399 of 500: placed without overlap they cover each bar once.
  const bars = randomWalk(500, 13);
  for (let i = 0; i < 500; i++) if (i < 100 || i >= 400) bars.close[i] = bars.open[i]! + 0.1; // 1,000 pips outside the range
  const trades = Array.from({ length: 120 }, (_, i) => ({ side: 1 as const, barsHeld: 1 + (i % 4), pnl: 0 }));
  const baseline = randomBaseline({ bars, range: { from: 100, to: 400 }, trades, options: options(), runs: 500, seed: 4 });
  // Each bar opens at the last close, so the tiles' moves add up to close[399] − open[100], in every run.
  const whole = ((bars.close[399]! - bars.open[100]!) * 100_000) / 10_000;
  for (const r of [baseline.returns.edges[0]!, baseline.returns.edges.at(-1)!])
    assert.ok(Math.abs(r - whole) < 1e-9, `a run returned ${r}, not ${whole}`);
});

test('with free bars between them, trades still never overlap: a flat range with one jump is held by one trade at most', () => {
  // 120 longs of 1–4 bars (Σ 300) over 310 flat bars but one rising 100 pips: a run earns 0 or +100 pips, never +200.
  const bars = randomWalk(310, 1, { vol: 0 });
  bars.close[155] = bars.open[155]! + 0.01;
  const trades = Array.from({ length: 120 }, (_, i) => ({ side: 1 as const, barsHeld: 1 + (i % 4), pnl: 0 }));
  const baseline = randomBaseline({ bars, range: { from: 0, to: 310 }, trades, options: options(), runs: 2000, seed: 6 });
  const highest = baseline.returns.edges.at(-1)!;
  assert.ok(Math.abs(highest - 0.1) < 1e-9, `the best run returned ${highest}: the jump was held ${highest / 0.1} times`);
  assert.ok(baseline.returns.counts[0]! > 0, 'some runs missed the jump (free bars were drawn)');
});

test('trades that cannot fit side by side (several positions at once) are entered independently, still inside the range', () => {
  // 50 longs of 3 bars over bars 100…199 of 300 (150 > 100 bars); the price steps up 10 pips in bar 140 and stays; bars outside the range jump 1,000 pips.
  const bars = randomWalk(300, 1, { vol: 0 });
  for (let i = 0; i < 300; i++) {
    bars.open[i] = i > 140 ? 1.101 : 1.1;
    bars.close[i] = i >= 140 ? 1.101 : 1.1;
    if (i < 100 || i >= 200) bars.close[i] = bars.open[i]! + 0.1;
  }
  const trades = Array.from({ length: 50 }, () => ({ side: 1 as const, barsHeld: 3, pnl: 1 })); // the strategy made 50 USD: +0.5 %
  const runs = 4000;
  const baseline = randomBaseline({ bars, range: { from: 100, to: 200 }, trades, options: options(), runs, seed: 12 });
  assert.ok(baseline.returns.edges.at(-1)! < 0.1, `a run held a bar outside the range: ${baseline.returns.edges.at(-1)}`);
  // A run beats +0.5 % when some trade holds bar 140: each does on its own with probability 3/98 (entries 38, 39, 40 of 98).
  const p = 1 - (1 - 3 / 98) ** 50;
  const sd = Math.sqrt((p * (1 - p)) / runs);
  assert.ok(Math.abs(baseline.return_p_value - p) < 4 * sd, `p-value ${baseline.return_p_value}, expected ${p.toFixed(3)}`);
});

test('the slots of a run are sorted in linear time: the same order as a comparison sort', () => {
  const random = seededRandom(17);
  for (const [n, m] of [
    [1, 5],
    [2, 2],
    [50, 50],
    [50, 51],
    [300, 25_000],
    [649, 1500],
    [1000, 1000],
  ] as const) {
    const picked = new Set<number>();
    while (picked.size < n) picked.add(Math.floor(random() * m));
    const slots = Int32Array.from(picked);
    const expected = Array.from(slots).sort((a, b) => a - b);
    sortSlots(slots, new Int32Array(n), new Int32Array(n + 1), m);
    assert.deepEqual(Array.from(slots), expected, `${n} of ${m}`);
  }
});
