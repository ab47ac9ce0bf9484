/**
 * runOffThread: a module's named export run on a worker thread — the value as in-thread, typed
 * arrays intact (moved when transferred), errors of the same kind; an abort drops a waiting task
 * or ends a running one, and stopOffThread fails what runs; the pool serves later calls after both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { offThreadLoad, POOL_SIZE, runOffThread, stopOffThread } from '../../src/lib/off-thread.ts';
import { sum } from './off-thread-tasks.ts';

const TASKS = new URL('./off-thread-tasks.ts', import.meta.url);

test('the value is the in-thread one; a transferred buffer moves, an untransferred one is copied', async () => {
  const xs = Float64Array.from({ length: 1000 }, (_, i) => Math.sin(i) / 7);
  const expected = sum(xs, 3);
  assert.deepEqual(await runOffThread(TASKS, 'sum', [xs, 3]), expected);
  assert.equal(xs.length, 1000);
  assert.deepEqual(await runOffThread(TASKS, 'sum', [xs, 3], { transfer: [xs.buffer] }), expected);
  assert.equal(xs.length, 0, 'the buffer was moved');
});

test("the worker's errors come back as the same kind, with the message; an export that is not a function is said", async () => {
  await assert.rejects(
    runOffThread(TASKS, 'rangeError', ['too few steps']),
    (err: Error) => err instanceof RangeError && err.message === 'too few steps',
  );
  await assert.rejects(
    runOffThread(TASKS, 'notAFunction', []),
    (err: Error) => err instanceof TypeError && /exports no function notAFunction/.test(err.message),
  );
});

test('at most POOL_SIZE tasks run at once, the rest wait; an abort drops a waiting task and ends a running one', async () => {
  const running = Array.from({ length: POOL_SIZE }, () => new AbortController());
  const runs = running.map((c) => runOffThread(TASKS, 'spin', [60_000], { signal: c.signal }));
  const waiting = new AbortController();
  const queued = runOffThread(TASKS, 'spin', [60_000], { signal: waiting.signal });
  assert.deepEqual(offThreadLoad(), { workers: POOL_SIZE, busy: POOL_SIZE, waiting: 1 });
  waiting.abort(new Error('not wanted any more'));
  await assert.rejects(queued, /not wanted any more/);
  for (const c of running) c.abort(new Error('cancelled'));
  for (const r of runs) await assert.rejects(r, /cancelled/);
  assert.equal(offThreadLoad().busy, 0);
  assert.equal((await runOffThread<{ sum: number }>(TASKS, 'sum', [Float64Array.of(1, 2), 1])).sum, 3);
});

test('stopOffThread ends the workers and fails what they ran; the next call starts a new one', async () => {
  const failed = assert.rejects(runOffThread(TASKS, 'spin', [60_000]), /shutting down/);
  await stopOffThread();
  await failed;
  assert.deepEqual(offThreadLoad(), { workers: 0, busy: 0, waiting: 0 });
  assert.equal((await runOffThread<{ sum: number }>(TASKS, 'sum', [Float64Array.of(4), 2])).sum, 8);
  await stopOffThread();
});
