import {
  COMPOSITE_TRADE_CAP,
  MIN_LIVE_TRADES,
  MIN_RANKED_TRADES,
  type LeaderboardMetric,
  type LiveRecord,
} from '../../schemas/community.ts';
import type { TradeStats } from '../../schemas/backtest.ts';

/**
 * The ranking figures of the leaderboard, as pure functions of an entry's frozen test trades and
 * its live record. `RANKING_RULES` says the same in words for the API description: keep the two
 * together.
 */

/** Sample standard deviation (n − 1) of per-trade returns; 0 for fewer than two. */
export function sampleSd(returns: readonly number[]): number {
  const n = returns.length;
  if (n < 2) return 0;
  const mean = returns.reduce((s, r) => s + r, 0) / n;
  const squares = returns.reduce((s, r) => s + (r - mean) ** 2, 0);
  return Math.sqrt(squares / (n - 1));
}

/**
 * Below this a standard deviation is rounding noise (identical returns summed in floating point
 * leave ~1e-19), not dispersion: dividing by it would rank a flat record at 10^15.
 */
export const SD_FLOOR = 1e-12;

/** Per-trade Sharpe: mean per-trade return / its sample standard deviation; 0 when n < 2 or sd < SD_FLOOR. */
export function sharpe(test: Pick<TradeStats, 'n' | 'avg'>, tradeSd: number | undefined): number {
  if (test.n < 2 || tradeSd === undefined || !(tradeSd >= SD_FLOOR)) return 0;
  return test.avg / tradeSd;
}

/**
 * Sharpe scaled by the evidence (√ of the trades, counted up to a cap, so more trades make a
 * steadier edge count for more) and discounted by the worst drawdown.
 */
export function composite(test: Pick<TradeStats, 'n' | 'mdd'>, sharpeValue: number): number {
  return (sharpeValue * Math.sqrt(Math.min(test.n, COMPOSITE_TRADE_CAP))) / (1 + 10 * Math.abs(test.mdd));
}

/** What ranking needs of an entry (see index.ts `IndexedEntry`). */
export interface Rankable {
  test: TradeStats;
  sharpe: number;
  composite: number;
  /** The robustness summary frozen at share (null before the report existed). */
  robustness?: { dsr: number } | null;
}

export interface MetricValue {
  /** null: a live metric of an entry with no live record yet. */
  value: number | null;
  /** Whether the entry has enough trades to be ranked by this metric among the qualified ones. */
  qualified: boolean;
}

const backtestRatio = (entry: Rankable, value: number): MetricValue => ({ value, qualified: entry.test.n >= MIN_RANKED_TRADES });

/** An entry's value of a metric, and whether it qualifies for it. */
export function metricValue(metric: LeaderboardMetric, entry: Rankable, forks: number, live: LiveRecord | undefined): MetricValue {
  switch (metric) {
    case 'wr':
      return backtestRatio(entry, entry.test.wr);
    case 'pf':
      return backtestRatio(entry, entry.test.pf);
    case 'sharpe':
      return backtestRatio(entry, entry.sharpe);
    case 'composite':
      return backtestRatio(entry, entry.composite);
    case 'dsr':
      return entry.robustness ? backtestRatio(entry, entry.robustness.dsr) : { value: null, qualified: false };
    case 'ret':
      return { value: entry.test.ret, qualified: true };
    case 'n_trades':
      return { value: entry.test.n, qualified: true };
    case 'forks':
      return { value: forks, qualified: true };
    case 'live_ret':
      return live && live.bars > 0 ? { value: live.stats.ret, qualified: true } : { value: null, qualified: false };
    case 'live_wr':
    case 'live_pf': {
      if (!live || live.bars === 0) return { value: null, qualified: false };
      return { value: metric === 'live_wr' ? live.stats.wr : live.stats.pf, qualified: live.stats.n >= MIN_LIVE_TRADES };
    }
  }
}

/** The ranking key of a request: `metric` wins over `sort`; with neither, the contract's default `pf`. */
export function rankingKey(query: { sort?: 'wr' | 'pf' | 'ret' | undefined; metric?: LeaderboardMetric | undefined }): LeaderboardMetric {
  return query.metric ?? query.sort ?? 'pf';
}

/** The rules above in words, for the OpenAPI description and the README. */
export const RANKING_RULES = [
  '**Ranking key.** `metric` wins when both `metric` and `sort` are given; `sort` alone ranks by it; with neither the ' +
    'ranking is by `pf` (the contract’s default for `sort`). The answer’s `ranked_by` names the key used.',
  '**Figures.** Backtest metrics are the out-of-sample **test** span’s TradeStats, frozen at publication: `wr`, `pf`, ' +
    '`ret`, `n_trades` (= n). With r_i = pnl_i / capital for the n test trades, avg = mean(r_i) (TradeStats `avg`) and ' +
    'sd = √(Σ(r_i − avg)² / (n − 1)): **`sharpe` = avg / sd** (per trade, not annualised; 0 when n < 2 or sd < 1e-12, ' +
    'i.e. no dispersion beyond rounding). ' +
    `**\`composite\` = sharpe × √min(n, ${COMPOSITE_TRADE_CAP}) / (1 + 10 × |mdd|)** (mdd = test max drawdown, ≤ 0): ` +
    'a steady per-trade edge, counted for more the more trades show it, discounted by the worst drawdown. ' +
    '**`dsr` = the Deflated Sharpe Ratio** of the model’s out-of-sample bar returns, frozen at publication from its robustness ' +
    'report (Bailey & López de Prado 2014): the probability that the true Sharpe exceeds the best Sharpe that N unskilled ' +
    'variants would show by luck, given the returns’ length, skewness and kurtosis, N being the variants the author trained ' +
    'on that symbol and timeframe from the same code lineage (GET /api/v1/results/{model} → robustness.sharpe says what ' +
    'counts); 0 to 1, higher is likelier real. Each row and entry also shows the report’s `verdict` (`robust`, ' +
    '`inconclusive`, `overfit`); both are null for entries shared before the report existed. ' +
    '`forks` = distinct established accounts other than the author that forked the entry (trial keys and accounts ' +
    'claimed less than a week before do not count: see **Forks** below). Live metrics are the verified live track ' +
    'record since publication: `live_ret`, `live_wr`, `live_pf`.',
  `**Minimum trades.** Ratio metrics (\`wr\`, \`pf\`, \`sharpe\`, \`composite\`, \`dsr\`) rank entries with at least ${MIN_RANKED_TRADES} ` +
    `test trades first; entries with fewer follow all of them (\`qualified: false\`), so one lucky trade cannot lead. ` +
    `\`live_wr\` and \`live_pf\` need ${MIN_LIVE_TRADES} live trades the same way; for every live metric, entries not ` +
    'yet tracked (no bar scored: `value` null) come last, and so do entries without a deflated Sharpe for `dsr`. ' +
    '`ret`, `n_trades` and `forks` rank everyone alike.',
  '**Order and ties.** Highest value first; equal values are ordered by community_id ascending (the earlier entry ' +
    'first), so the same data always gives the same order.',
].join('\n\n');
