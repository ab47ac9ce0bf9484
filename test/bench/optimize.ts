/**
 * A walk-forward hyperparameter optimisation, as POST /api/v1/optimize runs it, measured from the
 * submit to done: 50 TPE trials over a RandomForest's n_estimators and max_depth (and the
 * confidence threshold), 5 walk-forward folds, a year of 1-hour EURUSD bars. Each distinct model
 * variant fits its 5 fold models in the sandbox (one job per variant, the user's fair share of
 * the pool); the engine trials of a batch run in one sweep. Goal ≤ 60 s on the 2-core dev machine.
 *
 * In process, on the service's own parts (real NATS for the job store, the real sandboxed runtime
 * with 2 zygotes, optuna, the position engine): the HTTP service would first build a year of
 * 1-minute history for every symbol (minutes of setup that measure nothing here). The bars are a
 * seeded random walk of weekday hours, so the figure is the same work on any machine.
 */
import { OptimizeJobs, OptimizeStore } from '../../src/optimize/index.ts';
import type { ModelSaver } from '../../src/optimize/save-model.ts';
import { openBucket } from '../../src/bus/index.ts';
import { BarSeries } from '../../src/market/index.ts';
import { StrategyRuntime } from '../../src/sandbox/index.ts';
import { INDICATOR_RULES } from '../../src/indicators/index.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { Buckets } from '../../schemas/messages.ts';
import { OptimizeRequest } from '../../schemas/optimize.ts';
import { log, startNats } from '../helpers/nats.ts';
import { trainableStrategy } from './lib/strategies.ts';
import { numberOption, type Benchmark } from './lib/types.ts';
import { waitForQuiet } from './lib/service.ts';

const CODE = trainableStrategy('RandomForestClassifier', "{'n_estimators': 50, 'max_depth': 5}");
const GOAL_S = 60;
const HOUR = TIMEFRAME_MS['1h'];

/** A year of weekday 1-hour bars (~6,260) of a seeded random walk around 1.10. */
function yearOfHours(seed: number): BarSeries {
  let s = seed >>> 0;
  const rnd = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const end = Date.UTC(2025, 0, 1);
  const rows: number[][] = [];
  let price = 1.1;
  for (let t = end - 365 * 24 * HOUR; t < end; t += HOUR) {
    const day = new Date(t).getUTCDay();
    if (day === 0 || day === 6) continue;
    const open = price;
    const steps = [0, 0, 0, 0].map(() => gauss() * 0.0004);
    let high = open;
    let low = open;
    for (const d of steps) {
      price += d;
      high = Math.max(high, price);
      low = Math.min(low, price);
    }
    rows.push([t, open, high, low, price]);
  }
  const n = rows.length;
  const col = (i: number) => Float64Array.from(rows, (r) => r[i]!);
  return new BarSeries({
    ts: col(0),
    open: col(1),
    high: col(2),
    low: col(3),
    close: col(4),
    spread: new Float64Array(n).fill(0.00002),
    volume: new Float64Array(n).fill(1),
    ticks: new Uint32Array(n).fill(1),
    source: new Uint8Array(n),
  });
}

const empty = () =>
  new BarSeries({
    ts: new Float64Array(0),
    open: new Float64Array(0),
    high: new Float64Array(0),
    low: new Float64Array(0),
    close: new Float64Array(0),
    spread: new Float64Array(0),
    volume: new Float64Array(0),
    ticks: new Uint32Array(0),
    source: new Uint8Array(0),
  });

export const benchmark: Benchmark = {
  name: 'optimize',
  description: `POST /optimize's job: 50-trial TPE hyperparameter optimisation (RandomForest n_estimators × max_depth × threshold), 5 walk-forward folds, a year of 1-hour bars → done (goal ≤ ${GOAL_S} s)`,
  async run(ctx) {
    const trials = numberOption(ctx, 'trials', 50);
    const folds = numberOption(ctx, 'folds', 5);
    const nats = await startNats('bench-optimize');
    ctx.defer(() => nats.close());
    const runtime = await StrategyRuntime.start({ log, size: 2 });
    ctx.defer(() => runtime.stop());
    const [jobsKv, chunks, counters] = await Promise.all([
      openBucket(nats.bus, Buckets.optimize),
      openBucket(nats.bus, Buckets.optimizeTrials),
      openBucket(nats.bus, Buckets.counters),
    ]);
    const store = new OptimizeStore(jobsKv, counters, chunks);
    const series = yearOfHours(34);
    const jobs = new OptimizeJobs({
      store,
      runtime,
      bars: { get: (_symbol, timeframe) => Promise.resolve(timeframe === '1h' ? series : empty()) },
      // Credits are not what is measured: a ledger that always has them.
      metering: { charge: () => Promise.resolve(1e9), refund: () => Promise.resolve(1e9) },
      indicators: INDICATOR_RULES,
      saver: {} as ModelSaver,
      log,
    });
    // This process is the runner (the trainer role's part), claiming the job as it is recorded.
    await jobs.startRunner();
    ctx.defer(() => jobs.stop());
    const quiet = await waitForQuiet(60_000, ctx.signal);
    const request = OptimizeRequest.parse({
      code: CODE,
      symbol: 'EURUSD',
      timeframe: '1h',
      end_date: '2024-12-31',
      start_date: '2024-01-01',
      parameters: {
        'model_params.n_estimators': { type: 'int', low: 20, high: 120, step: 20 },
        'model_params.max_depth': { type: 'int', low: 3, high: 8 },
        confidence_threshold: { type: 'float', low: 0.5, high: 0.6, step: 0.02 },
      },
      method: 'tpe',
      trials,
      seed: 1,
      optimization: 'maximise sharpe',
      walk_forward: { folds, scheme: 'anchored', embargo: 0 },
    });
    const caller = { user_id: 1, username: 'bench', plan: 'pro' as const };
    const t = performance.now();
    const start = await jobs.submit(caller, request);
    const stages: Record<string, number> = {};
    let stage = '';
    let since = performance.now();
    let job = await store.get(1, start.optimize_id);
    for (;;) {
      if (ctx.signal.aborted) throw new Error('aborted');
      job = await store.get(1, start.optimize_id);
      const now = job?.stage ?? job?.status ?? '';
      if (now !== stage) {
        if (stage) stages[stage] = Math.round(performance.now() - since) / 1000;
        stage = now;
        since = performance.now();
      }
      if (job && job.status !== 'queued' && job.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const wall = (performance.now() - t) / 1000;
    if (job!.status !== 'done') throw new Error(`optimisation ${job!.status}: ${job!.error}`);
    const view = await jobs.view(1, start.optimize_id);
    const variants = new Set(view.trials.map((x) => `${x.params['model_params.n_estimators']}/${x.params['model_params.max_depth']}`)).size;
    ctx.log(
      `${view.trials.length} trials (${variants} model variants, ${view.trials_failed} failed) in ${wall.toFixed(1)} s; stages ${JSON.stringify(stages)}`,
    );
    return [
      {
        name: 'hyperparameter-50-trials-5-folds-1h-year',
        bars: series.length,
        trials: view.trials.length,
        trials_failed: view.trials_failed,
        model_variants: variants,
        fold_bars: view.folds.reduce((n, f) => n + f.bars, 0),
        stages_s: stages,
        wall_s: Math.round(wall * 10) / 10,
        per_variant_s: Math.round((wall / Math.max(1, variants)) * 100) / 100,
        pbo: view.pbo?.pbo ?? null,
        verdict: view.robustness?.verdict ?? null,
        goal_s: GOAL_S,
        met: wall <= GOAL_S,
        comparison:
          'every trial is scored out-of-sample by fold models that never saw its bars (5 fits per model variant); freqtrade hyperopt scores in-sample',
        machine_quiet_before: quiet,
      },
    ];
  },
};
