import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerWithin } from '../../src/lib/answer-within.ts';

const after = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error('late failure')) : resolve(value)), ms));

describe('answerWithin', () => {
  it('gives the answer that comes in time, and its failure as it is', async () => {
    assert.equal(await answerWithin(after(5, 'ok'), 1_000, 'KV'), 'ok');
    await assert.rejects(answerWithin(after(5, 'x', true), 1_000, 'KV'), /late failure/);
  });

  it('rejects naming what did not answer once the time passes, and leaves a later failure handled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      await assert.rejects(answerWithin(after(60, 'x', true), 10, 'NATS KV'), { message: 'no answer from NATS KV within 10 ms' });
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
