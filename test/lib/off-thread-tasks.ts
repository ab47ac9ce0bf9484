// Functions for test/lib/off-thread.test.ts to run on a worker thread.

/** Sum of a Float64Array and whether it arrived as one. */
export function sum(xs: Float64Array, scale: number): { sum: number; typed: boolean } {
  let s = 0;
  for (const x of xs) s += x;
  return { sum: s * scale, typed: xs instanceof Float64Array };
}

export function rangeError(message: string): never {
  throw new RangeError(message);
}

/** Holds its thread for `ms` (a stand-in for long synchronous work). */
export function spin(ms: number): number {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) n++;
  return n;
}

export const notAFunction = 42;
