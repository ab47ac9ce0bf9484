/**
 * One nats-server for a benchmark that runs its actors in-process (signal-delivery,
 * delivery-step): in a temporary directory, with a bus on it and the SIGNALS stream; all of it
 * removed when the benchmark ends. Its log lines go to the benchmark's stderr.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, ensureStream, startEmbeddedNats, type Bus } from '../../../src/bus/index.ts';
import { createLogger, type Logger } from '../../../src/log.ts';
import { Streams } from '../../../schemas/messages.ts';
import type { BenchContext } from './types.ts';

export async function startBenchNats(
  ctx: BenchContext,
  name: string,
): Promise<{ log: Logger; url: string; bus: Bus; /** nats-server's, for its CPU */ natsPid: number }> {
  const log = createLogger('warn', { write: (line: string) => void ctx.log(line.trim()) });
  const dir = mkdtempSync(join(tmpdir(), `sf-bench-${name}-`));
  ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
  const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats'), log });
  ctx.defer(() => nats.stop());
  const bus = await connectBus(nats.url, `bench-${name}`, log);
  ctx.defer(() => bus.close());
  await ensureStream(bus, Streams.signals);
  return { log, url: nats.url, bus, natsPid: Number(readFileSync(join(dir, 'nats', 'nats-server.pid'), 'utf8')) };
}
