/**
 * SIGTERM ends `signalforge serve` in every state — a train job running (the pool busy), an SSE
 * stream open, NATS dead — with every child process gone, and the next start on the same data
 * directory works (no ClickHouse or JetStream lock left behind). A stop that hangs fails by the
 * test's own timeout; how long a stop takes is measured by `npm run bench -- shutdown`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heldNatsServer, type HeldNats } from '../helpers/held-nats.ts';
import { callChild, serveChild, shutdownChild, type ChildService } from '../helpers/child-service.ts';
import { eventually } from '../helpers/live.ts';
import { descendants, stillRunning } from '../helpers/process-tree.ts';
import { strategyCode } from '../helpers/strategies.ts';

const START_TIMEOUT_MS = 60_000;
/** Well above SHUTDOWN_TIMEOUT_MS below: a stop that hangs fails the test (by its timeout) instead of passing late. */
const STOP_TEST_TIMEOUT_MS = 90_000;
/** The service's own bound (SHUTDOWN_TIMEOUT_MS in env() below): past it, it exits whatever is still stopping. How long a stop takes is a figure of test/bench/shutdown.ts. */
const SHUTDOWN_BOUND_MS = 20_000;

describe('SIGTERM ends the service in every state', () => {
  let dir: string;
  let dataDir: string;
  let nats: HeldNats;
  let running: ChildService | null = null;
  const env = () => ({
    HISTORY_DAYS: '4',
    NATS_SERVER_BIN: nats.bin,
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_BOUND_MS),
    SHUTDOWN_STEP_MS: '3000',
    RATE_LIMIT_PER_MIN: '100000',
  });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sf-stop-'));
    dataDir = join(dir, 'data');
    nats = heldNatsServer(dir);
  });
  after(async () => {
    nats.release();
    if (running) await shutdownChild(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a group SIGTERM mid-train with an SSE stream open: exit 0, every child process gone',
    { timeout: STOP_TEST_TIMEOUT_MS + START_TIMEOUT_MS },
    async () => {
      running = await serveChild(dataDir, { env: env(), startTimeoutMs: START_TIMEOUT_MS, group: true });
      const { url } = running;
      const key: string = (await callChild(url, 'POST', '/api/v1/key/trial', undefined, { username: 'stopper' })).body.api_key;
      // A slow feature step keeps the job (and a pool worker) busy while the signal arrives.
      const start = await callChild(url, 'POST', '/api/v1/train', key, {
        code: strategyCode({ prelude: 'busy = sum(range(20_000_000))' }),
        timeframe: '1min',
      });
      assert.equal(start.status, 200, JSON.stringify(start.body));
      await eventually(
        'the job to run',
        async () => (await callChild(url, 'GET', `/api/v1/train/${start.body.job_id}`, key)).body.status === 'running',
        60_000,
      );
      const stream = await fetch(`${url}/api/v1/activity/stream`);
      assert.equal(stream.status, 200);
      const streamEnded = stream.text().catch(() => '');

      const children = descendants(running.child.pid!);
      assert.ok(
        children.some((p) => p.command === 'nats-server') && children.some((p) => p.command.startsWith('python')),
        JSON.stringify(children),
      );
      // The whole group, as Ctrl-C or a supervisor's group kill would: nats-server is in a group of its own.
      process.kill(-running.child.pid!, 'SIGTERM');
      assert.equal(await running.exited, 0, running.lines.slice(-15).join('\n'));
      await streamEnded;
      assert.deepEqual(stillRunning(children), [], 'every child process is gone');
      // nats-server was not hit by the group signal: the service stopped it, last, and nothing failed on the way.
      assert.ok(
        running.log.some((e) => e.msg === 'embedded nats-server stopped'),
        'the service stopped nats-server itself',
      );
      const errors = running.log.filter((e) => e.level >= 50);
      assert.deepEqual(
        errors.map((e) => e.msg),
        [],
        `no errors while stopping: ${JSON.stringify(errors).slice(0, 2000)}`,
      );
      running = null;
    },
  );

  it(
    'the next start on the same data directory works, and SIGTERM with NATS dead still ends the process',
    { timeout: STOP_TEST_TIMEOUT_MS + START_TIMEOUT_MS },
    async () => {
      running = await serveChild(dataDir, { env: env(), startTimeoutMs: START_TIMEOUT_MS });
      const { url } = running;
      const key: string = (await callChild(url, 'POST', '/api/v1/key/trial', undefined, { username: 'stopper2' })).body.api_key;
      const start = await callChild(url, 'POST', '/api/v1/train', key, {
        code: strategyCode({ prelude: 'busy = sum(range(20_000_000))' }),
        timeframe: '1min',
      });
      assert.equal(start.status, 200, JSON.stringify(start.body));
      const children = descendants(running.child.pid!);
      nats.hold();
      process.kill(running.natsPid, 'SIGKILL');
      await eventually('readiness to see NATS down', async () => (await callChild(url, 'GET', '/_readyz')).status === 503);
      running.child.kill('SIGTERM');
      const code = await running.exited;
      assert.ok(code === 0 || code === 1, `exited with ${code}`);
      assert.deepEqual(stillRunning(children), [], 'every child process is gone');
      running = null;

      nats.release();
      running = await serveChild(dataDir, { env: env(), startTimeoutMs: START_TIMEOUT_MS });
      const whoami = await callChild(running.url, 'GET', '/api/v1/whoami-key', key);
      assert.equal(whoami.body.username, 'stopper2', 'the state survived');
      running.child.kill('SIGTERM');
      assert.equal(await running.exited, 0);
      running = null;
    },
  );

  it('no <defunct> child is left next to a running service, at start or after a job', { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    running = await serveChild(dataDir, { env: env(), startTimeoutMs: START_TIMEOUT_MS });
    const { url } = running;
    // Freshly started, before any job: the zygote's spare child and the checker leave nothing behind either.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(
      descendants(running.child.pid!).filter((p) => p.state === 'Z'),
      [],
      'no <defunct> child at start',
    );
    const key: string = (await callChild(url, 'POST', '/api/v1/key/trial', undefined, { username: 'reaper' })).body.api_key;
    const start = await callChild(url, 'POST', '/api/v1/train', key, { code: strategyCode(), timeframe: '1min' });
    await eventually(
      'the job to finish',
      async () => ['done', 'failed'].includes((await callChild(url, 'GET', `/api/v1/train/${start.body.job_id}`, key)).body.status),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const zombies = descendants(running.child.pid!).filter((p) => p.state === 'Z');
    running.child.kill('SIGTERM');
    await running.exited;
    running = null;
    assert.deepEqual(zombies, []);
  });
});
