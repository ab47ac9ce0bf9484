/**
 * Deployments on a real nats-server with the real model store: POST /deploy of a model whose
 * stored file fails the safety check is refused up front (422, in plain words, nothing deployed);
 * GET /deployed shows a deployment's status. The check is the service's own (src/scoring), wired as
 * src/roles/domain.ts wires it; the hostile model is one of test/scoring/hostile-models/generate.py.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { buildDeployments, MODEL_REFUSED, type Deployments } from '../../src/deployments/index.ts';
import { UnprocessableError } from '../../src/errors.ts';
import { checkModelOffThread, ModelRejectedError } from '../../src/scoring/index.ts';
import { ModelStore } from '../../src/training/index.ts';
import { Buckets, type Caller } from '../../schemas/messages.ts';
import { modelRecord } from '../community/fixtures.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

const corpus = mkdtempSync(join(tmpdir(), 'deployments-hostile-'));
execFileSync('/usr/bin/python3', [join(import.meta.dirname, '../scoring/hostile-models/generate.py'), corpus], { stdio: ['ignore', 'ignore', 'inherit'] });
const model = (name: string) => new Uint8Array(readFileSync(join(corpus, `${name}.onnx`)));

const USER = 11;
const caller: Caller = { user_id: USER, username: 'user11', plan: 'free' };

describe('deployments', () => {
  let nats: TestNats;
  let models: ModelStore;
  let deployments: Deployments;
  const warnings: Array<Record<string, unknown>> = [];

  before(async () => {
    nats = await startNats('deployments');
    models = await ModelStore.open(nats.bus, await openBucket(nats.bus, Buckets.models), await openBucket(nats.bus, Buckets.signals));
    deployments = await buildDeployments({
      bus: nats.bus, models, activity: { emit: async () => 0 }, replicas: 1,
      log: Object.assign(Object.create(log), { warn: (o: Record<string, unknown>) => void warnings.push(o) }),
      checkWebhookTarget: async (url) => url, limits: { free: 2, pro: 2 },
      checkModel: async (record) =>
        checkModelOffThread(await models.onnx(record)).then(
          () => null,
          (err: unknown) => (err instanceof ModelRejectedError ? err.reason : Promise.reject(err)),
        ),
    });
  });
  after(async () => {
    await nats?.close();
    rmSync(corpus, { recursive: true, force: true });
  });

  const save = (name: string, onnx: Uint8Array) =>
    models.save(modelRecord({ user_id: USER, model_name: name }), { onnx, code: '# code\n', results: { pred_signals: [] } as never });

  it('refuses (422) a model whose stored file fails the safety check, deploying nothing', async () => {
    await save('Swapped', model('loop_of_matmuls'));
    await assert.rejects(deployments.deploy(caller, { model_name: 'Swapped', channels: ['sse'] }), (err: unknown) => {
      assert.ok(err instanceof UnprocessableError, String(err));
      assert.equal(err.errorCode, 'SF_UNPROCESSABLE');
      assert.equal(err.message, `model Swapped: ${MODEL_REFUSED}`);
      assert.doesNotMatch(err.message, /Loop|MatMul|operator/, 'the check’s reason stays in the log');
      return true;
    });
    assert.deepEqual((await deployments.list(USER)).deployed, []);
    assert.ok(warnings.some((w) => typeof w.reason === 'string' && w.model === `${USER}_EURUSD_15min_Swapped`), 'the reason is logged');
  });

  it('deploys a model that passes, shown as deployed', async () => {
    await save('Honest', model('honest'));
    const { deployment_id } = await deployments.deploy(caller, { model_name: 'Honest', channels: ['sse'] });
    const [shown] = (await deployments.list(USER)).deployed;
    assert.deepEqual([shown?.deployment_id, shown?.status, shown?.error, shown?.failed_at], [deployment_id, 'deployed', undefined, undefined]);
  });

  it('shows a deployment its actor marked failed as failed, with the reason and when', async () => {
    const deployed = await deployments.view.find(USER, 'Honest');
    await deployments.view.markFailed(deployed!, MODEL_REFUSED, Date.UTC(2026, 10, 29, 12));
    const [shown] = (await deployments.list(USER)).deployed;
    assert.deepEqual([shown?.status, shown?.error, shown?.failed_at], ['failed', MODEL_REFUSED, '2026-11-29T12:00:00.000Z']);
  });
});
