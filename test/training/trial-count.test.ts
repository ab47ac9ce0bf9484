/**
 * N for the deflated Sharpe: the account's models and done train jobs on the same symbol and
 * timeframe whose code descends from this job's (≥ 0.7 by the fork-descent measure), each job
 * once, this one included — on a real nats-server's job and model stores. Later counts read only
 * the jobs not seen finished before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { generateOffline, templateRequest } from '../../src/generation/offline/index.ts';
import { JobStore, ModelStore } from '../../src/training/index.ts';
import { TrialCounter } from '../../src/training/trial-count.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { FromTemplateRequest } from '../../schemas/generation.ts';
import type { JobRecord, JobStatus, ModelRecord } from '../../schemas/training.ts';
import { TrainJobRequest } from '../../schemas/training.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';
import { modelSettings } from '../../src/training/index.ts';

const generated = (template: FromTemplateRequest['template'], over: Partial<FromTemplateRequest> = {}) =>
  generateOffline(templateRequest({ template, ...over } as FromTemplateRequest)).code;

const IDEA = generated('macd_momentum');
/** An honest edit of IDEA: another model (similarity ≥ 0.7). */
const EDIT = generated('macd_momentum', { model: 'random forest' });
/** Another strategy from the same generator (similarity < 0.7). */
const OTHER = generated('mean_reversion');

const USER = 7;

function job(
  id: number,
  status: JobStatus,
  code: string,
  over: { user?: number; timeframe?: '15min' | '1h'; symbol?: 'EURUSD' | 'GBPUSD' } = {},
): JobRecord {
  const request = TrainJobRequest.parse({ code, symbol: over.symbol ?? 'EURUSD', timeframe: over.timeframe ?? '15min' });
  const user = over.user ?? USER;
  return {
    job_id: id,
    user_id: user,
    username: `u${user}`,
    status,
    model_name: `M${id}`,
    model_stem: `${user}_${request.symbol}_${request.timeframe}_M${id}`,
    request,
    created_at: 1,
    started_at: 1,
    finished_at: status === 'done' || status === 'failed' ? 2 : null,
    stage: null,
    attempts: 1,
    cap_counted_at: 1,
  };
}

function model(j: JobRecord): ModelRecord {
  const config = strategyConfig('RandomForestClassifier');
  const stats = { n: 0, wins: 0, losses: 0, wr: 0, ret: 0, pf: 0, rr: 0, expect: 0, mdd: 0, np: 0, avg: 0, best: 0, worst: 0 };
  return {
    user_id: j.user_id,
    username: j.username,
    model_name: j.model_name,
    stem: j.model_stem,
    symbol: j.request.symbol,
    timeframe: j.request.timeframe,
    model_type: config.model_type,
    title: 't',
    trained_at: 1,
    job_id: j.job_id,
    source: 'import',
    features: ['a'],
    warmup: 0,
    config,
    settings: modelSettings(j.request, config),
    train_stats: stats,
    test_stats: stats,
    long_stats: stats,
    short_stats: stats,
    trained_span: { from: 0, to: 1 },
    artifact: `j${j.job_id}`,
  };
}

describe('TrialCounter', () => {
  let nats: TestNats;
  let jobs: JobStore;
  let models: ModelStore;
  let reads = 0;
  let counter: TrialCounter;

  before(async () => {
    nats = await startNats('trial-count');
    const { bus } = nats;
    jobs = new JobStore(await openBucket(bus, Buckets.jobs), await openBucket(bus, Buckets.counters));
    models = await ModelStore.open(bus, await openBucket(bus, Buckets.models), await openBucket(bus, Buckets.signals));
    // The real stores, counting the job records the counter reads.
    counter = new TrialCounter({ jobs: { ids: () => jobs.ids(), get: (id) => (reads++, jobs.get(id)) }, models });
  });
  after(() => nats?.close());

  it('counts the lineage’s models and done jobs on the same market, each job once, this one included', async () => {
    const saved = async (j: JobRecord, withModel: boolean) => {
      await jobs.create(j);
      if (withModel)
        await models.save(model(j), { onnx: new Uint8Array([1]), code: j.request.code, results: { pred_signals: [] } as never });
    };
    await saved(job(1, 'done', IDEA), true); // counted: its model and its job are one trial
    await saved(job(2, 'done', OTHER), true); // another strategy
    await saved(job(3, 'done', IDEA, { timeframe: '1h' }), true); // another timeframe
    await saved(job(4, 'done', IDEA, { symbol: 'GBPUSD' }), true); // another symbol
    await saved(job(5, 'done', EDIT), false); // counted: a done job whose model was replaced since
    await saved(job(6, 'failed', IDEA), false); // failed: never a variant
    await saved(job(7, 'queued', IDEA), false); // not trained yet
    await saved(job(8, 'done', IDEA, { user: 9 }), true); // another account
    const current = job(10, 'running', EDIT);
    await jobs.create(current);
    // A model kept longer than its job (the bucket forgets jobs after 30 days) still counts.
    const old = { ...model(job(11, 'done', IDEA)), model_name: 'Old', stem: `${USER}_EURUSD_15min_Old`, artifact: 'j11' };
    await models.save(old, { onnx: new Uint8Array([1]), code: IDEA, results: { pred_signals: [] } as never });

    assert.equal(await counter.count(current), 4, 'jobs 1, 5, 10 and the model of job 11');
    const alone = job(12, 'running', OTHER, { symbol: 'GBPUSD' });
    assert.equal(await counter.count(alone), 1, 'nothing of its lineage on GBPUSD 15min but itself');
  });

  it('reads again only the jobs not seen finished, and reads new ones once', async () => {
    const current = (await jobs.get(10))!;
    reads = 0;
    assert.equal(await counter.count(current), 4);
    assert.equal(reads, 2, 'jobs 7 (queued) and 10 (running) only');
    await jobs.update(10, (j) => ({ ...j, status: 'done' }));
    await jobs.create(job(13, 'done', IDEA));
    const next = job(14, 'running', IDEA);
    await jobs.create(next);
    reads = 0;
    assert.equal(await counter.count(next), 6, 'jobs 1, 5, 10, 13, 14 and the model of job 11');
    assert.equal(reads, 6, 'jobs 7, 10, 13, 14 to learn their state, then the code of 10 and 13');
  });

  it('counts an optimisation a model was saved from as its trials run, once however many of its trials were saved', async () => {
    const from = (optimize_id: number, trial: number, trials_run: number) => ({ optimization: { optimize_id, trial, trials_run } });
    const at = { user: 20, timeframe: '1h' } as const;
    const first = { ...job(30, 'done', IDEA, at), ...from(1, 3, 50) };
    await jobs.create(first);
    await models.save(
      { ...model(first), optimization: first.optimization },
      { onnx: new Uint8Array([1]), code: IDEA, results: { pred_signals: [] } as never },
    );
    await jobs.create({ ...job(31, 'done', IDEA, at), ...from(1, 7, 50) }); // another trial of optimisation 1: among its 50 already
    await jobs.create(job(32, 'done', EDIT, at)); // a plain train job of the lineage: 1

    const saving = { ...job(33, 'running', IDEA, at), ...from(2, 0, 30) };
    await jobs.create(saving);
    assert.equal(
      await counter.count(saving),
      50 + 1 + 30,
      'optimisation 1’s 50 trials, job 32, and optimisation 2’s 30 trials (this model among them)',
    );

    const alone = { ...job(34, 'running', IDEA, { user: 21 }), ...from(3, 5, 200) };
    await jobs.create(alone);
    assert.equal(await counter.count(alone), 200, 'the first model of its lineage: N is the trials of the optimisation it won');
  });
});
