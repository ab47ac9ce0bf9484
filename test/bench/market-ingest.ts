/**
 * Ingestion under rising load: NATS (the TICKS stream) → ingest → ClickHouse. A second process publishes
 * 100-tick batches on `ticks.<SYMBOL>` for all 8 symbols at a paced rate, as tick frames (what our
 * own feeds send; `--ingest-format=json`: the JSON arrays any other publisher may send); the figure is the rate
 * of ticks the service reports STORED (its /_metrics) over each measured window.
 *
 * First the capacity: `--capacity=N`, or measured — by default the highest paced rate the service
 * keeps up with (stored in full, at most two seconds of it unstored when the publisher stops), searched in
 * steps of 1.2× from `--search-from` (300,000) with `--search-seconds` (8) per step; or, with
 * `--capacity-from=flood`, the stored rate while the publisher offers all it can
 * (`--calibrate-rate`, 0 = unpaced: the flood's own cost, in the publisher and in the stream that
 * stores it, then shares the two cores with the service). Then the same service is offered 1×, 2× and 4×
 * that capacity (`--levels=1,2,4`), each for a warm-up plus `--ingest-seconds`. Under overload
 * the ticks wait in the stream (read at the service's pace, never dropped while the stream's
 * limits hold); the goal is that the stored rate stays at capacity (4× ≥ 95 % of 1×), and
 * capacity itself ≥ 1,000,000 ticks/s. Each level reports what was offered, published (the
 * publisher shares the cores and may fall short), stored, how far behind the service was when
 * the publisher stopped, the service's CPU by thread group, and the load average when it started: on a
 * shared machine, compare figures only at a similar load.
 *   --cpu-prof=DIR   run the service under `node --cpu-prof` (profiles written into DIR)
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberOption, type BenchContext, type Benchmark } from './lib/types.ts';
import { processCpuMs, REPO_ROOT, startServiceProcess } from './lib/service.ts';

const PUBLISHER = fileURLToPath(new URL('./lib/tick-publisher.ts', import.meta.url));
const DAY = 86_400_000;
const CAPACITY_GOAL = 1_000_000;
const HOLD_GOAL = 0.95;
/** Steps of the capacity search at most (1.2^20 ≈ 38× the first rate). */
const MAX_SEARCH_STEPS = 20;

type Metrics = Map<string, number>;

async function metrics(url: string): Promise<Metrics> {
  const text = await (await fetch(`${url}/_metrics`)).text();
  const out: Metrics = new Map();
  for (const line of text.split('\n')) {
    const at = line.lastIndexOf(' ');
    if (at > 0) out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

const STORED = 'signalforge_ticks_stored_total';

/** CPU ms per thread group of a process (main thread, V8 helpers, libuv pool, the chdb engine). */
function threadCpuMs(pid: number): Record<string, number> {
  const groups: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      const group =
        tid === String(pid) ? 'main' : comm.startsWith('V8 ') ? 'v8_helpers' : comm.startsWith('libuv') ? 'libuv_pool' : 'chdb_engine';
      groups[group] = (groups[group] ?? 0) + ms;
    }
  } catch {
    // The process ended, or no /proc: report what was read.
  }
  return groups;
}

interface Level {
  offered_ticks_per_s: number | 'unpaced';
  published_per_s: number;
  stored_per_s: number;
  behind_at_end: number;
  never_stored: number;
  late_in_window: number;
  per_second_p10: number;
  per_second_p50: number;
  service_cpu_cores: number | null;
  service_cpu_cores_by_thread: Record<string, number>;
  ticks_per_service_cpu_s: number | null;
  publisher_cpu_cores: number;
  nats_server_cpu_cores: number | null;
  loadavg_1m_at_start: number;
}

export const benchmark: Benchmark = {
  name: 'market-ingest',
  description:
    'NATS → resampler → ClickHouse under 1×, 2×, 4× capacity offered: stored ticks/s and the backlog left (goals: ≥ 1M/s, 4× ≥ 95 % of 1×)',
  async run(ctx) {
    const levelSeconds = numberOption(ctx, 'ingest-seconds', 20);
    const warmup = numberOption(ctx, 'ingest-warmup', 3);
    const batch = numberOption(ctx, 'ingest-batch', 100);
    // `frame`: tick frames, what our own feeds send; `json`: the JSON arrays any other publisher may send.
    const format = ctx.options['ingest-format'] === 'json' ? 'json' : 'frame';
    const levels = (ctx.options.levels ?? '1,2,4').split(',').map(Number);
    const service = await startServiceProcess(
      { MARKET_FEED: 'none', LOG_LEVEL: 'warn' },
      {
        signal: ctx.signal,
        log: ctx.log,
        nodeArgs: ctx.options['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${ctx.options['cpu-prof']}`] : [],
      },
    );
    ctx.defer(() => service.stop().then(() => undefined));
    const { natsUrl } = JSON.parse(readFileSync(join(service.dataDir, 'run.json'), 'utf8')) as { natsUrl: string };
    const natsPid = childPid(service.pid, 'nats-server');
    // Each run's ticks start 15 market days after the previous run's first: later than its last.
    // As many runs fit before now as the search's steps and the levels can take: a tick dated in the
    // future is refused by ingest (the search's seventh step once went there and stored nothing).
    let marketStart = Date.now() - (MAX_SEARCH_STEPS + levels.length + 2) * 15 * DAY;

    const runLevel = async (rate: number, seconds = levelSeconds): Promise<Level> => {
      const label = rate > 0 ? `${rate} ticks/s` : 'as fast as it can';
      ctx.log(`market-ingest: offering ${label} for ${warmup} + ${seconds} s`);
      const before = await metrics(service.url);
      const run = publish(ctx, natsUrl, warmup + seconds, batch, rate, marketStart, format);
      marketStart += 15 * DAY;
      await sleep(warmup * 1000, ctx.signal);
      const load = loadavg()[0]!;
      const m0 = await metrics(service.url);
      const cpu0 = processCpuMs(service.pid);
      const threads0 = threadCpuMs(service.pid);
      const natsCpu0 = natsPid === null ? null : processCpuMs(natsPid);
      const t0 = performance.now();
      const samples: number[] = [];
      let last = m0.get(STORED) ?? 0;
      for (let s = 0; s < seconds; s++) {
        await sleep(1000, ctx.signal);
        const now = (await metrics(service.url)).get(STORED) ?? 0;
        samples.push(now - last);
        last = now;
      }
      const m1 = await metrics(service.url);
      const windowS = (performance.now() - t0) / 1000;
      const cpu1 = processCpuMs(service.pid);
      const threads1 = threadCpuMs(service.pid);
      const natsCpu1 = natsPid === null ? null : processCpuMs(natsPid);
      const { published, cpu_ms: publisherCpuMs } = await run;
      await settle(service.url, ctx.signal);
      const after = await metrics(service.url);
      const delta = (name: string) => (m1.get(name) ?? 0) - (m0.get(name) ?? 0);
      const stored = delta(STORED);
      const serviceCpuS = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / 1000 : null;
      samples.sort((a, b) => a - b);
      const cores = (ms: number) => Math.round((ms / 1000 / windowS) * 100) / 100;
      return {
        offered_ticks_per_s: rate > 0 ? rate : 'unpaced',
        published_per_s: Math.round(published / (warmup + seconds)),
        stored_per_s: Math.round(stored / windowS),
        // Still in the TICKS stream when the publisher stopped (read and stored after: the backlog an overload leaves).
        behind_at_end: Math.max(0, published - ((m1.get(STORED) ?? 0) - (before.get(STORED) ?? 0))),
        // Published but never stored, once the backlog was read: the stream refused them (its limits) or they were late.
        never_stored: Math.max(0, published - ((after.get(STORED) ?? 0) - (before.get(STORED) ?? 0))),
        late_in_window: delta('signalforge_ticks_late_total'),
        per_second_p10: samples[Math.floor(samples.length * 0.1)] ?? 0,
        per_second_p50: samples[Math.floor(samples.length / 2)] ?? 0,
        service_cpu_cores: serviceCpuS === null ? null : Math.round((serviceCpuS / windowS) * 100) / 100,
        service_cpu_cores_by_thread: Object.fromEntries(Object.entries(threads1).map(([g, ms]) => [g, cores(ms - (threads0[g] ?? 0))])),
        ticks_per_service_cpu_s: serviceCpuS ? Math.round(stored / serviceCpuS) : null,
        // The other two on the same cores: the load generator (over its whole run) and nats-server.
        publisher_cpu_cores: Math.round((publisherCpuMs / 1000 / (warmup + seconds)) * 100) / 100,
        nats_server_cpu_cores: natsCpu0 !== null && natsCpu1 !== null ? cores(natsCpu1 - natsCpu0) : null,
        loadavg_1m_at_start: Math.round(load * 100) / 100,
      };
    };

    let capacity = ctx.options.capacity ? numberOption(ctx, 'capacity', 1) : 0;
    let calibration: Level | null = null;
    const search: Level[] = [];
    const flood = ctx.options['capacity-from'] === 'flood';
    if (!capacity && flood) {
      calibration = await runLevel(ctx.options['calibrate-rate'] ? numberOption(ctx, 'calibrate-rate', 1) : 0);
      capacity = calibration.stored_per_s;
    } else if (!capacity) {
      const stepSeconds = numberOption(ctx, 'search-seconds', 8);
      let rate = numberOption(ctx, 'search-from', 300_000);
      for (let step = 0; step < MAX_SEARCH_STEPS; step++, rate = Math.round(rate * 1.2)) {
        const level = await runLevel(rate, stepSeconds);
        search.push(level);
        if (!keptUp(level, rate)) break;
        capacity = rate;
      }
      if (!capacity)
        throw new Error(
          `the service did not keep up with the first rate searched (${JSON.stringify(searchStep(search[0]!))}); lower --search-from`,
        );
    }
    const results: Record<string, Level> = {};
    for (const k of levels) results[`${k}x`] = await runLevel(Math.round(k * capacity));
    const base = results['1x']?.stored_per_s ?? 0;
    const top = results[`${Math.max(...levels)}x`]?.stored_per_s ?? 0;
    const hold = base > 0 ? Math.round((top / base) * 1000) / 1000 : null;
    return [
      {
        name: 'overload',
        capacity_ticks_per_s: capacity,
        capacity_from: flood
          ? 'measured: stored/s while the publisher offered all it could'
          : search.length > 0
            ? 'measured: the highest paced rate stored in full (1.2× steps)'
            : '--capacity',
        ...(calibration ? { calibration } : {}),
        ...(search.length > 0 ? { search: search.map(searchStep) } : {}),
        levels: results,
        [`stored_${Math.max(...levels)}x_over_1x`]: hold,
        goals: { capacity_ticks_per_s: CAPACITY_GOAL, hold_at_top_level: HOLD_GOAL },
        met: { capacity: base >= CAPACITY_GOAL, hold: hold !== null && hold >= HOLD_GOAL },
        batch_ticks_per_message: batch,
        message_format: format,
        window_s: levelSeconds,
        note: 'publisher, nats-server and service share the machine (2 cores); stored = ticks written to ClickHouse by ingest, which reads them from the TICKS stream (an overload waits there: behind_at_end)',
      },
    ];
  },
};

/** The pid of a child process of `pid` by command name (the service's embedded nats-server). */
function childPid(pid: number, comm: string): number | null {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    return children.find((c) => readFileSync(`/proc/${c}/comm`, 'utf8').trim() === comm) ?? null;
  } catch {
    return null;
  }
}

/**
 * The service kept up with a paced rate: the publisher sent it (95 %), and at most two seconds of
 * it were still unstored when it stopped (what the last flush holds, not a growing backlog).
 */
function keptUp(level: Level, rate: number): boolean {
  return level.published_per_s >= 0.95 * rate && level.behind_at_end <= 2 * rate;
}

/** A search step, in brief. */
function searchStep(level: Level) {
  const { offered_ticks_per_s, published_per_s, stored_per_s, behind_at_end, service_cpu_cores, nats_server_cpu_cores } = level;
  return { offered_ticks_per_s, published_per_s, stored_per_s, behind_at_end, service_cpu_cores, nats_server_cpu_cores };
}

/** Runs the publisher; resolves with how many ticks it published and the CPU it used. */
function publish(
  ctx: BenchContext,
  natsUrl: string,
  seconds: number,
  batch: number,
  rate: number,
  startMs: number,
  format: 'json' | 'frame',
): Promise<{ published: number; cpu_ms: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', PUBLISHER, natsUrl, String(seconds), String(batch), String(rate), String(startMs), format],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  ctx.defer(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) =>
    child.once('exit', () => resolve(JSON.parse(out || '{"published":0,"cpu_ms":0}') as { published: number; cpu_ms: number })),
  );
}

/**
 * Waits until the service has read the stream's backlog: its stored count still for 5 s (it grows
 * a flush at a time, a second or two apart under load); at most 5 minutes.
 */
async function settle(url: string, signal: AbortSignal): Promise<void> {
  let last = -1;
  let still = 0;
  for (let i = 0; i < 600 && !signal.aborted && still < 10; i++) {
    const stored = (await metrics(url)).get(STORED) ?? 0;
    still = stored === last ? still + 1 : 0;
    last = stored;
    await sleep(500, signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
