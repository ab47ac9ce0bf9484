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

const ENV = { HISTORY_DAYS: '2' };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

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
      assert.deepEqual(usage.body.history.map((h: any) => [h.reason, h.delta]), [['signup', 50]]);
      const activity = await json(`${second.url}/api/v1/activity`);
      assert.ok(activity.body.events.some((e: any) => e.id === eventId && e.bot === 'Persistent'));
      const taken = await json(`${second.url}/api/v1/key/trial`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'persistent' }),
      });
      assert.equal(taken.status, 409);
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  });

  it('recovers after being killed outright: the orphaned nats-server is replaced', async () => {
    // The previous test killed the service with SIGKILL, leaving its nats-server running.
    const third = await serveChild(dataDir, { port, env: ENV });
    try {
      const res = await json(`${third.url}/api/v1/activity`);
      assert.equal(res.status, 200);
      assert.ok(res.body.events.length >= 1);
    } finally {
      third.child.kill('SIGINT');
      assert.equal(await third.exited, 0);
      assert.equal(alive(third.natsPid), false);
    }
  });
});
