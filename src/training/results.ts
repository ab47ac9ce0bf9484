import { equityCurve, drawdownSeries, toTradeRecords, tradeStats, type BacktestRun, type BarColumns } from '../backtest/index.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { TrainResult } from '../sandbox/index.ts';
import { ruleTradeOutcomes, type RuleTradeOutcome } from './meta-label-report.ts';
import type { ResponseSource } from '../../schemas/market.ts';
import type { StrategyConfig } from '../../schemas/strategy.ts';
import type { RobustnessReport } from '../../schemas/robustness.ts';
import type { JobRecord, MetaLabelReport, ModelSettings, Results, SignalPoint } from '../../schemas/training.ts';

const EQUITY_POINTS = 1000;
const ROLLING_WINDOW = 100;
const ROLLING_POINTS = 500;

interface Range {
  from: number;
  to: number;
}

export interface ResultsInput {
  job: JobRecord;
  config: StrategyConfig;
  settings: ModelSettings;
  source: ResponseSource;
  trainedAt: number;
  bars: BarColumns;
  pUp: Float32Array;
  signals: Int8Array;
  ranges: { train: Range; test: Range; post: Range };
  runs: { train: BacktestRun; test: BacktestRun; post: BacktestRun | null };
  trained: Pick<TrainResult, 'features' | 'warmup' | 'accuracyTrain' | 'accuracyTest' | 'featureImportance' | 'warnings'>;
  horizon: number;
  robustness: RobustnessReport;
  /** The rule alone beside the rule + model (meta-label-report.ts); null (or absent) in direction mode. */
  metaLabel?: MetaLabelReport | null;
  /** The rule alone's engine trades on the test span (meta mode): the trades the model's win/loss calls are judged on. */
  ruleAlone?: BacktestRun | null;
}

const span = (bars: BarColumns, r: Range) => ({
  from: isoFromMs(bars.ts[r.from]!),
  to: isoFromMs(bars.ts[r.to - 1]!),
  bars: r.to - r.from,
});

/** Non-zero signals of bars [from, to), with their p(up) and close. */
export function signalPoints(bars: BarColumns, pUp: Float32Array, signals: Int8Array, r: Range): SignalPoint[] {
  const out: SignalPoint[] = [];
  for (let i = r.from; i < r.to; i++) {
    const s = signals[i]!;
    if (s !== 0) out.push({ time: isoFromMs(bars.ts[i]!), signal: s as -1 | 1, p_up: pUp[i]!, close: bars.close[i]! });
  }
  return out;
}

/**
 * The model's calls on the labelled test rows, actual vs called (p > 0.5, the trainer's accuracy
 * rule). Direction labels: every test row, up = close[t + h] > close[t]. Meta-labels: the rule
 * alone's engine trades of the test span, win = net P&L > 0 (meta-label-report.ts; never the
 * sandbox's labels). Returns the confusion counts and a rolling accuracy.
 */
function modelCalls(bars: BarColumns, pUp: Float32Array, r: Range, h: number, meta: RuleTradeOutcome[] | null) {
  const matrix = [
    [0, 0],
    [0, 0],
  ];
  const hits: number[] = [];
  const times: number[] = [];
  const call = (i: number, actual: number) => {
    const called = pUp[i]! > 0.5 ? 1 : 0;
    matrix[actual]![called]! += 1;
    hits.push(actual === called ? 1 : 0);
    times.push(bars.ts[i]!);
  };
  if (meta) {
    for (const o of meta) if (o.signal >= r.from && o.signal < r.to) call(o.signal, o.won ? 1 : 0);
  } else for (let i = r.from; i + h < r.to; i++) call(i, bars.close[i + h]! > bars.close[i]! ? 1 : 0);
  const rolling: { time: string; accuracy: number }[] = [];
  if (hits.length >= ROLLING_WINDOW) {
    const step = Math.max(1, Math.ceil((hits.length - ROLLING_WINDOW + 1) / ROLLING_POINTS));
    let sum = 0;
    for (let i = 0; i < hits.length; i++) {
      sum += hits[i]!;
      if (i >= ROLLING_WINDOW) sum -= hits[i - ROLLING_WINDOW]!;
      const last = i === hits.length - 1;
      if (i >= ROLLING_WINDOW - 1 && ((i - ROLLING_WINDOW + 1) % step === 0 || last)) {
        rolling.push({ time: isoFromMs(times[i]!), accuracy: sum / ROLLING_WINDOW });
      }
    }
  }
  return { matrix, rolling };
}

/** The results document of a train job (GET /results/{model}). */
export function buildResults(input: ResultsInput): Results {
  const { job, config, settings, bars, pUp, signals, ranges, runs, trained } = input;
  const capital = settings.capital;
  const leverage = settings.leverage;
  const testTrades = runs.test.trades;
  const meta = input.metaLabel && input.ruleAlone ? ruleTradeOutcomes(bars, input.ruleAlone.trades) : null;
  const calls = modelCalls(bars, pUp, ranges.test, input.horizon, meta);
  const hasPost = runs.post !== null;
  return {
    model: job.model_stem,
    model_name: job.model_name,
    symbol: job.request.symbol,
    timeframe: job.request.timeframe,
    source: input.source,
    model_type: config.model_type,
    title: config.title,
    trained_at: isoFromMs(input.trainedAt),
    features: trained.features,
    warmup: trained.warmup,
    settings,
    spans: {
      train: span(bars, ranges.train),
      test: span(bars, ranges.test),
      post_cutoff: hasPost ? span(bars, ranges.post) : null,
    },
    metrics: {
      train: tradeStats(runs.train.trades, capital),
      test: tradeStats(testTrades, capital),
      long: tradeStats(
        testTrades.filter((t) => t.side === 1),
        capital,
      ),
      short: tradeStats(
        testTrades.filter((t) => t.side === -1),
        capital,
      ),
    },
    accuracy: { train: trained.accuracyTrain, test: trained.accuracyTest },
    trade_log: [
      ...toTradeRecords(runs.train.trades, leverage).map((t) => ({ ...t, period: 'train' as const })),
      ...toTradeRecords(testTrades, leverage).map((t) => ({ ...t, period: 'test' as const })),
    ],
    equity_curve: equityCurve(runs.test, EQUITY_POINTS),
    drawdown: drawdownSeries(runs.test, EQUITY_POINTS),
    confusion_matrix: { labels: meta ? ['loss', 'win'] : ['down', 'up'], matrix: calls.matrix },
    feature_importance: Object.entries(trained.featureImportance)
      .map(([feature, importance]) => ({ feature, importance }))
      .sort((a, b) => b.importance - a.importance),
    rolling_accuracy: calls.rolling,
    pred_trade_log: runs.post ? toTradeRecords(runs.post.trades, leverage) : [],
    pred_signals: hasPost ? signalPoints(bars, pUp, signals, ranges.post) : [],
    pred_stats: runs.post ? tradeStats(runs.post.trades, capital) : null,
    robustness: input.robustness,
    optimization: job.optimization ?? null,
    labels: input.metaLabel ? 'meta' : 'direction',
    meta_label: input.metaLabel ?? null,
    warnings: trained.warnings,
  };
}
