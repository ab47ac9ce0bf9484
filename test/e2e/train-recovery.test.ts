/**
 * A trainer killed in the middle of a job (SIGKILL: no goodbye) leaves no job stuck in
 * `running`: after the restart the work queue hands the job out again and it completes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/bus/index.ts';
import { serveChild, shutdownChild, stopChild, type ChildService } from '../helpers/child-service.ts';
import { strategyCode } from '../helpers/strategies.ts';

const ENV = { HISTORY_DAYS: '4', TRAIN_ACK_WAIT_MS: '3000' };
const START_TIMEOUT_MS = 60_000;
// A slow but honest fit (GradientBoosting, 300 trees of depth 5: a second or more) keeps the job
// running long enough to kill, well within its time budget (an endless or fixed-cost loop would not be).
const SLOW_FIT = strategyCode({ modelType: 'GradientBoostingClassifier', params: '{"n_estimators": 300, "max_depth": 5}' });

async function call(base: string, method: string, path: string, key?: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('a trainer killed mid-job', () => {
  let dataDir: string;
  let port: number;
  let running: ChildService | null = null;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sf-recovery-'));
    port = await freePort();
  });
  after(async () => {
    if (running) await shutdownChild(running);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hands the job out again after the restart, and it completes', async () => {
    running = await serveChild(dataDir, { port, env: ENV, startTimeoutMs: START_TIMEOUT_MS });
    const minted = await call(running.url, 'POST', '/api/v1/key/trial', undefined, { username: 'crash_test' });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const key: string = minted.body.api_key;
    const code = SLOW_FIT;
    const start = await call(running.url, 'POST', '/api/v1/train', key, { code, timeframe: '1min' });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const jobId: number = start.body.job_id;
    const base = running.url;
    await waitFor(
      'running',
      async () => ((await call(base, 'GET', `/api/v1/train/${jobId}`, key)).body.status === 'running' ? true : null),
      60_000,
    );

    running.child.kill('SIGKILL');
    await running.exited;
    running = await serveChild(dataDir, { port, env: ENV, startTimeoutMs: START_TIMEOUT_MS });
    const url = running.url;
    const right = await call(url, 'GET', `/api/v1/train/${jobId}`, key);
    assert.ok(['running', 'queued'].includes(right.body.status), `after the restart the job is ${JSON.stringify(right.body)}`);

    const done = await waitFor(
      'the job to finish',
      async () => {
        const job = (await call(url, 'GET', `/api/v1/train/${jobId}`, key)).body;
        return job.status === 'done' || job.status === 'failed' ? job : null;
      },
      120_000,
    );
    assert.equal(done.status, 'done', done.error);
    const starts = running.lines.filter((l) => l.includes('"train job started"'));
    assert.ok(
      starts.some((l) => l.includes('"attempt":2')),
      `the restarted trainer ran it as attempt 2; it logged: ${starts.join('\n') || 'no start'}`,
    );
    const models = await call(url, 'GET', '/api/v1/models', key);
    assert.equal(models.body.count, 1, JSON.stringify(models.body));
    // The completed run left the whole model behind: its results carry the stats the job reports.
    const results = await call(url, 'GET', `/api/v1/results/${encodeURIComponent(done.model_stem)}`, key);
    assert.equal(results.status, 200, JSON.stringify(results.body));
    assert.deepEqual([results.body.metrics.train, results.body.metrics.test], [done.train_stats, done.test_stats]);
    assert.equal(results.body.trade_log.filter((t: { period: string }) => t.period === 'test').length, done.test_stats.n);
    assert.ok(done.test_stats.n > 0, 'an always-in-the-market strategy trades on the test span');
  });

  it('a trainer stopped with SIGTERM puts its job back at once: after the restart it runs again, not counted as a failed attempt', async () => {
    running ??= await serveChild(dataDir, { port, env: ENV, startTimeoutMs: START_TIMEOUT_MS });
    const minted = await call(running.url, 'POST', '/api/v1/key/trial', undefined, { username: 'term_test' });
    const key: string = minted.body.api_key;
    const code = SLOW_FIT;
    const start = await call(running.url, 'POST', '/api/v1/train', key, { code, timeframe: '1min', model_name: 'after term' });
    const jobId: number = start.body.job_id;
    const base = running.url;
    await waitFor(
      'running',
      async () => ((await call(base, 'GET', `/api/v1/train/${jobId}`, key)).body.status === 'running' ? true : null),
      60_000,
    );

    await stopChild(running);
    running = await serveChild(dataDir, { port, env: ENV, startTimeoutMs: START_TIMEOUT_MS });
    const url = running.url;
    const done = await waitFor(
      'the job to finish',
      async () => {
        const job = (await call(url, 'GET', `/api/v1/train/${jobId}`, key)).body;
        return job.status === 'done' || job.status === 'failed' ? job : null;
      },
      120_000,
    );
    assert.equal(done.status, 'done', done.error);
    const starts = running.lines.filter((l) => l.includes('"train job started"'));
    assert.ok(
      starts.some((l) => l.includes(`"job_id":${jobId}`) && l.includes('"attempt":1')),
      `run again as attempt 1; it logged: ${starts.join('\n') || 'no start'}`,
    );
  });
});
