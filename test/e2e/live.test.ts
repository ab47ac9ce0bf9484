/**
 * Deploy → a model actor scores bars and publishes signals → SSE; a host that dies hands its
 * deployments to another. Real service, real NATS, real sandboxed Python. (Live = backtest
 * parity, on a replay clock without the service: test/parity/live-backtest.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, secondActorHost, storedSignals } from '../helpers/live.ts';
import { openBucket } from '../../src/bus/index.ts';
import { SignalsRepo } from '../../src/store/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { DeployResponse, DeployedList } from '../../schemas/live.ts';
import { Results } from '../../schemas/training.ts';
import { readSse, startTestService, type TestService } from '../helpers/service.ts';
import { lastTwoTradingDays, trainModel } from '../helpers/training.ts';

const ENV = { HISTORY_DAYS: '4' };

describe('live signals', () => {
  let sf: TestService;
  let key: string;
  let results: Results;

  before(async () => {
    sf = await startTestService(ENV);
    const minted = await sf.mintKey('live_trader');
    key = minted.api_key;
    const [endDay] = await lastTwoTradingDays(sf, key);
    await trainModel(sf, key, { end_date: endDay });
    results = Results.parse((await sf.api('GET', '/api/v1/results/Model%201', { key })).body);
  });
  after(() => sf.stop());

  it('POST /deploy runs the model as an actor that publishes signals; GET /deployed lists it; SSE streams them', async () => {
    const res = await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Model 1', channels: ['sse'] } });
    assert.equal(res.status, 200, res.text);
    const deployed = DeployResponse.parse(res.body);
    assert.equal(deployed.status, 'deployed');
    assert.equal(deployed.model, results.model);
    assert.equal(deployed.webhook_secret, undefined);

    const list = DeployedList.parse((await sf.api('GET', '/api/v1/deployed', { key })).body);
    assert.equal(list.count, 1);
    assert.equal(list.deployed[0]!.deployment_id, deployed.deployment_id);

    // Started on the latest bar: an always-in-the-market strategy announces its entry at once.
    const signals = await eventually('the first signal', async () => {
      const s = await storedSignals(sf, deployed.deployment_id);
      return s.length ? s : null;
    });
    assert.equal(signals[0]!.action, 'open');
    assert.equal(signals[0]!.model, results.model);
    // Stored in ClickHouse too, by the signal recorder.
    const repo = new SignalsRepo(sf.service.clickhouse);
    const stored = await eventually('the signal in ClickHouse', async () => {
      const rows = await repo.byDeployment(deployed.deployment_id);
      return rows.length ? rows : null;
    });
    assert.equal(stored[0]!.id, signals[0]!.id);
    assert.equal(stored[0]!.bar_time, Date.parse(signals[0]!.bar_time));
    assert.ok(sf.service.actors.host.runningIds().includes(deployed.deployment_id));

    const activity = await sf.api('GET', '/api/v1/activity?kind=DEPLOYED');
    assert.ok(activity.body.events.some((e: { model?: { stem?: string } }) => e.model?.stem === results.model));

    // SSE: the owner streams the deployment's signals (one published as the actor would).
    const stream = await fetch(`${sf.url}/api/v1/signals/Model%201/stream`, { headers: { 'x-api-key': key } });
    assert.equal(stream.status, 200);
    const other = await sf.mintKey('someone_else');
    assert.equal((await fetch(`${sf.url}/api/v1/signals/Model%201/stream`, { headers: { 'x-api-key': other.api_key } })).status, 404);
    const event = { ...signals[0]!, id: `sig_${deployed.deployment_id}_1_9` };
    setTimeout(() => void sf.service.bus.js.publish(`signals.${deployed.deployment_id}`, JSON.stringify(event)), 300);
    const frames = await readSse(stream, (f) => f.some((x) => x.event === 'signal'));
    const frame = frames.find((x) => x.event === 'signal')!;
    assert.equal(frame.id, event.id);
    assert.deepEqual(JSON.parse(frame.data), event);
  });

  it('a host that dies hands its deployments to another once its lease expires', async () => {
    const deployedId = (await sf.api('GET', '/api/v1/deployed', { key })).body.deployed[0].deployment_id as string;
    const leases = await openBucket(sf.service.bus, Buckets.leases);
    const holder = async () => (await leases.get(deployedId))?.value.host ?? null;
    const second = await secondActorHost(sf);
    await second.host.start();
    try {
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(second.host.runningIds(), [], 'the lease is held: the second host waits');
      assert.equal(await holder(), sf.service.actors.host.hostId);
      const before = await storedSignals(sf, deployedId);
      await sf.service.actors.host.stop(false); // no goodbye: the lease expires
      // Only a hung take-over reaches this wait's end (the lease lives LEASE_TTL_SECONDS unrenewed).
      await eventually('the second host to take over', async () => second.host.runningIds().includes(deployedId), 60_000);
      assert.equal(await holder(), second.host.hostId, 'the lease is the second host’s now');
      const after = await storedSignals(sf, deployedId);
      assert.equal(new Set(after.map((s) => s.id)).size, after.length, 'no duplicate signal after the take-over');
      assert.ok(after.length >= before.length);
    } finally {
      await second.host.stop();
    }
  });

  it('the free plan holds one deployment: deploying another swaps out the oldest', async () => {
    await trainModel(sf, key, { model_name: 'Second' });
    const res = await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Second', channels: ['sse'] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.replaced, [results.model]);
    const list = DeployedList.parse((await sf.api('GET', '/api/v1/deployed', { key })).body);
    assert.deepEqual(
      list.deployed.map((d) => d.model_name),
      ['Second'],
    );
    // Back to Model 1 for the next test.
    assert.equal((await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Model 1' } })).status, 200);
  });

  it('undeploy stops the actor; deleting a deployed model undeploys it', async () => {
    await sf.restart();
    const listed = (await sf.api('GET', '/api/v1/deployed', { key })).body;
    assert.equal(listed.count, 1, 'deployments survive a restart');
    const id = listed.deployed[0].deployment_id as string;
    await eventually('the restarted host to run it', async () => sf.service.actors.host.runningIds().includes(id));

    const undeploy = await sf.api('DELETE', '/api/v1/deploy/Model%201', { key });
    assert.equal(undeploy.status, 200, undeploy.text);
    await eventually('the actor to stop', async () => !sf.service.actors.host.runningIds().includes(id));
    assert.equal((await sf.api('DELETE', '/api/v1/deploy/Model%201', { key })).status, 404);

    assert.equal((await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Model 1' } })).status, 200);
    const del = await sf.api('DELETE', '/api/v1/models/Model%201', { key });
    assert.equal(del.body.undeployed, true);
    assert.equal((await sf.api('GET', '/api/v1/deployed', { key })).body.count, 0);
  });
});
