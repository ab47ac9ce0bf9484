/**
 * The position engine alone (runBacktest: step + mark-to-market equity per bar) on one year of
 * real 1-minute EURUSD bid bars — HistData 2016, 372,679 bars, from ../shared/data/fx — with a
 * constant 0.6-pip spread (the file has bids only), SL 10 pips and TP 15 pips, fill at bid/ask,
 * commission and swap, up to 3 positions, reverse on an opposite signal. Two signal streams, both
 * seeded: model-like (runs of signals, as a classifier gives them; trades all day) and a stress
 * stream (independent random signals on 20 % of the bars, a trade every ~6 bars); and the model-like
 * stream again with a 2 × ATR(14) trailing stop (the ATR stepped on every bar, the stops trailed). Goal:
 * ≥ 20,000,000 bars/s: the median wall-clock time of several runs (after warm-up runs); the median
 * CPU time of the process (bars_per_cpu_s) and the load average are reported beside it, since
 * other work on a small machine stretches the wall clock.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loadavg } from 'node:os';
import { runBacktest, type BarColumns, type EngineOptions } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { numberOption, type BenchResult, type Benchmark } from './lib/types.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';

const FILE = '../shared/data/fx/histdata_m1/normalized/histdata_EURUSD_m1_2016.csv.gz';
const GOAL_BARS_PER_S = 20_000_000;
const WARMUP_RUNS = 3;

function loadBars(spread: number): BarColumns {
  const lines = gunzipSync(readFileSync(FILE)).toString('utf8').split('\n');
  const header = lines[0]!.trim();
  if (header !== 'ts_utc,bid_open,bid_high,bid_low,bid_close') throw new Error(`${FILE}: unexpected header ${header}`);
  const rows = lines.slice(1).filter((l) => l.length > 0);
  const n = rows.length;
  const bars: BarColumns = {
    ts: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    spread: new Float64Array(n).fill(spread),
  };
  rows.forEach((line, i) => {
    const f = line.split(',');
    bars.ts[i] = Date.parse(f[0]!);
    bars.open[i] = Number(f[1]);
    bars.high[i] = Number(f[2]);
    bars.low[i] = Number(f[3]);
    bars.close[i] = Number(f[4]);
  });
  return bars;
}

const medianOf = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Model-like signals: p(up) = 0.5 + x with x an AR(1) process (x ← 0.95·x + U(−0.03, 0.03)),
 * thresholded at 0.55 — signals come in runs, like a classifier's, on about a third of the bars.
 */
function modelLikeSignals(n: number, seed: number): Int8Array {
  const random = seededRandom(seed);
  const out = new Int8Array(n);
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = 0.95 * x + (random() - 0.5) * 0.06;
    out[i] = x >= 0.05 ? 1 : x <= -0.05 ? -1 : 0;
  }
  return out;
}

/** Stress: independent random signals, non-zero on `busy` of the bars, either side alike. */
function randomSignals(n: number, busy: number, seed: number): Int8Array {
  const random = seededRandom(seed);
  return Int8Array.from({ length: n }, () => (random() < busy ? (random() < 0.5 ? 1 : -1) : 0));
}

export const benchmark: Benchmark = {
  name: 'backtest-engine',
  description: 'Position engine alone: runBacktest over one year of real 1-min EURUSD bars with SL/TP, bars/s (goal ≥ 20 M)',
  async run(ctx): Promise<BenchResult[]> {
    const runs = numberOption(ctx, 'runs', 9);
    const inst = INSTRUMENTS.EURUSD;
    const bars = loadBars(0.6 * inst.pipSize);
    const n = bars.ts.length;
    const signals = randomSignals(n, 0.2, 42);
    const opts: EngineOptions = {
      instrument: inst,
      timeframeMs: 60_000,
      direction: 'both',
      cooldown: 0,
      maxPositions: 3,
      onOpposite: 'reverse',
      stop: { unit: 'pips', value: 10 },
      take: { unit: 'pips', value: 15 },
      lotSize: 1,
      commissionPerLot: 3.5,
      swapLong: -6.5,
      swapShort: 1.2,
      fillAtBidAsk: true,
      resolver: null,
      capital: 10_000,
    };
    ctx.log(`${n} bars from ${FILE}`);
    const measure = (name: string, signals: Int8Array, stream: string, trail: EngineOptions['trail'] = null): BenchResult => {
      const o: EngineOptions = { ...opts, trail };
      let trades = 0;
      let np = 0;
      const times: number[] = [];
      const cpuTimes: number[] = [];
      for (let r = 0; r < WARMUP_RUNS + runs && !ctx.signal.aborted; r++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const run = runBacktest(o, bars, signals, { from: 0, to: n });
        const ms = performance.now() - t0;
        const cpu = process.cpuUsage(c0);
        if (r >= WARMUP_RUNS) {
          // the first runs warm the JIT up
          times.push(ms);
          cpuTimes.push((cpu.user + cpu.system) / 1000);
        }
        trades = run.tradeCount;
        np = run.equity[n - 1]! - opts.capital!;
      }
      const median = medianOf(times);
      const cpuMedian = medianOf(cpuTimes);
      const barsPerS = Math.round(n / (median / 1000));
      ctx.log(
        `${name}: median ${median.toFixed(1)} ms wall (min ${Math.min(...times).toFixed(1)}), ${cpuMedian.toFixed(1)} ms CPU; ${barsPerS} bars/s, ${trades} trades`,
      );
      return {
        name,
        data: 'HistData EURUSD 2016 1-min bid bars (real), constant 0.6-pip spread',
        signals: stream,
        settings: `SL 10 pips, TP 15 pips, max 3 positions, reverse, cooldown 0, fill at bid/ask, commission 3.5/lot/side, swap -6.5/+1.2${trail ? `, trailing stop ${JSON.stringify(trail)}` : ''}`,
        bars: n,
        trades,
        net_pnl_usd: Math.round(np * 100) / 100,
        runs: times.length,
        median_ms: Math.round(median * 100) / 100,
        min_ms: Math.round(Math.min(...times) * 100) / 100,
        bars_per_s: barsPerS,
        bars_per_cpu_s: Math.round(n / (cpuMedian / 1000)),
        loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
        goal_bars_per_s: GOAL_BARS_PER_S,
        meets_goal: barsPerS >= GOAL_BARS_PER_S,
      };
    };
    return [
      measure(
        'run-one-year-1min',
        modelLikeSignals(n, 42),
        'model-like: AR(1) p(up) thresholded at 0.55, signals in runs on ~1/3 of the bars (seeded)',
      ),
      measure(
        'run-one-year-1min-stress',
        randomSignals(n, 0.2, 42),
        'stress: independent random ±1 on 20 % of the bars (seeded), a trade every ~6 bars',
      ),
      measure(
        'run-one-year-1min-atr-trail',
        modelLikeSignals(n, 42),
        'model-like (as run-one-year-1min), with a 2 x ATR(14) trailing stop',
        { unit: 'atr', value: 2, period: 14 },
      ),
    ];
  },
};
