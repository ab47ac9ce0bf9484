/** What column evaluation reads of the bar-by-bar run (see top-level.ts, which makes it). */
import type { Binding } from '../runtime/bindings.ts';
import type { CallExpr, Ctx } from '../runtime/ctx.ts';
import type { Frame } from '../runtime/slots.ts';
import type { Value } from '../runtime/values.ts';
import type { Expr, FuncDef } from '../syntax/ast.ts';

export type NameExpr = Expr & { kind: 'name' };

/** What column evaluation reads of the bar-by-bar run. */
export interface ColumnHost {
  readonly n: number;
  readonly v6: boolean;
  readonly ctx: Ctx & { bar: number };
  readonly deadline: number;
  readonly maxSteps: number;
  readonly maxLoops: number;
  readonly funcs: ReadonlyMap<string, FuncDef>;
  binding(id: number): Binding | undefined;
  /** A name node that reads no variable: its bar field's column, its constant, or undefined for anything else. */
  leaf(e: NameExpr): Float64Array | { constant: Value } | undefined;
  /** Whether a name node that reads no variable names a constant (color.red, math.pi…). */
  isConstantName(e: NameExpr): boolean;
  localsOf(id: number, count: number): number[];
  /** A constant expression's value on the first bar, by its own closure, and the steps it counted. */
  constant(e: Expr): { value: Value; steps: number };
  /** The first bar's value of a top-level declaration, when it has run. */
  firstValue(declId: number): { value: Value } | undefined;
  /** Makes `e` the built-in call being made, its state kept in `frame`. */
  site(e: CallExpr, frame: Frame): void;
}

/** What the plan reads: bindings and names, before any run. */
export type StaticHost = Pick<ColumnHost, 'binding' | 'isConstantName' | 'funcs' | 'localsOf'>;

/** A variable's key in the columns made so far. */
export const keyOf = (b: Binding): string => (b.kind === 'decl' ? 'd' : 'l') + b.index;
