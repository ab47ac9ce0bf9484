import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { startEmbeddedNats } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';

const log = createLogger('silent');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startEmbeddedNats', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-nats-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('starts a JetStream server on loopback and stops it', async () => {
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    assert.match(nats.url, /^nats:\/\/127\.0\.0\.1:\d+$/);
    const nc = await connect({ servers: nats.url });
    assert.ok(nc.info?.jetstream, 'JetStream is enabled');
    await nc.close();
    await nats.stop();
    assert.equal(alive(nats.pid), false);
    await nats.stop(); // twice is harmless
  });

  it('replaces a server left running on the same store by a killed process', async () => {
    const orphan = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    // Simulate the owner dying without cleanup: the orphan keeps running.
    const next = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    assert.equal(alive(orphan.pid), false, 'the leftover server was stopped');
    assert.ok(alive(next.pid));
    await next.stop();
  });

  it('explains how to fix a missing binary', async () => {
    await assert.rejects(
      startEmbeddedNats({ bin: '/nonexistent/nats-server', storeDir: dir, log }),
      /apt-get install nats-server' or set NATS_URL/,
    );
  });
});
