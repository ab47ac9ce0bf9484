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
import { loadConfig } from '../../src/config.ts';
import { webhookTargetChecker } from '../../src/delivery/index.ts';
import { BadRequestError, UnprocessableError, WebhookTargetError } from '../../src/errors.ts';
import { ERROR_CODES } from '../../schemas/errors.ts';
import { checkModelOffThread, ModelRejectedError } from '../../src/scoring/index.ts';
import { ModelStore } from '../../src/training/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type Caller } from '../../schemas/account-records.ts';
import { modelRecord } from '../community/fixtures.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

const corpus = mkdtempSync(join(tmpdir(), 'deployments-hostile-'));
execFileSync('/usr/bin/python3', [join(import.meta.dirname, '../scoring/hostile-models/generate.py'), corpus], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const model = (name: string) => new Uint8Array(readFileSync(join(corpus, `${name}.onnx`)));
/** Read now: the first suite removes the corpus when it ends. */
const HONEST = model('honest');

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
      bus: nats.bus,
      models,
      activity: { emit: async () => 0 },
      replicas: 1,
      log: Object.assign(Object.create(log), { warn: (o: Record<string, unknown>) => void warnings.push(o) }),
      checkWebhookTarget: async (url) => url,
      limits: { free: 2, pro: 2 },
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
    assert.ok(
      warnings.some((w) => typeof w.reason === 'string' && w.model === `${USER}_EURUSD_15min_Swapped`),
      'the reason is logged',
    );
  });

  it('deploys a model that passes, shown as deployed', async () => {
    await save('Honest', model('honest'));
    const { deployment_id } = await deployments.deploy(caller, { model_name: 'Honest', channels: ['sse'] });
    const [shown] = (await deployments.list(USER)).deployed;
    assert.deepEqual(
      [shown?.deployment_id, shown?.status, shown?.error, shown?.failed_at],
      [deployment_id, 'deployed', undefined, undefined],
    );
  });

  it('shows a deployment its actor marked failed as failed, with the reason and when', async () => {
    const deployed = await deployments.view.find(USER, 'Honest');
    await deployments.view.markFailed(deployed!, MODEL_REFUSED, Date.UTC(2026, 10, 29, 12));
    const [shown] = (await deployments.list(USER)).deployed;
    assert.deepEqual([shown?.status, shown?.error, shown?.failed_at], ['failed', MODEL_REFUSED, '2026-11-29T12:00:00.000Z']);
  });

  it('holds the plan’s limit when deploys race: the newest stay, the others are swapped out and removed', async () => {
    const racer: Caller = { user_id: 12, username: 'user12', plan: 'pro' };
    const names = ['R1', 'R2', 'R3', 'R4', 'R5'];
    for (const name of names)
      await models.save(modelRecord({ user_id: 12, model_name: name }), {
        onnx: HONEST,
        code: '# code\n',
        results: { pred_signals: [] } as never,
      });
    const answers = await Promise.all(names.map((name) => deployments.deploy(racer, { model_name: name, channels: ['sse'] })));
    const deployed = (await deployments.list(12)).deployed.map((d) => d.model_name);
    assert.equal(deployed.length, 2, `deployed: ${deployed}`);
    const swapped = answers.flatMap((a) => a.replaced);
    assert.equal(new Set(swapped).size, 3, `swapped out: ${swapped}`);
    for (const name of deployed) assert.ok(!swapped.includes(`12_EURUSD_15min_${name}`));
  });

  it('counts the deployments of a user who has no deployment set yet (deployed before sets existed)', async () => {
    const old: Caller = { user_id: 13, username: 'user13', plan: 'free' };
    for (const [k, name] of ['Old1', 'Old2', 'New'].entries()) {
      const record = modelRecord({ user_id: 13, model_name: name });
      await models.save(record, { onnx: HONEST, code: '# code\n', results: { pred_signals: [] } as never });
      if (name === 'New') continue;
      // Written straight to the view, as deploys did before the set: no set for this user.
      await deployments.view.put({
        deployment_id: `dep_old_${k}`,
        user_id: 13,
        username: 'user13',
        model_name: name,
        stem: record.stem,
        symbol: record.symbol,
        timeframe: record.timeframe,
        channels: ['sse'],
        webhook_url: null,
        webhook_template: null,
        messenger_chat_id: null,
        discord_webhook_url: null,
        slack_webhook_url: null,
        email_to: null,
        webhook_secret: null,
        created_at: 1_000 + k,
      });
    }
    const answer = await deployments.deploy(old, { model_name: 'New', channels: ['sse'] });
    // The limit is 2: the oldest of the two it had goes.
    assert.deepEqual(answer.replaced, ['13_EURUSD_15min_Old1']);
    assert.deepEqual((await deployments.list(13)).deployed.map((d) => d.model_name).sort(), ['New', 'Old2']);
  });
});

describe('deployments: channels and their destinations', () => {
  const OWNER = 12;
  const owner: Caller = { user_id: OWNER, username: 'user12', plan: 'pro' };
  const DISCORD = 'http://127.0.0.1:9000';
  const SLACK = 'http://127.0.0.1:9001';
  const discordUrl = `${DISCORD}/api/webhooks/4242/secret-token`;
  const slackUrl = `${SLACK}/services/T1/B2/secret-path`;
  const template = '{"action":"{{order}}","ticker":"{{symbol}}","price":{{price}}}';
  let nats: TestNats;
  let models: ModelStore;
  let deployments: Deployments;

  before(async () => {
    nats = await startNats('deployments-channels');
    models = await ModelStore.open(nats.bus, await openBucket(nats.bus, Buckets.models), await openBucket(nats.bus, Buckets.signals));
    // The deploy API's own URL checks, as src/roles/domain.ts wires them (the stand-in hosts on loopback).
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback', DISCORD_WEBHOOK_HOSTS: DISCORD, SLACK_WEBHOOK_HOSTS: SLACK });
    deployments = await buildDeployments({
      bus: nats.bus,
      models,
      activity: { emit: async () => 0 },
      replicas: 1,
      log,
      checkWebhookTarget: webhookTargetChecker(config),
      limits: { free: 5, pro: 5 },
    });
    await models.save(modelRecord({ user_id: OWNER, model_name: 'Chatty' }), {
      onnx: HONEST,
      code: '# code\n',
      results: { pred_signals: [] } as never,
    });
  });
  after(async () => {
    await nats?.close();
  });

  const request = {
    model_name: 'Chatty',
    channels: ['webhook', 'discord', 'slack'] as const,
    webhook_url: 'http://127.0.0.1:9002/bridge',
    webhook_template: template,
    discord_webhook_url: discordUrl,
    slack_webhook_url: slackUrl,
  };

  it('deploys to discord, slack and a templated webhook; the list never shows the Discord token or the Slack path', async () => {
    const deployed = await deployments.deploy(owner, { ...request, channels: [...request.channels] });
    assert.deepEqual(deployed.channels, ['webhook', 'discord', 'slack']);
    assert.equal(deployed.unchanged, undefined);
    const record = await deployments.view.find(OWNER, 'Chatty');
    assert.deepEqual([record?.discord_webhook_url, record?.slack_webhook_url, record?.webhook_template], [discordUrl, slackUrl, template]);
    const [shown] = (await deployments.list(OWNER)).deployed;
    assert.deepEqual(
      [shown?.discord_webhook_url, shown?.slack_webhook_url, shown?.webhook_template],
      [`${DISCORD}/api/webhooks/4242/…`, SLACK, template],
    );
  });

  it('deploying the same model to the same destinations again changes nothing', async () => {
    const first = (await deployments.view.find(OWNER, 'Chatty'))!;
    const again = await deployments.deploy(owner, { ...request, channels: ['slack', 'discord', 'webhook'] });
    assert.equal(again.unchanged, true);
    assert.equal(again.deployment_id, first.deployment_id);
    assert.equal(again.webhook_secret, first.webhook_secret);
    assert.deepEqual(again.replaced, []);
    assert.equal((await deployments.view.find(OWNER, 'Chatty'))?.created_at, first.created_at, 'the record was not written again');

    const moved = await deployments.deploy(owner, {
      ...request,
      channels: [...request.channels],
      slack_webhook_url: `${SLACK}/services/T1/B2/other`,
    });
    assert.notEqual(moved.deployment_id, first.deployment_id, 'another destination is a new deployment');
    assert.equal(moved.unchanged, undefined);
  });

  it('refuses (422) a template with an unknown placeholder, naming it, and changes nothing', async () => {
    const before = (await deployments.view.find(OWNER, 'Chatty'))!;
    await assert.rejects(
      deployments.deploy(owner, {
        ...request,
        channels: [...request.channels],
        webhook_template: '{"qty":{{lots}},"ticker":"{{symbol}}"}',
      }),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError, String(err));
        assert.equal(ERROR_CODES[err.errorCode].status, 422);
        assert.match(err.message, /^webhook_template has an unknown placeholder \{\{lots\}\}: use \{\{side\}\}/);
        return true;
      },
    );
    await assert.rejects(
      deployments.deploy(owner, { ...request, channels: [...request.channels], webhook_template: '{"price":{{price}}' }),
      UnprocessableError,
    );
    assert.equal((await deployments.view.find(OWNER, 'Chatty'))?.deployment_id, before.deployment_id);
  });

  it('refuses (400) a missing destination, one without its channel, and a host that is not Discord’s or Slack’s', async () => {
    const refused = (partial: Record<string, unknown>, message: RegExp, type: typeof BadRequestError = BadRequestError) =>
      assert.rejects(deployments.deploy(owner, { model_name: 'Chatty', channels: ['sse'], ...partial }), (err: unknown) => {
        assert.ok(err instanceof type, String(err));
        assert.match((err as Error).message, message);
        return true;
      });
    await refused({ channels: ['discord'] }, /^discord_webhook_url is required with the discord channel$/);
    await refused(
      { channels: ['sse'], slack_webhook_url: slackUrl },
      /^slack_webhook_url given without the slack channel: add "slack" to channels$/,
    );
    await refused({ channels: ['sse'], webhook_template: template }, /^webhook_template given without the webhook channel/);
    await refused(
      { channels: ['discord'], discord_webhook_url: `${SLACK}/api/webhooks/1/t` },
      /^discord_webhook_url must be a Discord webhook URL on http:\/\/127\.0\.0\.1:9000/,
      WebhookTargetError,
    );
    await refused(
      { channels: ['slack'], slack_webhook_url: `${SLACK}/api/webhooks/1/t` },
      /^slack_webhook_url is not a Slack webhook URL/,
      WebhookTargetError,
    );
  });
});
