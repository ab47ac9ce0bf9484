/** A real nats-server with JetStream in a temp dir, and a bus connected to it, for unit-level tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, startEmbeddedNats, type Bus } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';

export const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

export interface TestNats {
  bus: Bus;
  close(): Promise<void>;
}

export async function startNats(name: string): Promise<TestNats> {
  const dir = mkdtempSync(join(tmpdir(), `sf-${name}-`));
  const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats'), log });
  const bus = await connectBus(nats.url, name, log);
  return {
    bus,
    async close() {
      await bus.close();
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it holds, or fails naming `what` (a guard against hanging, not a timing assertion). */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
