import type { Builtin } from './ctx.ts';
import { CORE } from './core.ts';
import { DRAW } from './draw.ts';
import { TA } from './ta.ts';

/** Every built-in function by its Pine name. */
export const BUILTINS: Readonly<Record<string, Builtin>> = { ...CORE, ...TA, ...DRAW };
