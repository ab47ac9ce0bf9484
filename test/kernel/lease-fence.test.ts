/**
 * A lease host's fence: one signal for all its holders, aborted once the lease may have run out
 * and not before; a renewal moves the end on; after it fired, a new signal for the renewed lease;
 * stopped, it aborts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaseFence } from '../../src/kernel/index.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LeaseFence', () => {
  it('hands every holder one signal, aborted once the lease runs out, not before', async () => {
    let end = performance.now() + 150;
    const fence = new LeaseFence(() => Math.max(0, end - performance.now()));
    const a = fence.signal();
    assert.equal(fence.signal(), a, 'one signal while it lives');
    let abortedAt = 0;
    a.addEventListener('abort', () => (abortedAt = performance.now()));
    await sleep(400);
    assert.ok(a.aborted);
    assert.ok(abortedAt >= end - 1, 'not before the lease ended');
    // Renewed later: a new signal, alive.
    end = performance.now() + 60_000;
    const b = fence.signal();
    assert.notEqual(b, a);
    assert.equal(b.aborted, false);
    fence.stop();
    assert.ok(b.aborted, 'stopped: cut off');
  });

  it('keeps its signal while renewals move the end on', async () => {
    let end = performance.now() + 100;
    const fence = new LeaseFence(() => Math.max(0, end - performance.now()));
    const signal = fence.signal();
    for (let i = 0; i < 4; i++) {
      await sleep(60);
      end = performance.now() + 100;
    }
    assert.equal(signal.aborted, false);
    assert.equal(fence.signal(), signal);
    fence.stop();
  });

  it('hands out an aborted signal when the lease may have run out already', () => {
    const fence = new LeaseFence(() => 0);
    assert.ok(fence.signal().aborted);
    fence.stop();
  });

  it('takes thousands of holders’ listeners without a leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const fence = new LeaseFence(() => 60_000);
    const signal = fence.signal();
    for (let i = 0; i < 5_000; i++) signal.addEventListener('abort', () => undefined, { once: true });
    await sleep(10);
    process.off('warning', onWarning);
    fence.stop();
    assert.deepEqual(warnings, []);
  });
});
