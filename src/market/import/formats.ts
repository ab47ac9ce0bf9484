import { csv } from './csv.ts';
import { dukascopy } from './dukascopy.ts';
import { histdata } from './histdata.ts';
import { truefx } from './truefx.ts';
import type { TickFileFormat, TickFormatSpec } from './types.ts';

/** Every `--format`, by name. */
export const TICK_FORMATS: Record<TickFileFormat, TickFormatSpec> = { dukascopy, histdata, truefx, csv };
