/** Pine's operators on values: the rules both the bar-by-bar closures and the column evaluation apply. */
import type { Expr } from '../syntax/ast.ts';
import { pineError, type Pos } from '../syntax/errors.ts';
import { num } from './ctx.ts';
import { isNa, NA, type Value } from './values.ts';

/** An integer literal, signed or not (`2`, `-3`; not `2.0`). */
export const isIntLiteral = (e: Expr): boolean =>
  (e.kind === 'num' && e.int) || (e.kind === 'unary' && e.op !== 'not' && isIntLiteral(e.operand));
export const intLiteral = (e: Expr): number =>
  e.kind === 'num' ? e.value : e.kind === 'unary' ? (e.op === '-' ? -intLiteral(e.operand) : intLiteral(e.operand)) : NaN;

/** `==`: na equals nothing; a number and a bool compare as numbers. */
export function equal(a: Value, b: Value): boolean {
  if (isNa(a) || isNa(b)) return false;
  if (typeof a === 'number' || typeof b === 'number') return num(a) === num(b);
  return a === b;
}

/** Pine: division by zero is na (so is a remainder by zero). */
export const divide = (x: number, y: number): number => (y === 0 ? NA : x / y);
export const remainder = (x: number, y: number): number => (y === 0 ? NA : x % y);

export function arith(op: string, l: Value, r: Value, pos: Pos): Value {
  if (op === '+' && (typeof l === 'string' || typeof r === 'string')) {
    if (l === null || r === null) return null;
    return `${typeof l === 'number' && l !== l ? 'NaN' : String(l)}${typeof r === 'number' && r !== r ? 'NaN' : String(r)}`;
  }
  if (typeof l === 'object' && l !== null) throw pineError(pos, `'${op}' needs numbers, got an array or tuple`);
  if (typeof r === 'object' && r !== null) throw pineError(pos, `'${op}' needs numbers, got an array or tuple`);
  const x = num(l);
  const y = num(r);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return divide(x, y);
    case '%':
      return remainder(x, y);
  }
  throw pineError(pos, `unknown operator '${op}'`);
}

/**
 * How many bars back `x[offset]` reads: TradingView takes an int-typed offset with a fractional
 * value (len / 2) by its whole part, and an na offset as 0 (x[na] is x: HalfTrend's
 * high[math.abs(ta.highestbars(2))] relies on it). NaN when it is out of 0…5000 (an error).
 */
export function historyOffset(offset: number): number {
  if (offset !== offset) return 0;
  const whole = Math.trunc(offset);
  return whole >= 0 && whole <= 5000 ? whole : NaN;
}

/** A literal offset within bounds (`x[1]`), known before any bar runs; null otherwise. */
export const literalOffset = (e: Expr): number | null => (e.kind === 'num' && e.value >= 0 && e.value <= 5000 ? Math.trunc(e.value) : null);
