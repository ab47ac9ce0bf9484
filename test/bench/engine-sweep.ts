/**
 * The engine-only batched sweep (issue 34, section 5): 1,000 combinations of levels × threshold ×
 * pos_rules over a year of real 15-minute EURUSD bars — HistData 2016 1-minute bid bars from
 * ../shared/data/fx resampled to 15 minutes, a constant 0.6-pip spread (the file has bids only) —
 * after the model's probabilities exist: p(up) is a fixed smooth function of past returns (a
 * logistic of the fast − slow EMA of the close over a running range), standing in for a model's.
 * Each threshold's signals are made once (toSignals) and shared by its trials, as an optimiser
 * would; equity is recorded about once a day (the marks an optimiser takes its period returns from).
 * Reported: the sweep's median wall time (after warm-up runs), engine bar-steps/s across
 * the sweep (trials × bars / s; goal ≥ 25 M, i.e. ≤ 1 s), its CPU time, and, in the same run, the
 * time of 1,000 separate runBacktest calls (+ tradeStats of each, what /train does per run). The
 * load average is reported beside them: on a shared 2-core machine other work stretches the wall
 * clock, so the figure per CPU second is given too.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loadavg } from 'node:os';
import { runBacktest, sweepBacktests, tradeStats, type BarColumns, type EngineOptions, type SweepTrial } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { toSignals } from '../../src/scoring/decisions.ts';
import { numberOption, type BenchResult, type Benchmark } from './lib/types.ts';

const FILE = '../shared/data/fx/histdata_m1/normalized/histdata_EURUSD_m1_2016.csv.gz';
const M15 = 900_000;
const GOAL_STEPS_PER_S = 25_000_000;
const WARMUP_RUNS = 2;

/** The file's 1-minute bid bars resampled to 15 minutes (first open, max high, min low, last close). */
function loadBars(spread: number): BarColumns {
  const lines = gunzipSync(readFileSync(FILE)).toString('utf8').split('\n');
  if (lines[0]!.trim() !== 'ts_utc,bid_open,bid_high,bid_low,bid_close') throw new Error(`${FILE}: unexpected header ${lines[0]}`);
  const cols = { ts: [] as number[], open: [] as number[], high: [] as number[], low: [] as number[], close: [] as number[] };
  for (let r = 1; r < lines.length; r++) {
    if (!lines[r]) continue;
    const f = lines[r]!.split(',');
    const ts = Math.floor(Date.parse(f[0]!) / M15) * M15;
    const k = cols.ts.length - 1;
    if (k >= 0 && cols.ts[k] === ts) {
      cols.high[k] = Math.max(cols.high[k]!, Number(f[2]));
      cols.low[k] = Math.min(cols.low[k]!, Number(f[3]));
      cols.close[k] = Number(f[4]);
    } else {
      cols.ts.push(ts);
      cols.open.push(Number(f[1]));
      cols.high.push(Number(f[2]));
      cols.low.push(Number(f[3]));
      cols.close.push(Number(f[4]));
    }
  }
  const n = cols.ts.length;
  return {
    ts: Float64Array.from(cols.ts),
    open: Float64Array.from(cols.open),
    high: Float64Array.from(cols.high),
    low: Float64Array.from(cols.low),
    close: Float64Array.from(cols.close),
    spread: new Float64Array(n).fill(spread),
  };
}

/** p(up) from past closes only: logistic((EMA8 − EMA32) / (4 × EMA of |Δclose|)). */
function probaUp(bars: BarColumns): Float64Array {
  const n = bars.close.length;
  const out = new Float64Array(n);
  let fast = bars.close[0]!;
  let slow = fast;
  let range = 0;
  for (let i = 0; i < n; i++) {
    const c = bars.close[i]!;
    if (i > 0) range += (Math.abs(c - bars.close[i - 1]!) - range) / 32;
    fast += (c - fast) * (2 / 9);
    slow += (c - slow) * (2 / 33);
    out[i] = range > 0 ? 1 / (1 + Math.exp(-(fast - slow) / (4 * range))) : 0.5;
  }
  return out;
}

const STOPS: { stop: EngineOptions['stop']; trail: EngineOptions['trail']; label: string }[] = [
  { stop: { unit: 'pips', value: 10 }, trail: null, label: 'SL 10 pips' },
  { stop: { unit: 'pips', value: 25 }, trail: null, label: 'SL 25 pips' },
  { stop: { unit: 'usd', value: 400 }, trail: null, label: 'SL 400 USD' },
  { stop: { unit: 'pct', value: 0.005 }, trail: null, label: 'SL 0.5 %' },
  { stop: { unit: 'pips', value: 30 }, trail: { unit: 'atr', value: 2, period: 14 }, label: 'SL 30 pips + 2 ATR(14) trail' },
];
const TAKES: EngineOptions['take'][] = [
  { unit: 'pips', value: 15 },
  { unit: 'pips', value: 40 },
  { unit: 'usd', value: 800 },
  { unit: 'pct', value: 0.01 },
  null,
];
const THRESHOLDS = [0.52, 0.55, 0.58, 0.62];
const POS_RULES: Pick<EngineOptions, 'direction' | 'cooldown' | 'maxPositions' | 'onOpposite'>[] = [
  { direction: 'both', cooldown: 0, maxPositions: 1, onOpposite: 'reverse' },
  { direction: 'both', cooldown: 4, maxPositions: 1, onOpposite: 'reverse' },
  { direction: 'both', cooldown: 0, maxPositions: 3, onOpposite: 'reverse' },
  { direction: 'both', cooldown: 0, maxPositions: 1, onOpposite: 'close_only' },
  { direction: 'both', cooldown: 2, maxPositions: 2, onOpposite: 'close_only' },
  { direction: 'both', cooldown: 0, maxPositions: 1, onOpposite: 'ignore' },
  { direction: 'both', cooldown: 8, maxPositions: 3, onOpposite: 'ignore' },
  { direction: 'long', cooldown: 0, maxPositions: 1, onOpposite: 'reverse' },
  { direction: 'short', cooldown: 0, maxPositions: 2, onOpposite: 'reverse' },
  { direction: 'long', cooldown: 4, maxPositions: 3, onOpposite: 'close_only' },
];

const medianOf = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** The bench's bars, trials and marks (also for profiling the sweep alone). */
export function sweepCase(): { bars: BarColumns; trials: SweepTrial[]; marks: Int32Array } {
  const inst = INSTRUMENTS.EURUSD;
  const bars = loadBars(0.6 * inst.pipSize);
  const n = bars.ts.length;
  const pUp = probaUp(bars);
  const base: Omit<EngineOptions, 'direction' | 'cooldown' | 'maxPositions' | 'onOpposite' | 'stop' | 'take'> = {
    instrument: inst,
    timeframeMs: M15,
    lotSize: 1,
    commissionPerLot: 3.5,
    swapLong: -6.5,
    swapShort: 1.2,
    fillAtBidAsk: true,
    resolver: null,
    capital: 10_000,
  };
  const trials: SweepTrial[] = [];
  for (const threshold of THRESHOLDS) {
    const signals = toSignals(pUp, threshold);
    for (const s of STOPS)
      for (const take of TAKES)
        for (const rules of POS_RULES) trials.push({ options: { ...base, ...rules, stop: s.stop, trail: s.trail, take }, signals });
  }
  // about once a day (96 bars) and the last bar, as the optimiser records equity for its period returns
  const marks = Int32Array.from({ length: Math.ceil(n / 96) }, (_, k) => Math.min(n - 1, (k + 1) * 96 - 1));
  return { bars, trials, marks };
}

export const benchmark: Benchmark = {
  name: 'engine-sweep',
  description:
    'Engine-only batched sweep: 1,000 level × threshold × pos_rules trials over a year of real 15-min EURUSD bars, bar-steps/s (goal ≥ 25 M) vs 1,000 runBacktest calls',
  async run(ctx): Promise<BenchResult[]> {
    const runs = numberOption(ctx, 'runs', 5);
    const { bars, trials, marks } = sweepCase();
    const n = bars.ts.length;
    const range = { from: 0, to: n };
    const steps = trials.length * n;
    ctx.log(`${n} 15-min bars from ${FILE}; ${trials.length} trials, ${steps} engine bar-steps per sweep`);

    const times: number[] = [];
    const cpuTimes: number[] = [];
    let results = sweepBacktests(bars, trials, range, { marks });
    for (let r = 0; r < WARMUP_RUNS + runs && !ctx.signal.aborted; r++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      results = sweepBacktests(bars, trials, range, { marks });
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      if (r >= WARMUP_RUNS) {
        times.push(ms);
        cpuTimes.push((cpu.user + cpu.system) / 1000);
      }
    }
    const sweepMs = medianOf(times);
    const sweepCpuMs = medianOf(cpuTimes);

    // With `trades: true` (each trial's ClosedTrade objects made, as a caller needing trade lists asks): once.
    const t1 = performance.now();
    sweepBacktests(bars, trials, range, { marks, trades: true });
    const withTradesMs = performance.now() - t1;

    // The same 1,000 trials one runBacktest (+ tradeStats) each, once (the engine's code is warm from the sweep).
    const separate: number[] = [];
    let mismatches = 0;
    for (let r = 0; r < 1 && !ctx.signal.aborted; r++) {
      const t0 = performance.now();
      for (let t = 0; t < trials.length; t++) {
        const trial = trials[t]!;
        const run = runBacktest(trial.options, bars, trial.signals, range);
        const stats = tradeStats(run.trades, 10_000);
        if (r === 0 && (stats.np !== results[t]!.stats.np || run.tradeCount !== results[t]!.tradeCount)) mismatches++;
      }
      separate.push(performance.now() - t0);
    }
    const separateMs = medianOf(separate);
    const trades = results.reduce((a, r) => a + r.tradeCount, 0);
    const stepsPerS = Math.round(steps / (sweepMs / 1000));
    ctx.log(
      `sweep: median ${sweepMs.toFixed(1)} ms wall (${sweepCpuMs.toFixed(1)} ms CPU), ${stepsPerS} bar-steps/s; 1,000 runBacktest: ${separateMs.toFixed(1)} ms; ${trades} trades; ${mismatches} mismatches`,
    );
    if (mismatches > 0) throw new Error(`engine-sweep: ${mismatches} trials differ from their runBacktest`);
    return [
      {
        name: 'sweep-1000-trials-one-year-15min',
        data: 'HistData EURUSD 2016 1-min bid bars (real) resampled to 15 min, constant 0.6-pip spread',
        probabilities: 'fixed: logistic((EMA8 − EMA32) / (4 × EMA32 |Δclose|)) of past closes',
        trials: trials.length,
        grid: `${STOPS.length} stops (pips, usd, pct, one with a 2 x ATR trail) x ${TAKES.length} takes (pips, usd, pct, none) x ${THRESHOLDS.length} thresholds x ${POS_RULES.length} pos_rules (direction, cooldown, max positions, on_opposite)`,
        bars: n,
        bar_steps: steps,
        trades,
        runs: times.length,
        sweep_median_s: round(sweepMs / 1000),
        sweep_min_s: round(Math.min(...times) / 1000),
        sweep_cpu_s: round(sweepCpuMs / 1000),
        bar_steps_per_s: stepsPerS,
        bar_steps_per_cpu_s: Math.round(steps / (sweepCpuMs / 1000)),
        sweep_with_trade_objects_s: round(withTradesMs / 1000),
        separate_runbacktest_s: round(separateMs / 1000),
        speedup_vs_separate: round(separateMs / sweepMs, 2),
        loadavg_1m: round(loadavg()[0]!, 2),
        goal_bar_steps_per_s: GOAL_STEPS_PER_S,
        meets_goal: stepsPerS >= GOAL_STEPS_PER_S,
        // the machine is shared: other work stretches the wall clock, not the process's CPU time
        meets_goal_cpu: Math.round(steps / (sweepCpuMs / 1000)) >= GOAL_STEPS_PER_S,
      },
    ];
  },
};
