/**
 * A problem with the user's script, located: parse errors, unsupported constructs and runtime
 * errors (budget, na where a value is needed). The route answers these 422, refunded.
 */
export class PineError extends Error {
  override name = 'PineError';
  constructor(
    message: string,
    readonly line: number,
    readonly col: number,
    /** What is unsupported, when that is the reason (e.g. `request.security`). */
    readonly construct?: string,
  ) {
    super(`line ${line}:${col}: ${message}`);
  }
}

/** Where a node or token starts (1-based). */
export interface Pos {
  line: number;
  col: number;
}

export const pineError = (pos: Pos, message: string, construct?: string): PineError => new PineError(message, pos.line, pos.col, construct);

export const unsupported = (pos: Pos, construct: string, why = 'is not supported by this interpreter'): PineError =>
  pineError(pos, `${construct} ${why}; remove it or rewrite it with the supported built-ins (see the endpoint description)`, construct);
