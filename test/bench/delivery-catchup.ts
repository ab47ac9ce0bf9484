/**
 * Delivery's catch-up at start-up (issue 19): N deployments, each with K stored signals it has not
 * been sent yet, and `--delivery` real `signalforge delivery` processes started on them.
 * - fresh: no delivery state yet (cursor 0) — the signals were published before any delivery ran;
 * - restart: every deployment was delivered up to a point (its cursor in KV), the delivery processes
 *   were stopped (SIGTERM: leases released), K more signals each were stored meanwhile, and new
 *   delivery processes start (the shape of a rolling restart or a take-over after a crash).
 * Each figure: the processes spawned → the last of the N·K signals received by the local webhook
 * receiver, webhooks/s, duplicates (same webhook-id twice) and order (per deployment, the first
 * receipt of each signal in publication order). The machine is shared: read the figures with its load.
 * Options: --catchup-deployments=1000 --catchup-backlog=3 --delivery=2 --profile=DIR (CPU profiles of the delivery processes).
 */
import { loadavg } from 'node:os';
import { ensureStream, openBucket } from '../../src/bus/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { Buckets, Streams, Topics } from '../../schemas/messages.ts';
import { BENCH_ROLE_ENV, roleStarter, startLayout, timeUntil, type StartedRole } from './lib/roles.ts';
import { numberOption, type Benchmark, type BenchResult } from './lib/types.ts';

const BAR_MS = 60_000;

export const benchmark: Benchmark = {
  name: 'delivery-catchup',
  description:
    'N deployments × K stored undelivered signals, delivery processes started → last webhook received (fresh state, and after a restart with cursors in KV), webhooks/s',
  async run(ctx) {
    const count = numberOption(ctx, 'catchup-deployments', 1_000);
    const backlog = numberOption(ctx, 'catchup-backlog', 3);
    const deliveryCount = numberOption(ctx, 'delivery', 2);
    const { bus, receiver, cluster } = await startLayout(ctx, 'catchup', 1);
    const { start, kill } = roleStarter(ctx, cluster.url, {
      ...BENCH_ROLE_ENV,
      NATS_REPLICAS: '1',
      LOG_LEVEL: process.env.CATCHUP_LOG_LEVEL ?? 'info',
    });
    await ensureStream(bus, Streams.signals);
    const deployments = await openBucket(bus, Buckets.deployments);

    const records: DeploymentRecord[] = [];
    for (let i = 0; i < count; i++) {
      const record: DeploymentRecord = {
        deployment_id: `dep_catchup${i.toString().padStart(6, '0')}`,
        user_id: 20_000 + i,
        username: `catchup-${i}`,
        model_name: `Catchup ${i}`,
        stem: `${20_000 + i}_EURUSD_1min_Catchup ${i}`,
        symbol: 'EURUSD',
        timeframe: '1min',
        channels: ['webhook'],
        webhook_url: `${receiver.url}/d/${i}`,
        webhook_secret: `whsec_${Buffer.from(`catchup-secret-${i}-0123456789abcdef`).toString('base64')}`,
        messenger_chat_id: null,
        created_at: Date.now(),
      };
      records.push(record);
    }
    for (let i = 0; i < records.length; i += 200) {
      await Promise.all(
        records.slice(i, i + 200).map((r) => deployments.put(`${r.user_id}.${Buffer.from(r.model_name, 'utf8').toString('hex')}`, r)),
      );
    }

    // First receipt of each webhook-id, per path, in arrival order.
    const firstSeen = new Map<string, string[]>();
    const ids = new Set<string>();
    let duplicates = 0;
    receiver.onAccepted = (hook) => {
      const id = String(hook.headers['webhook-id']);
      if (ids.has(id)) return void duplicates++;
      ids.add(id);
      const list = firstSeen.get(hook.path) ?? [];
      list.push(id);
      firstSeen.set(hook.path, list);
    };
    const published = new Map<string, string[]>();
    let bar = Date.UTC(2024, 0, 1);
    /** K signals per deployment, one round over every deployment at a time (as bars make them). */
    const publishRounds = async (rounds: number) => {
      for (let k = 0; k < rounds; k++) {
        bar += BAR_MS;
        const events: SignalEvent[] = records.map((d, i) => ({
          id: `sig_${d.deployment_id}_${bar}`,
          deployment_id: d.deployment_id,
          model: d.stem,
          model_name: d.model_name,
          symbol: d.symbol,
          timeframe: d.timeframe,
          action: 'open',
          side: i % 2 === 0 ? 'long' : 'short',
          price: 1.1,
          stop_loss: null,
          take_profit: null,
          reason: 'signal',
          p_up: 0.6,
          pnl: null,
          bar_time: new Date(bar).toISOString(),
          created_at: new Date().toISOString(),
        }));
        for (let i = 0; i < events.length; i += 500) {
          await Promise.all(
            events.slice(i, i + 500).map((e) => bus.js.publish(Topics.signal.subject(e.deployment_id), JSON.stringify(e), { msgID: e.id })),
          );
        }
        events.forEach((e, i) => {
          const path = `/d/${i}`;
          published.set(path, [...(published.get(path) ?? []), e.id]);
        });
      }
    };
    const total = () => [...published.values()].reduce((n, list) => n + list.length, 0);

    /** Starts the delivery processes and times them to the last webhook of the backlog. */
    const measure = async (name: string): Promise<BenchResult & { processes: StartedRole[] }> => {
      const expected = total();
      const before = ids.size;
      const load = loadavg()[0]!;
      const spawned = performance.now();
      const profile = ctx.options.profile ? ['--cpu-prof', `--cpu-prof-dir=${ctx.options.profile}/${name}`] : [];
      const processes = await Promise.all(Array.from({ length: deliveryCount }, () => start('delivery', {}, profile)));
      // Profiles are written on a clean exit.
      if (profile.length > 0) ctx.defer(async () => void (await Promise.all(processes.map((p) => kill(p.process, 'SIGTERM')))));
      const runningMs = Math.round(performance.now() - spawned);
      const ms = runningMs + (await timeUntil(`${name}: every webhook`, () => ids.size >= expected, 900_000));
      const sent = expected - before;
      const outOfOrder = [...published].filter(([path, list]) => (firstSeen.get(path) ?? []).join() !== list.join()).length;
      for (const p of processes)
        for (const line of p.process.lines.filter((l) => /catch-up|caught up/.test(l)).slice(0, 10)) ctx.log(`${name}: ${line}`);
      ctx.log(`${name}: ${sent} webhooks over ${count} deployments in ${ms} ms (processes running after ${runningMs} ms)`);
      return {
        name: `catchup-${name}`,
        deployments: count,
        backlog_per_deployment: backlog,
        delivery_processes: deliveryCount,
        webhooks: sent,
        start_to_last_webhook_ms: ms,
        processes_running_ms: runningMs,
        webhooks_per_s: Math.round((sent / ms) * 1000),
        duplicates,
        deployments_out_of_order: outOfOrder,
        load_1m_at_start: Math.round(load * 100) / 100,
        processes,
      };
    };

    const results: BenchResult[] = [];
    await publishRounds(backlog);
    const { processes: first, ...fresh } = await measure('fresh');
    results.push(fresh);
    // Stopped as in a rolling restart (leases released); more signals stored while none runs.
    await Promise.all(first.map((p) => kill(p.process, 'SIGTERM')));
    await publishRounds(backlog);
    const { processes: _second, ...restart } = await measure('restart');
    results.push(restart);
    return results;
  },
};
