import type { Expr } from '../syntax/ast.ts';
import type { HlineOut, InputOut, PlotOut, SignalOut } from './outputs.ts';
import type { Bars, RunLimits, Value } from './values.ts';

export type CallExpr = Expr & { kind: 'call' };

/** What a built-in sees of the run: the bar, the bars, its own per-call-site state, the outputs. */
export interface Ctx {
  bar: number;
  readonly n: number;
  readonly bars: Bars;
  readonly limits: RunLimits;
  /** The chart's timeframe (15min, 1h…) and the symbol's tick. */
  readonly timeframe: string;
  readonly mintick: number;
  /** State of the call being made, kept per call site (and per user-function call site above it). */
  state<T>(init: () => T): T;
  /** A PineError at the call being made. */
  fail(message: string, construct?: string): never;
  /** Counts array elements against the run's budget. */
  grow(elements: number): void;
  readonly out: {
    header: { title: string; kind: 'indicator' | 'strategy' | 'library' | 'none'; overlay: boolean };
    plots: Map<number, PlotOut & { offset: number }>;
    hlines: Map<number, HlineOut>;
    signals: SignalOut[];
    inputs: Map<number, InputOut>;
    /** Strategy position: 1 long, -1 short, 0 flat (set by strategy.entry/close, seen from the next bar). */
    position: { now: number; pending: number };
  };
  /** The variable name a call's value is assigned to (for input names), when there is one. */
  readonly target: string | null;
}

export interface Builtin {
  /** Parameter names in Pine's order: positional and named arguments bind to them. */
  params: readonly string[];
  /** Its value never changes after the first call (header, hline, typed inputs): later calls skip it. */
  once?: boolean;
  /** Named parameters accepted and ignored (they only change how TradingView draws). */
  ignored?: readonly string[];
  fn(ctx: Ctx, a: Value[], call: CallExpr): Value;
}

export const num = (v: Value | undefined): number => (typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : NaN);
export const str = (v: Value | undefined): string => (typeof v === 'string' ? v : v == null ? '' : String(v));

/**
 * A length argument: a positive integer, or a 422 naming the call. An int-typed expression with a
 * fractional value (`len / 2`) counts by its whole part, as on TradingView (a float-typed one would
 * not compile there).
 */
export function length(ctx: Ctx, v: Value | undefined, name: string, max = 5000): number {
  const x = Math.trunc(num(v));
  if (!(x >= 1 && x <= max)) ctx.fail(`${name} must be an integer between 1 and ${max}, got ${typeof v === 'number' ? v : String(v)}`);
  return x;
}
