/** What the bar-by-bar evaluator makes of the AST: each node, once, a closure of ours (never JavaScript text). */
import type { Value } from '../runtime/values.ts';

/** An expression node turned into a closure over its resolved parts (still interpretation: no JS text). */
export type Compiled = () => Value;
export type CompiledStmt = () => Flow;
/** A block's statements as closures. */
export interface Block {
  run: CompiledStmt[];
}

export const BREAK = 1;
export const CONTINUE = 2;
export type Flow = 0 | typeof BREAK | typeof CONTINUE;
