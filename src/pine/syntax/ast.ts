import type { Pos } from './errors.ts';

/** Every node has a unique id (per program): the interpreter keys per-call-site state by it. */
interface Node extends Pos {
  id: number;
}

export type Expr =
  /** `int`: written without a decimal point or exponent (Pine v5 divides two such literals as integers). */
  | (Node & { kind: 'num'; value: number; int: boolean })
  | (Node & { kind: 'str'; value: string })
  | (Node & { kind: 'bool'; value: boolean })
  | (Node & { kind: 'color'; value: string })
  | (Node & { kind: 'na' })
  /** A plain or dotted name: `x`, `close`, `color.red`, `barstate.islast`. */
  | (Node & { kind: 'name'; name: string })
  | (Node & { kind: 'call'; callee: string; args: Expr[]; named: Record<string, Expr>; calleePos: Pos })
  | (Node & { kind: 'index'; target: Expr; offset: Expr })
  | (Node & { kind: 'unary'; op: '-' | '+' | 'not'; operand: Expr })
  | (Node & { kind: 'binary'; op: string; left: Expr; right: Expr })
  | (Node & { kind: 'ternary'; cond: Expr; then: Expr; else: Expr })
  | (Node & { kind: 'tuple'; items: Expr[] })
  /** `if` and `switch` used for their value (the last expression of the branch taken). */
  | (Node & { kind: 'if'; stmt: IfStmt })
  | (Node & { kind: 'switch'; stmt: SwitchStmt })
  | (Node & { kind: 'loop'; stmt: ForStmt | ForInStmt | WhileStmt });

export interface IfStmt extends Node {
  kind: 'if';
  branches: { cond: Expr; body: Stmt[] }[];
  otherwise: Stmt[] | null;
}
export interface SwitchStmt extends Node {
  kind: 'switch';
  subject: Expr | null;
  cases: { match: Expr | null; body: Stmt[] }[];
}
export interface ForStmt extends Node {
  kind: 'for';
  counter: string;
  from: Expr;
  to: Expr;
  step: Expr | null;
  body: Stmt[];
}
export interface ForInStmt extends Node {
  kind: 'forin';
  /** `for x in arr` or `for [i, x] in arr`. */
  names: string[];
  iterable: Expr;
  body: Stmt[];
}
export interface WhileStmt extends Node {
  kind: 'while';
  cond: Expr;
  body: Stmt[];
}
export interface FuncDef extends Node {
  kind: 'func';
  name: string;
  params: { name: string; default: Expr | null }[];
  body: Stmt[];
}

export type Stmt =
  | (Node & { kind: 'decl'; mode: 'var' | 'varip' | null; type: string | null; name: string; init: Expr })
  | (Node & { kind: 'tupledecl'; names: string[]; init: Expr })
  | (Node & { kind: 'assign'; name: string; op: ':=' | '+=' | '-=' | '*=' | '/=' | '%='; value: Expr })
  | (Node & { kind: 'expr'; expr: Expr })
  | (Node & { kind: 'break' })
  | (Node & { kind: 'continue' })
  | IfStmt
  | SwitchStmt
  | ForStmt
  | ForInStmt
  | WhileStmt
  | FuncDef;

export interface Program {
  version: number | null;
  /** `indicator`, `strategy` or `library`, from the header call (null when absent). */
  header: 'indicator' | 'strategy' | 'library' | null;
  body: Stmt[];
  /** How many nodes were made: ids run from 1 to this. */
  nodes: number;
}
