import type { Builtin } from './ctx.ts';
import { CORE } from './core.ts';
import { DRAW } from './draw.ts';
import { PERIODS } from './periods.ts';
import { TA } from './ta.ts';
import { TA_OSCILLATORS } from './ta-oscillators.ts';
import { TA_VOLUME } from './ta-volume.ts';
import { TA_WINDOWS } from './ta-windows.ts';

/** Every built-in function by its Pine name. */
export const BUILTINS: Readonly<Record<string, Builtin>> = { ...CORE, ...TA, ...TA_WINDOWS, ...TA_OSCILLATORS, ...TA_VOLUME, ...PERIODS, ...DRAW };
