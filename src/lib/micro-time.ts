/**
 * Timestamps to the microsecond, as a plain number (µs since the epoch fits a double exactly
 * until the year 2255). Used where ISO cursors must not collide at millisecond resolution.
 */
export type Micros = number;

export const microsFromNanos = (nanos: bigint | number): Micros => Math.floor(Number(BigInt(nanos) / 1000n));

/** ISO-8601 UTC with six fractional digits. */
export function isoFromMicros(micros: Micros): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString(); // ...ss.mmmZ
  return `${base.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}

/** Parses an ISO timestamp with any fractional precision (and any offset) into microseconds. */
export function microsFromIso(iso: string): Micros {
  const match = /\.(\d+)/.exec(iso);
  const fraction = match ? match[1]! : '';
  const withoutFraction = match ? iso.replace(match[0], '') : iso;
  const seconds = Date.parse(withoutFraction);
  if (Number.isNaN(seconds)) throw new RangeError(`not an ISO timestamp: ${iso}`);
  return seconds * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}
