/**
 * The delivery actor sending bars of signals, in this process: what a webhook costs delivery's
 * Node, without the fleet's other processes around it (actor-fleet measures those). A real
 * nats-server; the real DeliveryActor (SIGNALS through its ordered consumer, leases, signed
 * POSTs through its connection pools, where each deployment stands written to KV); the signals'
 * publisher and the receiving server are another process (lib/delivery-peer.ts), so this
 * process's CPU is delivery's alone.
 * - CPU of this process per webhook;
 * - V8 heap bytes allocated per webhook (collected objects included), and the sites that
 *   allocate most.
 * Options: --deployments=2000 --bars=10.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DeliveryActor } from '../../actors/delivery/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { loadConfig } from '../../src/config.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { peerDeployment, type DeliveryPeerSpec } from './lib/delivery-peer.ts';
import { kbPer, sampleAllocations } from './lib/heap-sampling.ts';
import { REPO_ROOT } from './lib/service.ts';
import { startBenchNats } from './lib/bench-nats.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const PEER = fileURLToPath(new URL('./lib/delivery-peer.ts', import.meta.url));
const QUARTER = 15 * 60_000;
/** Bars sent before measuring: workers open, connections made, code optimised. */
const WARM_BARS = 3;
/** After the last webhook: the state writes that follow it land inside the window. */
const SETTLE_MS = 300;

export const benchmark: Benchmark = {
  name: 'delivery-step',
  description:
    'the delivery actor sending bars of signals in-process: CPU and V8 bytes allocated per webhook, and where they are allocated',
  async run(ctx) {
    const count = numberOption(ctx, 'deployments', 2_000);
    const bars = numberOption(ctx, 'bars', 10);
    const { log, url: natsUrl, bus } = await startBenchNats(ctx, 'delivery-step');

    const spec: DeliveryPeerSpec = { natsUrl, deployments: count };
    const peer = spawn(process.execPath, ['--import', 'tsx', PEER, JSON.stringify(spec)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    ctx.defer(() => void peer.kill('SIGKILL'));
    const waiting = new Map<string, (value: unknown) => void>();
    peer.on('message', (raw) => {
      const m = raw as { type: string; bar?: number; url?: string };
      const key = m.type === 'bar-done' ? `bar-done:${m.bar}` : m.type;
      waiting.get(key)?.(m);
      waiting.delete(key);
    });
    const next = <T>(key: string, ms: number) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`delivery-step: no ${key} from the peer in ${ms} ms`)), ms);
        waiting.set(key, (v) => {
          clearTimeout(timer);
          resolve(v as T);
        });
      });
    const { url } = await next<{ url: string }>('ready', 60_000);

    const deployments = await openBucket(bus, Buckets.deployments);
    const records: DeploymentRecord[] = Array.from({ length: count }, (_, i) => ({
      ...peerDeployment(i),
      username: `step-${i}`,
      symbol: 'EURUSD',
      timeframe: '15min',
      channels: ['webhook'],
      webhook_url: `${url}/hook/${i}`,
      webhook_secret: `whsec_${Buffer.from(`step-secret-${i}-0123456789abcdef`).toString('base64')}`,
      messenger_chat_id: null,
      created_at: Date.UTC(2025, 0, 1),
    }));
    for (let i = 0; i < records.length; i += 500)
      await Promise.all(
        records.slice(i, i + 500).map((r) => deployments.put(`${r.user_id}.${Buffer.from(r.model_name).toString('hex')}`, r)),
      );
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback', LOG_LEVEL: 'warn' });
    const actor = new DeliveryActor({ bus, config, log });
    await actor.start();
    ctx.defer(() => actor.stop());
    const deadline = performance.now() + 120_000;
    while (actor.stats().deployments < count) {
      if (performance.now() > deadline) throw new Error(`delivery-step: holds ${actor.stats().deployments} of ${count} deployments`);
      await new Promise((r) => setTimeout(r, 100));
    }

    let bar = Date.UTC(2025, 0, 6);
    const send = async () => {
      bar += QUARTER;
      const done = next(`bar-done:${bar}`, 120_000);
      peer.send({ type: 'bar', bar });
      await done;
    };
    for (let i = 0; i < WARM_BARS; i++) await send();
    await new Promise((r) => setTimeout(r, SETTLE_MS));

    ctx.log(`delivery-step: ${count} deployments, ${bars} bars measured for CPU, then ${bars} for allocation`);
    // CPU first, with no profiler attached (sampling allocations costs a sixth of the CPU).
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const spans: number[] = [];
    for (let i = 0; i < bars; i++) {
      const s = performance.now();
      await send();
      spans.push(performance.now() - s);
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0;
    const allocations = await sampleAllocations();
    for (let i = 0; i < bars; i++) await send();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const { bytes, sites } = await allocations();
    const webhooks = count * bars;
    const kb = (b: number) => kbPer(b, webhooks);
    spans.sort((a, b) => a - b);
    return [
      {
        name: 'delivery-step',
        deployments: count,
        bars,
        cpu_us_per_webhook: Math.round((cpu.user + cpu.system) / webhooks),
        allocated_kb_per_webhook: kb(bytes),
        bar_ms_median: Math.round(spans[Math.floor(spans.length / 2)]!),
        wall_ms: Math.round(wallMs),
        delivered: actor.stats().delivered.webhook,
        top_sites_kb_per_webhook: Object.fromEntries(sites.slice(0, numberOption(ctx, 'sites', 15)).map(([k, v]) => [k, kb(v)])),
        note: "this process only: delivery's Node (the publisher and the receiver are another process); allocation sampled every 4 KB, collected objects included",
      },
    ];
  },
};
