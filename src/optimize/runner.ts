/**
 * Runs one optimisation job: prepare (checks, the base fit and its fold models), then batches of
 * trials — the sampler (optuna in the sandbox) suggests, model variants get their fold models,
 * every trial of the batch runs in one engine sweep — recorded as they finish, until the planned
 * trials ran or the job is cancelled; then the choice, walk-forward optimisation, PBO, the
 * degradation slope and the chosen trial's robustness report.
 *
 * Stateless between batches: the sampler is told every stored trial, so a job whose process died
 * is resumed from its stored trials (see OptimizeJobs.recover).
 */
import { runBacktest, tradeStats as tradeStatsOf, type SweepTrial } from '../backtest/index.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { Logger } from '../log.ts';
import { cscvPboOffThread, degradation, robustnessReportOffThread } from '../robustness/index.ts';
import { paramClass } from '../../schemas/optimize-space.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import type { OptimizeRecord, OptimizeTrial, ParamSet, WalkForwardResult } from '../../schemas/optimize.ts';
import type { RobustnessReport, WalkForward } from '../../schemas/robustness.ts';
import { engineTrial } from './engine-trial.ts';
import { foldProbabilities, isStrategyError, prepare, type FoldDeps, type ModelOverrides, type Prepared } from './fold-models.ts';
import type { OptimizeStore } from './job-store.ts';
import { scoreTrial, type MetricValues } from './objective.ts';
import { suggest, type TriedParams } from './sampler.ts';
import type { SearchSpace } from './search-space.ts';
import { better, evaluateTrials, markLayout, type MarkLayout, type TrialOutcome } from './trial-runs.ts';
import type { StrategyRuntime } from '../sandbox/index.ts';
import type { JobOwner } from '../training/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface RunnerDeps extends FoldDeps {
  store: OptimizeStore;
  runtime: FoldDeps['runtime'] & Pick<StrategyRuntime, 'suggest'>;
  log: Logger;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

/** Trials asked of TPE at a time: it learns from each batch; random and grid take bigger ones. */
const TPE_BATCH = 8;
const WIDE_BATCH = 200;
/**
 * Engine bar-steps per sweep group, and the longest stretch of synchronous work before the runner
 * lets the event loop serve requests: under `serve` it shares the edge's process (~3 ms of work).
 */
const SWEEP_GROUP_STEPS = 100_000;
const SLICE_MS = 3;

/** Returns a pause() that yields to the event loop (I/O included) once SLICE_MS of work has passed since the last one. */
function timeSlicer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((r) => setImmediate(r));
    since = performance.now();
  };
}

/** A job that stops with what it has: cancelled by its owner. */
class Cancelled extends Error {}
/** A job left as it is for another runner: this process is stopping. */
class Abandoned extends Error {}

const span = (bars: Prepared['bars'], from: number, to: number) => ({
  from: isoFromMs(bars.ts[from]!),
  to: isoFromMs(bars.ts[to - 1]!),
  bars: to - from,
});

/** The model part of a parameter set: the train op's overrides (null for an engine-only set). */
export function modelOverrides(params: ParamSet): ModelOverrides | null {
  let out: ModelOverrides | null = null;
  for (const [name, v] of Object.entries(params)) {
    if (paramClass(name) !== 'model') continue;
    out ??= {};
    if (name === 'model_type') out.model_type = v as ModelOverrides['model_type'];
    else if (name.startsWith('model_params.')) (out.model_params ??= {})[name.slice('model_params.'.length)] = v;
    else if (name.startsWith('indicators.') && typeof v === 'number') (out.indicators ??= {})[name.slice('indicators.'.length)] = v;
    else throw new Error(`${name}: not a model parameter`);
  }
  return out;
}

export class OptimizeRunner {
  private readonly clock: Clock;

  constructor(private readonly deps: RunnerDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  /**
   * Runs the job to its end and records it: done, failed (with its error) or cancelled. Never
   * throws; the caller refunds the trials not run.
   */
  async run(job: OptimizeRecord, space: SearchSpace, owner: JobOwner, stopping: () => boolean = () => false): Promise<void> {
    const { store } = this.deps;
    const user = job.user_id;
    const id = job.optimize_id;
    const stage = (name: string) =>
      store.update(user, id, (j) => (j.stage === name ? null : { ...j, stage: name, heartbeat_at: this.clock.now() }));
    let trials = await store.trials(user, id);
    try {
      await stage('checking code and fitting the fold models');
      const prepared = await prepare(this.deps, job.request, owner);
      const layout = markLayout(prepared.folds, job.request.timeframe);
      await store.update(user, id, (j) => ({
        ...j,
        folds: prepared.folds.map((f) => span(prepared.bars, f.from, f.to)),
        heartbeat_at: this.clock.now(),
      }));
      await stage('trials');
      const variants = new Map<string, Promise<Float32Array>>();
      const outcomes = new Map<number, TrialOutcome>();
      // Trials recorded before a restart are run again on the engine (cheap) for the choice's inputs.
      const known = trials.filter((t) => t.state === 'done');
      if (known.length)
        await this.evaluate(
          job,
          prepared,
          layout,
          variants,
          owner,
          known.map((t) => ({ trial: t.trial, params: t.params })),
          outcomes,
        );
      while (trials.length < job.trials_planned) {
        const current = await store.get(user, id);
        if (!current || current.cancel_requested) throw new Cancelled();
        const history: TriedParams[] = trials.map((t) =>
          t.state === 'done' && t.value !== null
            ? { params: t.params, state: 'complete', value: t.value }
            : { params: t.params, state: 'failed' },
        );
        const n = Math.min(job.trials_planned - trials.length, space.method === 'tpe' ? TPE_BATCH : WIDE_BATCH);
        const sets = await suggest(
          this.deps.runtime,
          { space, method: space.method, seed: space.seed, direction: job.objective.direction, history, n },
          owner,
        );
        if (sets.length === 0) break; // a grid with no points left
        const batch = sets.map((params, i) => ({ trial: trials.length + i, params }));
        const done = await this.evaluate(job, prepared, layout, variants, owner, batch, outcomes);
        // Stopping: the batch may hold failures of the sandbox going down, not of the strategy.
        if (stopping()) throw new Abandoned();
        trials = [...trials, ...done];
        await store.putTrials(user, id, trials, done);
        const failed = trials.filter((t) => t.state === 'failed').length;
        const best = bestTrial(trials, job.objective.direction);
        await store.update(user, id, (j) => ({
          ...j,
          trials_run: trials.length,
          trials_failed: failed,
          best_value: best?.value ?? null,
          heartbeat_at: this.clock.now(),
        }));
      }
      if (stopping()) throw new Abandoned();
      await stage('walk-forward, PBO and robustness');
      const finished = await this.conclude(job, prepared, trials, outcomes, variants, owner);
      // Cancelled or stopping while the conclusion ran off the event loop: its result is dropped.
      if (stopping()) throw new Abandoned();
      if ((await store.get(user, id))?.cancel_requested) throw new Cancelled();
      await store.update(user, id, (j) => ({
        ...j,
        ...finished,
        status: 'done',
        stage: null,
        finished_at: this.clock.now(),
        heartbeat_at: this.clock.now(),
      }));
    } catch (err) {
      // The next runner resumes the job from its stored trials.
      if (err instanceof Abandoned || stopping()) return;
      const cancelled = err instanceof Cancelled;
      if (!cancelled) this.deps.log.warn({ optimize_id: id, user_id: user, err }, 'optimisation failed');
      const message = cancelled
        ? undefined
        : isStrategyError(err) || err instanceof Error
          ? (err as Error).message
          : 'the optimisation failed';
      await store.update(user, id, (j) => ({
        ...j,
        status: cancelled ? 'cancelled' : 'failed',
        stage: null,
        finished_at: this.clock.now(),
        heartbeat_at: this.clock.now(),
        ...(message ? { error: message } : {}),
      }));
    }
  }

  /** Runs a batch: model variants' fold models (failures fail their trials), then one sweep of every trial whose inputs exist. */
  private async evaluate(
    job: OptimizeRecord,
    prepared: Prepared,
    layout: MarkLayout,
    variants: Map<string, Promise<Float32Array>>,
    owner: JobOwner,
    batch: Array<{ trial: number; params: ParamSet }>,
    outcomes: Map<number, TrialOutcome>,
  ): Promise<OptimizeTrial[]> {
    const failures = new Map<number, string>();
    const ready: Array<{ trial: number; params: ParamSet; sweep: SweepTrial }> = [];
    // One variant's fit at a time: the pool runs one job per user at once anyway, and a user with
    // jobs waiting has the one running lowered in priority (the fair share), which only slows the fits.
    const pause = timeSlicer();
    for (const { trial, params } of batch) {
      await pause();
      try {
        const pUp = await this.probabilities(job, prepared, variants, params, owner);
        ready.push({
          trial,
          params,
          sweep: engineTrial(prepared.base, params, { bars: prepared.bars, pUp, features: prepared.features, resolver: prepared.resolver }),
        });
      } catch (err) {
        failures.set(trial, err instanceof Error ? err.message : String(err));
      }
    }
    ready.sort((a, b) => a.trial - b.trial);
    // The sweep runs on this process's event loop: in groups, yielding between them, so requests keep being served.
    const measured: TrialOutcome[] = [];
    const group = Math.max(1, Math.floor(SWEEP_GROUP_STEPS / Math.max(1, layout.range.to - layout.range.from)));
    for (let g = 0; g < ready.length; g += group) {
      await pause();
      measured.push(
        ...evaluateTrials(
          prepared.bars,
          ready.slice(g, g + group).map((r) => r.sweep),
          layout,
          prepared.base.settings.capital,
        ),
      );
    }
    const out: OptimizeTrial[] = [];
    ready.forEach((r, i) => {
      const m = measured[i]!;
      outcomes.set(r.trial, m);
      const { value, feasible } = scoreTrial(job.objective, m.inSample as MetricValues);
      out.push({ trial: r.trial, params: r.params, state: 'done', in_sample: m.inSample, out_of_sample: m.outOfSample, value, feasible });
    });
    for (const [trial, error] of failures) {
      out.push({
        trial,
        params: batch.find((b) => b.trial === trial)!.params,
        state: 'failed',
        error: error.slice(0, 2000),
        in_sample: null,
        out_of_sample: null,
        value: null,
        feasible: null,
      });
    }
    return out.sort((a, b) => a.trial - b.trial);
  }

  /** The trial's per-bar p(up): the base fold models' for engine-only sets, else its model variant's (fitted once per variant). */
  private probabilities(
    job: OptimizeRecord,
    prepared: Prepared,
    variants: Map<string, Promise<Float32Array>>,
    params: ParamSet,
    owner: JobOwner,
  ): Promise<Float32Array> {
    const overrides = modelOverrides(params);
    if (!overrides) return Promise.resolve(prepared.baseProbabilities);
    // One fold-model fit per variant: model class, hyperparameters and indicator values (features recomputed in the sandbox).
    const sorted = (o: Record<string, unknown> | undefined) => JSON.stringify(Object.entries(o ?? {}).sort());
    const key = `${overrides.model_type ?? ''}|${sorted(overrides.model_params)}|${sorted(overrides.indicators)}`;
    let p = variants.get(key);
    if (!p) {
      p = foldProbabilities(this.deps, job.request, prepared, overrides, owner);
      variants.set(key, p);
    }
    return p;
  }

  /** The choice, walk-forward optimisation, PBO, degradation and the chosen trial's robustness report. */
  private async conclude(
    job: OptimizeRecord,
    prepared: Prepared,
    trials: readonly OptimizeTrial[],
    outcomes: Map<number, TrialOutcome>,
    variants: Map<string, Promise<Float32Array>>,
    owner: JobOwner,
  ): Promise<Pick<OptimizeRecord, 'chosen_trial' | 'walk_forward' | 'pbo' | 'degradation' | 'robustness'>> {
    const dir = job.objective.direction;
    const done = trials.filter((t) => t.state === 'done' && outcomes.has(t.trial));
    const chosen = bestTrial(done, dir);
    // The steps left on the event loop (each a few ms with 1,000 trials) are separated by yields.
    const pause = timeSlicer();
    const walkForward = walkForwardResult(job, prepared, done, outcomes);
    await pause();

    // CSCV and the report run on a worker thread: each is one synchronous block of tens of ms (up
    // to seconds with many trials and a long span), which would hold the edge's event loop under `serve`.
    let pbo: OptimizeRecord['pbo'] = null;
    if (done.length >= 2) {
      const r = await cscvPboOffThread(
        done.map((t) => outcomes.get(t.trial)!.periodReturns),
        [16, 8, 4],
      );
      if (r) pbo = { pbo: r.pbo, slices: r.slices, logits: r.logits.filter(Number.isFinite) };
    }
    const metric = (m: TradeStats & { sharpe: number }) => scoreTrial(job.objective, m as MetricValues).value ?? Number.NaN;
    const d = degradation(
      done.map((t) => metric(t.in_sample!)),
      done.map((t) => metric(t.out_of_sample!)),
    );
    const degradationOut = d.slope === null ? null : { slope: d.slope, intercept: d.intercept ?? 0, points: d.n };

    let robustness: RobustnessReport | null = null;
    if (chosen) {
      await pause();
      const pUp = await this.probabilities(job, prepared, variants, chosen.params, owner);
      const sweep = engineTrial(prepared.base, chosen.params, {
        bars: prepared.bars,
        pUp,
        features: prepared.features,
        resolver: prepared.resolver,
      });
      const { folds } = prepared;
      const last = folds[folds.length - 1]!;
      await pause();
      const train = runBacktest(sweep.options, prepared.bars, sweep.signals, { from: folds[0]!.from, to: last.from }, sweep.mask);
      await pause();
      const test = runBacktest(sweep.options, prepared.bars, sweep.signals, last, sweep.mask);
      await pause();
      const walkForwardFolds = chosenFolds(job, prepared, sweep);
      await pause();
      const sharpes = done.map((t) => outcomes.get(t.trial)!.inSample.sharpe);
      const mean = sharpes.reduce((a, b) => a + b, 0) / sharpes.length;
      const variance = sharpes.length > 1 ? sharpes.reduce((a, b) => a + (b - mean) ** 2, 0) / (sharpes.length - 1) : undefined;
      // The trials' Sharpes are of period returns (about a day of bars each), the report's of bar returns.
      const sharpePeriodBars = (last.to - folds[0]!.from) / outcomes.get(done[0]!.trial)!.periodReturns.length;
      robustness = await robustnessReportOffThread({
        bars: prepared.bars,
        test,
        train,
        options: sweep.options,
        timeframe: job.request.timeframe,
        walkForward: walkForwardFolds,
        trials: { n: trials.length, sharpeVariance: variance, sharpePeriodBars },
        pbo: pbo?.pbo,
        seed: job.request.seed,
      });
    }
    return { chosen_trial: chosen?.trial ?? null, walk_forward: walkForward, pbo, degradation: degradationOut, robustness };
  }
}

/** The best done, feasible trial by in-sample value (the first among equals); null when none. */
export function bestTrial<T extends Pick<OptimizeTrial, 'state' | 'value' | 'feasible' | 'trial'>>(
  trials: readonly T[],
  direction: 'maximize' | 'minimize',
): T | null {
  let best: T | null = null;
  for (const t of trials) {
    if (t.state !== 'done' || !t.feasible || t.value === null) continue;
    if (!best || better(direction, t.value, best.value!)) best = t;
  }
  return best;
}

/**
 * Walk-forward optimisation over the trials run: at step s the trial best on folds 0…s−1 is chosen
 * and traded on fold s; the steps' out-of-sample returns are stitched into one equity.
 */
function walkForwardResult(
  job: OptimizeRecord,
  prepared: Prepared,
  done: readonly OptimizeTrial[],
  outcomes: Map<number, TrialOutcome>,
): WalkForwardResult {
  const { bars, folds } = prepared;
  const capital = prepared.base.settings.capital;
  const steps: WalkForwardResult['steps'] = [];
  const equity: WalkForwardResult['oos_equity'] = [];
  let total = 0;
  for (let s = 1; s < folds.length; s++) {
    const scored = done.map((t) => {
      const m = outcomes.get(t.trial)!.prefix[s - 1]!;
      const { value, feasible } = scoreTrial(job.objective, m as MetricValues);
      return { trial: t.trial, state: 'done' as const, value, feasible };
    });
    const pick = bestTrial(scored, job.objective.direction);
    const ret = pick ? outcomes.get(pick.trial)!.foldReturns[s]! : 0;
    total += ret;
    steps.push({
      in_sample: span(bars, folds[0]!.from, folds[s - 1]!.to),
      out_of_sample: span(bars, folds[s]!.from, folds[s]!.to),
      chosen_trial: pick?.trial ?? null,
      return: ret,
    });
    equity.push({ time: isoFromMs(bars.ts[folds[s]!.to - 1]!), equity: capital * (1 + total) });
  }
  return { steps, oos_return: total, oos_equity: equity };
}

/** The chosen trial on each fold: its test stats, and its stats on the folds before (its in-sample). */
function chosenFolds(job: OptimizeRecord, prepared: Prepared, sweep: SweepTrial): WalkForward {
  const { bars, folds, warmup } = prepared;
  const capital = prepared.base.settings.capital;
  const run = runBacktest(sweep.options, bars, sweep.signals, { from: folds[0]!.from, to: folds[folds.length - 1]!.to }, sweep.mask);
  const statsOf = (from: number, to: number) => {
    const a = bars.ts[from]!;
    const b = to < bars.ts.length ? bars.ts[to]! : Infinity;
    return tradeStatsOf(
      run.trades.filter((t) => t.entryTs >= a && t.entryTs < b),
      capital,
    );
  };
  const out = folds.map((f, i) => ({
    index: i,
    // In the optimisation's sense: the folds before this one, where the parameters were chosen (none before the first).
    train: i === 0 ? span(bars, warmup, f.from) : span(bars, folds[0]!.from, folds[i - 1]!.to),
    test: span(bars, f.from, f.to),
    stats: statsOf(f.from, f.to),
    train_stats: i === 0 ? statsOf(f.from, f.from) : statsOf(folds[0]!.from, folds[i - 1]!.to),
  }));
  return {
    scheme: job.request.walk_forward.scheme,
    k: folds.length,
    purge_bars: prepared.base.config.target_horizon,
    embargo_bars: job.request.walk_forward.embargo,
    folds: out,
    profitable: out.filter((f) => f.stats.ret > 0).length,
    efficiency: efficiency(out),
  };
}

/** Out-of-sample return per bar over in-sample return per bar, across the folds; null when in-sample ≤ 0. */
function efficiency(folds: WalkForward['folds']): number | null {
  let oos = 0;
  let oosBars = 0;
  let is = 0;
  let isBars = 0;
  for (const f of folds) {
    oos += f.stats.ret;
    oosBars += f.test.bars;
    if (f.index > 0) {
      is += f.train_stats.ret;
      isBars += f.train.bars;
    }
  }
  if (!(is > 0) || isBars === 0 || oosBars === 0) return null;
  return oos / oosBars / (is / isBars);
}
