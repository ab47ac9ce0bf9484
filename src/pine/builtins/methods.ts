/**
 * Method-call syntax on a variable (`a.push(x)`, `s.length()`): the namespaced built-in of the
 * receiver's kind with the receiver as its first argument — array.* on an array, str.* on a string.
 * User-defined methods (`method`) stay unsupported.
 */
import { BUILTINS } from './builtins.ts';
import type { Builtin } from '../runtime/ctx.ts';
import { isArray, type Value } from '../runtime/values.ts';

const KINDS = ['array', 'str'] as const;

/** The built-ins a method name can stand for (empty: no such method). */
export const methodCandidates = (method: string): Builtin[] =>
  KINDS.map((k) => BUILTINS[`${k}.${method}`]).filter((b): b is Builtin => b !== undefined);

/** The built-in `receiver.method()` calls, by the receiver's kind at run time. */
export function methodBuiltin(receiver: Value, method: string): Builtin | undefined {
  const kind = isArray(receiver) ? 'array' : typeof receiver === 'string' ? 'str' : null;
  return kind ? BUILTINS[`${kind}.${method}`] : undefined;
}
