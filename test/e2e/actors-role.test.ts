/**
 * `signalforge actors` as its own process beside `serve`: it shares the deployments through their
 * leases, reads bars over NATS, and takes over a model whose host died — and hands it back when it
 * dies itself — each once the dead host's lease has expired, with no signal sent twice.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { readRunFile } from '../../src/run-file.ts';
import { Buckets } from '../../schemas/messages.ts';
import { childEnv } from '../helpers/child-service.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { trainModel } from '../helpers/training.ts';
import { eventually, secondActorHost, storedSignals } from '../helpers/live.ts';

describe('signalforge actors (a second process)', () => {
  let sf: TestService;
  let child: ChildProcess | null = null;

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '4' });
  });
  after(async () => {
    child?.kill('SIGKILL');
    await sf.stop();
  });

  it('refuses to start without NATS_URL, saying what to set', async () => {
    const refused = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'actors'], {
      env: childEnv({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    refused.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise((r) => refused.once('exit', r));
    assert.equal(code, 1);
    assert.match(stderr, /NATS_URL/);
  });

  it('takes over a deployment whose host died, and gives it back when it dies, each once the lease expires', async () => {
    const { api_key: key } = await sf.mintKey('actors_role');
    await trainModel(sf, key);
    const deployed = await sf.api('POST', '/api/v1/deploy', { key, body: { model_name: 'Model 1' } });
    assert.equal(deployed.status, 200, deployed.text);
    const id: string = deployed.body.deployment_id;
    await eventually('serve to run it', () => sf.service.actors.host.runningIds().includes(id), 20_000);

    const natsUrl = readRunFile(sf.dataDir)!.natsUrl;
    const lines: string[] = [];
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'actors'], {
      env: { ...childEnv(), NATS_URL: natsUrl, LOG_LEVEL: 'info', STRATEGY_WORKERS: '1', ACTOR_WARM_SESSIONS: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      const split = (partial + c).split('\n');
      partial = split.pop()!; // a line is kept only once whole
      lines.push(...split);
    });
    await eventually('the actors role to start', () => lines.some((l) => l.includes('signalforge actors running')), 60_000);
    await new Promise((r) => setTimeout(r, 2500));
    assert.ok(!lines.some((l) => l.includes('claimed a deployment')), 'the lease is held by serve: the second host waits');

    const leases = await openBucket(sf.service.bus, Buckets.leases);
    const holder = async () => (await leases.get(id))?.value.host ?? null;
    assert.equal(await holder(), sf.service.actors.host.hostId);
    await sf.service.actors.host.stop(false); // serve's host dies without a goodbye
    // The waits below end early only when the take-over hangs (a lease lives LEASE_TTL_SECONDS unrenewed).
    const claimed = await eventually(
      'the actors process to claim it',
      () => lines.find((l) => l.includes('claimed a deployment') && l.includes(id)),
      60_000,
    );
    const childHost = (JSON.parse(claimed) as { host: string }).host;
    assert.notEqual(childHost, sf.service.actors.host.hostId);
    assert.equal(await holder(), childHost, 'the lease is the actors process’s now');

    child.kill('SIGKILL');
    const second = await secondActorHost(sf);
    await second.host.start();
    try {
      await eventually('a host in serve to claim it back', () => second.host.runningIds().includes(id), 60_000);
      assert.equal(await holder(), second.host.hostId, 'the lease is back in serve');
      const ids = (await storedSignals(sf, id)).map((e) => e.id);
      assert.ok(ids.length >= 1, 'the model signalled');
      assert.equal(new Set(ids).size, ids.length, 'no signal sent twice across the hand-overs');
    } finally {
      await second.host.stop();
    }
  });
});
