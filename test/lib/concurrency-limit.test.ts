/**
 * concurrencyLimit: never more calls in flight than the limit, waiters run in arrival order, and a
 * call that rejects or throws gives its slot back (the caller still gets its error).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('concurrencyLimit', () => {
  it('runs at most `limit` calls at once, the rest in arrival order, each resolving with its own result', async () => {
    const limit = concurrencyLimit(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        limit(async () => {
          started.push(i);
          most = Math.max(most, ++running);
          await tick();
          running--;
          return i * 10;
        }),
      ),
    );
    assert.deepEqual(results, [0, 10, 20, 30, 40, 50, 60]);
    assert.equal(most, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6]);
  });

  it('a call that rejects or throws gives its slot back, and its caller gets the error', async () => {
    const limit = concurrencyLimit(1);
    await assert.rejects(
      limit(() => Promise.reject(new Error('rejected'))),
      /rejected/,
    );
    await assert.rejects(
      limit(() => {
        throw new Error('thrown');
      }),
      /thrown/,
    );
    const waiting = limit(() => Promise.reject(new Error('queued'))).catch((err: Error) => err.message);
    assert.equal(await limit(async () => 'after'), 'after');
    assert.equal(await waiting, 'queued');
  });
});
