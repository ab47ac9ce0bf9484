/**
 * The embedded nats-server killed with SIGKILL under a running `signalforge serve`: readiness
 * says so, the server comes back on the same store, the service's clients reconnect and work in
 * flight (a train job) completes; when it cannot come back, the service exits non-zero.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heldNatsServer, type HeldNats } from '../helpers/held-nats.ts';
import { callChild, serveChild, shutdownChild, stopChild, waitForLog, type ChildService } from '../helpers/child-service.ts';
import { eventually } from '../helpers/live.ts';
import { strategyCode } from '../helpers/strategies.ts';

const START_TIMEOUT_MS = 60_000;

describe('the embedded nats-server dies under a running service', () => {
  let dir: string;
  let nats: HeldNats;
  let running: ChildService | null = null;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sf-natskill-'));
    nats = heldNatsServer(dir);
  });
  after(async () => {
    nats.release();
    if (running) await shutdownChild(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports not ready while NATS is down, restarts it on the same store, and finishes the train job in flight', async () => {
    running = await serveChild(join(dir, 'data'), {
      env: { HISTORY_DAYS: '4', NATS_SERVER_BIN: nats.bin, TRAIN_ACK_WAIT_MS: '3000', RATE_LIMIT_PER_MIN: '100000' },
      startTimeoutMs: START_TIMEOUT_MS,
    });
    const { url } = running;
    const ready = await callChild(url, 'GET', '/_readyz');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.deepEqual(Object.keys(ready.body.checks).sort(), ['clickhouse', 'nats', 'python']);

    const minted = await callChild(url, 'POST', '/api/v1/key/trial', undefined, { username: 'nats_killed' });
    const key: string = minted.body.api_key;
    const start = await callChild(url, 'POST', '/api/v1/train', key, {
      code: strategyCode(),
      timeframe: '1min',
      model_name: 'through the outage',
    });
    assert.equal(start.status, 200, JSON.stringify(start.body));

    nats.hold();
    const first = running.natsPid;
    process.kill(first, 'SIGKILL');
    const down = await eventually('readiness to report NATS down', async () => {
      const res = await callChild(url, 'GET', '/_readyz');
      return res.status === 503 ? res.body : null;
    });
    assert.equal(down.ready, false);
    assert.equal(down.checks.nats.ok, false);
    assert.match(down.checks.nats.error, /down|timed out|did not finish|closed|disconnect/i);
    assert.equal(down.checks.clickhouse.ok, true, 'the other dependencies are reported separately');
    assert.equal(down.code, 503);
    assert.equal((await callChild(url, 'GET', '/_healthz')).status, 200, 'liveness is not readiness');

    nats.release();
    await waitForLog(running, (e) => e.msg === 'embedded nats-server ready' && e.restarted === true && e.pid !== first);
    await eventually('ready again', async () => (await callChild(url, 'GET', '/_readyz')).status === 200, 30_000);
    // (The test polls every 100 ms: RATE_LIMIT_PER_MIN is lifted so no poll is a 429.)
    // The state from before the kill (JetStream on the same store) and the job in flight.
    const whoami = await callChild(url, 'GET', '/api/v1/whoami-key', key);
    assert.equal(whoami.body.username, 'nats_killed');
    const job = await eventually(
      'the job in flight to finish',
      async () => {
        const j = (await callChild(url, 'GET', `/api/v1/train/${start.body.job_id}`, key)).body;
        return j.status === 'done' || j.status === 'failed' ? j : null;
      },
      120_000,
    );
    assert.equal(job.status, 'done', job.error);
    // New work after the outage goes through the reconnected clients too.
    const again = await callChild(url, 'POST', '/api/v1/train', key, {
      code: strategyCode(),
      timeframe: '1min',
      model_name: 'after the outage',
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    await stopChild(running, 'a clean exit after the outage');
    running = null;
  });

  it('exits non-zero with a clear log line when NATS cannot come back within the bound', async () => {
    if (running) await shutdownChild(running);
    running = await serveChild(join(dir, 'data2'), {
      env: { HISTORY_DAYS: '4', NATS_SERVER_BIN: nats.bin, NATS_RESTART_BOUND_MS: '2000' },
      startTimeoutMs: START_TIMEOUT_MS,
    });
    nats.hold();
    process.kill(running.natsPid, 'SIGKILL');
    assert.equal(await running.exited, 1);
    assert.ok(
      running.log.some((e) => e.level === 60 && /could not be restarted within 2000 ms/.test(e.msg)),
      running.lines.slice(-10).join('\n'),
    );
    running = null;
  });
});
