/**
 * The optimisation's bars and probabilities: the strategy checked as a train job checks it (config,
 * look-ahead analysis), its features once, and per model variant the walk-forward fold models'
 * p(up) — each bar of a fold scored by the fold model fitted before it (purged and embargoed by the
 * trainer), so no trial is ever scored by a model that saw the bars it trades. The fold models come
 * back as ONNX and are checked and scored here, as a train job's models are (scoreFolds): the
 * sandbox never chooses a trial's probabilities.
 */
import { UnprocessableError } from '../errors.ts';
import { PoolFullError } from '../lib/fair-share.ts';
import type { BarCache } from '../market/index.ts';
import {
  applyOverrides,
  checkStrategyConfig,
  StrategyJobError,
  type ModelOverrides,
  type StrategyRuntime,
  type TrainResult,
} from '../sandbox/index.ts';
import {
  intrabarResolver,
  ModelRejectedError,
  scoreFolds,
  sliceBars,
  type BarColumns,
  type FeatureRows,
  type ScoredFold,
} from '../scoring/index.ts';
import { analyzeBudget, configBudget, resolveSpan, trainBudget, withinBudget, type Budget, type JobOwner } from '../training/index.ts';
import type { IntrabarResolver } from '../backtest/index.ts';
import type { OptimizeJobRequest } from '../../schemas/optimize.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { ModelSettings } from '../../schemas/training.ts';
import type { TrialBase } from './engine-trial.ts';

export type { ModelOverrides };

export interface Range {
  from: number;
  to: number;
}

export interface Prepared {
  bars: BarColumns;
  base: TrialBase;
  features: FeatureRows;
  warmup: number;
  /** The k out-of-sample folds (bar indexes, end exclusive), in time order; the last is held out of every choice. */
  folds: Range[];
  resolver: IntrabarResolver | null;
  /** The code's own model's fold probabilities (what engine-only trials trade on). */
  baseProbabilities: Float32Array;
}

export interface FoldDeps {
  runtime: Pick<StrategyRuntime, 'config' | 'analyze' | 'train'>;
  bars: Pick<BarCache, 'get'>;
}

/** A full queue for the runtime is the user's own earlier jobs: said so, as the strategy's error. */
function userError(err: unknown): never {
  if (err instanceof PoolFullError) throw new UnprocessableError(`the strategy runtime is busy with your other jobs: ${err.message}`);
  throw err;
}

/** The train op's fold settings of the request. */
const foldOptions = (request: OptimizeJobRequest) => ({
  k: request.walk_forward.folds,
  scheme: request.walk_forward.scheme,
  embargo: request.walk_forward.embargo,
});

/** A fit with k fold models: the train budget times the anchored folds' share of the rows (k/2 + 1 fits' worth). */
const foldsBudget = (budget: Budget, request: OptimizeJobRequest): Budget => ({
  ...budget,
  timeoutMs: Math.round(budget.timeoutMs * (request.walk_forward.folds / 2 + 1)),
});

/** Each fold model's p(up) over its own test bars, in one per-bar array (NaN outside the folds). */
function stitch(n: number, folds: readonly ScoredFold[]): Float32Array {
  const out = new Float32Array(n).fill(Number.NaN);
  for (const f of folds) out.set(f.pUp.subarray(f.test.from, f.test.to), f.test.from);
  return out;
}

/**
 * The fit's fold models scored on its feature rows, over their test bars; a fold model that fails
 * the model check is the strategy's doing: 422 (the trial, or the optimisation when it is the base).
 */
async function foldScores(fit: TrainResult, n: number, owner: JobOwner): Promise<Float32Array> {
  const features: FeatureRows = { names: fit.features, matrix: fit.matrix, rows: fit.probaUp.length, offset: fit.warmup };
  const scored = await scoreFolds(fit.folds, features, n, { owner: owner.user, bars: 'test' }).catch((err: unknown) => {
    throw err instanceof ModelRejectedError ? new UnprocessableError(err.message) : err;
  });
  return stitch(n, scored);
}

/**
 * Checks the code as POST /train does, fits it once with its walk-forward fold models, and keeps
 * its features: the base every trial changes. Throws (422 or the strategy's error) when the code
 * cannot be optimised at all.
 */
export async function prepare(deps: FoldDeps, request: OptimizeJobRequest, owner: JobOwner): Promise<Prepared> {
  const series = await deps.bars.get(request.symbol, request.timeframe);
  const span = resolveSpan(series, request);
  const bars = sliceBars(series.columns(), span.from, span.fitEnd);
  const n = bars.ts.length;
  const returned = await withinBudget(configBudget(), (limits) => deps.runtime.config(request.code, limits), owner).catch(userError);
  const check = checkStrategyConfig(returned);
  if (!check.ok) throw new UnprocessableError(`strategy_config() is invalid: ${check.violations.map((v) => v.message).join('; ')}`);
  const config = StrategyConfig.parse(returned);
  const cuts = { fitRows: n, trainSplit: 0.7, horizon: config.target_horizon };
  const analysis = await withinBudget(analyzeBudget(n), (limits) => deps.runtime.analyze(request.code, bars, limits, cuts), owner).catch(
    userError,
  );
  if (analysis.problems.length)
    throw new UnprocessableError(`the features failed a check: ${analysis.problems.map((p) => p.message).join('; ')}`);
  const warmup = analysis.warmup ?? 0;
  const budget = foldsBudget(trainBudget(config, n, analysis.featureColumns.length), request);
  const fit = await withinBudget(
    budget,
    (limits) => deps.runtime.train(request.code, bars, { warmup, fitRows: n, folds: foldOptions(request) }, limits),
    owner,
  ).catch(userError);
  const folds = fit.folds.map((f) => f.test);
  if (folds.length < 2) {
    throw new UnprocessableError(
      `${n} bars make ${folds.length} usable walk-forward fold(s) of the ${request.walk_forward.folds} asked (${fit.warnings.join('; ') || 'too few labelled rows'}); widen the dates or ask for fewer folds`,
    );
  }
  // The request's execution settings (a non-strict parse keeps only those), at the code's own threshold.
  const settings = ModelSettings.parse({ ...request, confidence_threshold: fit.config.signal_threshold, train_split: 0.7 });
  return {
    bars,
    base: { symbol: request.symbol, timeframe: request.timeframe, config: fit.config, settings },
    features: { names: fit.features, matrix: fit.matrix, rows: fit.probaUp.length, offset: fit.warmup },
    warmup: fit.warmup,
    folds,
    resolver: await intrabarResolver(deps.bars, request.symbol, request.timeframe),
    baseProbabilities: await foldScores(fit, n, owner),
  };
}

/**
 * The fold probabilities of one model variant: the train op fits only the fold models
 * (folds_only) with the variant's model class and hyperparameters over the code's own.
 */
export async function foldProbabilities(
  deps: FoldDeps,
  request: OptimizeJobRequest,
  prepared: Pick<Prepared, 'bars' | 'warmup' | 'folds' | 'base' | 'features'>,
  overrides: ModelOverrides,
  owner: JobOwner,
): Promise<Float32Array> {
  const { bars, warmup } = prepared;
  const n = bars.ts.length;
  // Checked here (422 naming the field), and the budget is sized on what will really be fitted.
  const config = applyOverrides(prepared.base.config, overrides);
  const budget = foldsBudget(trainBudget(config, n, prepared.features.names.length), request);
  const options = { warmup, fitRows: n, folds: foldOptions(request), overrides, foldsOnly: true };
  const fit = await withinBudget(budget, (limits) => deps.runtime.train(request.code, bars, options, limits), owner).catch(userError);
  const layout = (folds: readonly Range[]) => folds.map((f) => `${f.from}-${f.to}`).join(',');
  if (layout(fit.folds.map((f) => f.test)) !== layout(prepared.folds)) {
    throw new UnprocessableError(
      'this model variant’s fold models cover other bars than the base model’s (a fold was skipped): try fewer folds or more bars',
    );
  }
  return foldScores(fit, n, owner);
}

/** Whether an error is the strategy's own (its trial fails) rather than ours (the job fails). */
export const isStrategyError = (err: unknown): boolean => err instanceof StrategyJobError || err instanceof UnprocessableError;
