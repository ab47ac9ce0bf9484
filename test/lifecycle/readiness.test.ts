import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { probeReadiness, processRuns, startingReadiness } from '../../src/lifecycle/readiness.ts';
import { Readiness } from '../../schemas/health.ts';

describe('probeReadiness', () => {
  it('is ready when every check passes, and names each failing dependency otherwise', async () => {
    const ok = await probeReadiness({ a: () => undefined, b: async () => undefined });
    assert.equal(ok.ready, true);
    assert.deepEqual(Object.keys(ok.checks), ['a', 'b']);
    const bad = await probeReadiness(
      { a: () => undefined, slow: () => new Promise(() => undefined), broken: () => Promise.reject(new Error('refused')) },
      100,
    );
    assert.equal(bad.ready, false);
    assert.equal(bad.code, 503);
    assert.equal(bad.checks.a!.ok, true);
    assert.match(bad.checks.slow!.error!, /did not finish within 100 ms/);
    assert.equal(bad.checks.broken!.error, 'refused');
    assert.match(bad.error!, /slow .*broken \(refused\)/);
  });
});

describe('startingReadiness', () => {
  it('is not ready while starting, and says what it waits for beside the usual fields', () => {
    const r = startingReadiness(['stream TICKS', 'kv accounts'], performance.now() - 1_200);
    assert.deepEqual(Readiness.parse(r), r);
    assert.equal(r.ready, false);
    assert.equal(r.code, 503);
    assert.deepEqual(r.waiting_for, ['stream TICKS', 'kv accounts']);
    assert.equal(r.checks.startup!.ok, false);
    assert.ok(r.checks.startup!.ms >= 1_200);
    assert.equal(r.error, 'not ready: starting: waiting for stream TICKS, kv accounts');
  });

  it('says start-up when no step is under way (the process is starting its own parts)', () => {
    assert.deepEqual(startingReadiness([], performance.now()).waiting_for, ['start-up']);
  });
});

describe('processRuns', () => {
  it('tells a running process from an exited one', async () => {
    assert.equal(processRuns(process.pid), true);
    const child = spawn('true');
    await new Promise((r) => child.once('exit', r));
    assert.equal(processRuns(child.pid!), false);
  });
});
