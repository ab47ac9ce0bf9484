/**
 * The live tracker of shared entries at scale (goal: tracking 1,000 entries costs ≤ 1 s of CPU per
 * bar close in all). Real HistData EURUSD 15-min bars in chdb, a real nats-server, the real
 * sandboxed runtime (STRATEGY_WORKERS-sized pool, TRACKER_WARM_SESSIONS warm sessions), one
 * trained model (RandomForest(200, max_depth 6, min_samples_leaf 20) as the offline generator writes it, ONNX) shared as 1,000 entries on one symbol and
 * timeframe, each loading its own ONNX session and running its own engine, state and record.
 *
 * Two mixes of code, because the Python side costs one features call per distinct program per bar
 * (entries with identical code share a session and the call; different programs never share a
 * process):
 * - `distinct`: 1,000 entries, 1,000 distinct programs (every entry its own author and code);
 * - `forks`: 1,000 entries over 100 programs (as forks share their parent's code);
 * - `popular` (with --mix=popular): 1,000 entries over as many programs as are kept warm, so every
 *   entry advances on every bar: the floor of the per-entry cost (ONNX, engine, state and record).
 * Each: the cold start (sessions, ONNX, the publication bar), then bar closes on a replay clock,
 * each measured from the bar's dispatch until every shard has handled it: CPU of this process
 * (tracker, chdb, the NATS client), of the sandbox processes (zygotes, pool-job children, feature
 * sessions: /proc utime+stime+cutime+cstime of every process below this one) and of nats-server.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { buildTrackerHost, type Tracker } from '../../actors/tracker/index.ts';
import { openBlobStore, openBucket } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/log.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { LiveTradesRepo } from '../../src/store/index.ts';
import { trainPipeline } from '../../src/training/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { CommunityEntryRecord } from '../../schemas/community.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import { openRealMarket, trainJob } from '../helpers/real-market.ts';
import { trainableStrategy } from './lib/strategies.ts';
import { numberOption, type BenchContext, type BenchResult, type Benchmark } from './lib/types.ts';

const QUARTER = TIMEFRAME_MS['15min'];
const TICK = 100; // USER_HZ: /proc times are in 1/100 s here

/** The program of variant `v`: the same feature columns in every variant, so one model scores them all. */
const program = (v: number) =>
  trainableStrategy('RandomForestClassifier', "{'n_estimators': 200, 'max_depth': 6, 'min_samples_leaf': 20}", v);

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime, seconds. */
  cpu: number;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const f = stat.slice(close + 2).split(' ');
      out.push({
        pid: Number(d),
        ppid: Number(f[1]),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK,
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU seconds so far: this process, the sandbox processes below it, the nats-server below it. */
function cpuNow(): { node: number; python: number; nats: number } {
  const all = processes();
  const below = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (!below.has(p.pid) && below.has(p.ppid)) (below.add(p.pid), (grew = true));
  }
  let python = 0;
  let nats = 0;
  for (const p of all) {
    if (p.pid === process.pid || !below.has(p.pid)) continue;
    if (p.comm === 'nats-server') nats += p.cpu;
    else if (p.comm === 'python3' || p.comm === 'bwrap') python += p.cpu;
  }
  const u = process.cpuUsage();
  return { node: (u.user + u.system) / 1e6, python, nats };
}

/** Proportional set size of the sandbox processes (shared pages split between them), MB. */
function pythonPssMb(): number {
  let kb = 0;
  const all = processes();
  const below = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (!below.has(p.pid) && below.has(p.ppid)) (below.add(p.pid), (grew = true));
  }
  for (const p of all) {
    if (!below.has(p.pid) || p.comm !== 'python3') continue;
    try {
      kb += Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${p.pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // not ours to read, or gone
    }
  }
  return Math.round(kb / 1024);
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const benchmark: Benchmark = {
  name: 'live-tracker',
  description:
    'Tracking 1,000 shared entries on one symbol/timeframe: CPU per bar close (goal ≤ 1 s), 1,000 distinct programs and a fork mix of 100',
  async run(ctx: BenchContext) {
    const entries = numberOption(ctx, 'entries', 1000);
    const bars = numberOption(ctx, 'bars', 5);
    const config = loadConfig({ ...process.env });
    const warm = numberOption(ctx, 'warm', config.TRACKER_WARM_SESSIONS || 8);
    // --pool-per-bar=0 is refused by numberOption: pass a large number for "no limit".
    const poolPerBar = numberOption(ctx, 'pool-per-bar', config.TRACKER_POOL_JOBS_PER_BAR || 1e9);
    const log = createLogger('warn');
    const market = await openRealMarket(60_000);
    ctx.defer(() => market.close());
    const runtime = await StrategyRuntime.start({ log, ...(config.STRATEGY_WORKERS ? { size: config.STRATEGY_WORKERS } : {}) });
    ctx.defer(() => runtime.stop());
    ctx.log('training the model the entries share');
    const job = trainJob({ code: program(0), timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10' });
    const { record, onnx } = await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined);
    const community = await openBucket(market.bus, Buckets.community);
    const files = await openBlobStore(market.bus, ObjectStores.community);
    const series = await market.cache.get('EURUSD', '15min');
    const ts = series.columns().ts;
    const barAt = new Map(market.stored['15min'].map((b) => [b.ts, b]));
    const trades = new LiveTradesRepo(market.clickhouse);

    // Pool jobs counted: the features calls that found no warm session.
    let poolJobs = 0;
    const counted = {
      openSession: runtime.openSession.bind(runtime),
      features: (...args: Parameters<StrategyRuntime['features']>) => (poolJobs++, runtime.features(...args)),
    };

    const results: BenchResult[] = [];
    let nextId = 1;
    let k0 = series.lowerBound(Date.parse('2017-02-13T08:00:00Z'));
    const mixes = (ctx.options['mix'] ?? 'distinct,forks').split(',');
    const scenarios = (
      [
        ['distinct', entries],
        ['forks', Math.max(1, Math.round(entries / 10))],
        // A few popular programs forked by everyone: all warm, so every entry advances on every bar.
        ['popular', Math.min(warm, entries)],
      ] as const
    ).filter(([name]) => mixes.includes(name));
    for (const [scenario, programs] of scenarios) {
      if (ctx.signal.aborted) break;
      ctx.log(`${scenario}: sharing ${entries} entries over ${programs} programs`);
      const ids: number[] = [];
      const codes = Array.from({ length: programs }, (_, v) => new TextEncoder().encode(program(1 + v + nextId)));
      const createdAt = ts[k0]! + QUARTER + 1000;
      for (let k = 0; k < entries; k++) {
        const id = nextId++;
        ids.push(id);
        const entry: CommunityEntryRecord = {
          community_id: id,
          user_id: 1000 + k,
          author: `author${k}`,
          title: `Entry ${id}`,
          description: 'bench',
          parent_id: null,
          created_at: createdAt,
          model: { ...record, user_id: 1000 + k, username: `author${k}` },
          post_cutoff_stats: null,
        };
        await Promise.all([files.put(`${id}/strategy.py`, codes[k % programs]!), files.put(`${id}/model.onnx`, onnx)]);
        await community.put(String(id), entry);
      }
      const listeners = new Set<(bar: BarMessage) => void>();
      const clock = new ReplayClock(createdAt);
      const rssBefore = process.memoryUsage().rss;
      const c0 = cpuNow();
      const t0 = performance.now();
      const tracker: Tracker = await buildTrackerHost({
        bus: market.bus,
        bars: { get: market.cache.get.bind(market.cache), onBar: (l) => (listeners.add(l), () => listeners.delete(l)) },
        runtime: counted,
        trades,
        log,
        replicas: 1,
        maxWarmSessions: warm,
        maxPoolJobsPerBar: poolPerBar,
        clock,
      });
      ctx.defer(() => tracker.stop());
      await tracker.host.start();
      const tracked = () => tracker.shards().reduce((n, s) => n + s.running().filter((t) => t.status().last_bar_ts === ts[k0]).length, 0);
      while (tracked() < entries) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        await new Promise((r) => setTimeout(r, 50));
      }
      await Promise.all(tracker.shards().map((s) => s.idle()));
      const c1 = cpuNow();
      const start = {
        wall_s: round((performance.now() - t0) / 1000, 2),
        cpu_s: round(c1.node - c0.node + c1.python - c0.python + c1.nats - c0.nats, 2),
      };
      ctx.log(`${scenario}: started in ${start.wall_s} s (${start.cpu_s} CPU s)`);

      // --cpu-prof=DIR: a V8 profile of this process over the bar closes (test/bench/lib/cpuprofile-summary.ts reads it).
      const profileDir = ctx.options['cpu-prof'];
      const inspector = profileDir ? new Session() : null;
      if (inspector) {
        inspector.connect();
        await inspector.post('Profiler.enable');
        await inspector.post('Profiler.start');
      }
      const perBar: Array<{ node: number; python: number; nats: number; total: number; wall_ms: number; pool_jobs: number; lag: number }> =
        [];
      for (let b = 1; b <= bars; b++) {
        const i = k0 + b;
        clock.advanceTo(ts[i]! + QUARTER);
        const p0 = poolJobs;
        const before = cpuNow();
        const w0 = performance.now();
        for (const l of listeners) l(barAt.get(ts[i]!)!);
        await Promise.all(tracker.shards().map((s) => s.idle()));
        const wall = performance.now() - w0;
        const after = cpuNow();
        const bar = { node: after.node - before.node, python: after.python - before.python, nats: after.nats - before.nats };
        const running = tracker.shards().flatMap((s) => s.running());
        if (running.length !== entries) throw new Error(`${entries - running.length} entries are not tracked`);
        // Programs without a warm session take turns (Cadence): how many bars the last entry is behind.
        const lag = Math.max(...running.map((t) => (ts[i]! - t.status().last_bar_ts) / QUARTER));
        perBar.push({ ...bar, total: bar.node + bar.python + bar.nats, wall_ms: wall, pool_jobs: poolJobs - p0, lag });
        ctx.log(
          `${scenario}: bar ${b}: ${round(bar.node + bar.python + bar.nats, 2)} CPU s (node ${round(bar.node, 2)}, python ${round(bar.python, 2)}, nats ${round(bar.nats, 2)}) in ${Math.round(wall)} ms, ${poolJobs - p0} pool jobs, the last entry ${lag} bars behind`,
        );
      }
      if (inspector) {
        const { profile } = await inspector.post('Profiler.stop');
        writeFileSync(`${profileDir}/live-tracker-${scenario}.cpuprofile`, JSON.stringify(profile));
        inspector.disconnect();
      }
      const total = median(perBar.map((x) => x.total));
      results.push({
        name: `track-${entries}-${scenario}`,
        entries,
        programs,
        warm_sessions: tracker.features.warm,
        sandbox_workers: runtime.processIds().length,
        start,
        bars: perBar.length,
        cpu_s_per_bar: {
          total: round(total),
          node: round(median(perBar.map((x) => x.node))),
          python: round(median(perBar.map((x) => x.python))),
          nats_server: round(median(perBar.map((x) => x.nats))),
        },
        wall_ms_per_bar: Math.round(median(perBar.map((x) => x.wall_ms))),
        pool_jobs_per_bar: median(perBar.map((x) => x.pool_jobs)),
        max_pool_jobs_per_bar: poolPerBar >= 1e9 ? null : poolPerBar,
        // Programs without a warm session advance every K-th bar: records up to K − 1 bars behind.
        takes_turns_every_bars: Math.max(1, Math.ceil(tracker.features.coldPrograms / poolPerBar)),
        record_lag_bars_max_seen: Math.max(...perBar.map((x) => x.lag)),
        per_entry_ms_cpu: round((total * 1000) / entries, 2),
        node_rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
        node_rss_mb_per_entry: round((process.memoryUsage().rss - rssBefore) / 2 ** 20 / entries, 2),
        python_pss_mb: pythonPssMb(),
        goal_cpu_s_per_bar: 1,
        met: total <= 1,
        note: `medians over ${perBar.length} bar closes after the cold start; one features call per program per bar (${Math.min(warm, programs)} programs warm, the rest pool jobs)`,
      });
      await tracker.stop();
      await Promise.all(ids.map((id) => community.delete(String(id))));
      k0 += bars + 2;
    }
    return results;
  },
};
