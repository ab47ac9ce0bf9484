/**
 * Drives `signalforge serve` as a user would: a real child process, real signals, a restart on
 * the same data directory.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectBus, freePort } from '../../src/bus/index.ts';
import { ActivityBus } from '../../src/community/index.ts';
import { createLogger } from '../../src/log.ts';
import { serveChild, stopChild } from '../helpers/child-service.ts';
import { stillRunning } from '../helpers/process-tree.ts';

const ENV = { HISTORY_DAYS: '2' };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs (a zombie waiting for whichever process adopted it to reap it does not count). */
const running = (pid: number) => stillRunning([{ pid, ppid: 0, state: '', command: '' }]).length > 0;

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

describe('signalforge serve', () => {
  let dataDir: string;
  let port: number;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sf-e2e-'));
    port = await freePort();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start on a bad setting and names the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      env: { ...process.env, PORT: 'eighty', RATE_LIMIT_PER_MIN: '-3', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(stderr, /PORT="eighty"/);
    assert.match(stderr, /RATE_LIMIT_PER_MIN="-3"/);
  });

  it('keeps every key, credit and event across SIGTERM and a restart', async () => {
    const first = await serveChild(dataDir, { port, env: ENV });
    const minted = await json(`${first.url}/api/v1/key/trial`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'Persistent' }),
    });
    assert.equal(minted.status, 200);
    const key: string = minted.body.api_key;

    // Another process emits on the service's own NATS, as any role would.
    const log = createLogger('silent');
    const bus = await connectBus(first.natsUrl, 'e2e-emitter', log);
    const eventId = await new ActivityBus(bus).emit({ kind: 'TRAINED', bot: 'Persistent', model: { name: 'Model 1' } });
    await bus.close();

    // An open SSE stream must not hold shutdown hostage: it is ended cleanly.
    const stream = await fetch(`${first.url}/api/v1/activity/stream`);
    assert.equal(stream.status, 200);
    const streamDone = stream.text();

    await stopChild(first, 'a clean exit');
    await streamDone;
    assert.equal(alive(first.natsPid), false, 'the child nats-server is stopped');

    const second = await serveChild(dataDir, { port, env: ENV });
    try {
      const whoami = await json(`${second.url}/api/v1/whoami-key`, { headers: { 'x-api-key': key } });
      assert.equal(whoami.status, 200);
      assert.equal(whoami.body.username, 'Persistent');
      const usage = await json(`${second.url}/api/v1/key/usage`, { headers: { 'x-api-key': key } });
      assert.equal(usage.body.balance, 50);
      assert.deepEqual(
        usage.body.history.map((h: any) => [h.reason, h.delta]),
        [['signup', 50]],
      );
      const activity = await json(`${second.url}/api/v1/activity`);
      assert.ok(activity.body.events.some((e: any) => e.id === eventId && e.bot === 'Persistent'));
      const taken = await json(`${second.url}/api/v1/key/trial`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'persistent' }),
      });
      assert.equal(taken.status, 409);
    } finally {
      await stopChild(second);
    }
  });

  it('recovers after being killed outright: the orphaned nats-server is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-e2e-orphan-'));
    let orphan = 0;
    try {
      const killed = await serveChild(dir, { env: ENV });
      const minted = await json(`${killed.url}/api/v1/key/trial`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'Orphaned' }),
      });
      assert.equal(minted.status, 200);
      killed.child.kill('SIGKILL');
      await killed.exited;
      orphan = killed.natsPid;
      assert.ok(orphan > 0 && running(orphan), 'SIGKILL leaves the nats-server running (it has its own process group)');

      const next = await serveChild(dir, { env: ENV });
      try {
        assert.ok(
          next.log.some((e) => e.pid === orphan && /nats-server left over from an earlier run/.test(e.msg)),
          'the leftover nats-server was found by its pid file and stopped',
        );
        assert.notEqual(next.natsPid, orphan, 'a new nats-server');
        assert.equal(running(orphan), false, 'the orphaned nats-server is gone');
        const whoami = await json(`${next.url}/api/v1/whoami-key`, { headers: { 'x-api-key': minted.body.api_key } });
        assert.equal(whoami.status, 200, 'the new nats-server serves the same store');
        assert.equal(whoami.body.username, 'Orphaned');
      } finally {
        next.child.kill('SIGINT');
        assert.equal(await next.exited, 0);
        assert.equal(alive(next.natsPid), false);
      }
    } finally {
      if (orphan > 0 && running(orphan)) process.kill(orphan, 'SIGKILL'); // left behind only when the test failed
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
