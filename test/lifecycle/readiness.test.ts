import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { probeReadiness, processRuns } from '../../src/lifecycle/readiness.ts';

describe('probeReadiness', () => {
  it('is ready when every check passes, and names each failing dependency otherwise', async () => {
    const ok = await probeReadiness({ a: () => undefined, b: async () => undefined });
    assert.equal(ok.ready, true);
    assert.deepEqual(Object.keys(ok.checks), ['a', 'b']);
    const bad = await probeReadiness({ a: () => undefined, slow: () => new Promise(() => undefined), broken: () => Promise.reject(new Error('refused')) }, 100);
    assert.equal(bad.ready, false);
    assert.equal(bad.code, 503);
    assert.equal(bad.checks.a!.ok, true);
    assert.match(bad.checks.slow!.error!, /did not finish within 100 ms/);
    assert.equal(bad.checks.broken!.error, 'refused');
    assert.match(bad.error!, /slow .*broken \(refused\)/);
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
