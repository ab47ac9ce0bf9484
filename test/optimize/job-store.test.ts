/** Optimisation jobs in KV on a real nats-server: keyed by user, changed by compare-and-set, trials in chunks. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { OptimizeStore } from '../../src/optimize/index.ts';
import { isActive } from '../../src/optimize/job-store.ts';
import { Buckets } from '../../schemas/messages.ts';
import { OptimizeRecord, TRIALS_PER_CHUNK, type OptimizeTrial } from '../../schemas/optimize.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';
import { optimizeRecord } from '../helpers/optimize-record.ts';

const trial = (i: number): OptimizeTrial => ({
  trial: i,
  params: { cooldown: i },
  state: 'done',
  in_sample: null,
  out_of_sample: null,
  value: i,
  feasible: true,
});

describe('optimisation job store', () => {
  let nats: TestNats;
  let store: OptimizeStore;

  before(async () => {
    nats = await startNats('optimize-store');
    const [jobs, chunks, counters] = await Promise.all([
      openBucket(nats.bus, Buckets.optimize),
      openBucket(nats.bus, Buckets.optimizeTrials),
      openBucket(nats.bus, Buckets.counters),
    ]);
    store = new OptimizeStore(jobs, counters, chunks);
  });
  after(() => nats.close());

  it('hands out ids once, and a job only to its own user', async () => {
    const [a, b] = await Promise.all([store.nextId(), store.nextId()]);
    assert.notEqual(a, b);
    await store.create(optimizeRecord({ optimize_id: a, user_id: 7 }));
    await assert.rejects(store.create(optimizeRecord({ optimize_id: a, user_id: 7 })), /exists already/);
    assert.equal((await store.get(7, a))?.optimize_id, a);
    assert.equal(await store.get(8, a), null, 'another user’s id is simply absent');
    assert.deepEqual(
      (await store.list(7)).map((j) => j.optimize_id),
      [a],
    );
    assert.deepEqual(await store.list(8), []);
  });

  it('changes a job by compare-and-set; a change that returns null writes nothing', async () => {
    const id = await store.nextId();
    await store.create(optimizeRecord({ optimize_id: id, user_id: 9 }));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.update(9, id, (j) => ({ ...j, trials_run: j.trials_run + 1 }))),
    );
    assert.ok(results.every((r) => r !== null));
    assert.equal((await store.get(9, id))?.trials_run, 10, 'no increment lost');
    assert.equal(await store.update(9, id, () => null), null);
    OptimizeRecord.parse(await store.get(9, id));
  });

  it('keeps trials in chunks (only those a change touches are written) and reads them back in order, a rewritten trial replacing the old', async () => {
    const id = await store.nextId();
    await store.create(optimizeRecord({ optimize_id: id, user_id: 11 }));
    const count = TRIALS_PER_CHUNK + 50;
    const all = Array.from({ length: count }, (_, i) => trial(count - 1 - i));
    await store.putTrials(11, id, all, all);
    const rewritten = { ...trial(3), state: 'failed' as const, error: 'boom', value: null, feasible: null };
    await store.putTrials(
      11,
      id,
      all.map((t) => (t.trial === 3 ? rewritten : t)),
      [rewritten],
    );
    const back = await store.trials(11, id);
    assert.deepEqual(
      back.map((t) => t.trial),
      Array.from({ length: count }, (_, i) => i),
    );
    assert.equal(back[3]!.state, 'failed');
    assert.deepEqual(await store.trials(12, id), [], 'another user reads none');
  });

  it('reads the highest-numbered trial from its chunk alone, chunk 10 after chunk 9', async () => {
    const id = await store.nextId();
    await store.create(optimizeRecord({ optimize_id: id, user_id: 11 }));
    assert.equal(await store.lastTrial(11, id), null, 'none before the first trial');
    const first = [trial(9 * TRIALS_PER_CHUNK + 5), trial(2)];
    await store.putTrials(11, id, first, first);
    assert.equal((await store.lastTrial(11, id))!.trial, 9 * TRIALS_PER_CHUNK + 5);
    await store.putTrials(11, id, [...first, trial(10 * TRIALS_PER_CHUNK)], [trial(10 * TRIALS_PER_CHUNK)]);
    assert.equal((await store.lastTrial(11, id))!.trial, 10 * TRIALS_PER_CHUNK);
    assert.equal(await store.lastTrial(12, id), null, 'another user reads none');
  });

  it('counts queued and running jobs as active', () => {
    assert.deepEqual(
      (['queued', 'running', 'done', 'failed', 'cancelled'] as const).map((status) => isActive({ status })),
      [true, true, false, false, false],
    );
  });
});
