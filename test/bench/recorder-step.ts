/**
 * The signal recorder taking bars of signals off SIGNALS, in this process: what recording a
 * signal costs ingest's Node, without the store behind it (actor-fleet measures the whole). A real
 * nats-server and the real SignalRecorder (its durable consumer, parse, acknowledgements), its
 * rows gathered by the real InsertBatcher into inserts that only count them: ClickHouse's work is
 * the store's process, not this one's. The signals' publisher is another process
 * (lib/delivery-peer.ts), so this process's CPU is the recorder's alone.
 * - CPU of this process per signal;
 * - nats-server's CPU per signal: the publish (stored, de-duplicated by id), its delivery to the
 *   recorder and the recorder's acknowledgement;
 * - V8 heap bytes allocated per signal, and the sites that allocate most.
 * Options: --deployments=2000 --bars=10.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SignalRecorder } from '../../actors/recorder/index.ts';
import { InsertBatcher, type ClickHouseClient } from '../../src/store/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';
import type { DeliveryPeerSpec } from './lib/delivery-peer.ts';
import { kbPer, sampleAllocations } from './lib/heap-sampling.ts';
import { treeCpuSeconds } from './lib/proc.ts';
import { REPO_ROOT } from './lib/service.ts';
import { startBenchNats } from './lib/bench-nats.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const PEER = fileURLToPath(new URL('./lib/delivery-peer.ts', import.meta.url));
const QUARTER = 15 * 60_000;
/** Bars recorded before measuring: the consumer running, code optimised. */
const WARM_BARS = 3;

export const benchmark: Benchmark = {
  name: 'recorder-step',
  description: 'the signal recorder taking bars of signals in-process: CPU and V8 bytes allocated per signal recorded',
  async run(ctx) {
    const count = numberOption(ctx, 'deployments', 2_000);
    const bars = numberOption(ctx, 'bars', 10);
    const { log, url: natsUrl, bus, natsPid } = await startBenchNats(ctx, 'recorder-step');
    const spec: DeliveryPeerSpec = { natsUrl, deployments: count };
    const peer = spawn(process.execPath, ['--import', 'tsx', PEER, JSON.stringify(spec)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    ctx.defer(() => void peer.kill('SIGKILL'));
    const ready = new Promise((resolve) => peer.once('message', resolve));

    // The repo's batching as it is, its write counting rows instead of sending them to the store.
    let rows = 0;
    let inserts = 0;
    const batcher = new InsertBatcher<SignalEvent>({} as ClickHouseClient, 'signals', {
      maxRows: 10_000,
      maxDelayMs: 1_000,
      write: async (batch) => {
        rows += batch.length;
        inserts++;
      },
    });
    const recorder = new SignalRecorder({ bus, log, repo: { rowsPerInsert: 10_000, insert: (events) => batcher.insert([...events]) } });
    await recorder.start();
    ctx.defer(() => recorder.stop());
    await ready;

    let bar = Date.UTC(2025, 0, 6);
    const send = async () => {
      bar += QUARTER;
      const target = recorder.stats().stored + count;
      peer.send({ type: 'bar', bar });
      const deadline = performance.now() + 120_000;
      while (recorder.stats().stored < target) {
        if (performance.now() > deadline) throw new Error(`recorder-step: ${recorder.stats().stored} of ${target} stored`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    for (let i = 0; i < WARM_BARS; i++) await send();

    ctx.log(`recorder-step: ${count} signals a bar, ${bars} bars measured for CPU, then ${bars} for allocation`);
    const inserts0 = inserts;
    const cpu0 = process.cpuUsage();
    const nats0 = treeCpuSeconds(natsPid);
    const t0 = performance.now();
    for (let i = 0; i < bars; i++) await send();
    const cpu = process.cpuUsage(cpu0);
    const natsS = treeCpuSeconds(natsPid) - nats0;
    const wallMs = performance.now() - t0;
    const measuredInserts = inserts - inserts0;
    const allocations = await sampleAllocations();
    for (let i = 0; i < bars; i++) await send();
    const { bytes, sites } = await allocations();
    const signals = count * bars;
    const kb = (b: number) => kbPer(b, signals);
    return [
      {
        name: 'recorder-step',
        deployments: count,
        bars,
        cpu_us_per_signal: Math.round((cpu.user + cpu.system) / signals),
        nats_server_us_per_signal: Math.round((natsS * 1e6) / signals),
        allocated_kb_per_signal: kb(bytes),
        inserts_per_bar: Math.round((measuredInserts / bars) * 10) / 10,
        wall_ms: Math.round(wallMs),
        rows_counted: rows,
        top_sites_kb_per_signal: Object.fromEntries(sites.slice(0, numberOption(ctx, 'sites', 15)).map(([k, v]) => [k, kb(v)])),
        note: "cpu: this process only, the recorder's Node (the publisher is another process, the inserts only count rows); allocation sampled every 4 KB, collected objects included",
      },
    ];
  },
};
