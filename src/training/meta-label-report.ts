/**
 * Does a meta-labelled model earn its place? On the test span, over the rule alone's trades as the
 * position engine made them (every rule signal, threshold 0): the model's precision and recall on
 * those trades, the rule alone beside the rule + model (the same engine, threshold 0 vs the
 * strategy's), and whether the trades the model confirms beat trades drawn at random from the
 * rule's: a one-sided permutation test (the chosen subset's summed P&L against DRAWS random
 * subsets of the same size, seeded, p = (1 + hits) / (1 + draws)). "The model adds nothing here"
 * is an answer too.
 *
 * Every figure here is computed on the trusted side, from the engine's trades and the model's
 * probabilities scored here from its ONNX: the triple-barrier labels the sandboxed trainer hands
 * back are its own (hostile output) and are not read. A trade won when its net P&L (after spread,
 * commission and swap, as the engine booked it) is > 0; the model took it when its P(win) at the
 * trade's signal bar (the bar before the entry) passed the threshold as toSignals passes it (≥,
 * in float32).
 */
import { lowerBound, tradeStats, type BacktestRun, type BarColumns, type ClosedTrade } from '../backtest/index.ts';
import { seededRandom } from '../lib/seeded-random.ts';
import type { MetaLabels } from '../sandbox/index.ts';
import { modelVsRule } from '../robustness/index.ts';
import type { MetaLabelReport } from '../../schemas/training.ts';

export const DRAWS = 2000;
export const SEED = 35;

/**
 * One-sided permutation p-value that the chosen values' sum beats random subsets of the same size:
 * (1 + #{random sum ≥ chosen sum}) / (1 + draws); null when nothing or everything was chosen.
 */
export function subsetPValue(values: ArrayLike<number>, chosen: ArrayLike<boolean>, draws = DRAWS, seed = SEED): number | null {
  const n = values.length;
  let k = 0;
  let observed = 0;
  for (let i = 0; i < n; i++) if (chosen[i]) (k++, (observed += values[i]!));
  if (k === 0 || k === n) return null;
  const random = seededRandom(seed);
  const pool = Float64Array.from(values);
  // Float sums of the same trades in another order differ in the last bits: ties count as hits.
  const eps = 1e-9 * Math.max(1, Math.abs(observed));
  let hits = 0;
  for (let d = 0; d < draws; d++) {
    let sum = 0;
    for (let j = 0; j < k; j++) {
      const r = j + Math.floor(random() * (n - j));
      const v = pool[r]!;
      pool[r] = pool[j]!;
      pool[j] = v;
      sum += v;
    }
    if (sum >= observed - eps) hits++;
  }
  return (1 + hits) / (1 + draws);
}

export interface MetaReportInput {
  bars: BarColumns;
  /** P(win) per bar (the model's probability, scored here). */
  pUp: Float32Array;
  threshold: number;
  /** The rule rows the sandboxed trainer says it fitted and tested: shown as counted there, never used for a figure below. */
  rows: Pick<MetaLabels, 'rowsTrain' | 'rowsTest' | 'purged' | 'bothSkipped'>;
  /** The engine over the test span on every rule signal (threshold 0), and on the strategy's. */
  ruleAlone: BacktestRun;
  ruleAndModel: BacktestRun;
  capital: number;
}

/** One trade of the rule alone: its signal bar (the bar before its entry bar; −1 when none) and whether it won (net P&L > 0). */
export interface RuleTradeOutcome {
  signal: number;
  won: boolean;
}

/** Index of the bar opening at ts (bars.ts ascending); −1 when none. */
function barAt(ts: Float64Array, t: number): number {
  const i = lowerBound(ts, t);
  return ts[i] === t ? i : -1;
}

/**
 * The engine's trades as the model's calls are judged: each trade's signal bar (the engine fills
 * a signal at the next bar's open) and whether it won, by its net P&L as the engine booked it.
 */
export function ruleTradeOutcomes(bars: BarColumns, trades: readonly ClosedTrade[]): RuleTradeOutcome[] {
  return trades.map((t) => {
    const entry = barAt(bars.ts, t.entryTs);
    return { signal: entry > 0 ? entry - 1 : -1, won: t.pnl > 0 };
  });
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function metaLabelReport(input: MetaReportInput): MetaLabelReport {
  const { bars, pUp, rows } = input;
  const threshold = Math.fround(input.threshold);
  const trades = input.ruleAlone.trades;
  const outcomes = ruleTradeOutcomes(bars, trades);
  const picked = outcomes.map((o) => o.signal >= 0 && pUp[o.signal]! >= threshold);
  let positives = 0;
  let hits = 0;
  outcomes.forEach((o, i) => {
    if (o.won) positives++;
    if (o.won && picked[i]) hits++;
  });
  const pnl = trades.map((t) => t.pnl);
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const chosenPnl = sum(pnl.filter((_, i) => picked[i]));
  const chosenTrades = picked.filter(Boolean).length;
  const pValue = subsetPValue(pnl, picked);
  const ruleAlone = tradeStats(trades, input.capital);
  const ruleAndModel = tradeStats(input.ruleAndModel.trades, input.capital);
  const upliftPnl = sum(input.ruleAndModel.trades.map((t) => t.pnl)) - sum(pnl);
  return {
    rows: { train: rows.rowsTrain, test: rows.rowsTest, purged: rows.purged, both_skipped: rows.bothSkipped },
    labels: {
      positives,
      chosen: chosenTrades,
      base_rate: ratio(positives, trades.length),
      precision: ratio(hits, chosenTrades),
      recall: ratio(hits, positives),
    },
    rule_alone: ruleAlone,
    rule_and_model: ruleAndModel,
    uplift: {
      pnl: upliftPnl,
      rule_trades: trades.length,
      chosen_trades: chosenTrades,
      chosen_pnl: chosenPnl,
      random_pnl: trades.length ? (sum(pnl) * chosenTrades) / trades.length : 0,
      p_value: pValue,
      draws: DRAWS,
      seed: SEED,
    },
    verdict: sentence(modelVsRule({ rule_trades: trades.length, chosen_trades: chosenTrades, p_value: pValue, pnl: upliftPnl }).words),
  };
}

/** The reading as the report's sentence: capitalised, with a full stop. */
const sentence = (words: string): string => `${words[0]!.toUpperCase()}${words.slice(1)}.`;
