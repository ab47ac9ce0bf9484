/**
 * Does a meta-labelled model earn its place? On the test span: the model's precision and recall on
 * the rule's trades (each labelled by its triple barrier in the trainer), the rule alone beside the
 * rule + model (the same engine, threshold 0 vs the strategy's), and whether the trades the model
 * confirms beat trades drawn at random from the rule's: a one-sided permutation test over the rule
 * alone's engine trades (the chosen subset's summed P&L against DRAWS random subsets of the same
 * size, seeded, p = (1 + hits) / (1 + draws)). "The model adds nothing here" is an answer too.
 */
import { lowerBound, tradeStats, type BacktestRun, type BarColumns } from '../backtest/index.ts';
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
  /** P(win) per bar (the model's probability). */
  pUp: Float32Array;
  threshold: number;
  labels: MetaLabels;
  test: { from: number; to: number };
  /** The engine over the test span on every rule signal (threshold 0), and on the strategy's. */
  ruleAlone: BacktestRun;
  ruleAndModel: BacktestRun;
  capital: number;
}

/** Index of the bar opening at ts (bars.ts ascending); −1 when none. */
function barAt(ts: Float64Array, t: number): number {
  const i = lowerBound(ts, t);
  return ts[i] === t ? i : -1;
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function metaLabelReport(input: MetaReportInput): MetaLabelReport {
  const { bars, pUp, labels, test } = input;
  const threshold = Math.fround(input.threshold);
  let rows = 0;
  let positives = 0;
  let chosen = 0;
  let hits = 0;
  for (let r = 0; r < labels.bars.length; r++) {
    const bar = labels.bars[r]!;
    if (bar < test.from || bar >= test.to) continue;
    const win = labels.labels[r] === 1;
    const pick = pUp[bar]! >= threshold;
    rows++;
    if (win) positives++;
    if (pick) chosen++;
    if (win && pick) hits++;
  }
  // Each rule trade of the engine belongs to the signal bar before its entry bar.
  const trades = input.ruleAlone.trades;
  const pnl = trades.map((t) => t.pnl);
  const picked = trades.map((t) => {
    const signal = barAt(bars.ts, t.entryTs) - 1;
    return signal >= 0 && pUp[signal]! >= threshold;
  });
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const chosenPnl = sum(pnl.filter((_, i) => picked[i]));
  const chosenTrades = picked.filter(Boolean).length;
  const pValue = subsetPValue(pnl, picked);
  const ruleAlone = tradeStats(trades, input.capital);
  const ruleAndModel = tradeStats(input.ruleAndModel.trades, input.capital);
  const upliftPnl = sum(input.ruleAndModel.trades.map((t) => t.pnl)) - sum(pnl);
  return {
    rows: { train: labels.rowsTrain, test: labels.rowsTest, purged: labels.purged, both_skipped: labels.bothSkipped },
    labels: { positives, chosen, base_rate: ratio(positives, rows), precision: ratio(hits, chosen), recall: ratio(hits, positives) },
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
