/**
 * Ingestion: ticks/s from NATS through the resampler into ClickHouse, sustained. A second
 * process publishes 100-tick arrays on `ticks.<SYMBOL>` for all 8 symbols; the figure is the
 * rate of ticks the service reports STORED (its /_metrics), over the measured window.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberOption, type Benchmark } from './lib/types.ts';
import { processCpuMs, REPO_ROOT, startServiceProcess } from './lib/service.ts';

const PUBLISHER = fileURLToPath(new URL('./lib/tick-publisher.ts', import.meta.url));

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/_metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

export const benchmark: Benchmark = {
  name: 'market-ingest',
  description: 'NATS → resampler → ClickHouse: stored ticks/s sustained (goal ≥ 500,000)',
  async run(ctx) {
    const seconds = numberOption(ctx, 'ingest-seconds', 30);
    const batch = numberOption(ctx, 'ingest-batch', 100);
    // Offered load: the goal rate, paced. An unpaced publisher mostly measures how fast the
    // service can decode ticks it then has to drop.
    const offered = numberOption(ctx, 'ingest-rate', 500_000);
    const service = await startServiceProcess({ MARKET_FEED: 'none', LOG_LEVEL: 'warn' }, { signal: ctx.signal, log: ctx.log });
    ctx.defer(() => service.stop().then(() => undefined));
    const { natsUrl } = JSON.parse(readFileSync(join(service.dataDir, 'run.json'), 'utf8')) as { natsUrl: string };
    ctx.log(`market-ingest: publishing ${batch}-tick arrays at ${offered} ticks/s for ${seconds} s`);
    const publisher = spawn(process.execPath, ['--import', 'tsx', PUBLISHER, natsUrl, String(seconds + 3), String(batch), String(offered)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    publisher.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const done = new Promise<void>((resolve) => publisher.once('exit', () => resolve()));
    ctx.defer(() => void publisher.kill('SIGKILL'));
    // The first seconds warm the JIT and the pipeline; the window starts after them.
    await new Promise((r) => setTimeout(r, 3000));
    const t0 = performance.now();
    const stored0 = await metric(service.url, 'signalforge_ticks_stored_total');
    const cpu0 = processCpuMs(service.pid);
    const samples: number[] = [];
    let last = stored0;
    for (let s = 0; s < seconds; s++) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await metric(service.url, 'signalforge_ticks_stored_total');
      samples.push(now - last);
      last = now;
    }
    const windowS = (performance.now() - t0) / 1000;
    const cpu1 = processCpuMs(service.pid);
    // The service's own CPU (its main thread and chdb's threads); nats-server is a separate process.
    const serviceCpuS = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / 1000 : null;
    await done;
    // Let the service store what it still holds.
    await new Promise((r) => setTimeout(r, 2000));
    const storedEnd = await metric(service.url, 'signalforge_ticks_stored_total');
    const received = await metric(service.url, 'signalforge_source_nats_received_total');
    const dropped = await metric(service.url, 'signalforge_source_nats_dropped_total');
    const rss = await metric(service.url, 'signalforge_process_rss_bytes');
    const published = (JSON.parse(out || '{"published":0}') as { published: number }).published;
    const rate = (last - stored0) / windowS;
    samples.sort((a, b) => a - b);
    return [
      {
        name: 'nats-to-clickhouse',
        ticks_per_s: Math.round(rate),
        window_s: Math.round(windowS * 10) / 10,
        ticks_per_service_cpu_s: serviceCpuS ? Math.round((last - stored0) / serviceCpuS) : null,
        service_cpu_cores: serviceCpuS ? Math.round((serviceCpuS / windowS) * 100) / 100 : null,
        per_second_p10: samples[Math.floor(samples.length * 0.1)],
        per_second_p50: samples[Math.floor(samples.length / 2)],
        published,
        received,
        stored_total: storedEnd,
        dropped,
        batch_ticks_per_message: batch,
        offered_ticks_per_s: offered,
        published_per_s: Math.round(published / (seconds + 3)),
        service_rss_mb: Math.round(rss / 2 ** 20),
        goal: 500_000,
        met: rate >= 500_000 * 0.98 && dropped === 0,
        note: 'publisher and service share the 2 cores; stored = written to ClickHouse (ticks) by the bar builder',
      },
    ];
  },
};
