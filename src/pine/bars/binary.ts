/**
 * A binary operator's closure. Each operator its own closure: one shared helper calling `f(l, r)`
 * would be a call site V8 cannot inline. Two numbers take the short way; anything else goes
 * through the rules of runtime/operators.ts.
 */
import { num } from '../runtime/ctx.ts';
import { arith, equal, intLiteral, isIntLiteral } from '../runtime/operators.ts';
import { isNa, NA, truthy } from '../runtime/values.ts';
import type { Expr } from '../syntax/ast.ts';
import type { Compiled } from './closures.ts';
import type { RunState } from './run-state.ts';

export function binaryClosure(e: Expr & { kind: 'binary' }, run: RunState, v6: boolean, c: (e: Expr) => Compiled): Compiled {
  const { op } = e;
  if (op === '/' && !v6 && isIntLiteral(e.left) && isIntLiteral(e.right)) {
    // Pine v5 divides two int constants as integers (5 / 2 is 2); v6 gives the fraction.
    const q = intLiteral(e.right) === 0 ? NA : Math.trunc(intLiteral(e.left) / intLiteral(e.right));
    return () => {
      run.tick(e);
      run.steps += 2;
      return q;
    };
  }
  const l = c(e.left);
  const r = c(e.right);
  // Each operator its own closure: one shared helper calling `f(l, r)` would be a call site V8 cannot inline.
  // Pine v6 evaluates `and`/`or` lazily; v5 evaluates both sides on every bar, so a ta.* call on
  // the right keeps its history even when the left side decides.
  const lazy = v6;
  switch (op) {
    case 'and':
      if (!lazy) {
        return () => {
          run.tick(e);
          const x = truthy(l());
          return truthy(r()) && x;
        };
      }
      return () => {
        run.tick(e);
        return truthy(l()) && truthy(r());
      };
    case 'or':
      if (!lazy) {
        return () => {
          run.tick(e);
          const x = truthy(l());
          return truthy(r()) || x;
        };
      }
      return () => {
        run.tick(e);
        return truthy(l()) || truthy(r());
      };
    case '==':
      return () => {
        run.tick(e);
        const x = l();
        return equal(x, r());
      };
    case '!=':
      return () => {
        run.tick(e);
        const x = l();
        const y = r();
        return !isNa(x) && !isNa(y) && !equal(x, y);
      };
    case '<':
      return () => {
        run.tick(e);
        const x = num(l());
        return x < num(r());
      };
    case '>':
      return () => {
        run.tick(e);
        const x = num(l());
        return x > num(r());
      };
    case '<=':
      return () => {
        run.tick(e);
        const x = num(l());
        return x <= num(r());
      };
    case '>=':
      return () => {
        run.tick(e);
        const x = num(l());
        return x >= num(r());
      };
    // Two numbers take the short way; anything else goes through arith().
    case '+':
      return () => {
        run.tick(e);
        const x = l();
        const y = r();
        return typeof x === 'number' && typeof y === 'number' ? x + y : arith(op, x, y, e);
      };
    case '-':
      return () => {
        run.tick(e);
        const x = l();
        const y = r();
        return typeof x === 'number' && typeof y === 'number' ? x - y : arith(op, x, y, e);
      };
    case '*':
      return () => {
        run.tick(e);
        const x = l();
        const y = r();
        return typeof x === 'number' && typeof y === 'number' ? x * y : arith(op, x, y, e);
      };
    default:
      return () => {
        run.tick(e);
        const x = l();
        return arith(op, x, r(), e);
      };
  }
}
