/**
 * The trainer on a real nats-server (its work queue and job bucket): how it counts a job's
 * attempts. A job interrupted by a NATS outage runs again without the outage counting as a
 * vanished trainer, so outages alone never fail it as "stopped 2 times".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Trainer } from '../../../actors/trainer/index.ts';
import { openBucket } from '../../../src/bus/index.ts';
import { JobStore, StrategyJobError, TrainQueue, type ModelStore, type TrainPipeline } from '../../../src/training/index.ts';
import { Buckets } from '../../../schemas/messages.ts';
import type { JobRecord } from '../../../schemas/training.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { trainJob } from '../../helpers/real-market.ts';

/** What the bus raises while the server is away (src/bus/transient.ts reads its name). */
const outage = () => Object.assign(new Error('connection lost'), { name: 'ConnectionError' });

/** A job as POST /train queues it. */
const queued = (code: string): JobRecord => ({ ...trainJob({ code }), status: 'queued', started_at: null, attempts: 0 });

describe('Trainer: attempts', () => {
  let nats: TestNats;
  let queue: TrainQueue;
  let jobs: JobStore;

  before(async () => {
    nats = await startNats('trainer');
    queue = await TrainQueue.open(nats.bus, { ackWaitMs: 3_000 });
    const [jobsKv, counters] = await Promise.all([openBucket(nats.bus, Buckets.jobs), openBucket(nats.bus, Buckets.counters)]);
    jobs = new JobStore(jobsKv, counters);
  });
  after(() => nats?.close());

  it('a job interrupted by NATS outages runs again each time, its attempt given back: it ends with its own outcome', async () => {
    const runs: number[] = [];
    // Two outages, then the strategy's own failure: the outcome the user must read.
    const pipeline: TrainPipeline = async (job) => {
      runs.push(job.attempts);
      if (runs.length <= 2) throw outage();
      throw new StrategyJobError('error', 'the third run fails on its own');
    };
    const released: number[] = [];
    const trainer = new Trainer({
      queue,
      jobs,
      models: {} as ModelStore, // a failing job saves no model
      pipeline,
      activity: { emit: async () => 0 },
      metering: { releaseCap: async (userId: number) => void released.push(userId) },
      log,
      concurrency: 1,
    });
    const job = queued('def feature_engineering(df):\n    return df\n');
    await jobs.create(job);
    await queue.publish(job.job_id);
    await trainer.start();
    try {
      await until('the job to end', async () => (await jobs.get(job.job_id))?.status === 'failed', 30_000);
    } finally {
      await trainer.stop();
    }
    const ended = (await jobs.get(job.job_id))!;
    assert.equal(ended.error, 'strategy error: the third run fails on its own');
    assert.deepEqual(runs, [1, 1, 1], 'every run was the first attempt: no outage counted');
    assert.deepEqual(released, [], "the strategy's own failure keeps its run counted");
  });
});
