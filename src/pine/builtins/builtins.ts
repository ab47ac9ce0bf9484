import type { Builtin } from '../runtime/ctx.ts';
import { COLOR_FUNCTIONS } from './colors.ts';
import { CORE } from './core.ts';
import { DRAW } from './draw.ts';
import { PERCENTILES } from './percentiles.ts';
import { PERIODS } from './periods.ts';
import { STRING_FUNCTIONS } from './strings.ts';
import { TA } from './ta.ts';
import { TA_OSCILLATORS } from './ta-oscillators.ts';
import { TA_VOLUME } from './ta-volume.ts';
import { TA_WINDOWS } from './ta-windows.ts';
import { TIME_FUNCTIONS } from './time-functions.ts';

/** Every built-in function by its Pine name. */
export const BUILTINS: Readonly<Record<string, Builtin>> = {
  ...CORE,
  ...COLOR_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...TA,
  ...TA_WINDOWS,
  ...TA_OSCILLATORS,
  ...TA_VOLUME,
  ...PERCENTILES,
  ...PERIODS,
  ...TIME_FUNCTIONS,
  ...DRAW,
};
