import type { IndicatorInfo, IndicatorName, IndicatorParams } from '../../schemas/indicators.ts';

/** OHLC columns of equal length, oldest bar first. Values are finite. */
export interface Ohlc {
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
}

export interface ParamDef<K extends string> {
  name: K;
  type: 'integer' | 'number';
  default: number;
  min: number;
  max: number;
  description: string;
}

/** Python statements, then one expression per output column (in `columns` order). */
export interface PandasCode {
  setup?: string[];
  exprs: string[];
}

/**
 * What one indicator module declares. `compute` and `pandas` give the natural values; the
 * framework (define.ts) masks the first `warmup` bars with NaN in both, so the rule lives once.
 */
export interface IndicatorDef<K extends string> {
  name: IndicatorName;
  label: string;
  /** The exact definition, as both implementations compute it. */
  description: string;
  params: readonly ParamDef<K>[];
  constraints?: readonly { param: K; less_than: K }[];
  /** Column name patterns, one per output; `{param}` stands for that parameter's value. */
  columns: readonly string[];
  warmupRule: string;
  warmup(p: Readonly<Record<K, number>>): number;
  compute(ohlc: Ohlc, p: Readonly<Record<K, number>>): Float64Array[];
  /** Python using only pandas (`pd`), numpy (`np`), `close`, `open_`, `high`, `low`; temporaries named `_<name>_*`. */
  pandas(p: Readonly<Record<K, number>>): PandasCode;
}

/** A registered indicator, parameters untyped (missing ones take their defaults). */
export interface Indicator {
  readonly name: IndicatorName;
  readonly info: IndicatorInfo;
  columns(params: IndicatorParams): string[];
  warmup(params: IndicatorParams): number;
  /** One Float64Array per column, NaN for the first `warmup` bars. */
  compute(ohlc: Ohlc, params: IndicatorParams): Float64Array[];
  /** Statements adding this indicator's columns to `df`. */
  pandas(params: IndicatorParams): string;
  /**
   * The pandas with each parameter a Python expression (a variable the strategy read from
   * strategy_config()["indicators"]): its setup lines and one unmasked expression per column. Only
   * for indicators whose code interpolates its parameters without computing with them.
   */
  pandasExprs(params: Readonly<Record<string, string>>): { setup: string[]; exprs: string[] };
}
