import type { ClosedTrade, RiskUnit } from '../../schemas/backtest.ts';
import type { Instrument } from '../lib/instruments.ts';
import type { EntryTimes } from './entry-times.ts';

export type { BarColumns } from '../lib/bar-columns.ts';

/** Entry mask bits per bar (see run.ts): a long may open, a short may open (on this bar's signal, at the next open). */
export const LONG_ALLOWED = 1;
export const SHORT_ALLOWED = 2;
export const BOTH_ALLOWED = LONG_ALLOWED | SHORT_ALLOWED;
/** Exit bits of the same mask: open longs / shorts close at the next open (strategy_config exit_long / exit_short). */
export const EXIT_LONG = 4;
export const EXIT_SHORT = 8;

/** A stop-loss or take-profit distance: `value` in `unit` (see RiskUnit in schemas/backtest.ts). */
export interface Level {
  unit: RiskUnit;
  value: number;
}

/**
 * A trailing stop's distance from the best price since entry: a fraction of that price (`pct`,
 * 0.01 = 1 %), a fixed number of pips (`pips`), or `value` × ATR(`period`) of the bars the engine
 * steps (`atr`). See engine-core.ts.
 */
export type Trail = { unit: 'pct' | 'pips'; value: number } | { unit: 'atr'; value: number; period: number };

/** Which level the price reached first inside one bar that reached both. */
export type FirstTouch = 'SL' | 'TP';

/**
 * Decides, for a bar that reached both levels of a position, which came first — from finer
 * bars (see intrabar.ts). Answers 'SL' whenever it cannot tell.
 */
export interface IntrabarResolver {
  /**
   * @param from  open time of the coarse bar (epoch ms)
   * @param to    its end (from + timeframe), exclusive
   * @param long  the position's side
   * @param stop  stop level; take: take-profit level (both in the price the position exits at)
   * @param offset added to the finer bars' bid prices before comparing (the coarse bar's spread
   *               for a short under fill_at_bid_ask, whose levels are ask prices; else 0)
   */
  firstTouch(from: number, to: number, long: boolean, stop: number, take: number, offset: number): FirstTouch;
}

export type Direction = 'both' | 'long' | 'short';
export type OnOpposite = 'reverse' | 'close_only' | 'ignore';

/** Everything the engine needs; a train job builds it from the request and the strategy_config. */
export interface EngineOptions {
  instrument: Instrument;
  /** Bar length of the stepped bars (ms): the span a resolver searches for finer bars. */
  timeframeMs: number;
  /** Entries allowed: both sides, longs only or shorts only (exits by signal are always honoured). */
  direction: Direction;
  /** After a close on bar k, no entry at the opens of bars k+1 … k+cooldown (0 = none). */
  cooldown: number;
  /** Open positions at most (same-direction signals add positions up to this). */
  maxPositions: number;
  onOpposite: OnOpposite;
  stop: Level | null;
  take: Level | null;
  /**
   * Hours and days at which a position may open, judged on the open time of the bar it opens at
   * (the fill bar; strategy_config session_filter, skip_days). Closings are never held back.
   * null/absent = any time.
   */
  entryTimes?: EntryTimes | null;
  /** A trailing stop (engine-core.ts step 3b); null/absent = none. The fixed `stop` stays as a floor. */
  trail?: Trail | null;
  /** Standard lots per position. */
  lotSize: number;
  /** USD per lot per side. */
  commissionPerLot: number;
  /** USD per lot per night (negative = a charge). */
  swapLong: number;
  swapShort: number;
  fillAtBidAsk: boolean;
  /** Decides SL vs TP inside one bar; null/absent = the stop first (intrabar 'stop_first'). */
  resolver?: IntrabarResolver | null;
  /** Starting equity in USD for the mark-to-market equity (default 10,000). */
  capital?: number;
}

/** An open position, as `PositionEngine.openPositions()` shows it. */
export interface OpenPosition {
  side: 1 | -1;
  entryTs: number;
  entryPrice: number;
  stopLoss: number | null;
  takeProfit: number | null;
  barsHeld: number;
  nights: number;
  units: number;
  /** Best price since entry (the trailing stop follows it); present when the engine trails. */
  best?: number;
}

export type { ClosedTrade };
