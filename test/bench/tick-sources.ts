/**
 * Tick decoding alone: the rate (ticks/s) for single-tick and 100-tick-array payloads — bytes
 * straight into columns (what ingest runs on the TICKS stream), the JSON fast path, and the zod
 * schema both are proven equal to. Ticks through NATS into stored bars: market-ingest.
 */
import { decodeTicksInto } from '../../src/market/sources/columns-decoder.ts';
import { decodeTicks, parseTickWithZod, payloadText } from '../../src/market/sources/tick-decoder.ts';
import { TickColumns } from '../../src/store/tick-columns.ts';
import type { Benchmark } from './lib/types.ts';

const enc = new TextEncoder();
/** Quotes as feeds send them: 5 decimals. */
const tick = (i: number) => ({ ts: 1_700_000_000_000 + Math.floor(i / 3), bid: 1.08501 + (i % 7) / 1e5, ask: 1.08511 + (i % 7) / 1e5 });
/** Computed floats printed in full (e.g. 1.0850199999999999): beyond the byte decoder's exact fast path. */
const longTick = (i: number) => ({
  ts: 1_700_000_000_000 + Math.floor(i / 3),
  bid: 1.08501 + (i % 7) * 1e-5,
  ask: 1.08511 + (i % 7) * 1e-5,
});

function rate(fn: () => number, ms = 1500): number {
  for (let i = 0; i < 5; i++) fn();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < ms) n += fn();
  return Math.round(n / ((performance.now() - t0) / 1000));
}

function decodeRates() {
  const singles = Array.from({ length: 1000 }, (_, i) => enc.encode(JSON.stringify(tick(i))));
  const batches = Array.from({ length: 10 }, (_, b) =>
    enc.encode(JSON.stringify(Array.from({ length: 100 }, (_, i) => tick(b * 100 + i)))),
  );
  const longBatches = Array.from({ length: 10 }, (_, b) =>
    enc.encode(JSON.stringify(Array.from({ length: 100 }, (_, i) => longTick(b * 100 + i)))),
  );
  const zodDecode = (p: Uint8Array) => {
    const v: unknown = JSON.parse(payloadText(p));
    return (Array.isArray(v) ? v : [v]).filter((x) => parseTickWithZod(x) !== null).length;
  };
  const sum = (ps: Uint8Array[], f: (p: Uint8Array) => number) => () => ps.reduce((n, p) => n + f(p), 0);
  const out = new TickColumns('EURUSD', 2048);
  const columns = (p: Uint8Array) => {
    if (out.length > 1000) out.length = 0;
    return decodeTicksInto(p, out).ticks;
  };
  const cases = {
    single_columns: sum(singles, columns),
    single_fast: sum(singles, (p) => decodeTicks(p).ticks.length),
    single_zod: sum(singles, zodDecode),
    batch_columns: sum(batches, columns),
    batch_fast: sum(batches, (p) => decodeTicks(p).ticks.length),
    batch_zod: sum(batches, zodDecode),
    long_batch_columns: sum(longBatches, columns),
    long_batch_fast: sum(longBatches, (p) => decodeTicks(p).ticks.length),
  };
  // Best of three interleaved rounds: on a shared machine the slow rounds measure the neighbours.
  const best = Object.fromEntries(Object.keys(cases).map((k) => [k, 0])) as Record<keyof typeof cases, number>;
  for (let round = 0; round < 3; round++) {
    for (const [name, fn] of Object.entries(cases) as Array<[keyof typeof cases, () => number]>)
      best[name] = Math.max(best[name], rate(fn, 700));
  }
  return {
    single_tick_messages: { bytes_to_columns: best.single_columns, fast_path: best.single_fast, zod: best.single_zod },
    batch_100_messages: { bytes_to_columns: best.batch_columns, fast_path: best.batch_fast, zod: best.batch_zod },
    batch_100_messages_17_digit_prices: { bytes_to_columns: best.long_batch_columns, fast_path: best.long_batch_fast },
  };
}

export const benchmark: Benchmark = {
  name: 'tick-sources',
  description: 'Tick decoding (bytes to columns, fast path, zod) in ticks/s',
  async run() {
    return [{ name: 'decode', ticks_per_s: decodeRates() }];
  },
};
