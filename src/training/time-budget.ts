/**
 * How much CPU time one sandboxed job of a strategy may use: a budget that scales with the bars it
 * is given and, for the fit, with the model it asks for — an endless loop ends in seconds, not after
 * a fixed five minutes, and a big honest job still gets ample time. src/training/README.md
 * documents the formula; the constants are measured on the 2-core dev machine.
 *
 * The budget counts the strategy's own CPU time, not wall time: a job run at a lower priority (a
 * user's overrun penalty) on a busy host takes longer but does not fail for it. A job that sleeps
 * or blocks is ended by a wall-clock backstop of 4 × its budget + 10 s spent neither computing nor
 * waiting for a CPU (src/sandbox/job-clock.ts).
 */
import type { StrategyConfig } from '../../schemas/strategy.ts';
import { IDLE_FACTOR, IDLE_SLACK_MS, StrategyJobError, wallBackstops, type JobLimits } from '../sandbox/index.ts';

/** What one sandbox job may use, and the sentence that explains its time budget. */
export interface Budget {
  /** The CPU-time budget, ms: the job's own CPU time (a train job's on each thread its fit may use), not wall time. */
  timeoutMs: number;
  memoryMb: number;
  /** The job's name as the user reads it ("the strategy", "the fit"). */
  what: string;
  /** Bars the job was given. */
  bars: number;
  /** How the budget was reached, e.g. "2 s + 5 feature passes of 0.08 ms per bar". */
  why: string;
  /** What to change when the budget runs out. */
  hint: string;
}

/**
 * One feature pass may take 0.08 ms per bar: about 20× a vectorised pandas strategy of a dozen
 * columns (4 µs per bar here), so a slow machine or a heavy but honest strategy still fits.
 */
export const PASS_MS_PER_BAR = 0.08;
/** Fixed start-up allowance of every job (fork, the code's module level, the answer's transfer). */
const BASE_MS = 2_000;
/** The fit may take this many times its expected duration. */
export const FIT_HEADROOM = 10;

export const LIMITS = {
  config: { floorMs: 5_000, ceilingMs: 5_000, memoryMb: 1024 },
  // The analysis computes features on the train job's whole span (post-cutoff bars included), on prefixes (n-1, the fit end, the split, a day end, 6 random lengths) and many short windows: 6–12 passes of a vectorised strategy, which 5 passes at PASS_MS_PER_BAR (20× slower) hold.
  analyze: { passes: 5, floorMs: 5_000, ceilingMs: 120_000, memoryMb: 3072 },
  features: { passes: 1, floorMs: 5_000, ceilingMs: 120_000, memoryMb: 2048 },
  // features once, then p(up) and the feature matrix of every bar.
  train: { passes: 2, floorMs: 10_000, ceilingMs: 300_000, memoryMb: 3072 },
} as const;

/**
 * Expected seconds per bar × tree × effective depth × feature tried at a split (per bar ×
 * iteration × feature for LogisticRegression), the whole train job on this machine (fit, ONNX
 * export, p(up) of every bar). Forests fit on two threads here.
 */
export const FIT_COST: Record<StrategyConfig['model_type'], number> = {
  RandomForestClassifier: 3e-8,
  ExtraTreesClassifier: 1e-8,
  GradientBoostingClassifier: 3.5e-8,
  XGBClassifier: 2e-9,
  AdaBoostClassifier: 5e-8,
  LogisticRegression: 3e-9,
};

const clamp = (ms: number, { floorMs, ceilingMs }: { floorMs: number; ceilingMs: number }) =>
  Math.round(Math.min(ceilingMs, Math.max(floorMs, ms)));
const seconds = (ms: number) => (ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 100) / 10} s`);
const passes = (n: number) => `${n} feature pass${n === 1 ? '' : 'es'} of ${PASS_MS_PER_BAR} ms per bar`;

function bounded(ms: number, limits: { floorMs: number; ceilingMs: number }, why: string): string {
  if (ms < limits.floorMs) return `the floor of ${seconds(limits.floorMs)}: ${why} come to less`;
  if (ms > limits.ceilingMs) return `the ceiling of ${seconds(limits.ceilingMs)}: ${why} come to more`;
  return why;
}

/** strategy_config() alone: no bars. */
export function configBudget(): Budget {
  const { floorMs, memoryMb } = LIMITS.config;
  return {
    timeoutMs: floorMs,
    memoryMb,
    what: 'strategy_config()',
    bars: 0,
    why: 'the fixed budget of the module level and strategy_config()',
    hint: 'an endless loop, or work at the module level? strategy_config() only returns a dict; compute in feature_engineering',
  };
}

function passBudget(op: 'analyze' | 'features', bars: number, what: string): Budget {
  const limits = LIMITS[op];
  const ms = BASE_MS + limits.passes * PASS_MS_PER_BAR * bars;
  const why = `${seconds(BASE_MS)} + ${passes(limits.passes)}`;
  const hint =
    'an endless loop, or feature code far slower than vectorised pandas (a Python loop over rows, rolling().apply)? Vectorise it, or use fewer bars';
  return { timeoutMs: clamp(ms, limits), memoryMb: limits.memoryMb, what, bars, why: bounded(ms, limits, why), hint };
}

/** The look-ahead and warm-up analysis of feature_engineering on the trained bars. */
export const analyzeBudget = (bars: number): Budget => passBudget('analyze', bars, 'the strategy');

/** One feature_engineering run (/predict). */
export const featuresBudget = (bars: number): Budget => passBudget('features', bars, 'the strategy');

/** The fit's size: trees × effective depth × features tried per split, as the trainer will build it. */
function fitUnits(config: StrategyConfig, bars: number, nFeatures: number): { units: number; shape: string; knobs: string } {
  const nf = Math.max(1, nFeatures);
  // A tree is no deeper than its rows allow: past log2(bars) a deeper limit costs nothing more.
  const depth = (d: number) => Math.max(1, Math.min(d, Math.ceil(Math.log2(Math.max(2, bars)))));
  const tried = (mf: 'sqrt' | 'log2' | number | null | undefined, fallback: number) =>
    mf === 'sqrt' ? Math.sqrt(nf) : mf === 'log2' ? Math.log2(nf) : typeof mf === 'number' ? mf * nf : mf === null ? nf : fallback;
  switch (config.model_type) {
    case 'RandomForestClassifier':
    case 'ExtraTreesClassifier': {
      // The trainer's defaults: 100 trees, max_depth 16 (sklearn's unbounded default is refused), sqrt of the features.
      const p = config.model_params;
      const n = p.n_estimators ?? 100;
      const d = p.max_depth ?? 16;
      return {
        units: n * depth(d) * Math.max(1, tried(p.max_features, Math.sqrt(nf))),
        shape: `n_estimators=${n} max_depth=${d}`,
        knobs: 'n_estimators or max_depth',
      };
    }
    case 'GradientBoostingClassifier': {
      const p = config.model_params;
      const n = p.n_estimators ?? 100;
      const d = p.max_depth ?? 3;
      return {
        units: n * depth(d) * Math.max(1, tried(p.max_features, nf)),
        shape: `n_estimators=${n} max_depth=${d}`,
        knobs: 'n_estimators or max_depth',
      };
    }
    case 'XGBClassifier': {
      const p = config.model_params;
      const n = p.n_estimators ?? 100;
      const d = p.max_depth ?? 6;
      return { units: n * depth(d) * nf, shape: `n_estimators=${n} max_depth=${d}`, knobs: 'n_estimators or max_depth' };
    }
    case 'AdaBoostClassifier': {
      const n = config.model_params.n_estimators ?? 50;
      return { units: n * 2 * nf, shape: `n_estimators=${n} (depth-2 trees)`, knobs: 'n_estimators' };
    }
    case 'LogisticRegression': {
      const iterations = config.model_params.max_iter ?? 100;
      return { units: iterations * nf, shape: `max_iter=${iterations}`, knobs: 'max_iter' };
    }
  }
}

/** The walk-forward folds a train job fits besides (or, foldsOnly, instead of) its main model. */
export interface FoldWork {
  k: number;
  scheme: 'rolling' | 'anchored';
  foldsOnly?: boolean;
}

/**
 * The folds' fits as a share of the main fit's: the labelled rows are cut into k + 1 blocks; a
 * rolling fold fits one block, an anchored fold i fits i + 1 of them (k(k+1)/2 blocks in all), and
 * the main fit's cost was measured per bar of the whole span.
 */
export function foldShare(folds: FoldWork): number {
  const blocks = folds.scheme === 'rolling' ? folds.k : (folds.k * (folds.k + 1)) / 2;
  return blocks / (folds.k + 1);
}

/**
 * The train job: start-up, two feature passes, and FIT_HEADROOM × the fit's expected duration
 * (bars × FIT_COST × the model's size; `nFeatures` = the columns feature_engineering adds), the
 * walk-forward folds' fits added at their share (foldShare). The ceiling grows by the same factor,
 * so a job under it without folds stays under it with them.
 */
export function trainBudget(config: StrategyConfig, bars: number, nFeatures: number, folds?: FoldWork): Budget {
  const { units, shape, knobs } = fitUnits(config, bars, nFeatures);
  const work = (folds?.foldsOnly ? 0 : 1) + (folds ? foldShare(folds) : 0);
  const limits = { ...LIMITS.train, ceilingMs: LIMITS.train.ceilingMs * Math.max(1, work) };
  const expectedMs = bars * units * FIT_COST[config.model_type] * 1000 * work;
  const ms = BASE_MS + limits.passes * PASS_MS_PER_BAR * bars + FIT_HEADROOM * expectedMs;
  const fits = folds
    ? `${folds.foldsOnly ? '' : 'the model and '}${folds.k} ${folds.scheme} walk-forward folds (${Math.round(work * 100) / 100} × one fit)`
    : '';
  const why =
    `${seconds(BASE_MS)} + ${passes(limits.passes)} + ${FIT_HEADROOM} × the expected ${seconds(expectedMs)} of ` +
    `${config.model_type} ${shape} on ${Math.max(1, nFeatures)} features${fits ? `, ${fits}` : ''}`;
  const hint = `lower ${knobs}, use fewer features${folds ? ' or fewer wf_folds' : ''}, or train on fewer bars`;
  return { timeoutMs: clamp(ms, limits), memoryMb: limits.memoryMb, what: 'the fit', bars, why: bounded(ms, limits, why), hint };
}

/** Whose job it is, for the CPU priority: its niceness, and what to call when it overruns. */
export interface JobOwner {
  /** The user id: the strategy runtime shares its zygotes fairly by it. */
  user?: number;
  nice: number;
  overran(): void;
}

/**
 * Runs a sandbox job under the budget's limits; a job that used up its CPU budget, or sat idle past
 * the wall-clock backstop, fails with the budget's explanation instead of the bare timeout. (A host
 * too busy to run the job at all fails as a crash, "try again": not the user's doing, no penalty.)
 */
export async function withinBudget<T>(budget: Budget, run: (limits: JobLimits) => Promise<T>, owner?: JobOwner): Promise<T> {
  try {
    return await run({
      timeoutMs: budget.timeoutMs,
      memoryMb: budget.memoryMb,
      ...(owner?.nice ? { nice: owner.nice } : {}),
      ...(owner?.user !== undefined ? { user: owner.user } : {}),
    });
  } catch (err) {
    if (err instanceof StrategyJobError && err.kind === 'timeout') {
      owner?.overran();
      throw new StrategyJobError('timeout', budgetExceeded(budget, err.limit === 'idle' ? 'idle' : 'cpu'), err.limit);
    }
    throw err;
  }
}

/**
 * What the user reads when a job ran out of its budget: which budget, how it was reached, what to
 * do. `idle`: it sat past the wall-clock backstop without computing (sleeping, blocked).
 */
export function budgetExceeded(budget: Budget, how: 'cpu' | 'idle' = 'cpu'): string {
  const bars = budget.bars > 0 ? ` for ${budget.bars.toLocaleString('en-US')} bars` : '';
  const cpu = `its CPU time budget of ${seconds(budget.timeoutMs)}${bars} (${budget.why})`;
  if (how === 'idle') {
    const { idle_ms } = wallBackstops(budget.timeoutMs);
    return `${budget.what} spent ${seconds(idle_ms)} neither computing nor waiting for a CPU, the wall-clock backstop of ${IDLE_FACTOR} × ${cpu} + ${seconds(IDLE_SLACK_MS)}; strategy code must not sleep or wait for anything`;
  }
  return `${budget.what} used up ${cpu}; ${budget.hint}`;
}
