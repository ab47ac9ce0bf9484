/**
 * A fleet of deployed models on the distributed layout (issue 19), real processes on loopback: a
 * nats-server, the data owner (`signalforge store`, chdb), one ingest, one edge, trainers, TWO
 * `signalforge actors` hosts, delivery workers and a local webhook receiver. `--codes` distinct
 * strategy programs (test/bench/lib/strategies.ts fleetStrategy: indicators, feature sets and
 * model classes vary) are trained through the API on two days of 1-minute bars, one user each;
 * each model is cloned under new names (ModelStore.save: a documented bench shortcut, training
 * 10,000 models is out of reach; every clone still has its own artifacts, hence its own ONNX
 * session in the actor) and deployed with a webhook, `--models` in all. The settings make
 * (nearly) every model signal on every bar. Ticks published on NATS then close 1-minute bars one
 * at a time, and per bar it reports, from the bar-close event on NATS:
 * - the last actor done with it (its signal stored, and a watched one's prediction published), the
 *   last signal stored, the last webhook received (goal ≤ 3 s for 10,000 models / 100 codes on a
 *   2-core machine, ≤ 0.5 s for 1,000);
 * - how many signals and webhooks the bar made, the CPU seconds each process spent on it, and the
 *   CPU per model-bar by part: the hosts' Node, their Python, their scorers, delivery, nats-server,
 *   the other roles (ingest, which records every signal into ClickHouse through the store; the
 *   store; the edge) and the receiver (goal ≤ 0.35 ms all together; `service`: the same without
 *   the receiver, which stands in for the customers' servers).
 * And: the time for every actor to start on two fresh hosts, memory per actor host (node RSS/PSS
 * and its Python sessions' PSS) and per model, and the KV writes per second of lease renewals.
 * Every deployment is watched while the actors start (their first predictions say they run), then
 * only `--watched` of them (default 1 %), as WebSocket clients watch a few: the others publish no
 * predictions.
 * Options: --models=10000 --codes=100 --bars=3 --delivery=1 (delivery processes) --watched=models/100 --warm=codes/2+1
 * (ACTOR_WARM_SESSIONS per host: one Python process each; the other programs run as pool jobs, a
 * fork each per bar)
 * --profile=DIR (CPU profiles of the actor hosts, delivery, ingest, the store and the edge, written at the end;
 * --profile-roles=delivery,actors: of those roles only, the others run unslowed by the profiler; V8's
 * profiler inflates short calls many times over) --perf (every role writes /tmp/perf-<pid>.map, so
 * `perf record -a -g` names their JavaScript: a system-wide profile at the cost of a few percent)
 * --gap=SECONDS (idle before each measured bar, as between live bars: a minute's bars leave the
 * processes idle most of the minute, and idle V8 and Go heaps shrink, to be regrown by the next burst)
 * --node-flags=--trace-gc-nvp,--max-semi-space-size=128 (more Node flags for every role, after the
 * service's: V8's GC trace in each role's log, a flag tried before it goes into `npm start`).
 */
import { join } from 'node:path';
import { freePort, openBucket } from '../../src/bus/index.ts';
import { ModelStore } from '../../src/training/index.ts';
import { Buckets, Streams, Topics } from '../../schemas/messages.ts';
import { treeCpuByKind, treeCpuSeconds, treeMemoryMb, treeMinorFaultsByKind } from './lib/proc.ts';
import { BENCH_ROLE_ENV, roleStarter, sleep, startLayout, timeUntil, type StartedRole } from './lib/roles.ts';
import { fleetStrategy } from './lib/strategies.ts';
import { startWebhookSink } from './lib/webhook-sink.ts';
import { numberOption, type Benchmark, type BenchResult } from './lib/types.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TICK_MS = 10_000;

/** Runs `each` over `items` with at most `limit` at once. */
async function pool<T>(items: T[], limit: number, each: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await each(items[i]!, i);
      }
    }),
  );
}

/** A seeded random walk of EURUSD quotes, one every TICK_MS. */
function tickSource(seed = 7) {
  let state = seed;
  let price = 1.1;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return (ts: number) => {
    price = Math.round((price + (random() - 0.5) * 0.0004) * 100_000) / 100_000;
    return { ts, bid: price, ask: Math.round((price + 0.0001) * 100_000) / 100_000 };
  };
}

const isoDay = (ts: number) => new Date(ts).toISOString().slice(0, 10);

/** Bar close → last webhook: ≤ 3 s for 10,000 models, ≤ 0.5 s for 1,000 (issue 39). */
const goalMs = (models: number) => (models >= 10_000 ? 3_000 : 500);
/** CPU of one model-bar, all processes together (issue 39). */
const CPU_GOAL_MS = 0.35;

/** CPU ms (or, with `scale` 1, page faults) per model-bar by part, from two readings (cpu(), faults()). */
function perModelBar(a: Record<string, number>, b: Record<string, number>, models: number, delivery: string[], scale = 1000) {
  const ms = (k: string) => ((b[k] ?? 0) - (a[k] ?? 0)) * scale;
  const parts = {
    actor_hosts_node: ms('hosts_node'),
    python: ms('hosts_python'),
    scoring: ms('hosts_scoring'),
    delivery: delivery.reduce((n, k) => n + ms(k), 0),
    nats_server: ms('nats'),
    // Recording every signal (ingest's consumer into ClickHouse, the store) and the edge.
    other_roles: ms('ingest') + ms('store') + ms('edge'),
    receiver: ms('bench'),
  };
  const total = Object.values(parts).reduce((n, v) => n + v, 0);
  // The receiver stands in for the customers' servers (it also verifies every signature): the
  // service's own share is the total without it.
  const service = total - parts.receiver;
  return Object.fromEntries(Object.entries({ ...parts, total, service }).map(([k, v]) => [k, Math.round((v / models) * 1000) / 1000]));
}

export const benchmark: Benchmark = {
  name: 'actor-fleet',
  description:
    '10,000 deployed models / 100 strategy codes on two actor hosts (real processes): bar close → every actor done → last signal → last webhook (goal ≤ 3 s; 1,000 models ≤ 0.5 s), CPU per model-bar by part (goal ≤ 0.35 ms), actor start time, memory per host and model, lease KV writes/s',
  async run(ctx) {
    const modelCount = numberOption(ctx, 'models', 10_000);
    const codes = Math.min(modelCount, numberOption(ctx, 'codes', 100));
    const barsToMeasure = numberOption(ctx, 'bars', 3);
    const deliveryCount = numberOption(ctx, 'delivery', 1);
    const gapS = numberOption(ctx, 'gap', 0);
    // A host holds half the programs, and one more when a program's deployments are split over both
    // hosts (leases keep a user's models together, at most one group split): that one warm too, or
    // it runs as a pool job every bar (measured on a VM with 14 µs page faults: ~150 ms of CPU a
    // fork, against ~20 ms for a warm call).
    const warm = numberOption(ctx, 'warm', Math.ceil(codes / 2) + 1);
    const profileDir = ctx.options.profile;
    const profileRoles = ctx.options['profile-roles']?.split(',');
    const perCode = Math.ceil(modelCount / codes);
    const began = performance.now();
    const say = (message: string) => ctx.log(`${Math.round((performance.now() - began) / 1000)} s: ${message}`);
    const results: BenchResult[] = [];
    const { dir, cluster: nats, bus } = await startLayout(ctx, 'fleet', 1);
    // The customers' servers: lean, every signature checked (lib/webhook-sink.ts).
    const receiver = await startWebhookSink();
    ctx.defer(() => receiver.stop());

    const { start, kill } = roleStarter(ctx, nats.url, {
      ...BENCH_ROLE_ENV,
      NATS_REPLICAS: '1',
      TRIAL_MINTS_PER_HOUR: '100000',
      DEPLOY_LIMIT_FREE: String(perCode + 1),
      // Warm sessions per host (a host runs about half the programs: a user's models stay together).
      ACTOR_WARM_SESSIONS: String(warm),
    });
    // One directory per role (a profile per thread, named by pid and thread).
    // After the service's own flags, so a later one (another young generation size) wins.
    const extraFlags = [
      ...(ctx.options.perf !== undefined ? ['--perf-basic-prof'] : []),
      ...(ctx.options['node-flags']?.split(',').filter(Boolean) ?? []),
    ];
    const profiled = (name: string) => [
      ...extraFlags,
      ...(profileDir && (!profileRoles || profileRoles.includes(name)) ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : []),
    ];

    say('fleet: starting the store, ingest and the history');
    const storeRole = await start('store', { DATA_DIR: join(dir, 'store') }, profiled('store'));
    // Its ticks are the bench's own: no feed of the ingest's (the synthetic market would write every symbol too).
    const ingest = await start('ingest', { MARKET_FEED: 'none' }, profiled('ingest'));
    // History: two days and more of EURUSD, a tick every 10 s, ending on an hour, an hour per measured bar (and one) before now.
    const historyEnd = Math.floor(Date.now() / HOUR) * HOUR - (barsToMeasure + 1) * HOUR;
    const historyStart = Math.floor(historyEnd / DAY) * DAY - 2 * DAY;
    const tickAt = tickSource();
    const publishTicks = async (batch: { ts: number }[]) => {
      await bus.js.publish(Topics.ticks.subject('EURUSD'), JSON.stringify(batch), { msgID: `ticks-${batch[0]!.ts}` });
    };
    for (let ts = historyStart; ts < historyEnd;) {
      const batch = [];
      for (let k = 0; k < 500 && ts < historyEnd; k++, ts += TICK_MS) batch.push(tickAt(ts));
      await publishTicks(batch);
    }
    const closes = new Map<number, number>();
    bus.nc.subscribe(Topics.bars.subject('EURUSD', '1min'), {
      callback: (_e, msg) => void closes.set((msg.json() as { ts: number }).ts, performance.now()),
    });
    await timeUntil('the history bars stored', () => closes.has(historyEnd - MINUTE), 300_000);

    say(`fleet: training ${codes} programs`);
    const edgePort = await freePort();
    const edge = await start('edge', { PORT: String(edgePort) }, profiled('edge'));
    const api = async (method: string, path: string, key?: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${edgePort}${path}`, {
        method,
        headers: { ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const trainers = [await start('trainer'), await start('trainer')];
    const users: { key: string; userId: number; job: number; name: string }[] = [];
    const trainStarted = performance.now();
    for (let k = 0; k < codes; k++) {
      const { api_key: key, user_id: userId } = await api('POST', '/api/v1/key/trial', undefined, {});
      const name = `Fleet ${k}`;
      const job = await api('POST', '/api/v1/train', key, {
        code: fleetStrategy(k),
        symbol: 'EURUSD',
        timeframe: '1min',
        start_date: isoDay(historyStart + DAY),
        end_date: isoDay(historyStart + DAY),
        model_name: name,
      });
      users.push({ key, userId, job: job.job_id, name });
    }
    const failed: string[] = [];
    await pool(users, 4, async (u) => {
      for (;;) {
        const job = await api('GET', `/api/v1/train/${u.job}`, u.key);
        if (job.status === 'done') return;
        if (job.status === 'failed') return void failed.push(`${u.name}: ${job.error}`);
        await sleep(500);
      }
    });
    if (failed.length > 0) throw new Error(`training failed: ${failed.slice(0, 3).join('; ')}`);
    const trainMs = Math.round(performance.now() - trainStarted);
    for (const t of trainers) await kill(t.process);

    say(`fleet: cloning and deploying ${perCode * codes} models`);
    const store = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
    const deployStarted = performance.now();
    const deploymentIds = new Set<string>();
    await pool(users, 16, async (u, k) => {
      const original = (await store.resolve(u.userId, u.name))!;
      const artifacts = {
        onnx: await store.onnx(original),
        code: await store.code(original),
        results: JSON.parse(await store.resultsJson(original)),
      };
      for (let i = 0; i < perCode; i++) {
        const name = i === 0 ? u.name : `${u.name} clone ${i}`;
        if (i > 0)
          await store.save(
            { ...original, model_name: name, stem: `${u.userId}_EURUSD_1min_${name}`, artifact: `fleet${k}c${i}` },
            artifacts,
          );
        const dep = await api('POST', '/api/v1/deploy', u.key, {
          model_name: name,
          channels: ['webhook'],
          webhook_url: `${receiver.url}/hook/${k}`,
        });
        deploymentIds.add(dep.deployment_id);
        receiver.secret(dep.deployment_id, dep.webhook_secret);
      }
    });
    const deployMs = Math.round(performance.now() - deployStarted);
    const fleet = deploymentIds.size;
    // Every deployment watched while the actors start (each one's first prediction says it runs);
    // then only `--watched` of them, as WebSocket clients would watch a few (default 1 %).
    const watchedCount = Math.min(fleet, numberOption(ctx, 'watched', Math.ceil(fleet / 100)));
    const watchedKv = await openBucket(bus, Buckets.watched);
    const watchAll = [...deploymentIds];
    for (let i = 0; i < watchAll.length; i += 500)
      await Promise.all(watchAll.slice(i, i + 500).map((id) => watchedKv.put(id, { until: Date.now() + 24 * 3600_000 })));

    // Who handled which bar: each watched actor publishes its prediction once it is done with a bar.
    const handled = new Map<number, { count: number; last: number }>();
    const started = new Set<string>();
    bus.nc.subscribe('predictions.>', {
      callback: (_e, msg) => {
        const p = msg.json() as { deployment_id: string; bar: { time: string } };
        started.add(p.deployment_id);
        const ts = Date.parse(p.bar.time);
        const h = handled.get(ts) ?? { count: 0, last: 0 };
        h.count++;
        h.last = performance.now();
        handled.set(ts, h);
      },
    });
    // The signals a bar stored, read off the stream (its sequence, the last one's store time)
    // rather than by a subscription of the bench: nats-server would count delivering every signal
    // to it as the service's CPU.
    const signalsState = async () => (await bus.jsm.streams.info(Streams.signals.name)).state;
    const storedAt = async (seq: number) => {
      const msg = await bus.jsm.streams.getMessage(Streams.signals.name, { seq });
      return msg ? Date.parse(msg.timestamp) - performance.timeOrigin : NaN;
    };

    say(`fleet: ${fleet} deployments (${deployMs} ms); starting ${deliveryCount} delivery and two actor hosts`);
    const delivery: StartedRole[] = [];
    for (let i = 0; i < deliveryCount; i++) delivery.push(await start('delivery', {}, profiled('delivery')));
    const hostsSpawned = performance.now();
    const actors = await Promise.all([start('actors', {}, profiled('actors')), start('actors', {}, profiled('actors'))]);
    const hostsRunningMs = Math.round(performance.now() - hostsSpawned);
    // Profiles are written on a clean exit (this runs before the SIGKILLs of the other cleanups).
    if (profileDir)
      ctx.defer(
        async () => void (await Promise.all([...actors, ...delivery, ingest, storeRole, edge].map((p) => kill(p.process, 'SIGTERM')))),
      );
    // What went wrong in the actor hosts and delivery (warnings and errors by message), at the end or on failure.
    const troubles = () => {
      const counts: Record<string, number> = {};
      for (const [i, p] of [...actors, ...delivery].entries()) {
        for (const line of p.process.lines) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line) as { level: number; msg: string; err?: { message?: string }; error?: string };
          if (entry.level < 40) continue;
          const key = `${p.process.role}${i}: ${entry.msg} ${entry.err?.message ?? entry.error ?? ''}`.slice(0, 300);
          counts[key] = (counts[key] ?? 0) + 1;
        }
      }
      return counts;
    };
    ctx.defer(() => void ctx.log(`fleet: host warnings ${JSON.stringify(troubles())}`));
    const allStartedMs = await timeUntil('every actor started', () => started.size >= fleet, 1_800_000).then((ms) => ms + hostsRunningMs);
    say(`fleet: every actor started after ${allStartedMs} ms; waiting for the start-up webhooks`);
    // The start-up signals (each actor's position on the last closed bar) drain before measuring.
    let seen = -1;
    await timeUntil(
      'the start-up webhooks drained',
      async () => {
        const now = receiver.hooks.length;
        const quiet = now === seen;
        seen = now;
        if (!quiet) await sleep(3000);
        return quiet;
      },
      1_800_000,
    );
    const startupWebhooks = receiver.hooks.length;
    const unwatched = watchAll.slice(watchedCount);
    for (let i = 0; i < unwatched.length; i += 500) await Promise.all(unwatched.slice(i, i + 500).map((id) => watchedKv.delete(id)));
    // The hosts follow the bucket: a moment for the deletes to reach them.
    await sleep(2000);

    const pids = {
      actors_1: actors[0]!.process.child.pid!,
      actors_2: actors[1]!.process.child.pid!,
      ...Object.fromEntries(delivery.map((d, i) => [`delivery_${i + 1}`, d.process.child.pid!])),
      nats: nats.nodes[0]!.child!.pid!,
      // The other roles: ingest builds the bar and records every signal (ClickHouse, through the store); the edge follows the activity.
      ingest: ingest.process.child.pid!,
      store: storeRole.process.child.pid!,
      edge: edge.process.child.pid!,
    };
    const leaseHolders: Record<string, number> = {};
    const leases = await openBucket(bus, Buckets.leases);
    for (const key of await leases.keys()) {
      const holder = (await leases.get(key))?.value.host;
      // A deployment's id is its model lease's key; the other kinds name themselves (`delivery.`, `ingest.`, `feed.`).
      const kind = /^(delivery|ingest|feed)\./.exec(key)?.[1] ?? 'model';
      if (holder) leaseHolders[`${kind} ${holder}`] = (leaseHolders[`${kind} ${holder}`] ?? 0) + 1;
    }
    const memory = { actors_1: treeMemoryMb(pids.actors_1), actors_2: treeMemoryMb(pids.actors_2) };
    const hostNodeMb = memory.actors_1.self_pss_mb + memory.actors_2.self_pss_mb;
    const hostPythonMb = memory.actors_1.children_pss_mb + memory.actors_2.children_pss_mb;

    // Quiet: lease renewals (writes to the leases bucket's stream) and the CPU they cost, over 10 s.
    const cpu = () => {
      const hosts = [pids.actors_1, pids.actors_2].map(treeCpuByKind);
      return {
        ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, treeCpuSeconds(pid)])),
        // The two actor hosts by kind of process: their Node, the sandbox's Python, the ONNX scorers.
        hosts_node: hosts.reduce((n, h) => n + h.self + h.other, 0),
        hosts_python: hosts.reduce((n, h) => n + h.python, 0),
        hosts_scoring: hosts.reduce((n, h) => n + h.scoring, 0),
        bench: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
      };
    };
    // Minor page faults by the same parts: memory a process gave back and touched again (a Go or
    // V8 heap shrinking between bars) costs the kernel a zeroed page each time.
    const faults = () => {
      const hosts = [pids.actors_1, pids.actors_2].map(treeMinorFaultsByKind);
      const total = (k: Record<string, number>) => Object.values(k).reduce((n, v) => n + v, 0);
      return {
        ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, total(treeMinorFaultsByKind(pid))])),
        hosts_node: hosts.reduce((n, h) => n + h.self + h.other, 0),
        hosts_python: hosts.reduce((n, h) => n + h.python, 0),
        hosts_scoring: hosts.reduce((n, h) => n + h.scoring, 0),
        bench: process.resourceUsage().minorPageFault,
      };
    };
    // Writes to the claims and heartbeats buckets (their streams' last sequence) while nothing changes hands.
    const leaseSeq = async () =>
      (await bus.jsm.streams.info(`KV_${Buckets.leases.name}`)).state.last_seq +
      (await bus.jsm.streams.info(`KV_${Buckets.hosts.name}`)).state.last_seq;
    const seq0 = await leaseSeq();
    const idle0 = cpu();
    await sleep(10_000);
    const idle1 = cpu();
    const leaseWritesPerS = Math.round(((await leaseSeq()) - seq0) * 10) / 100;
    const cpuDelta = (a: Record<string, number>, b: Record<string, number>, per = 1) =>
      Object.fromEntries(Object.keys(a).map((k) => [k, Math.round(((b[k]! - a[k]!) / per) * 100) / 100]));

    results.push({
      name: 'fleet-start',
      models: fleet,
      codes,
      train_ms: trainMs,
      deploy_ms: deployMs,
      hosts_running_ms: hostsRunningMs,
      all_actors_started_ms: allStartedMs,
      startup_webhooks: startupWebhooks,
      memory_mb: memory,
      node_kb_per_model: Math.round((hostNodeMb * 1024) / fleet),
      python_mb_per_host: Math.round(hostPythonMb / 2),
      lease_kv_writes_per_s: leaseWritesPerS,
      lease_kv_writes_note:
        'claims (sf_claims) and heartbeats (sf_hosts) together, quiet: one heartbeat per host (actors, delivery, ingest) every 2 s',
      leases_by_holder: leaseHolders,
      idle_cpu_s_per_s: cpuDelta(idle0, idle1, 10),
    });

    // Bars one at a time: the ticks of the first minute of an hour; ingest closes the bar once they
    // stop (its end is past on the wall clock: the quiet rule, after BAR_GRACE_MS). The rule closes
    // the hour's longer bars too, so the next measured bar is the next hour's first.
    let minute = historyEnd;
    const deliveryParts = Object.keys(pids).filter((k) => k.startsWith('delivery_'));
    const hooksOf = (ts: number) => receiver.hooks.filter((h) => h.barTime === ts);
    for (let b = 0; b < barsToMeasure; b++) {
      if (gapS > 0) await sleep(gapS * 1000);
      const before = cpu();
      const faultsBefore = faults();
      const windowStart = performance.now();
      const requestsBefore = receiver.hooks.length;
      const malformedBefore = receiver.malformed;
      const seqBefore = (await signalsState()).last_seq;
      let storedSeq = seqBefore;
      const batch = [];
      for (let ts = minute; ts < minute + MINUTE; ts += TICK_MS) batch.push(tickAt(ts));
      await publishTicks(batch);
      const closeSeen = await timeUntil('the bar closed', () => closes.has(minute), 60_000).then(() => closes.get(minute)!);
      // Done when every actor has handled the bar (each of this bench's models signals on every bar;
      // the watched ones publish their prediction after) and the webhooks stop coming.
      await timeUntil(
        'every actor handled the bar',
        async () => {
          storedSeq = (await signalsState()).last_seq;
          const done = storedSeq - seqBefore >= fleet && (handled.get(minute)?.count ?? 0) >= watchedCount;
          if (!done) await sleep(50);
          return done;
        },
        300_000,
      ).catch(() => undefined);
      const signals = storedSeq - seqBefore;
      const lastSignal = signals > 0 ? await storedAt(storedSeq) : NaN;
      let last = -1;
      await timeUntil(
        'its webhooks',
        async () => {
          const n = receiver.hooks.length;
          const done = n === last && n - requestsBefore >= signals;
          last = n;
          if (!done) await sleep(1000);
          return done;
        },
        300_000,
      ).catch(() => undefined);
      const after = cpu();
      const faultsAfter = faults();
      const hooks = hooksOf(minute);
      // Every webhook carries its deployment's signature (the sink checks each one).
      const unsigned = hooks.filter((x) => x.verified !== true).length;
      const lastHook = hooks.length ? Math.max(...hooks.map((h) => h.at)) : NaN;
      const h = handled.get(minute);
      results.push({
        name: `bar-${b + 1}`,
        bar: new Date(minute).toISOString(),
        models: fleet,
        watched: watchedCount,
        predictions: h?.count ?? 0,
        signals,
        webhooks: hooks.length,
        models_signalled: new Set(hooks.map((x) => x.deploymentId)).size,
        unsigned_webhooks: unsigned,
        malformed_requests: receiver.malformed - malformedBefore,
        close_to_all_handled_ms: signals > 0 ? Math.round(Math.max(lastSignal, h?.last ?? 0) - closeSeen) : null,
        close_to_last_signal_ms: signals > 0 ? Math.round(lastSignal - closeSeen) : null,
        close_to_last_webhook_ms: Math.round(lastHook - closeSeen),
        goal_ms: goalMs(fleet),
        met: hooks.length >= fleet && lastHook - closeSeen <= goalMs(fleet) && unsigned === 0,
        window_ms: Math.round(performance.now() - windowStart),
        // At least: the first bar follows the 10 s quiet reading and the 2 s after the unwatch.
        idle_before_s: gapS + (b === 0 ? 12 : 0),
        cpu_s: cpuDelta(before, after),
        // What a model-bar costs, all processes together (the receiver is the bench's own server).
        cpu_ms_per_model_bar: perModelBar(before, after, fleet, deliveryParts),
        cpu_goal_ms_per_model_bar: CPU_GOAL_MS,
        minor_faults_per_model_bar: perModelBar(faultsBefore, faultsAfter, fleet, deliveryParts, 1),
      });
      say(`fleet: ${JSON.stringify(results.at(-1))}`);
      minute += HOUR;
    }
    return results;
  },
};
