/**
 * The whole robustness report over real engine runs on synthetic 15-minute markets: schema-valid,
 * its parts consistent with the runs, and the verdict the market's truth calls for — no edge is
 * not robust, a planted edge is robust, an edge that reverses after training is overfit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RobustnessReport, type WalkForward } from '../../schemas/robustness.ts';
import { runBacktest, tradeStats, type BarColumns, type EngineOptions } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import {
  barReturns,
  barsPerDay,
  barsPerYear,
  expectedMaxSharpe,
  robustnessReport,
  robustnessReportOffThread,
} from '../../src/robustness/index.ts';
import { edgeSignals, noiseSignals, randomWalk } from './synthetic.ts';

const M15 = 900_000;
const N = 8000;
const SPLIT = 5600;
const options: EngineOptions = {
  instrument: INSTRUMENTS.EURUSD,
  timeframeMs: M15,
  direction: 'both',
  cooldown: 0,
  maxPositions: 1,
  onOpposite: 'reverse',
  stop: null,
  take: null,
  lotSize: 1,
  commissionPerLot: 2,
  swapLong: -0.5,
  swapShort: -0.5,
  fillAtBidAsk: true,
};

const iso = (ts: number) => new Date(ts).toISOString();

/** k anchored folds over [SPLIT, N): each trains on everything before it; stats from the engine. */
function folds(bars: BarColumns, signals: Int8Array, k = 5): WalkForward {
  const size = Math.floor((N - SPLIT) / k);
  const made = Array.from({ length: k }, (_, index) => {
    const from = SPLIT + index * size;
    const to = from + size;
    const test = runBacktest(options, bars, signals, { from, to });
    const train = runBacktest(options, bars, signals, { from: 0, to: from });
    return {
      index,
      train: { from: iso(bars.ts[0]!), to: iso(bars.ts[from - 1]!), bars: from },
      test: { from: iso(bars.ts[from]!), to: iso(bars.ts[to - 1]!), bars: size },
      stats: tradeStats(test.trades, 10_000),
      train_stats: tradeStats(train.trades, 10_000),
    };
  });
  return {
    scheme: 'anchored',
    k,
    purge_bars: 0,
    embargo_bars: 0,
    folds: made,
    profitable: made.filter((f) => f.stats.ret > 0).length,
    efficiency: null,
  };
}

function report(bars: BarColumns, signals: Int8Array, walkForward: WalkForward | null, trials = 1, seed?: number) {
  const train = runBacktest(options, bars, signals, { from: 0, to: SPLIT });
  const test = runBacktest(options, bars, signals, { from: SPLIT, to: N });
  return {
    train,
    test,
    report: robustnessReport({ bars, test, train, options, timeframe: '15min', walkForward, trials: { n: trials }, seed }),
  };
}

test('the report of a no-edge model: schema-valid, its parts made from the test run, not robust', () => {
  const bars = randomWalk(N, 11, { step: M15, vol: 0.0004, spread: 0.00006 });
  const signals = noiseSignals(N, 12, 0.05);
  const { test: run, report: r } = report(bars, signals, folds(bars, signals), 7);
  assert.deepEqual(RobustnessReport.parse(r), r);
  assert.notEqual(r.verdict, 'robust');
  assert.ok(r.reasons.length > 0);
  assert.equal(r.sharpe.observations, N - SPLIT - 1);
  assert.equal(r.sharpe.trials, 7);
  assert.ok(Math.abs(r.sharpe.sharpe_annualised - r.sharpe.sharpe * Math.sqrt(barsPerYear('15min', false))) < 1e-12);
  assert.equal(r.random_baseline.trades, run.tradeCount);
  assert.equal(r.random_baseline.runs, 1000);
  assert.equal(r.monte_carlo.runs, 1000);
  assert.ok(Math.abs(r.random_baseline.strategy_return - tradeStats(run.trades, 10_000).ret) < 1e-12);
  assert.equal(r.walk_forward!.k, 5);
  if (r.min_track_record.bars !== null)
    assert.ok(Math.abs(r.min_track_record.days! - r.min_track_record.bars / barsPerDay('15min', false)) < 1e-9);
});

test('a planted edge: robust, with a deflated-Sharpe p-value below 0.05 even after 50 variants', () => {
  const bars = randomWalk(N, 21, { step: M15, vol: 0.0004, spread: 0.00002 });
  const signals = edgeSignals(bars, 22, { busy: 1, hit: 0.65 });
  const { report: r } = report(bars, signals, folds(bars, signals), 50);
  assert.equal(r.verdict, 'robust', r.reasons.join('; '));
  assert.ok(r.sharpe.p_value < 0.05 && r.random_baseline.return_p_value < 0.05);
  assert.ok(
    r.min_track_record.bars !== null && r.min_track_record.bars < N - SPLIT,
    'the test span was longer than the track record it needed',
  );
});

test('an edge that reverses after training: overfit, said as the contradiction', () => {
  const bars = randomWalk(N, 31, { step: M15, vol: 0.0004, spread: 0.00002 });
  const signals = edgeSignals(bars, 32, { busy: 1, hit: 0.65 });
  for (let i = SPLIT; i < N; i++) signals[i] = -signals[i]!; // right in training, wrong out of sample
  const { report: r } = report(bars, signals, null);
  assert.equal(r.verdict, 'overfit');
  assert.match(r.reasons[0]!, /^test return −\d+(\.\d)? % against \+\d+(\.\d)? % in training: the model learned the training period/);
});

test('the same seed gives the same report; another seed another baseline; bars per day by the instrument’s week', () => {
  const bars = randomWalk(N, 41, { step: M15, vol: 0.0004 });
  const signals = noiseSignals(N, 42, 0.05);
  assert.deepEqual(report(bars, signals, null, 1, 5).report, report(bars, signals, null, 1, 5).report);
  assert.notDeepEqual(report(bars, signals, null, 1, 5).report.random_baseline, report(bars, signals, null, 1, 6).report.random_baseline);
  assert.ok(Math.abs(barsPerDay('15min', false) - (96 * 5) / 7) < 1e-12);
  assert.equal(barsPerDay('1h', true), 24);
  assert.ok(Math.abs(barsPerYear('1h', true) - 24 * 365.25) < 1e-9);
});

test('bar returns: equity changes from one close to the next, over the capital', () => {
  assert.deepEqual(Array.from(barReturns({ equity: Float64Array.from([10_000, 10_100, 10_050]), capital: 10_000 })), [0.01, -0.005]);
  assert.deepEqual(Array.from(barReturns({ equity: new Float64Array(0), capital: 10_000 })), []);
});

test('a known trial Sharpe variance deflates per bar: given per day (sharpePeriodBars) it is scaled to per bar first', () => {
  const bars = randomWalk(N, 51, { step: M15, vol: 0.0004, spread: 0.00002 });
  const signals = edgeSignals(bars, 52, { busy: 1, hit: 0.65 });
  const train = runBacktest(options, bars, signals, { from: 0, to: SPLIT });
  const test = runBacktest(options, bars, signals, { from: SPLIT, to: N });
  const make = (trials: { n: number; sharpeVariance?: number; sharpePeriodBars?: number }) =>
    robustnessReport({ bars, test, train, options, timeframe: '15min', walkForward: null, trials }).sharpe;
  const perBar = make({ n: 40, sharpeVariance: 0.0004 });
  const perDay = make({ n: 40, sharpeVariance: 0.0004 * 96, sharpePeriodBars: 96 });
  assert.ok(Math.abs(perBar.expected_max_sharpe - perDay.expected_max_sharpe) < 1e-15);
  assert.ok(Math.abs(perBar.expected_max_sharpe - expectedMaxSharpe(40, 0.0004)) < 1e-15, 'SR₀ from the variance as given');
  assert.ok(make({ n: 40, sharpeVariance: 0.0004 * 96 }).dsr < perBar.dsr, 'a per-day variance taken as per bar deflates far too much');
  assert.throws(() => make({ n: 2, sharpeVariance: 1, sharpePeriodBars: 0 }), /sharpePeriodBars/);
});

test('a model that never trades: a valid report, nothing to judge — inconclusive with 0 trades, no track record', () => {
  const bars = randomWalk(N, 61, { step: M15, vol: 0.0004 });
  const { report: r } = report(bars, new Int8Array(N), null);
  assert.deepEqual(RobustnessReport.parse(r), r);
  assert.equal(r.verdict, 'inconclusive');
  assert.equal(r.reasons[0], '0 trades: too few to tell (needs at least 30)');
  assert.deepEqual([r.sharpe.sharpe, r.sharpe.psr, r.sharpe.dsr], [0, 0.5, 0.5]);
  assert.deepEqual(r.min_track_record, { bars: null, days: null });
  assert.deepEqual([r.random_baseline.trades, r.random_baseline.return_p_value, r.monte_carlo.prob_half_loss], [0, 1, 0]);
});

test('off the event loop (robustnessReportOffThread): the very same report, bit for bit', async () => {
  const bars = randomWalk(N, 61, { step: M15, vol: 0.0004, spread: 0.00002 });
  const signals = edgeSignals(bars, 62, { busy: 1, hit: 0.6 });
  const train = runBacktest(options, bars, signals, { from: 0, to: SPLIT });
  const test = runBacktest(options, bars, signals, { from: SPLIT, to: N });
  // A resolver (a function, which cannot cross a thread) and a known trial variance, as an optimisation passes them.
  const input = {
    bars,
    test,
    train,
    options: { ...options, resolver: { firstTouch: () => 'SL' as const } },
    timeframe: '15min' as const,
    walkForward: folds(bars, signals),
    trials: { n: 40, sharpeVariance: 0.02, sharpePeriodBars: 96 },
    pbo: 0.3,
    seed: 9,
  };
  assert.deepEqual(await robustnessReportOffThread(input), robustnessReport(input));
  assert.equal(bars.ts.length, N, "the caller's bars are left whole");
});
