/**
 * A deployment whose stored model fails the safety check fails for good: its actor marks it
 * failed (GET /deployed says so in plain words) and is not restarted, not even by a new actor host
 * after a restart; a retrained model deployed again runs. Real nats-server, the real model store,
 * deployments and actor host, the real check and scoring processes, a model of the hostile corpus
 * (test/scoring/hostile-models/generate.py). No bars: the actors load their model and stop there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildModelHost } from '../../../actors/model/index.ts';
import { openBucket } from '../../../src/bus/index.ts';
import { buildDeployments, MODEL_REFUSED, type Deployments } from '../../../src/deployments/index.ts';
import { BarCache } from '../../../src/market/index.ts';
import { useScorers } from '../../../src/scoring/index.ts';
import { ModelStore } from '../../../src/training/index.ts';
import { Buckets } from '../../../schemas/messages.ts';
import type { Caller } from '../../../schemas/messages.ts';
import { modelRecord } from '../../community/fixtures.ts';
import { hostileModels, noBars, noRuntime } from '../../helpers/hostile-model-host.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';

const corpus = hostileModels('model-actor-hostile');
const model = corpus.model;

const USER = 7;
const caller: Caller = { user_id: USER, username: 'user7', plan: 'pro' } as Caller;
const NAME = 'swapped';

describe('a deployment whose stored model fails the safety check', () => {
  let nats: TestNats;
  let models: ModelStore;
  let deployments: Deployments;
  let bars: BarCache;
  let stopScorers: () => Promise<void>;
  const warnings: Array<Record<string, unknown>> = [];

  before(async () => {
    nats = await startNats('model-actor');
    stopScorers = useScorers({ SCORER_PROCESSES: 1, SCORER_MEMORY_MB: 1024, SCORER_RUN_MS: 10_000, SCORER_LOAD_MS: 30_000 }, log);
    models = await ModelStore.open(nats.bus, await openBucket(nats.bus, Buckets.models), await openBucket(nats.bus, Buckets.signals));
    // As a model stored before the check existed, or changed since: deployed without a check at the door.
    deployments = await buildDeployments({
      bus: nats.bus, models, activity: { emit: async () => 0 }, log, replicas: 1,
      checkWebhookTarget: async (url) => url, limits: { free: 3, pro: 3 },
    });
    bars = new BarCache({ load: async () => noBars() }, nats.bus.nc, log);
  });
  after(async () => {
    await stopScorers?.();
    await nats?.close();
    corpus.remove();
  });

  const save = (artifact: string, onnx: Uint8Array) =>
    models.save(modelRecord({ user_id: USER, model_name: NAME, artifact }), { onnx, code: 'def feature_engineering(df, close, open_, high, low):\n    return df\n', results: { pred_signals: [] } as never });

  /** An actor host as a process of the service runs it; its warnings are kept. */
  const host = () =>
    buildModelHost({
      bus: nats.bus, deployments: deployments.view, models, bars, runtime: noRuntime, activity: { emit: async () => 0 },
      log: Object.assign(Object.create(log), { warn: (o: Record<string, unknown>) => void warnings.push(o) }), replicas: 1, maxWarmSessions: 0,
      renewMs: 300, backoff: { baseMs: 50, maxMs: 200 },
    });
  const listed = async () => (await deployments.list(USER)).deployed.find((d) => d.model_name === NAME);

  it('is marked failed, says why in plain words, and its actor is not restarted', { timeout: 60_000 }, async () => {
    await save('j1', model('external_package_json'));
    const { deployment_id } = await deployments.deploy(caller, { model_name: NAME, channels: ['sse'] });
    const live = await host();
    await live.host.start();
    try {
      const failed = await until('the deployment marked failed', async () => (await listed())?.status === 'failed').then(listed);
      assert.equal(failed!.deployment_id, deployment_id);
      assert.equal(failed!.error, MODEL_REFUSED);
      assert.match(failed!.error!, /^the stored model failed the safety check: .*; retrain it/);
      assert.doesNotMatch(failed!.error!, /package\.json|external/, 'the check’s reason stays in the log');
      assert.ok(failed!.failed_at);
      // The reason is in the operators' log; the host let go of the actor and runs nothing for it.
      assert.ok(warnings.some((w) => w.deployment_id === deployment_id && typeof w.reason === 'string'));
      await until('the failed actor released', () => live.host.runningIds().length === 0);
      // Backoff of at most 200 ms: a restart loop would have started it again many times by now.
      const refusals = warnings.filter((w) => w.deployment_id === deployment_id).length;
      await new Promise((r) => setTimeout(r, 1500));
      await live.host.reconcile();
      assert.deepEqual(live.host.runningIds(), []);
      assert.deepEqual(live.host.stats(), { running: 0, claimed: 0, faults: 0 }, 'a refusal is no fault to retry');
      assert.equal(warnings.filter((w) => w.deployment_id === deployment_id).length, refusals, 'the model was not loaded again');
    } finally {
      await live.stop();
    }
  });

  it('stays failed across a restart: a new actor host does not run it', { timeout: 60_000 }, async () => {
    const before = warnings.length;
    const restarted = await host();
    await restarted.host.start();
    try {
      await new Promise((r) => setTimeout(r, 1000));
      await restarted.host.reconcile();
      assert.deepEqual(restarted.host.runningIds(), []);
      assert.equal((await listed())?.status, 'failed');
      assert.equal(warnings.length, before, 'the stored model was not even loaded');
    } finally {
      await restarted.stop();
    }
  });

  it('deployed again after a retrain, it runs', { timeout: 60_000 }, async () => {
    await save('j2', model('honest'));
    const { deployment_id } = await deployments.deploy(caller, { model_name: NAME, channels: ['sse'] });
    const live = await host();
    await live.host.start();
    try {
      await until('the new deployment’s actor running', () => live.host.runningIds().includes(deployment_id), 30_000);
      const shown = await listed();
      assert.deepEqual([shown?.deployment_id, shown?.status, shown?.error], [deployment_id, 'deployed', undefined]);
      assert.deepEqual(live.host.stats(), { running: 1, claimed: 1, faults: 0 });
    } finally {
      await live.stop();
    }
  });
});
