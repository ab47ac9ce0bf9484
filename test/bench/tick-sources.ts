/**
 * The tick sources alone: decode rate (ticks/s) for single-tick and 100-tick-array payloads —
 * bytes straight into columns (what the NATS source runs), the JSON fast path, and the zod
 * schema both are proven equal to; and NATS → sink through a real
 * nats-server with a sink that only counts, the publisher in a separate process. On 2 cores the
 * publisher, the server and the consumer share the CPUs: ticks_per_consumer_cpu_s is the
 * consumer's own cost.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { startEmbeddedNats } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { startNatsTickSource } from '../../src/market/sources/nats-ticks.ts';
import { decodeTicksInto } from '../../src/market/sources/columns-decoder.ts';
import { decodeTicks, parseTickWithZod, payloadText } from '../../src/market/sources/tick-decoder.ts';
import { TickColumns } from '../../src/store/tick-columns.ts';
import type { TickSink } from '../../src/market/tick-sink.ts';
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

/** Publishes `messages` payloads of `perMessage` ticks to ticks.EURUSD from a child process. */
function publish(url: string, messages: number, perMessage: number): Promise<void> {
  const script = `
    import { connect } from '@nats-io/transport-node';
    const [url, messages, per] = process.argv.slice(1).map((x, i) => (i ? Number(x) : x));
    const nc = await connect({ servers: url });
    // Rising timestamps (three ticks per ms), built by concatenation so the publisher stays cheap.
    const tick = (i) => '{"ts":' + (1700000000000 + Math.floor(i / 3)) + ',"bid":1.0850' + (i % 7) + ',"ask":1.0851' + (i % 7) + '}';
    const batch = (k) => { let s = '['; for (let i = 0; i < per; i++) s += (i ? ',' : '') + tick(k * per + i); return s + ']'; };
    for (let i = 0; i < messages; i++) {
      nc.publish('ticks.EURUSD', per === 1 ? tick(i) : batch(i));
      if (i % 5000 === 4999) await nc.flush(); // the publisher's own pacing: a flush round-trip now and then
    }
    await nc.flush();
    await nc.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, url, String(messages), String(perMessage)], {
      stdio: 'inherit',
      cwd: process.cwd(),
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`publisher exited ${code}`))));
  });
}

async function natsRate(url: string, messages: number, perMessage: number) {
  const log = createLogger('warn');
  const nc = await connect({ servers: url });
  let count = 0;
  // Counts only; takes columns as the bar builder does (no object per tick).
  const sink: TickSink = {
    write: async (ticks) => void (count += ticks.length),
    writeColumns: async (ticks) => void (count += ticks.length),
  };
  const source = startNatsTickSource({ nc, sink, log, symbols: ['EURUSD'] });
  await nc.flush();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await publish(url, messages, perMessage);
  const published = performance.now();
  const total = messages * perMessage;
  // Ticks still in flight after the publisher finished: wait until they stop arriving.
  let last = -1;
  while (count !== last) {
    last = count;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0 - 100) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const stats = source.stats();
  await source.stop();
  await nc.close();
  return {
    ticks_sent: total,
    ticks_accepted: stats.accepted,
    dropped: stats.dropped,
    shed: stats.shed,
    late: stats.late,
    seconds: +seconds.toFixed(2),
    publish_seconds: +((published - t0) / 1000).toFixed(2),
    ticks_per_s: Math.round(stats.accepted / seconds),
    // What the consumer side alone can do: ticks per second of this process's CPU (user + system).
    ticks_per_consumer_cpu_s: Math.round(stats.accepted / ((cpu.user + cpu.system) / 1e6)),
  };
}

export const benchmark: Benchmark = {
  name: 'tick-sources',
  description: 'Tick decoding (fast path vs zod) and NATS → sink ticks/s, without storage',
  async run(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'sf-bench-ticks-'));
    ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log: createLogger('warn') });
    ctx.defer(() => nats.stop());
    return [
      { name: 'decode', ticks_per_s: decodeRates() },
      { name: 'nats-to-sink-single', ...(await natsRate(nats.url, 500_000, 1)) },
      { name: 'nats-to-sink-batch-100', ...(await natsRate(nats.url, 20_000, 100)) },
    ];
  },
};
