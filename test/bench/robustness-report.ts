/**
 * The robustness report's cost (src/robustness/report.ts): one year of real EURUSD bars — HistData
 * 2016 1-minute bids from ../shared/data/fx, aggregated to 15-minute bars (~24,800), a constant
 * 0.6-pip spread — a model-like seeded signal stream through the position engine (SL 20 / TP 40
 * pips, reverse) giving a few hundred trades, then robustnessReport over the whole year as the
 * test span: Sharpe significance, 1,000 random-entry runs, 1,000 bootstrap runs, the verdict.
 * Goal: well under 100 ms per report (the median wall-clock time of several runs after warm-up);
 * each part is timed alone beside it, and the CPU time and load average are reported, since other
 * work on a small machine stretches the wall clock.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loadavg } from 'node:os';
import { runBacktest, type BarColumns, type EngineOptions } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { barReturns, barsPerYear, monteCarlo, randomBaseline, robustnessReport, sharpeSignificance } from '../../src/robustness/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { numberOption, type BenchResult, type Benchmark } from './lib/types.ts';

const FILE = '../shared/data/fx/histdata_m1/normalized/histdata_EURUSD_m1_2016.csv.gz';
const M15 = 900_000;
const GOAL_MS = 100;
const WARMUP_RUNS = 2;

/** 1-minute bid bars → 15-minute bars (open of the first minute, extremes, close of the last). */
function load15(spread: number): BarColumns {
  const lines = gunzipSync(readFileSync(FILE)).toString('utf8').split('\n');
  if (lines[0]!.trim() !== 'ts_utc,bid_open,bid_high,bid_low,bid_close') throw new Error(`${FILE}: unexpected header ${lines[0]}`);
  const ts: number[] = [];
  const open: number[] = [];
  const high: number[] = [];
  const low: number[] = [];
  const close: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length === 0) continue;
    const f = line.split(',');
    const bucket = Math.floor(Date.parse(f[0]!) / M15) * M15;
    const [o, h, l, c] = [Number(f[1]), Number(f[2]), Number(f[3]), Number(f[4])];
    const last = ts.length - 1;
    if (last >= 0 && ts[last] === bucket) {
      if (h > high[last]!) high[last] = h;
      if (l < low[last]!) low[last] = l;
      close[last] = c;
    } else {
      ts.push(bucket);
      open.push(o);
      high.push(h);
      low.push(l);
      close.push(c);
    }
  }
  const n = ts.length;
  return {
    ts: Float64Array.from(ts),
    open: Float64Array.from(open),
    high: Float64Array.from(high),
    low: Float64Array.from(low),
    close: Float64Array.from(close),
    spread: new Float64Array(n).fill(spread),
  };
}

/** Model-like signals: an AR(1) score thresholded, so signals come in runs as a classifier's do. */
function modelLikeSignals(n: number, seed: number): Int8Array {
  const random = seededRandom(seed);
  const out = new Int8Array(n);
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = 0.9 * x + (random() - 0.5) * 0.06;
    out[i] = x >= 0.06 ? 1 : x <= -0.06 ? -1 : 0;
  }
  return out;
}

const medianOf = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 100) / 100;

export const benchmark: Benchmark = {
  name: 'robustness-report',
  description:
    'robustnessReport over a year of real 15-min EURUSD bars (1,000 random-entry + 1,000 bootstrap runs), ms per report (goal well under 100 ms)',
  async run(ctx): Promise<BenchResult[]> {
    const runs = numberOption(ctx, 'runs', 9);
    const inst = INSTRUMENTS.EURUSD;
    const bars = load15(0.6 * inst.pipSize);
    const n = bars.ts.length;
    const options: EngineOptions = {
      instrument: inst,
      timeframeMs: M15,
      direction: 'both',
      cooldown: 0,
      maxPositions: 1,
      onOpposite: 'reverse',
      stop: { unit: 'pips', value: 20 },
      take: { unit: 'pips', value: 40 },
      lotSize: 1,
      commissionPerLot: 3.5,
      swapLong: -6.5,
      swapShort: 1.2,
      fillAtBidAsk: true,
      capital: 10_000,
    };
    const signals = modelLikeSignals(n, 34);
    const test = runBacktest(options, bars, signals, { from: 0, to: n });
    const train = runBacktest(options, bars, signals, { from: 0, to: Math.floor(n / 2) });
    ctx.log(`${n} 15-min bars from ${FILE}; ${test.tradeCount} trades over the year`);
    const trades = test.trades;
    const time = (f: () => unknown) => {
      const walls: number[] = [];
      const cpus: number[] = [];
      for (let r = 0; r < WARMUP_RUNS + runs && !ctx.signal.aborted; r++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        f();
        const ms = performance.now() - t0;
        const cpu = process.cpuUsage(c0);
        if (r >= WARMUP_RUNS) {
          walls.push(ms);
          cpus.push((cpu.user + cpu.system) / 1000);
        }
      }
      return { median: medianOf(walls), min: Math.min(...walls), cpu: medianOf(cpus), runs: walls.length };
    };
    let verdict = '';
    const whole = time(() => {
      verdict = robustnessReport({ bars, test, train, options, timeframe: '15min', walkForward: null, trials: { n: 20 }, seed: 1 }).verdict;
    });
    const sharpe = time(() => sharpeSignificance(barReturns(test), { trials: 20, barsPerYear: barsPerYear('15min', false) }));
    const baseline = time(() => randomBaseline({ bars, range: { from: 0, to: n }, trades, options, runs: 1000, seed: 1 }));
    const bootstrap = time(() => monteCarlo({ pnl: trades.map((t) => t.pnl), capital: 10_000, runs: 1000, seed: 1 }));
    ctx.log(
      `report: median ${whole.median.toFixed(1)} ms wall (min ${whole.min.toFixed(1)}), ${whole.cpu.toFixed(1)} ms CPU; ` +
        `sharpe ${sharpe.median.toFixed(2)} ms, baseline ${baseline.median.toFixed(1)} ms (${baseline.cpu.toFixed(1)} ms CPU), monte carlo ${bootstrap.median.toFixed(1)} ms (${bootstrap.cpu.toFixed(1)} ms CPU); verdict ${verdict}`,
    );
    return [
      {
        name: 'report-one-year-15min',
        data: 'HistData EURUSD 2016 1-min bid bars (real) aggregated to 15 min, constant 0.6-pip spread',
        signals: 'model-like: AR(1) score thresholded at ±0.06, in runs (seeded)',
        settings:
          'SL 20 pips, TP 40 pips, 1 position, reverse, fill at bid/ask, commission 3.5/lot/side, swap -6.5/+1.2; 1,000 random-entry runs, 1,000 bootstrap runs, N = 20',
        bars: n,
        trades: test.tradeCount,
        verdict,
        runs: whole.runs,
        median_ms: round(whole.median),
        min_ms: round(whole.min),
        cpu_ms: round(whole.cpu),
        sharpe_ms: round(sharpe.median),
        random_baseline_ms: round(baseline.median),
        monte_carlo_ms: round(bootstrap.median),
        loadavg_1m: round(loadavg()[0]!),
        goal_ms: GOAL_MS,
        meets_goal: whole.median < GOAL_MS,
      },
    ];
  },
};
