/**
 * `signalforge serve` killed outright (SIGKILL) in the middle of POST /one_shot, then started
 * again on the same data directory: the pipeline is picked up — it deploys the model, or refunds
 * the fee and says why — and the client learns it from the train job (`one_shot`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { callChild, serveChild, shutdownChild, type ChildService } from '../helpers/child-service.ts';
import { eventually } from '../helpers/live.ts';
import { readSse } from '../helpers/service.ts';

const START_TIMEOUT_MS = 60_000;
const FEE = 9;

async function oneShot(url: string, key: string, body: unknown): Promise<Response> {
  const res = await fetch(`${url}/api/v1/one_shot`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200);
  return res;
}

describe('one_shot across a crash of the service', () => {
  let dir: string;
  let fake: FakeAnthropic;
  let running: ChildService | null = null;
  const env = () => ({
    HISTORY_DAYS: '4',
    TRAIN_ACK_WAIT_MS: '3000',
    RATE_LIMIT_PER_MIN: '100000',
    ONE_SHOT_FEE: String(FEE),
    ANTHROPIC_API_KEY: 'sk-e2e',
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_MAX_RETRIES: '0',
  });
  const restart = async () => {
    running!.child.kill('SIGKILL');
    await running!.exited;
    running = await serveChild(join(dir, 'data'), { env: env(), startTimeoutMs: START_TIMEOUT_MS });
    return running.url;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-oneshot-crash-'));
    // Claude never finishes writing: a one_shot that asks for it is still generating when killed.
    fake = await startFakeAnthropic(() => ({ text: 'x'.repeat(10_000), chunk: 10, delayMs: 1_000 }));
  });
  after(async () => {
    if (running) await shutdownChild(running);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('killed during the train step: after the restart the model is deployed, the fee kept, and the job says so', async () => {
    running = await serveChild(join(dir, 'data'), { env: env(), startTimeoutMs: START_TIMEOUT_MS });
    const minted = await callChild(running.url, 'POST', '/api/v1/key/trial', undefined, { username: 'crashy' });
    const key: string = minted.body.api_key;
    const stream = await oneShot(running.url, key, { prompt: 'RSI mean reversion on EURUSD 1min' });
    const frames = await readSse(stream, (f) => f.some((x) => x.event === 'step' && /train job \d+ queued/.test(x.data)), 60_000);
    const jobId = Number(/train job (\d+) queued/.exec(frames.find((x) => /train job \d+ queued/.test(x.data))!.data)![1]);

    const url = await restart();
    const job = await eventually(
      'the one_shot outcome on the job',
      async () => {
        const j = (await callChild(url, 'GET', `/api/v1/train/${jobId}`, key)).body;
        return j.one_shot && j.one_shot.status !== 'running' ? j : null;
      },
      120_000,
    );
    assert.equal(job.status, 'done', job.error);
    assert.equal(job.one_shot.status, 'deployed', JSON.stringify(job.one_shot));
    assert.match(job.one_shot.deployment_id, /^dep_/);
    const deployed = (await callChild(url, 'GET', '/api/v1/deployed', key)).body;
    assert.deepEqual(
      deployed.deployed.map((d: any) => d.model),
      [job.model_stem],
    );
    const usage = (await callChild(url, 'GET', '/api/v1/key/usage', key)).body;
    assert.ok(!usage.history.some((h: any) => h.reason === 'refund'), 'the fee is kept for a deployed model');

    // The deployed model's webhook URL is checked like any other: a malformed one is refused with the reason.
    const bad = await callChild(url, 'POST', '/api/v1/deploy', key, {
      model_name: job.model_stem,
      channels: ['webhook'],
      webhook_url: 'http://%E0@hooks.example/x',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /user name whose percent-escapes are not valid UTF-8/);
    assert.equal(bad.body.code, 400);
  });

  it('killed during the train step with deploy_if robust: after the restart the same guard decides, by the model’s own verdict', async () => {
    const url0 = running!.url;
    const minted = await callChild(url0, 'POST', '/api/v1/key/trial', undefined, { username: 'crashy3' });
    const key: string = minted.body.api_key;
    const stream = await oneShot(url0, key, { prompt: 'RSI mean reversion on EURUSD 1min', deploy_if: 'robust' });
    const frames = await readSse(stream, (f) => f.some((x) => x.event === 'step' && /train job \d+ queued/.test(x.data)), 60_000);
    const jobId = Number(/train job (\d+) queued/.exec(frames.find((x) => /train job \d+ queued/.test(x.data))!.data)![1]);
    const charged = (await callChild(url0, 'GET', '/api/v1/key/usage', key)).body.balance;

    const url = await restart();
    const job = await eventually(
      'the one_shot outcome on the job',
      async () => {
        const j = (await callChild(url, 'GET', `/api/v1/train/${jobId}`, key)).body;
        return j.one_shot && j.one_shot.status !== 'running' ? j : null;
      },
      120_000,
    );
    assert.equal(job.status, 'done', job.error);
    const verdict = job.robustness.verdict;
    const deployed = (await callChild(url, 'GET', '/api/v1/deployed', key)).body;
    const usage = (await callChild(url, 'GET', '/api/v1/key/usage', key)).body;
    if (verdict === 'robust') {
      assert.equal(job.one_shot.status, 'deployed', JSON.stringify(job.one_shot));
      assert.equal(deployed.count, 1);
    } else {
      assert.equal(job.one_shot.status, 'not_deployed', JSON.stringify(job.one_shot));
      assert.match(job.one_shot.reason, new RegExp(`verdict is ${verdict}.*deploy_if is robust`));
      assert.equal(deployed.count, 0, 'kept off live');
      assert.equal(usage.balance, charged + FEE, 'the fee refunded');
      const models = (await callChild(url, 'GET', '/api/v1/models', key)).body;
      assert.deepEqual(
        models.models.map((m: any) => m.name),
        [job.model_stem],
        'the model kept',
      );
    }
  });

  it('killed while the strategy is written: after the restart the fee is refunded with the reason', async () => {
    const url0 = running!.url;
    const minted = await callChild(url0, 'POST', '/api/v1/key/trial', undefined, { username: 'crashy2' });
    const key: string = minted.body.api_key;
    const before = (await callChild(url0, 'GET', '/api/v1/key/usage', key)).body.balance;
    const stream = await oneShot(url0, key, { prompt: 'MACD trend on EURUSD 15min', ai_model: 'haiku' });
    await readSse(stream, (f) => f.some((x) => x.event === 'step' && /writing the strategy/.test(x.data)), 30_000);
    await eventually('Claude to be asked', () => fake.requests.length > 0);

    const url = await restart();
    const usage = await eventually(
      'the fee to be refunded',
      async () => {
        const u = (await callChild(url, 'GET', '/api/v1/key/usage', key)).body;
        return u.history.some((h: any) => h.reason === 'refund' && h.delta === FEE) ? u : null;
      },
      60_000,
    );
    assert.ok(usage.balance > before - FEE, `the fee is back: ${usage.balance} (before the one_shot: ${before})`);
    // The refund is stored before the run, its job and then the log line say why: wait for the line too.
    await eventually('the refund logged with its reason', () =>
      running!.log.some((e) => e.msg === 'one_shot refunded' && /being written/.test(e.reason)),
    );
  });
});
