import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { jetstream } from '@nats-io/jetstream';
import { freePort, startEmbeddedNats } from '../../src/bus/index.ts';
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

async function until<T>(what: string, probe: () => T | null | undefined | false): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = probe();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out: ${what}`);
}

/** A nats-server wrapper that refuses to start while `hold` exists (a restart that fails). */
function heldServer(dir: string): { bin: string; hold: string } {
  const bin = join(dir, 'nats-held.sh');
  const hold = join(dir, 'hold');
  writeFileSync(bin, `#!/bin/sh\nif [ -e '${hold}' ]; then echo '[FTL] held by the test' >&2; exit 1; fi\nexec nats-server "$@"\n`);
  chmodSync(bin, 0o755);
  return { bin, hold };
}

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
    // What a service killed outright leaves behind: a server on the store, owned by nobody here.
    const pidFile = join(dir, 'nats-server.pid');
    const orphan = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(await freePort()), '-sd', dir, '-P', pidFile], {
      stdio: 'ignore',
    });
    const orphanGone = new Promise((r) => orphan.once('exit', r));
    await until(
      'the orphan to write its pid file',
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(orphan.pid),
    );
    const next = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    await orphanGone;
    assert.ok(alive(next.pid));
    await next.stop();
  });

  it('runs the server in its own process group, so a signal to our group does not reach it', async () => {
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    try {
      // detached: the child leads its own group (pgid = its pid).
      assert.equal(alive(-nats.pid), true, 'a process group led by the server exists');
    } finally {
      await nats.stop();
    }
  });

  it('restarts a server killed with SIGKILL on the same port and store: KV data survives, a client reconnects', async () => {
    const store = mkdtempSync(join(dir, 'restart-'));
    const nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: store, log });
    const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const kv = await new Kvm(jetstream(nc)).create('survives');
      await kv.put('k', 'before the kill');
      const first = nats.pid;
      process.kill(first, 'SIGKILL');
      await until('a new server', () => nats.running() && nats.pid !== first);
      assert.equal(alive(first), false);
      // The same client, reconnected to the same URL, reads what was written before.
      let entry = null;
      for (let i = 0; i < 100 && !entry; i++)
        entry = await kv.get('k').catch(() => new Promise<null>((r) => setTimeout(() => r(null), 100)));
      assert.equal(entry?.string(), 'before the kill');
    } finally {
      await nc.close();
      await nats.stop();
    }
  });

  it('gives up after the restart bound and says so (onFatal), instead of running on without NATS', async () => {
    const store = mkdtempSync(join(dir, 'fatal-'));
    const { bin, hold } = heldServer(dir);
    let fatal: Error | null = null;
    const nats = await startEmbeddedNats({ bin, storeDir: store, log, restartBoundMs: 1_500, onFatal: (err) => (fatal = err) });
    try {
      writeFileSync(hold, '');
      process.kill(nats.pid, 'SIGKILL');
      const err = await until('onFatal', () => fatal);
      assert.match(err.message, /could not be restarted within 1500 ms/);
      assert.equal(nats.running(), false);
    } finally {
      rmSync(hold, { force: true });
      await nats.stop();
    }
  });

  it('explains how to fix a missing binary', async () => {
    await assert.rejects(
      startEmbeddedNats({ bin: '/nonexistent/nats-server', storeDir: dir, log }),
      /apt-get install nats-server' or set NATS_URL/,
    );
  });
});
