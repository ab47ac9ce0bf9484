/** Crafted community entries for the store, index, ranking and catalogue tests (and the bench). */
import type { TradeStats } from '../../schemas/backtest.ts';
import type { CommunityEntryRecord, LiveRecord } from '../../schemas/community.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { RobustnessSummary } from '../../schemas/robustness-summary.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';

export const CAPITAL = 10_000;

/** TradeStats of trades with these per-trade returns (pnl / capital), in exit order. */
export function statsOf(returns: readonly number[], capital = CAPITAL): TradeStats {
  const pnls = returns.map((r) => r * capital);
  const wins = pnls.filter((p) => p > 0);
  const losses = pnls.filter((p) => p < 0);
  const won = wins.reduce((s, p) => s + p, 0);
  const lost = Math.abs(losses.reduce((s, p) => s + p, 0));
  const np = pnls.reduce((s, p) => s + p, 0);
  let equity = capital;
  let peak = capital;
  let mdd = 0;
  for (const p of pnls) {
    equity += p;
    peak = Math.max(peak, equity);
    mdd = Math.min(mdd, (equity - peak) / capital);
  }
  const n = pnls.length;
  return {
    n,
    wins: wins.length,
    losses: losses.length,
    wr: n ? wins.length / n : 0,
    ret: np / capital,
    pf: lost > 0 ? won / lost : wins.length ? 999 : 0,
    rr: losses.length && wins.length ? won / wins.length / (lost / losses.length) : wins.length ? 999 : 0,
    expect: n ? np / n : 0,
    mdd,
    np,
    avg: n ? np / n / capital : 0,
    best: n ? Math.max(...returns) : 0,
    worst: n ? Math.min(...returns) : 0,
  };
}

/** A trained model record as the trainer writes it (only what sharing and views read varies). */
export function modelRecord(over: Partial<ModelRecord> & { user_id: number; model_name: string }): ModelRecord {
  const symbol = over.symbol ?? 'EURUSD';
  const timeframe = over.timeframe ?? '15min';
  const zero = statsOf([]);
  return {
    username: `user${over.user_id}`,
    stem: `${over.user_id}_${symbol}_${timeframe}_${over.model_name}`,
    symbol,
    timeframe,
    model_type: 'RandomForestClassifier',
    title: 'Crafted strategy',
    trained_at: 1_700_000_000_000,
    job_id: 1,
    source: 'synthetic',
    features: ['ret_1', 'vol_20'],
    warmup: 20,
    config: {
      ...strategyConfig('RandomForestClassifier', { n_estimators: 30, max_depth: 5 }, 'Crafted strategy'),
      stop_loss: 0.002,
      take_profit: 0.003,
      objective: 'test',
      notes: 'test',
    },
    settings: {
      capital: CAPITAL,
      lot_size: 1,
      commission: 0,
      swap_long: 0,
      swap_short: 0,
      risk_unit: 'pips',
      fill_at_bid_ask: false,
      intrabar: 'finer',
      confidence_threshold: 0.55,
      train_split: 0.7,
    },
    train_stats: zero,
    test_stats: zero,
    long_stats: zero,
    short_stats: zero,
    trained_span: { from: 1_690_000_000_000, to: 1_699_000_000_000 },
    fit_span: { from: 1_689_000_000_000, to: 1_699_000_000_000 },
    artifact: 'j1',
    ...over,
  };
}

/** Sample sd (n − 1) of the returns, as the share freezes it. */
export function sd(returns: readonly number[]): number {
  if (returns.length < 2) return 0;
  const mean = returns.reduce((s, r) => s + r, 0) / returns.length;
  return Math.sqrt(returns.reduce((s, r) => s + (r - mean) ** 2, 0) / (returns.length - 1));
}

export interface CraftedEntry {
  id: number;
  user?: number;
  returns: readonly number[];
  symbol?: Symbol;
  timeframe?: Timeframe;
  parent?: number | null;
  title?: string;
  createdAt?: number;
  testDays?: number;
  /** The robustness summary frozen at share; left out: an entry shared before the report existed. */
  robustness?: RobustnessSummary | null;
}

/** A community entry whose test trades have these per-trade returns. */
export function entryRecord(e: CraftedEntry): CommunityEntryRecord {
  const user = e.user ?? 100 + e.id;
  const test = statsOf(e.returns);
  const model = modelRecord({
    user_id: user,
    model_name: `m${e.id}`,
    ...(e.symbol ? { symbol: e.symbol } : {}),
    ...(e.timeframe ? { timeframe: e.timeframe } : {}),
    test_stats: test,
    train_stats: statsOf(e.returns.map((r) => r * 2)),
    artifact: `j${e.id}`,
  });
  return {
    community_id: e.id,
    user_id: user,
    author: `user${user}`,
    title: e.title ?? `Entry ${e.id}`,
    description: `crafted entry ${e.id}`,
    parent_id: e.parent ?? null,
    created_at: e.createdAt ?? 1_700_000_000_000 + e.id * 1000,
    model,
    post_cutoff_stats: null,
    test_trade_sd: sd(e.returns),
    test_days: e.testDays ?? 30,
    ...(e.robustness !== undefined ? { robustness: e.robustness } : {}),
  };
}

/** A live record of trades with these returns, tracked over `bars` bars from `since`. */
export function liveRecord(returns: readonly number[], bars = 96, since = 1_700_100_000_000, barMs = 900_000): LiveRecord {
  return { since, last_bar_ts: since + (bars - 1) * barMs, bars, stats: statsOf(returns) };
}
