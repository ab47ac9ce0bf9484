/**
 * Hostile models against the real service over HTTP (issue 33): a trained model's stored ONNX is
 * swapped for each file of the hostile corpus (test/scoring/hostile-models/generate.py), the way
 * an attacker who owned the sandbox could hand one back. POST /predict answers 422 in the error
 * shape, saying the model was refused and to train again, with no byte of a service file and not
 * the refusal's reason; POST /deploy of one leaves the service up; /_healthz answers 200 and
 * another user's call succeeds throughout; SIGTERM still ends the process by itself (the test's
 * own timeout catches a hang: no time figures asserted).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { connectBus, openBlobStore, openBucket, type BlobStore, type Bus } from '../../src/bus/index.ts';
import { userNameKey } from '../../src/lib/user-keys.ts';
import { createLogger } from '../../src/log.ts';
import { ModelStore } from '../../src/training/model-store.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { callChild, serveChild, shutdownChild, type ChildService } from '../helpers/child-service.ts';
import { eventually } from '../helpers/live.ts';
import { strategyCode } from '../helpers/strategies.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 60_000;
/** The service's own shutdown bound; the SIGTERM test's timeout sits well above it, as a hang detector. */
const SHUTDOWN_BOUND_MS = 20_000;
const ENV = { HISTORY_DAYS: '4', RATE_LIMIT_PER_MIN: '100000', SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_BOUND_MS), SHUTDOWN_STEP_MS: '3000' };

/** The representative cases the issue names: every one must be refused before it is loaded. */
const NAMED = [
  'external_package_json',
  'external_object_store_block',
  'external_absolute',
  'external_zero_length',
  'loop_of_matmuls',
  'constant_of_shape_huge',
  'truncated_at_233',
  'unknown_domain',
  'custom_op',
  'opset_99',
  'opset_ai_onnx_alias',
  'random_bytes_0',
];

/** Text of files the external-data cases point at: none of it may come back in an answer. */
function secrets(): string[] {
  const pkgText = readFileSync(join(ROOT, 'package.json'), 'utf8');
  const found = [JSON.parse(pkgText).name as string, pkgText.slice(0, 40)];
  for (const file of ['/etc/passwd', join(ROOT, '.git', 'config')]) {
    try {
      found.push(readFileSync(file, 'utf8').slice(0, 40));
    } catch {
      /* not there (a worktree's .git is a file): nothing to leak */
    }
  }
  return found.filter((s) => s.length >= 4);
}

describe('hostile models over HTTP: refused or failing alone, the service up throughout', () => {
  let dir: string;
  let corpus: string;
  let cases: Record<string, string>;
  let running: ChildService | null = null;
  let url: string;
  let key: string;
  let other: string;
  let modelName: string;
  let record: ModelRecord;
  let bus: Bus;
  let artifacts: BlobStore;
  let predictDay: string;
  const leaks = secrets();

  // /_healthz polled all along: every answer that is not a 200 is kept, and asserted empty.
  const health = { polls: 0, failures: [] as string[], stop: false, done: Promise.resolve() };

  /** Overwrites the model's stored ONNX in the object store, where ModelStore keeps it. */
  async function plant(bytes: Uint8Array): Promise<void> {
    await artifacts.put(`${userNameKey(record.user_id, record.model_name)}/${record.artifact}/model.onnx`, bytes);
  }

  const refusals = () => running!.log.filter((e) => e.msg === 'predict: model refused');

  /** POST /predict of the planted model: 422 in the error shape, nothing of a file nor the reason in it. */
  async function predictRefused(name: string, mustLogRefusal: boolean): Promise<void> {
    const before = refusals().length;
    const res = await callChild(url, 'POST', '/api/v1/predict', key, { model_name: modelName, start_date: predictDay });
    assert.equal(res.status, 422, `${name}: ${JSON.stringify(res.body)}`);
    assert.equal(typeof res.body.error, 'string', name);
    assert.equal(res.body.code, 422, name);
    const text = JSON.stringify(res.body);
    for (const leak of leaks) assert.ok(!text.includes(leak), `${name}: the answer carries bytes of a service file: ${text}`);
    if (mustLogRefusal) {
      assert.match(res.body.error, /refused.*train again/, name);
      const logged = await eventually(`${name}: the refusal in the log`, () => refusals().length > before && refusals()[before]!);
      assert.equal(typeof logged.reason, 'string');
      assert.ok(!text.includes(logged.reason), `${name}: the answer carries the refusal's reason (${logged.reason})`);
    }
    // Another user's ordinary call is served in between.
    const theirs = await callChild(url, 'GET', '/api/v1/models', other);
    assert.equal(theirs.status, 200, `${name}: another user's GET /models: ${JSON.stringify(theirs.body)}`);
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-hostile-'));
    corpus = join(dir, 'corpus');
    execFileSync('/usr/bin/python3', [join(ROOT, 'test', 'scoring', 'hostile-models', 'generate.py'), corpus], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    cases = JSON.parse(readFileSync(join(corpus, 'cases.json'), 'utf8'));

    running = await serveChild(join(dir, 'data'), { env: ENV, startTimeoutMs: START_TIMEOUT_MS });
    url = running.url;
    const minted = (await callChild(url, 'POST', '/api/v1/key/trial', undefined, { username: 'hostile_owner' })).body;
    key = minted.api_key;
    other = (await callChild(url, 'POST', '/api/v1/key/trial', undefined, { username: 'bystander' })).body.api_key;

    const start = await callChild(url, 'POST', '/api/v1/train', key, { code: strategyCode(), timeframe: '1min' });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    modelName = start.body.model_name;
    const job = await eventually(
      'the train job to finish',
      async () => {
        const view = (await callChild(url, 'GET', `/api/v1/train/${start.body.job_id}`, key)).body;
        return ['done', 'failed'].includes(view.status) && view;
      },
      150_000,
    );
    assert.equal(job.status, 'done', job.error);

    const hours = (await callChild(url, 'GET', '/api/v1/ohlc?symbol=EURUSD&timeframe=1h&limit=5000', key)).body;
    predictDay = (hours.candles as { timestamp: string }[]).at(-1)!.timestamp.slice(0, 10);
    // The honest model predicts: what follows fails because of the planted bytes, not the setup.
    const honest = await callChild(url, 'POST', '/api/v1/predict', key, { model_name: modelName, start_date: predictDay });
    assert.equal(honest.status, 200, JSON.stringify(honest.body));

    // The service's own NATS, reached as any role would, and its model store's record of the model.
    bus = await connectBus(running.natsUrl, 'e2e-hostile-planter', createLogger('silent'));
    const store = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
    record = (await store.resolve(minted.user_id, modelName))!;
    assert.ok(record, 'the trained model is in the store');
    artifacts = await openBlobStore(bus, ObjectStores.artifacts);

    health.done = (async () => {
      while (!health.stop) {
        health.polls++;
        try {
          const res = await fetch(`${url}/_healthz`, { signal: AbortSignal.timeout(10_000) });
          if (res.status !== 200) health.failures.push(`${res.status} ${await res.text()}`);
          else await res.arrayBuffer();
        } catch (err) {
          health.failures.push(String(err));
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  });

  after(async () => {
    health.stop = true;
    await health.done;
    await bus?.close().catch(() => undefined);
    if (running) await shutdownChild(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'the named cases (external data, Loop, ConstantOfShape, truncation, custom op, opset games, random bytes): refused before load, 422',
    { timeout: 120_000 },
    async () => {
      for (const name of NAMED) {
        assert.ok(cases[name], `${name} is in the corpus`);
        await plant(readFileSync(join(corpus, `${name}.onnx`)));
        await predictRefused(name, true);
      }
      assert.deepEqual(health.failures, [], '/_healthz answered 200 throughout');
    },
  );

  it('every file of the corpus: 422 in the error shape, nothing of a service file in it', { timeout: 180_000 }, async () => {
    const names = Object.keys(cases);
    assert.ok(names.length >= 100, `${names.length} cases`);
    for (const name of names) {
      await plant(readFileSync(join(corpus, `${name}.onnx`)));
      await predictRefused(name, true);
    }
    assert.deepEqual(health.failures, [], '/_healthz answered 200 throughout');
  });

  it('POST /deploy of a hostile model leaves the service up', { timeout: 90_000 }, async () => {
    await plant(readFileSync(join(corpus, 'loop_of_matmuls.onnx')));
    const errorsBefore = running!.log.length;
    const deployed = await callChild(url, 'POST', '/api/v1/deploy', key, { model_name: modelName, channels: ['sse'] });
    // Whatever it answers, in the error shape when it is an error.
    if (deployed.status >= 400) assert.equal(typeof deployed.body.error, 'string', JSON.stringify(deployed.body));
    // The actor tries to load it (and is refused) while the service goes on serving: watched for a
    // while (its faults, if any, are reported below, not asserted: the issue asks only that it stays alone).
    const polled = health.polls;
    const id = deployed.body.deployment_id;
    const faulted = () => running!.log.slice(errorsBefore).filter((e) => e.msg?.includes('faulted') && e.deployment_id === id);
    const watchUntil = Date.now() + 20_000;
    while (Date.now() < watchUntil && faulted().length < 2) await new Promise((r) => setTimeout(r, 200));
    await eventually('some health polls while the actor is at it', () => health.polls > polled + 40, 30_000);
    const listed = await callChild(url, 'GET', '/api/v1/deployed', key);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const theirs = await callChild(url, 'GET', '/api/v1/models', other);
    assert.equal(theirs.status, 200);
    const seen = running!.log
      .slice(errorsBefore)
      .filter((e) => e.level >= 40)
      .map((e) => `${e.level} ${e.msg} failures=${e.failures ?? ''} ${JSON.stringify(e.err?.message ?? e.err ?? '')}`.slice(0, 400));
    // For the report: what the deployment shows and what the actor host logged.
    console.log(
      `deploy answered ${deployed.status} ${JSON.stringify(deployed.body)}; /deployed: ${JSON.stringify(listed.body)}; actor faults: ${faulted().length}; warnings since: ${seen.length}\n${seen.slice(0, 10).join('\n')}`,
    );
    if (deployed.status === 200)
      assert.ok([200, 404].includes((await callChild(url, 'DELETE', `/api/v1/deploy/${encodeURIComponent(modelName)}`, key)).status));
    assert.deepEqual(health.failures, [], '/_healthz answered 200 throughout');
  });

  it('SIGTERM after it all: the process exits by itself with 0 or 1', { timeout: SHUTDOWN_BOUND_MS + 40_000 }, async () => {
    health.stop = true;
    await health.done;
    assert.ok(health.polls > 0);
    assert.deepEqual(health.failures, [], '/_healthz answered 200 throughout');
    await bus.close();
    running!.child.kill('SIGTERM');
    const code = await running!.exited;
    assert.ok(code === 0 || code === 1, `exited with ${code}: ${running!.lines.slice(-15).join('\n')}`);
    running = null;
  });
});
