/**
 * Pine's operators on whole columns, bar by bar in one loop each: the same rules the bar-by-bar
 * closures apply (runtime/operators.ts), on numbers and bool series as 1/0 with NaN for na.
 */
import { divide, historyOffset, remainder } from '../runtime/operators.ts';
import { at, giveUp, isTrue, type Col, type Steps } from './col.ts';

/** `x op y` on every bar into `v`, by Pine's rules (division by zero is na); false for an operator it does not know. */
export function arithmetic(op: string, x: Float64Array, y: Float64Array, v: Float64Array): boolean {
  const n = v.length;
  if (op === '+') for (let i = 0; i < n; i++) v[i] = x[i]! + y[i]!;
  else if (op === '-') for (let i = 0; i < n; i++) v[i] = x[i]! - y[i]!;
  else if (op === '*') for (let i = 0; i < n; i++) v[i] = x[i]! * y[i]!;
  else if (op === '/') for (let i = 0; i < n; i++) v[i] = divide(x[i]!, y[i]!);
  else if (op === '%') for (let i = 0; i < n; i++) v[i] = remainder(x[i]!, y[i]!);
  else return false;
  return true;
}

/** A binary operator on every bar into `v`: whether the result is a bool series (gives up on an operator it does not know). */
export function binaryValues(op: string, x: Float64Array, y: Float64Array, v: Float64Array): boolean {
  const n = v.length;
  switch (op) {
    case 'and':
      for (let i = 0; i < n; i++) v[i] = isTrue(x[i]!) && isTrue(y[i]!) ? 1 : 0;
      return true;
    case 'or':
      for (let i = 0; i < n; i++) v[i] = isTrue(x[i]!) || isTrue(y[i]!) ? 1 : 0;
      return true;
    // NaN equals nothing and na is NaN here, so `==` on numbers is the comparison itself.
    case '==':
      for (let i = 0; i < n; i++) v[i] = x[i] === y[i] ? 1 : 0;
      return true;
    case '!=':
      for (let i = 0; i < n; i++) v[i] = x[i] === x[i] && y[i] === y[i] && x[i] !== y[i] ? 1 : 0;
      return true;
    case '<':
      for (let i = 0; i < n; i++) v[i] = x[i]! < y[i]! ? 1 : 0;
      return true;
    case '>':
      for (let i = 0; i < n; i++) v[i] = x[i]! > y[i]! ? 1 : 0;
      return true;
    case '<=':
      for (let i = 0; i < n; i++) v[i] = x[i]! <= y[i]! ? 1 : 0;
      return true;
    case '>=':
      for (let i = 0; i < n; i++) v[i] = x[i]! >= y[i]! ? 1 : 0;
      return true;
    default:
      if (!arithmetic(op, x, y, v)) giveUp();
      return false;
  }
}

/** `not x` or `-x` / `+x` on every bar. */
export function unaryValues(op: string, x: Float64Array, n: number): { v: Float64Array; bool: boolean } {
  const v = new Float64Array(n);
  if (op === 'not') {
    for (let i = 0; i < n; i++) v[i] = isTrue(x[i]!) ? 0 : 1;
    return { v, bool: true };
  }
  const sign = op === '-' ? -1 : 1;
  for (let i = 0; i < n; i++) v[i] = sign * x[i]!;
  return { v, bool: false };
}

/** `cond ? then : otherwise` on every bar: the taken branch's value and steps (both branches were made on every bar). */
export function choose(cond: Col, then: Col, otherwise: Col, n: number): Col {
  const v = new Float64Array(n);
  const steps = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const taken = isTrue(cond.v[i]!) ? then : otherwise;
    v[i] = taken.v[i]!;
    steps[i] = 1 + at(cond.steps, i) + at(taken.steps, i);
  }
  // A bool branch and an na one make a bool series with na; a bool and a number do not mix.
  let bool = then.bool;
  if (then.bool !== otherwise.bool) {
    const numbers = then.bool ? otherwise : then;
    if (numbers.v.some((x) => x === x)) return giveUp();
    bool = true;
  }
  return { v, bool, steps };
}

/** `x[k]` on every bar: `target` shifted by the literal offset, else by each bar's offset (na before the first bar; gives up on a bad offset). */
export function shifted(target: Float64Array, n: number, literal: number | null, offsets: Float64Array | null): Float64Array {
  const v = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const back = literal ?? historyOffset(offsets![i]!);
    if (back !== back) giveUp();
    const j = i - back;
    v[i] = j < 0 ? NaN : target[j]!;
  }
  return v;
}

/** The steps of a v6 lazy `and`/`or`: the right side's count on the bars it runs, where the left does not decide. */
export function lazySteps(op: string, left: Col, right: Steps, n: number): Int32Array {
  const steps = new Int32Array(n);
  const x = left.v;
  for (let i = 0; i < n; i++) steps[i] = 1 + at(left.steps, i) + (isTrue(x[i]!) === (op === 'and') ? at(right, i) : 0);
  return steps;
}
