/**
 * The data of a job on the wire: the bars in (raw float64 columns), feature columns out, and
 * answers parsed by their schema before any field is used.
 */
import type { z } from 'zod';
import type { OhlcColumns } from '../lib/bar-columns.ts';
import type { FeaturesAnswer } from '../../schemas/sandbox.ts';
import type { Message } from './protocol.ts';
import { StrategyJobError, okHeader } from './sandbox-process.ts';

export interface JobLimits {
  timeoutMs?: number;
  memoryMb?: number;
  /** CPU niceness the job's process takes before the strategy runs (0–19; 0 = normal). */
  nice?: number;
  /** The user whose job it is: the pool's fair share is per user (none: internal work, one shared key). Never sent to the sandbox. */
  user?: number;
}

export interface FeaturesResult {
  columns: string[];
  values: Float64Array[];
  rows: number;
}

/** An answer's header parsed by its shape, or the failure it reports as a StrategyJobError. */
export function parseAnswer<S extends z.ZodType>(shape: S, answer: Message): { header: z.infer<S>; payload: Buffer } {
  const header = shape.safeParse(okHeader(answer));
  if (!header.success)
    throw new StrategyJobError('crash', `the strategy runtime answered out of shape: ${header.error.issues[0]?.message ?? ''}`);
  return { header: header.data, payload: answer.payload };
}

/** A features answer as columns; refuses a payload that does not match the header. */
export function decodeFeatures({ columns, rows }: z.infer<typeof FeaturesAnswer>, payload: Buffer): FeaturesResult {
  if (payload.length !== columns.length * rows * 8 || payload.byteOffset % 8 !== 0) {
    throw new StrategyJobError('crash', 'features answer does not match its layout');
  }
  const all = new Float64Array(payload.buffer, payload.byteOffset, columns.length * rows);
  return { columns, rows, values: columns.map((_, i) => all.subarray(i * rows, (i + 1) * rows)) };
}

/** The OHLC columns as the protocol's payload: float64 little-endian, column-major. */
export function ohlcPayload(bars: OhlcColumns): { names: readonly string[]; rows: number; payload: Buffer } {
  const names = ['ts', 'open', 'high', 'low', 'close'] as const;
  const rows = bars.ts.length;
  const payload = Buffer.alloc(names.length * rows * 8);
  names.forEach((name, i) => Buffer.from(bars[name].buffer, bars[name].byteOffset, rows * 8).copy(payload, i * rows * 8));
  return { names, rows, payload };
}
