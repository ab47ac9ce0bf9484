import { runBacktest } from '../backtest/index.ts';
import { robustnessReportOffThread } from '../robustness/index.ts';
import { UnprocessableError } from '../errors.ts';
import { sourceMix, type BarCache } from '../market/index.ts';
import { checkStrategyConfig, type AnalysisProblem, type ModelOverrides, type StrategyRuntime } from '../sandbox/index.ts';
import {
  decide,
  engineOptions,
  entryRules,
  intrabarResolver,
  modelProbabilities,
  scoreFolds,
  sliceBars,
  toSignals,
  type FeatureRows,
  type ScoringSpec,
} from '../scoring/index.ts';
import { instrument } from '../lib/instruments.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import type { JobRecord, ModelRecord, Results } from '../../schemas/training.ts';
import { resolveSpan } from './bar-span.ts';
import { assertAnalysedFeatures } from './analysed-features.ts';
import { buildResults } from './results.ts';
import { metaLabelReport } from './meta-label-report.ts';
import { modelSettings } from './strategy-rules.ts';
import type { OverrunPenalty } from './overrun-penalty.ts';
import { analyzeBudget, configBudget, trainBudget, withinBudget, type JobOwner } from './time-budget.ts';
import { foldOptions, walkForward } from './walk-forward.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface PipelineDeps {
  runtime: Pick<StrategyRuntime, 'config' | 'analyze' | 'train'>;
  bars: Pick<BarCache, 'get'>;
  /** Lowers the CPU priority of users whose jobs overran lately (none: every job at normal priority). */
  penalty?: OverrunPenalty;
  /** N of the deflated Sharpe for the job (trial-count.ts); absent: 1, the job alone. */
  trials?: (job: JobRecord) => Promise<number>;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

export interface TrainOutcome {
  record: ModelRecord;
  results: Results;
  onnx: Buffer;
  /** Wall time of the walk-forward backtests, the trial count and the report (logged: the report's cost per job). */
  reportMs: number;
}

/** Runs one train job; `stage` is told each step (and may throw to abandon the job). */
export type TrainPipeline = (job: JobRecord, stage: (name: string) => Promise<void>) => Promise<TrainOutcome>;

function describeProblems(problems: AnalysisProblem[]): string {
  return problems.map((p) => (p.columns.length ? `${p.message} (columns: ${p.columns.join(', ')})` : p.message)).join('; ');
}

/**
 * bars → strategy_config check → look-ahead analysis and warm-up → sandboxed fit and ONNX export
 * (and the walk-forward fold models) → ONNX scoring in Node → signals → the position engine over
 * the train, test and post-cutoff spans and each fold's bars → the robustness report → results.
 */
export function trainPipeline(deps: PipelineDeps): TrainPipeline {
  return async (job, stage) => {
    const { request } = job;
    const { symbol, timeframe, code } = request;
    const series = await deps.bars.get(symbol, timeframe);
    const span = resolveSpan(series, request);
    const all = series.columns();
    const bars = sliceBars(all, span.from, span.to);
    const fitRows = span.fitEnd - span.from;
    const source = sourceMix(all.source, span.from, span.to);

    await stage('checking code');
    // Each sandbox job runs under a time budget of its own size (time-budget.ts), at the owner's CPU priority.
    const penalty = deps.penalty;
    const owner: JobOwner = { user: job.user_id, nice: penalty?.niceFor(job.user_id) ?? 0, overran: () => penalty?.overran(job.user_id) };
    // An optimisation's chosen trial saved as a model (POST /optimize/{id}/save): its model class,
    // hyperparameters and indicator values; the indicator values are the model's, seen by its config, analysis and fit.
    const overrides = job.overrides?.model as ModelOverrides | undefined;
    const indicators = overrides?.indicators;
    const returned = await withinBudget(configBudget(), (limits) => deps.runtime.config(code, limits, indicators), owner);
    const check = checkStrategyConfig(returned);
    if (!check.ok) throw new UnprocessableError(`strategy_config() is invalid: ${check.violations.map((v) => v.message).join('; ')}`);
    // The analysis gets exactly the train job's bars (trained span and post-cutoff) and cuts them where the fit does.
    const cuts = { fitRows, trainSplit: request.train_split, horizon: StrategyConfig.parse(returned).target_horizon };
    const analysis = await withinBudget(
      analyzeBudget(bars.ts.length),
      (limits) => deps.runtime.analyze(code, bars, limits, { ...cuts, ...(indicators ? { indicators } : {}) }),
      owner,
    );
    if (analysis.problems.length) throw new UnprocessableError(`the features failed a check: ${describeProblems(analysis.problems)}`);
    const warmup = analysis.warmup ?? 0;

    await stage('training');
    const plan = foldOptions(request.wf_folds, request.wf_scheme, fitRows - warmup - cuts.horizon);
    const budget = trainBudget(StrategyConfig.parse(returned), bars.ts.length, analysis.featureColumns.length, plan);
    const model = overrides ? { overrides } : {};
    const trained = await withinBudget(
      budget,
      (limits) =>
        deps.runtime.train(
          code,
          bars,
          { trainSplit: request.train_split, warmup, fitRows, folds: plan, pipSize: instrument(symbol).pipSize, ...model },
          limits,
        ),
      owner,
    );
    assertAnalysedFeatures(analysis, trained);
    // ... and its engine parameters (pos_rules, filters, trailing stop) over the code's config.
    const config = job.overrides?.config ? StrategyConfig.parse({ ...trained.config, ...job.overrides.config }) : trained.config;
    const settings = modelSettings(request, config);

    await stage('backtesting');
    const features: FeatureRows = { names: trained.features, matrix: trained.matrix, rows: trained.probaUp.length, offset: trained.warmup };
    const n = bars.ts.length;
    const spec: ScoringSpec = { symbol, timeframe, features: trained.features, config, settings };
    // The main model and the fold models alike: checked, loaded and scored here, never their sandbox p(up).
    const [pUp, scoredFolds] = await Promise.all([
      modelProbabilities(trained.onnx, features, n, { owner: job.user_id }),
      scoreFolds(trained.folds, features, n, { owner: job.user_id }),
    ]);
    const { signals, mask } = decide(spec, bars, features, pUp);
    const options = engineOptions(spec, await intrabarResolver(deps.bars, symbol, timeframe));
    const ranges = {
      train: { from: trained.warmup, to: trained.warmup + trained.rowsTrain },
      test: { from: trained.splitIndex, to: fitRows },
      post: { from: fitRows, to: n },
    };
    const runs = {
      train: runBacktest(options, bars, signals, ranges.train, mask),
      test: runBacktest(options, bars, signals, ranges.test, mask),
      post: ranges.post.to > ranges.post.from ? runBacktest(options, bars, signals, ranges.post, mask) : null,
    };
    // Meta-labels: the model confirms the entry rules' trades; the rule alone (threshold 0) is what it must beat.
    const rules = entryRules(spec, features, n);
    const meta = rules ? trained.meta : null;
    const ruleAlone = meta ? runBacktest(options, bars, toSignals(pUp, 0, rules), ranges.test, mask) : null;
    const metaLabel =
      meta && ruleAlone
        ? metaLabelReport({
            bars,
            pUp,
            threshold: settings.confidence_threshold,
            rows: meta,
            ruleAlone,
            ruleAndModel: runs.test,
            capital: settings.capital,
          })
        : null;
    // The folds through the same threshold, entry mask and engine; then the report on the test split.
    const reportStart = performance.now();
    const folds = walkForward({
      bars,
      folds: scoredFolds,
      foldTrees: trained.foldTrees,
      plan,
      purge: config.target_horizon,
      threshold: settings.confidence_threshold,
      rules,
      mask,
      options,
      capital: settings.capital,
    });
    const trials = { n: (await deps.trials?.(job)) ?? 1 };
    // Off the event loop (tens of ms on a year of 15-minute bars), which the edge shares under `serve`.
    const robustness = await robustnessReportOffThread({
      bars,
      test: runs.test,
      train: runs.train,
      options,
      timeframe,
      walkForward: folds.report,
      trials,
      ruleUplift: metaLabel?.uplift,
    });
    const reportMs = performance.now() - reportStart;

    await stage('saving');
    const trainedAt = (deps.clock ?? liveClock).now();
    const results = buildResults({
      job,
      config,
      settings,
      source,
      trainedAt,
      bars,
      pUp,
      signals,
      ranges,
      runs,
      trained,
      horizon: config.target_horizon,
      robustness,
      metaLabel,
      ruleAlone,
    });
    const record: ModelRecord = {
      user_id: job.user_id,
      username: job.username,
      model_name: job.model_name,
      stem: job.model_stem,
      symbol,
      timeframe,
      model_type: config.model_type,
      title: config.title,
      trained_at: trainedAt,
      job_id: job.job_id,
      source: results.source,
      features: trained.features,
      warmup: trained.warmup,
      config,
      settings,
      train_stats: results.metrics.train,
      test_stats: results.metrics.test,
      long_stats: results.metrics.long,
      short_stats: results.metrics.short,
      trained_span: { from: bars.ts[trained.warmup]!, to: bars.ts[fitRows - 1]! },
      fit_span: { from: bars.ts[0]!, to: bars.ts[fitRows - 1]! },
      artifact: `j${job.job_id}`,
      robustness,
      ...(job.optimization ? { optimization: job.optimization } : {}),
    };
    return { record, results, onnx: trained.onnx, reportMs };
  };
}
