/**
 * The load generator, run as its own process so it never shares an event loop with the
 * service or the bench driver: `node --import tsx test/bench/lib/load-worker.ts '<LoadSpec JSON>'`.
 * Runs autocannon once as warm-up (discarded), then the measured run, and reports over IPC:
 *   { type: 'measure-start' }   just before the measured run
 *   { type: 'result', ... }     autocannon's result, exact latency percentiles, own CPU use
 * autocannon's histograms keep whole milliseconds; the percentiles here are computed from every
 * measured response time at full (sub-ms) resolution.
 */
import { createRequire } from 'node:module';

export interface LoadSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Headers taken in turn, one set per request (e.g. many API keys, as many users' traffic is). */
  headerSets?: Record<string, string>[];
  /** A request body, sent with every request. */
  body?: string;
  connections: number;
  pipelining: number;
  durationS: number;
  warmupS: number;
}

/** The parts of autocannon's result this bench reads. */
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { mean: number; p50: number; p99: number; max: number };
  requests: { mean: number; stddev: number; min: number; max: number; total: number; sent: number };
}

export interface LoadMessage {
  type: 'result';
  result: AutocannonResult;
  /** Milliseconds, from every measured response. */
  latency_ms: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number; count: number };
  /** CPU the load generator itself spent in the measured run (ms, user + system). */
  cpu_ms: number;
  wall_ms: number;
}

type Instance = Promise<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  stop(): void;
};
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Instance;

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** autocannon's per-request hook: each request takes the next header set. */
function rotate(sets: Record<string, string>[]) {
  let next = 0;
  return (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, ...sets[next++ % sets.length] } });
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
  const base = {
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    ...(spec.body === undefined ? {} : { body: spec.body }),
    connections: spec.connections,
    pipelining: spec.pipelining,
    timeout: 10,
    ...(spec.headerSets?.length ? { requests: [{ setupRequest: rotate(spec.headerSets) }] } : {}),
  };
  let current: Instance | null = null;
  process.on('SIGTERM', () => {
    current?.stop();
    process.exit(1);
  });

  if (spec.warmupS > 0) {
    current = autocannon({ ...base, duration: spec.warmupS });
    await current;
  }

  let times = new Float64Array(1 << 20);
  let n = 0;
  process.send!({ type: 'measure-start' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  current = autocannon({ ...base, duration: spec.durationS });
  current.on('response', (_client, _status, _bytes, ms) => {
    if (n === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[n++] = ms;
  });
  const result = await current;
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);

  const sorted = times.subarray(0, n).sort();
  let sum = 0;
  for (const t of sorted) sum += t;
  const message: LoadMessage = {
    type: 'result',
    result,
    latency_ms: {
      p50: round3(percentile(sorted, 0.5)),
      p90: round3(percentile(sorted, 0.9)),
      p99: round3(percentile(sorted, 0.99)),
      p999: round3(percentile(sorted, 0.999)),
      max: round3(n ? sorted[n - 1]! : NaN),
      mean: round3(n ? sum / n : NaN),
      count: n,
    },
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    wall_ms: Math.round(wall),
  };
  process.send!(message, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`load-worker: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
