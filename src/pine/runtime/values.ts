/**
 * Runtime values. Numbers are JS doubles with na as NaN (so arithmetic propagates na as Pine
 * does); na of any other type is null. Tuples are plain arrays, Pine arrays a tagged object.
 */
export interface PineArray {
  kind: 'array';
  items: Value[];
}
export type Value = number | boolean | string | null | PineArray | Value[];

export const NA = NaN;

export const isNa = (v: Value | undefined): boolean => v === null || v === undefined || (typeof v === 'number' && v !== v);

/** Pine's bool of a condition: na and false are false. */
export const truthy = (v: Value | undefined): boolean =>
  typeof v === 'boolean' ? v : typeof v === 'number' ? v === v && v !== 0 : v != null;

export const isArray = (v: Value): v is PineArray => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'array';

/** Bar inputs of one run: equal-length columns, oldest first. */
export interface Bars {
  ts: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** Limits of one run: steps (expression evaluations), wall clock, loop iterations, array sizes. */
export interface RunLimits {
  maxSteps: number;
  /** performance.now() at which the run gives up (a wall budget, measured in this thread). */
  deadlineMs: number;
  maxLoopIterations: number;
  maxArraySize: number;
}

export const DEFAULT_LIMITS: Omit<RunLimits, 'deadlineMs'> & { wallMs: number } = {
  maxSteps: 30_000_000,
  wallMs: 3_000,
  maxLoopIterations: 10_000,
  maxArraySize: 100_000,
};
