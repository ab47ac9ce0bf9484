/**
 * Signal delivery: the delivery share of issue 7's goals. A real nats-server, the real delivery
 * actor, and a local webhook receiver (verifying every Standard Webhooks signature), all on
 * this machine; the actor and the receiver share this process.
 * - latency: from `js.publish` of a SignalEvent on SIGNALS to the receiver having the whole
 *   webhook body, one signal at a time (p50/p99; goal: bar close → webhook p99 ≤ 50 ms, of which
 *   this is the delivery part);
 * - fan-out: 1,000 deployments each publish one signal on the same bar close, all at once;
 *   the figure is publish of the first → the last webhook received (goal share of ≤ 2 s).
 */
import { loadavg } from 'node:os';
import { DeliveryActor } from '../../actors/delivery/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { loadConfig } from '../../src/config.ts';
import { Buckets, Topics } from '../../schemas/messages.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { benchSignal } from './lib/bench-signal.ts';
import { startBenchNats } from './lib/bench-nats.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const LATENCY_GOAL_P99_MS = 50;
const FANOUT_GOAL_MS = 2_000;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export const benchmark: Benchmark = {
  name: 'signal-delivery',
  description: `SignalEvent on NATS → signed webhook received: latency p50/p99 (goal share of p99 ≤ ${LATENCY_GOAL_P99_MS} ms) and 1,000 deployments on one bar → last webhook (goal share of ≤ ${FANOUT_GOAL_MS} ms)`,
  async run(ctx) {
    const samples = numberOption(ctx, 'delivery-samples', 1_000);
    const fanout = numberOption(ctx, 'delivery-deployments', 1_000);
    const rounds = numberOption(ctx, 'delivery-rounds', 5);
    const { log, bus } = await startBenchNats(ctx, 'delivery');
    const deployments = await openBucket(bus, Buckets.deployments);
    const receiver = await startWebhookReceiver();
    ctx.defer(() => receiver.stop());
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback', LOG_LEVEL: 'warn' });
    const actor = new DeliveryActor({ bus, config, log });
    await actor.start();
    ctx.defer(() => actor.stop());

    const records: DeploymentRecord[] = [];
    const count = Math.max(fanout, 1);
    for (let i = 0; i < count; i++) {
      const record: DeploymentRecord = {
        deployment_id: `dep_bench${i.toString().padStart(5, '0')}`,
        user_id: 10_000 + i,
        username: `bench-${i}`,
        model_name: `Bench ${i}`,
        stem: `${10_000 + i}_EURUSD_15min_Bench ${i}`,
        symbol: 'EURUSD',
        timeframe: '15min',
        channels: ['webhook'],
        webhook_url: `${receiver.url}/d/${i}`,
        webhook_secret: `whsec_${Buffer.from(`bench-secret-${i}-0123456789abcdef`).toString('base64')}`,
        messenger_chat_id: null,
        created_at: Date.now(),
      };
      records.push(record);
      receiver.secret(`/d/${i}`, record.webhook_secret!);
    }
    await Promise.all(records.map((r) => deployments.put(`${r.user_id}.${Buffer.from(r.model_name).toString('hex')}`, r)));
    // Let the actor's deployment watch take them in.
    await new Promise((r) => setTimeout(r, 500));

    let bar = Date.UTC(2025, 0, 1);
    const event = (r: DeploymentRecord, n: number) => benchSignal(r, bar, { n, createdAt: Date.now() });
    const publish = (e: SignalEvent) => bus.js.publish(Topics.signal.subject(e.deployment_id), JSON.stringify(e), { msgID: e.id });

    // Waits for the webhook with this id; resolves with the receive time.
    const waiting = new Map<string, (at: number) => void>();
    let bad = 0;
    receiver.onAccepted = (hook) => {
      if (hook.verified !== true) bad++;
      const id = String(hook.headers['webhook-id']);
      waiting.get(id)?.(hook.at);
      waiting.delete(id);
    };
    const arrival = (id: string) => new Promise<number>((resolve) => waiting.set(id, resolve));
    const withTimeout = <T>(p: Promise<T>, ms: number, what: string) =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);

    // ---- latency, one signal at a time (after a warm-up) ----
    const pool = records.slice(0, Math.min(20, records.length));
    const latencies: number[] = [];
    const warmup = 100;
    for (let i = 0; i < samples + warmup; i++) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      bar += 60_000;
      const e = event(pool[i % pool.length]!, 0);
      const got = arrival(e.id);
      const t0 = performance.now();
      await publish(e);
      const at = await withTimeout(got, 10_000, `webhook ${e.id}`);
      if (i >= warmup) latencies.push(at - t0);
    }
    latencies.sort((a, b) => a - b);
    ctx.log(`latency: p50 ${round(percentile(latencies, 50))} ms, p99 ${round(percentile(latencies, 99))} ms over ${latencies.length}`);

    // ---- fan-out: every deployment fires on the same bar ----
    // Each deployment's first signal opens its worker and state: do that once, as in steady state.
    bar += 60_000;
    const warm = records.map((r) => arrival(event(r, 0).id));
    await Promise.all(records.map((r) => publish(event(r, 0))));
    await withTimeout(Promise.all(warm), 60_000, 'fan-out warm-up');
    const spans: number[] = [];
    const publishSpans: number[] = [];
    for (let round_ = 0; round_ < rounds; round_++) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      bar += 15 * 60_000;
      const events = records.map((r) => event(r, 0));
      const arrived = Promise.all(events.map((e) => arrival(e.id)));
      const t0 = performance.now();
      await Promise.all(events.map(publish));
      publishSpans.push(performance.now() - t0);
      const times = await withTimeout(arrived, 60_000, `fan-out round ${round_}`);
      spans.push(Math.max(...times) - t0);
      await new Promise((r) => setTimeout(r, 200));
    }
    spans.sort((a, b) => a - b);
    ctx.log(`fan-out of ${records.length}: median ${round(percentile(spans, 50))} ms (rounds ${spans.map((s) => round(s, 0)).join(', ')})`);
    const stats = actor.stats();
    return [
      {
        name: 'publish-to-webhook-latency',
        samples: latencies.length,
        p50_ms: round(percentile(latencies, 50)),
        p90_ms: round(percentile(latencies, 90)),
        p99_ms: round(percentile(latencies, 99)),
        max_ms: round(latencies.at(-1)!),
        goal_p99_ms: LATENCY_GOAL_P99_MS,
        note: 'delivery share only: from js.publish of the SignalEvent to the receiver holding the whole signed POST; actor and receiver in one process',
      },
      {
        name: 'fanout-1000-deployments',
        deployments: records.length,
        rounds: spans.length,
        last_webhook_median_ms: round(percentile(spans, 50)),
        last_webhook_worst_ms: round(spans.at(-1)!),
        publish_all_median_ms: round([...publishSpans].sort((a, b) => a - b)[Math.floor(publishSpans.length / 2)]!),
        webhooks_per_s: Math.round(records.length / (percentile(spans, 50) / 1000)),
        goal_ms: FANOUT_GOAL_MS,
        signatures_failed: bad,
        delivered_total: stats.delivered.webhook,
        loadavg_1m: round(loadavg()[0]!),
      },
    ];
  },
};
