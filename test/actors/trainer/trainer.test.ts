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
import { TrainJobRequest, type JobRecord } from '../../../schemas/training.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';

/** What the bus raises while the server is away (src/bus/transient.ts reads its name). */
const outage = () => Object.assign(new Error('connection lost'), { name: 'ConnectionError' });

function record(jobId: number): JobRecord {
  return {
    job_id: jobId,
    user_id: 7,
    username: 'attempts',
    status: 'queued',
    model_name: `m${jobId}`,
    model_stem: `7_EURUSD_1min_m${jobId}`,
    request: TrainJobRequest.parse({ code: 'def feature_engineering(df):\n    return df\n' }),
    created_at: 0,
    started_at: null,
    finished_at: null,
    stage: null,
    attempts: 0,
    cap_counted_at: 0,
  };
}

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
    await jobs.create(record(1));
    await queue.publish(1);
    await trainer.start();
    try {
      await until('the job to end', async () => (await jobs.get(1))?.status === 'failed', 30_000);
    } finally {
      await trainer.stop();
    }
    const job = (await jobs.get(1))!;
    assert.equal(job.error, 'strategy error: the third run fails on its own');
    assert.deepEqual(runs, [1, 1, 1], 'every run was the first attempt: no outage counted');
    assert.deepEqual(released, [], "the strategy's own failure keeps its run counted");
  });
});
