/**
 * Columns as values: a series on every bar (numbers, or a bool series as 1/0 with NaN for na), the
 * steps its closures would count on each bar, and giving up (column evaluation's one way out).
 */
import type { Value } from '../runtime/values.ts';

/** Steps a node and its children count on each bar: one number when every bar counts the same. */
export type Steps = number | Int32Array;

/** A series on every bar: numbers, or a bool series as 1/0 (NaN where it is na). */
export interface Col {
  v: Float64Array;
  bool: boolean;
  steps: Steps;
}
/** A tuple of series (`[a, b] = f()`). */
export interface Tuple {
  items: Col[];
  steps: Steps;
}
export type Column = Col | Tuple;
/** An output call's argument: a column, a constant, or a value per bar (see ColumnRun.argument). */
export type Argument = Col | { value: Value; steps: number } | { values: Value[]; steps: Int32Array };

/** A top-level statement made as columns: the steps each bar counts, and what a bar stores (null: its variables hold every bar already). */
export interface ColumnStatement {
  steps: Steps;
  store: ((bar: number) => void) | null;
}

const GIVE_UP = new Error('column evaluation gives up');
export const giveUp = (): never => {
  throw GIVE_UP;
};

export const isCol = (c: Column): c is Col => 'v' in c;

/** Pine's truth of a number or a bool as 1/0: na (NaN) and 0 are false. */
export const isTrue = (x: number): boolean => x === x && x !== 0;

/** The value a bar-by-bar closure would give on bar i: a bool series gives booleans (and NaN for na). */
export const valueAt = (c: Col, i: number): Value => {
  const x = c.v[i]!;
  return c.bool && x === x ? x === 1 : x;
};

export const at = (steps: Steps, i: number): number => (typeof steps === 'number' ? steps : steps[i]!);

/** Steps added up: one number while every part is one, else per bar. */
export function sum(...parts: Steps[]): Steps {
  let total = 0;
  let perBar: Int32Array | null = null;
  for (const p of parts) {
    if (typeof p === 'number') total += p;
    else if (!perBar) perBar = Int32Array.from(p);
    else for (let i = 0; i < p.length; i++) perBar[i]! += p[i]!;
  }
  if (!perBar) return total;
  if (total) for (let i = 0; i < perBar.length; i++) perBar[i]! += total;
  return perBar;
}
