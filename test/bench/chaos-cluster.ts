/**
 * Chaos on the distributed layout (issue 19), real processes on loopback: a 3-node nats-server
 * cluster (routes, JetStream R3), the data owner (`signalforge store`, chdb), two of each role
 * (edge, trainer, actors, delivery, ingest) and a local webhook receiver. Models are trained and
 * deployed with webhooks through the edges; ticks are published faster than real time; one after
 * another, SIGKILL takes one NATS node, one edge, one trainer in the middle of a job, one actor
 * host, one delivery worker and the active ingest process. Then it checks and reports:
 * - every signal on SIGNALS reached the receiver, in order per deployment (duplicates counted);
 * - every bar of every timeframe is stored exactly once, equal to the bars of all published ticks;
 * - every train job ended done or failed with a reason (none stuck);
 * - the API answered throughout (a client that retries on the other edge);
 * - every user's balance equals the sum of its usage history;
 * and the figures: failover time per role after SIGKILL, and edge throughput with two edges
 * behind haproxy (deploy/haproxy.cfg) vs one, keyed requests spread over many keys.
 * Options: --chaos-models=50 --chaos-users=10 --chaos-minutes=3 (wall minutes of the chaos phase)
 * --chaos-speed=60 (market seconds per wall second) --chaos-load-seconds=8.
 */
import { join } from 'node:path';
import { freePort, openBucket } from '../../src/bus/index.ts';
import { FeedPublisher, StreamingResampler } from '../../src/market/index.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { selectRows } from '../../src/store/index.ts';
import { remoteClickHouse } from '../../src/store-link/index.ts';
import type { BarMessage, Tick } from '../../schemas/market.ts';
import { Buckets, Streams, Topics } from '../../schemas/messages.ts';
import { startHaproxy } from '../helpers/haproxy.ts';
import type { RoleProcess } from '../helpers/role-process.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { runLoad } from './lib/load.ts';
import { BENCH_ROLE_ENV, roleStarter, sleep, startLayout, timeUntil } from './lib/roles.ts';
import { numberOption, type Benchmark, type BenchResult } from './lib/types.ts';
import { clockAt, liveClock } from '../../src/lib/clock.ts';

const HOUR = 3_600_000;
/** Past a bar's end, what ingest waits before it closes a bar of a quiet market (the resampler's grace, with room). */
const CLOSE_GRACE_MS = 10_000;
const TICK_MS = 10_000;
/** Keys the keyed throughput run takes in turn (each its own rate-limit window in KV). */
const THROUGHPUT_KEYS = 256;
/** A client of the edges that retries a failed request (connection refused, 5xx) on the next edge. */
function edgeClient(edges: () => string[]) {
  const stats = { requests: 0, retried: 0, failed: 0 };
  let turn = 0;
  async function call(
    method: string,
    path: string,
    options: { key?: string; body?: unknown } = {},
  ): Promise<{ status: number; body: any }> {
    stats.requests++;
    const urls = edges();
    let last: unknown = null;
    // A client that keeps trying, the other edge first, for up to 15 s (what a load balancer's retries give).
    const deadline = performance.now() + 15_000;
    for (let i = 0; i === 0 || performance.now() < deadline; i++) {
      const url = urls[(turn + i) % urls.length]!;
      try {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            ...(options.key ? { 'x-api-key': options.key } : {}),
            ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
          signal: AbortSignal.timeout(30_000),
        });
        if (res.status >= 500) throw new Error(`HTTP ${res.status}`);
        turn++;
        return { status: res.status, body: await res.json().catch(() => null) };
      } catch (err) {
        last = err;
        stats.retried++;
        await sleep(200);
      }
    }
    stats.failed++;
    throw new Error(`${method} ${path} failed on every edge: ${(last as Error)?.message}`);
  }
  return { call, stats };
}

export const benchmark: Benchmark = {
  name: 'chaos-cluster',
  description:
    '3-node NATS cluster + store + two of every role; SIGKILL one NATS node, edge, trainer mid-job, actor host, delivery worker, active ingest: signals none missing and in order, bars once, no job stuck, API through the surviving edge, credits balance; failover time per role; edge throughput 2 vs 1',
  async run(ctx) {
    const modelCount = numberOption(ctx, 'chaos-models', 50);
    const users = Math.min(modelCount, numberOption(ctx, 'chaos-users', 10));
    const chaosMs = numberOption(ctx, 'chaos-minutes', 3) * 60_000;
    const speed = numberOption(ctx, 'chaos-speed', 60);
    const loadSeconds = numberOption(ctx, 'chaos-load-seconds', 8);
    const results: BenchResult[] = [];
    const { dir, cluster, bus, receiver } = await startLayout(ctx, 'chaos', 3);

    const common = {
      ...BENCH_ROLE_ENV,
      NATS_REPLICAS: '3',
      TRAIN_ACK_WAIT_MS: '5000',
      TRIAL_MINTS_PER_HOUR: '1000',
      DEPLOY_LIMIT_FREE: String(Math.ceil(modelCount / users)),
      WEBHOOK_RETRY_BASE_MS: '500',
      ACTOR_WARM_SESSIONS: '2',
    };
    const { start, kill: killRole } = roleStarter(ctx, cluster.url, common);
    const kill = (p: RoleProcess) => {
      ctx.log(`chaos: SIGKILL ${p.role} at ${Math.round(performance.now())}`);
      return killRole(p);
    };

    ctx.log('chaos: starting the store, two ingest processes and the history');
    await start('store', { DATA_DIR: join(dir, 'store') });
    // The bench is the feed (its ticks below): no synthetic market beside it on the same subjects.
    const ingest = [await start('ingest', { MARKET_FEED: 'none' }), await start('ingest', { MARKET_FEED: 'none' })];
    // History: ten days of EURUSD, a tick every 10 s, ending three hours before now on an hour.
    const chaosStart = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
    const historyStart = chaosStart - 10 * 24 * HOUR;
    const expected: BarMessage[] = [];
    const resampler = new StreamingResampler((bar) => expected.push(bar), 1000);
    let price = 1.1;
    let n = 0;
    const tickAt = (ts: number): Tick => {
      n++;
      price = Math.max(0.5, Math.round((price + Math.sin(n / 37) * 0.0004 + Math.cos(n / 11) * 0.0002) * 100_000) / 100_000);
      const tick = {
        symbol: 'EURUSD' as const,
        ts: ts + 17,
        seq: 0,
        bid: price,
        ask: Math.round((price + 0.0001) * 100_000) / 100_000,
        volume: 0,
      };
      resampler.push(tick, 'live');
      return tick;
    };
    // The feed publishes as ingest's feeds do (FeedPublisher): through JetStream, acknowledged and
    // de-duplicated by message id, so a tick published while the stream's leader is being elected
    // (a NATS node died) is not lost; during the chaos phase it tells its clock (the replay's
    // market time: every tick before it handed over), so a publish held up by the dying node is not
    // taken for a quiet market.
    let handed: number | 'now' = historyStart;
    const feed = new FeedPublisher({ bus, feed: 'chaos', clock: clockAt(() => (handed === 'now' ? liveClock.now() : handed)) });
    let longestStallMs = 0;
    const publishTicks = async (batch: Tick[]) => {
      const began = performance.now();
      for (let attempt = 1; ; attempt++) {
        try {
          await feed.write(batch);
          break;
        } catch (err) {
          if (attempt >= 50) throw err;
          await sleep(200);
        }
      }
      longestStallMs = Math.max(longestStallMs, performance.now() - began);
    };
    for (let ts = historyStart; ts < chaosStart;) {
      const batch = [];
      for (let k = 0; k < 500 && ts < chaosStart; k++, ts += TICK_MS) batch.push(tickAt(ts));
      await publishTicks(batch);
    }
    // The pause before the chaos phase closes the last bars by the quiet rule (as ingest does: the
    // feed tells no clock yet, so ingest goes by its own).
    resampler.flush();
    const store = await remoteClickHouse(bus, 3);
    const storedBars = async () =>
      (await selectRows<{ n: number }>(store, "SELECT count() AS n FROM bars FINAL WHERE symbol = 'EURUSD'"))[0]!.n;
    const historyBars = expected.length;
    await timeUntil('the history bars stored', async () => (await storedBars()) >= historyBars, 300_000);

    ctx.log('chaos: starting two edges, trainers, actor hosts and delivery workers');
    const edgePorts = [await freePort(), await freePort()];
    const edges = [await start('edge', { PORT: String(edgePorts[0]) }), await start('edge', { PORT: String(edgePorts[1]) })];
    const edgeUrls = edgePorts.map((p) => `http://127.0.0.1:${p}`);
    const client = edgeClient(() => edgeUrls);
    const trainers = [await start('trainer'), await start('trainer')];
    const actors = [await start('actors'), await start('actors')];
    const delivery = [await start('delivery'), await start('delivery')];

    ctx.log(`chaos: training ${modelCount} models for ${users} users`);
    const keys: string[] = [];
    for (let u = 0; u < users; u++) keys.push((await client.call('POST', '/api/v1/key/trial', { body: {} })).body.api_key);
    const jobs: { key: string; id: number; name: string }[] = [];
    for (let m = 0; m < modelCount; m++) {
      const key = keys[m % users]!;
      const name = `Chaos ${m}`;
      const res = await client.call('POST', '/api/v1/train', { key, body: { code: strategyCode(), timeframe: '5min', model_name: name } });
      if (res.status !== 200) throw new Error(`train ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      jobs.push({ key, id: res.body.job_id, name });
    }
    const jobStatus = async (job: { key: string; id: number }) =>
      (await client.call('GET', `/api/v1/train/${job.id}`, { key: job.key })).body;
    await timeUntil(
      'every model trained',
      async () => (await Promise.all(jobs.map(jobStatus))).every((j) => j.status === 'done' || j.status === 'failed'),
      1_800_000,
    );
    const trained = [];
    for (const job of jobs) if ((await jobStatus(job)).status === 'done') trained.push(job);
    const deployments: { id: string; path: string }[] = [];
    for (const [i, job] of trained.entries()) {
      const path = `/hook/${i}`;
      const res = await client.call('POST', '/api/v1/deploy', {
        key: job.key,
        body: { model_name: job.name, channels: ['webhook'], webhook_url: `${receiver.url}${path}` },
      });
      if (res.status !== 200) throw new Error(`deploy ${job.name}: ${res.status} ${JSON.stringify(res.body)}`);
      deployments.push({ id: res.body.deployment_id, path });
    }
    ctx.log(`chaos: ${deployments.length} deployments; the chaos phase begins (${chaosMs / 1000} s at ${speed}x)`);

    // Ticks faster than real time, continuously, the feed's clock told from now on.
    let publishing = true;
    handed = chaosStart;
    feed.startClock();
    const publisher = (async () => {
      let ts = chaosStart;
      const wallStart = performance.now();
      while (publishing) {
        const due = chaosStart + (performance.now() - wallStart) * speed;
        const batch = [];
        for (; ts <= due; ts += TICK_MS) batch.push(tickAt(ts));
        if (batch.length > 0) await publishTicks(batch);
        handed = ts;
        await sleep(50);
      }
    })();
    // The API answers throughout: a client polls through the edges, retrying on the other.
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await client.call('GET', '/api/v1/whoami-key', { key: keys[0]! }).catch(() => undefined);
        await sleep(200);
      }
    })();

    // Read from the leader (openBucket's default with replicas): a replica behind may answer a claim handed over as gone.
    const leases = await openBucket(bus, Buckets.leases, 3);
    const holderOf = async (key: string) => (await leases.get(key))?.value.host ?? null;
    const failover: Record<string, number> = {};
    const gap = chaosMs / 8;
    await sleep(gap);

    // 1. A NATS node: the TICKS stream's leader (the worst case for the feed and ingest: publishes
    // wait for a new leader), moved off the node our own client uses first, so the figure is the roles'.
    const ours = cluster.nodes.findIndex((node) => node.url.endsWith(`:${bus.nc.getServer().split(':').pop()}`));
    const ticksLeader = async () => {
      const leader = (await bus.jsm.streams.info(Streams.ticks.name)).cluster?.leader;
      return cluster.nodes.findIndex((node) => node.name === leader);
    };
    for (let k = 0; k < 5 && (await ticksLeader()) === ours; k++) {
      await bus.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${Streams.ticks.name}`, '', { timeout: 5_000 }).catch(() => undefined);
      await sleep(2_000);
    }
    const leaderIndex = await ticksLeader();
    const nodeIndex = leaderIndex >= 0 && leaderIndex !== ours ? leaderIndex : cluster.nodes.findIndex((_, i) => i !== ours);
    ctx.log(
      `chaos: SIGKILL nats node ${nodeIndex}${nodeIndex === leaderIndex ? ' (the TICKS leader)' : ''} at ${Math.round(performance.now())}`,
    );
    await cluster.kill(nodeIndex);
    const probeKey = keys[1] ?? keys[0]!;
    failover.nats_node_ms = await timeUntil(
      'the API after a NATS node died',
      async () => (await client.call('GET', '/api/v1/whoami-key', { key: probeKey })).status === 200,
    );
    await sleep(gap);

    // 2. An edge: the client (which still knows both) retries its requests on the other one.
    await kill(edges[0]!.process);
    failover.edge_ms = await timeUntil(
      'the API through the surviving edge',
      async () => (await client.call('GET', '/api/v1/whoami-key', { key: probeKey })).status === 200,
    );
    await sleep(gap);

    // 3. A trainer in the middle of a job: two jobs keep both trainers busy, one trainer dies.
    const midJobs: { key: string; id: number; name: string }[] = [];
    for (let k = 0; k < 2; k++) {
      const res = await client.call('POST', '/api/v1/train', {
        key: keys[k % users]!,
        body: { code: strategyCode(), timeframe: '5min', model_name: `Mid job ${k}` },
      });
      if (res.status !== 200) throw new Error(`train Mid job ${k}: ${res.status} ${JSON.stringify(res.body)}`);
      midJobs.push({ key: keys[k % users]!, id: res.body.job_id as number, name: `Mid job ${k}` });
    }
    await timeUntil('a mid job running', async () => (await Promise.all(midJobs.map(jobStatus))).some((j) => j.status === 'running')).catch(
      async (err: Error) => {
        ctx.log(`chaos: the mid jobs never ran: ${JSON.stringify(await Promise.all(midJobs.map(jobStatus)))}`);
        throw err;
      },
    );
    const killedAt = performance.now();
    await kill(trainers[0]!.process);
    await timeUntil(
      'the mid jobs finished',
      async () => (await Promise.all(midJobs.map(jobStatus))).every((j) => j.status === 'done' || j.status === 'failed'),
      600_000,
    );
    failover.trainer_job_done_ms = Math.round(performance.now() - killedAt);
    jobs.push(...midJobs);
    await sleep(gap);

    // 4. The actor host running the most models: its deployments' leases move to the other.
    const modelHolders = await Promise.all(deployments.map((d) => holderOf(d.id)));
    const [deadActors, liveActors] =
      modelHolders.filter((h) => h === actors[0]!.info.host).length >= modelHolders.length / 2
        ? [actors[0]!, actors[1]!]
        : [actors[1]!, actors[0]!];
    await kill(deadActors.process);
    failover.actors_ms = await timeUntil('every deployment held by the surviving actor host', async () =>
      (await Promise.all(deployments.map((d) => holderOf(d.id)))).every((h) => h === liveActors.info.host),
    ).catch(async (err: Error) => {
      ctx.log(
        `chaos: holders ${JSON.stringify(await Promise.all(deployments.map((d) => holderOf(d.id))))}, survivor ${liveActors.info.host}`,
      );
      for (const line of liveActors.process.lines.slice(-60)) ctx.log(`surviving actor host: ${line}`);
      throw err;
    });
    await sleep(gap);

    // 5. A delivery worker (the one holding the most deployments).
    const held = await Promise.all(deployments.map((d) => holderOf(`delivery.${d.id}`)));
    const [deadDelivery, liveDelivery] =
      held.filter((h) => h === delivery[0]!.info.host).length >= held.length / 2
        ? [delivery[0]!, delivery[1]!]
        : [delivery[1]!, delivery[0]!];
    await kill(deadDelivery.process);
    failover.delivery_ms = await timeUntil('every deployment delivered by the surviving worker', async () =>
      (await Promise.all(deployments.map((d) => holderOf(`delivery.${d.id}`)))).every((h) => h === liveDelivery.info.host),
    );
    await sleep(gap);

    // 6. The active ingest process (the EURUSD writer).
    const writer = await holderOf('ingest.EURUSD');
    const [deadIngest, liveIngest] = writer === ingest[0]!.info.host ? [ingest[0]!, ingest[1]!] : [ingest[1]!, ingest[0]!];
    await kill(deadIngest.process);
    failover.ingest_ms = await timeUntil(
      'EURUSD written by the standby',
      async () => (await holderOf('ingest.EURUSD')) === liveIngest.info.host,
    );
    await sleep(gap);

    publishing = false;
    await publisher;
    // Nothing more to come, and market time has reached the wall clock: the feed's clock is now.
    handed = 'now';
    resampler.flush();
    ctx.log('chaos: kills done; waiting for the bars and the signals to settle');
    await cluster.restart(nodeIndex);

    // Bars: exactly the resampler's of every published tick, each once. The chaos phase ends with
    // market time at the wall clock, so the last bars of the longer timeframes may not be over yet:
    // ingest closes a bar only once its end (plus the grace time) has passed on the wall clock, while
    // the resampler here was flushed. Those are left out of the expected bars (and counted).
    const isOver = (b: BarMessage) => b.ts + TIMEFRAME_MS[b.timeframe] + CLOSE_GRACE_MS <= Date.now();
    await timeUntil('every bar stored', async () => (await storedBars()) >= expected.filter(isOver).length, 300_000).catch(() => undefined);
    const stillOpen = expected.filter((b) => !isOver(b)).length;
    type Row = { timeframe: string; ts: number; open: number; high: number; low: number; close: number; ticks: number };
    const rows = await selectRows<Row>(
      store,
      "SELECT timeframe, toUnixTimestamp64Milli(ts) AS ts, open, high, low, close, ticks FROM bars FINAL WHERE symbol = 'EURUSD'",
    );
    const want = new Map(expected.filter(isOver).map((b) => [`${b.timeframe}@${b.ts}`, b]));
    const got = new Map(rows.map((r) => [`${r.timeframe}@${r.ts}`, r]));
    const missingBars = [...want.keys()].filter((k) => !got.has(k)).length;
    // A bar just closed by ingest within the grace window is not extra: only bars no tick made are.
    const made = new Set(expected.map((b) => `${b.timeframe}@${b.ts}`));
    const extraBars = [...got.keys()].filter((k) => !made.has(k)).length;
    const wrongBars = [...want].filter(([k, b]) => {
      const r = got.get(k);
      return r && (r.open !== b.open || r.high !== b.high || r.low !== b.low || r.close !== b.close || r.ticks !== b.ticks);
    }).length;
    const badBars = [...want.keys()].filter((k) => {
      const r = got.get(k);
      const b = want.get(k)!;
      return !r || r.open !== b.open || r.high !== b.high || r.low !== b.low || r.close !== b.close || r.ticks !== b.ticks;
    });
    if (badBars.length > 0) {
      ctx.log(`chaos: bars missing or different: ${badBars.slice(0, 20).join(', ')}`);
      // What each ingest process said (claims, take-overs, stalls): the first thing to read about a loss.
      for (const [i, p] of ingest.entries())
        for (const line of p.process.lines.filter((l) => /ingest|claim|heartbeat|symbol|error|warn/i.test(l)).slice(-40))
          ctx.log(`ingest ${i + 1}: ${line}`);
    }
    feed.stopClock();
    const dup = (
      await selectRows<{ n: number; u: number }>(
        store,
        "SELECT count() AS n, uniqExact(timeframe, ts) AS u FROM bars FINAL WHERE symbol = 'EURUSD'",
      )
    )[0]!;

    // Signals: every one on SIGNALS reached the receiver, in order per deployment.
    const produced = new Map<string, string[]>();
    for (const d of deployments) {
      const ids: string[] = [];
      const consumer = await bus.js.consumers.get(Streams.signals.name, { filter_subjects: Topics.signal.subject(d.id) });
      const info = await bus.jsm.streams.info(Streams.signals.name, { subjects_filter: Topics.signal.subject(d.id) });
      const count = info.state.subjects?.[Topics.signal.subject(d.id)] ?? 0;
      if (count > 0) {
        const messages = await consumer.fetch({ max_messages: count, expires: 5_000 });
        for await (const m of messages) ids.push((m.json() as { id: string }).id);
      }
      produced.set(d.path, ids);
    }
    const firstSeen = (path: string) => [...new Set(receiver.accepted(path).map((h) => h.payload.data.id as string))];
    await timeUntil(
      'every signal delivered',
      () => deployments.every((d) => firstSeen(d.path).length >= produced.get(d.path)!.length),
      180_000,
    ).catch(() => undefined);
    let missingSignals = 0;
    let outOfOrder = 0;
    for (const d of deployments) {
      const ids = produced.get(d.path)!;
      const seen = firstSeen(d.path);
      missingSignals += ids.filter((id) => !seen.includes(id)).length;
      if (seen.join() !== ids.slice(0, seen.length).join()) {
        outOfOrder++;
        // What arrived, in order (position in the stream and arrival time): enough to tell a re-send from a reorder.
        const arrivals = receiver.accepted(d.path).map((h) => `${ids.indexOf(h.payload.data.id as string)}@${Math.round(h.at)}`);
        ctx.log(`chaos: ${d.id} out of order — stream positions as received: ${arrivals.join(' ')}`);
      }
    }
    const signalsProduced = [...produced.values()].reduce((s, ids) => s + ids.length, 0);
    const webhooksAccepted = deployments.reduce((s, d) => s + receiver.accepted(d.path).length, 0);

    // Jobs: none stuck.
    const finalJobs = await Promise.all(jobs.map(jobStatus));
    const stuck = finalJobs.filter((j) => j.status !== 'done' && !(j.status === 'failed' && j.error)).length;

    // Credits: each balance is the sum of its history.
    let unbalanced = 0;
    for (const key of keys) {
      const usage = (await client.call('GET', '/api/v1/key/usage?limit=500', { key })).body;
      const sum = (usage.history as { delta: number }[]).reduce((s, e) => s + e.delta, 0);
      if (usage.next_before === null && sum !== usage.balance) unbalanced++;
    }
    polling = false;
    await poller;

    results.push({
      name: 'chaos-checks',
      deployments: deployments.length,
      models_failed_training: jobs.length - trained.length - midJobs.length,
      signals_produced: signalsProduced,
      signals_missing: missingSignals,
      deployments_out_of_order: outOfOrder,
      webhook_duplicates: webhooksAccepted - (signalsProduced - missingSignals),
      bars_expected: expected.length - stillOpen,
      bars_still_open: stillOpen,
      feed_longest_publish_ms: Math.round(longestStallMs),
      bars_missing: missingBars,
      bars_extra: extraBars,
      bars_wrong: wrongBars,
      bars_doubled: dup.n - dup.u,
      jobs: finalJobs.length,
      jobs_stuck: stuck,
      api_requests: client.stats.requests,
      api_retried_on_other_edge: client.stats.retried,
      api_failed: client.stats.failed,
      users_unbalanced: unbalanced,
      ok:
        missingSignals === 0 &&
        outOfOrder === 0 &&
        missingBars === 0 &&
        extraBars === 0 &&
        wrongBars === 0 &&
        dup.n === dup.u &&
        stuck === 0 &&
        client.stats.failed === 0 &&
        unbalanced === 0,
    });
    results.push({
      name: 'failover-ms',
      ...failover,
      goal_ms: 10_000,
      note: 'from SIGKILL to: the API answering (nats node, edge), the killed trainer’s job done elsewhere (includes TRAIN_ACK_WAIT_MS=5000 and the job’s own run), every lease held by the survivor (actors, delivery, ingest)',
    });

    // Edge throughput: one edge behind the balancer vs two (one was killed: start it again).
    const again = await start('edge', { PORT: String(edgePorts[0]) });
    edges[0] = again;
    // Two paths: keyed requests (auth + the cluster-wide rate limit in KV) of many users, as real
    // traffic is — one key at a million a minute would make its window one huge KV entry — and the bare edge.
    const crowd: Record<string, string>[] = [];
    for (let k = 0; k < THROUGHPUT_KEYS; k++)
      crowd.push({ 'x-api-key': (await client.call('POST', '/api/v1/key/trial', { body: {} })).body.api_key });
    for (const [label, path, headerSets] of [
      ['whoami', '/api/v1/whoami-key', crowd],
      ['healthz', '/_healthz', []],
    ] as const) {
      for (const count of [1, 2]) {
        // The real balancer and its config (deploy/haproxy.cfg); one edge: both of its servers at edge 1.
        const lb = await startHaproxy(count === 1 ? [edgeUrls[0]!, edgeUrls[0]!] : edgeUrls);
        await timeUntil('the balancer’s health checks passed', async () => [...(await lb.status()).values()].every((st) => st === 'UP'));
        const edgePid = edges[1]!.process.child.pid!;
        const run = await runLoad(
          { url: `${lb.url}${path}`, headerSets: [...headerSets], connections: 32, pipelining: 1, durationS: loadSeconds, warmupS: 2 },
          { serverPid: edgePid, signal: ctx.signal },
        );
        await lb.stop();
        const r = run.result;
        results.push({
          name: `edge-throughput-${label}-${count}`,
          edges: count,
          path,
          requests_per_s: Math.round(r.requests.mean),
          p99_ms: run.latency_ms.p99,
          errors: r.errors + r.non2xx,
          note: `through haproxy running deploy/haproxy.cfg (leastconn), 32 connections, ${label === 'whoami' ? `${THROUGHPUT_KEYS} keys in turn, ` : ''}every other role still running: on 2 cores a second edge adds processes, not cores`,
        });
      }
    }
    return results;
  },
};
