/**
 * The jobs' lifecycle without a process to run them: a job whose runner died (its lease ran out)
 * is failed after its last attempt, or cancelled when its owner asked, and the trials it did not
 * run are refunded exactly, once — by whichever process sweeps first. (Running, cancelling a
 * running job, 402/422/429 and the stream: test/e2e/optimize.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { LEASE_MS, OptimizeJobs, OptimizeStore } from '../../src/optimize/index.ts';
import { MAX_ATTEMPTS, type OptimizeJobsDeps } from '../../src/optimize/optimize-jobs.ts';
import { codeHeader } from '../../src/sandbox/code-header.ts';
import { OptimizeRequest } from '../../schemas/optimize.ts';
import { strategyCode } from '../helpers/strategies.ts';
import type { ModelSaver } from '../../src/optimize/save-model.ts';
import type { StrategyRuntime } from '../../src/sandbox/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';
import { optimizeRecord } from '../helpers/optimize-record.ts';

describe('optimisation jobs: leases, recovery and refunds', () => {
  let nats: TestNats;
  let store: OptimizeStore;
  /** Credits given back, per user (the ledger's refund as the jobs call it). */
  const refunds: Array<{ user: number; credits: number; ref: string }> = [];
  const jobs = (bars: OptimizeJobsDeps['bars'] = { get: () => Promise.reject(new Error('no bars here')) }) =>
    new OptimizeJobs({
      store,
      // Never reached on these paths: a job given up on is not run again.
      runtime: {} as StrategyRuntime,
      bars,
      metering: {
        charge: () => Promise.resolve(0),
        refund: (user, credits, ref = '') => (refunds.push({ user, credits, ref }), Promise.resolve(0)),
      },
      indicators: [],
      saver: {} as ModelSaver,
      log,
    });

  before(async () => {
    nats = await startNats('optimize-jobs');
    const [j, chunks, counters] = await Promise.all([
      openBucket(nats.bus, Buckets.optimize),
      openBucket(nats.bus, Buckets.optimizeTrials),
      openBucket(nats.bus, Buckets.counters),
    ]);
    store = new OptimizeStore(j, counters, chunks);
  });
  after(() => nats.close());

  it('submit: the market is the request’s, else the code header’s, else EURUSD 15min; another symbol than the header’s is 400 before the bars are read', async () => {
    const asked: string[] = [];
    // The bars are read for the resolved market: recorded, then refused, so nothing is charged or run.
    const j = jobs({ get: (symbol, timeframe) => (asked.push(`${symbol} ${timeframe}`), Promise.reject(new Error('no bars here'))) });
    const caller = { user_id: 11, username: 'market_reader', plan: 'free' as const };
    const body = OptimizeRequest.parse({
      code: strategyCode({ header: codeHeader('AUDUSD', '1h') }),
      parameters: { cooldown: { type: 'int', low: 0, high: 10 } },
    });
    assert.equal(body.symbol, undefined, 'no default in the body: the header may name it');
    await assert.rejects(j.submit(caller, body), /no bars here/);
    await assert.rejects(j.submit(caller, { ...body, symbol: 'AUDUSD', timeframe: '5min' }), /no bars here/);
    await assert.rejects(j.submit(caller, { ...body, code: strategyCode() }), /no bars here/);
    await assert.rejects(
      j.submit(caller, { ...body, symbol: 'EURUSD' }),
      (err: Error & { status?: number }) => err.status === 400 && /generated for AUDUSD: optimise it on AUDUSD/.test(err.message),
    );
    assert.deepEqual(asked, ['AUDUSD 1h', 'AUDUSD 5min', 'EURUSD 15min']);
  });

  it('fails a job whose process stopped on its last attempt and refunds the trials not run, once, whoever sweeps', async () => {
    const stale = Date.now() - LEASE_MS - 1_000;
    await store.create(
      optimizeRecord({
        optimize_id: 101,
        user_id: 5,
        status: 'running',
        attempts: MAX_ATTEMPTS,
        heartbeat_at: stale,
        trials_planned: 20,
        trials_run: 7,
        credits_per_trial: 5,
        credits_charged: 100,
      }),
    );
    // A live job of the same user: its heartbeat is fresh, so it is left alone.
    await store.create(optimizeRecord({ optimize_id: 102, user_id: 5, status: 'running', attempts: 1, heartbeat_at: Date.now() }));
    const [a, b] = [jobs(), jobs()];
    const claimed = (await Promise.all([a.recover(), b.recover()])).reduce((x, y) => x + y, 0);
    assert.equal(claimed, 1, 'one process claims the orphan');
    const failed = await store.get(5, 101);
    assert.equal(failed?.status, 'failed');
    assert.match(failed?.error ?? '', /stopped 3 times/);
    assert.equal(failed?.credits_refunded, 13 * 5);
    assert.deepEqual(
      refunds.filter((r) => r.ref === 'optimize:101'),
      [{ user: 5, credits: 65, ref: 'optimize:101' }],
    );
    assert.equal((await store.get(5, 102))?.status, 'running');
    await a.recover();
    assert.equal(refunds.filter((r) => r.ref === 'optimize:101').length, 1, 'refunded once');
  });

  it('cancels a job whose owner asked while its process was gone, refunding the rest', async () => {
    await store.create(
      optimizeRecord({
        optimize_id: 103,
        user_id: 6,
        status: 'running',
        attempts: 1,
        heartbeat_at: Date.now() - 2 * LEASE_MS,
        cancel_requested: true,
        trials_planned: 30,
        trials_run: 12,
      }),
    );
    await jobs().recover();
    const job = await store.get(6, 103);
    assert.equal(job?.status, 'cancelled');
    assert.equal(job?.credits_refunded, 18);
    assert.deepEqual(
      refunds.filter((r) => r.ref === 'optimize:103').map((r) => r.credits),
      [18],
    );
  });

  it('DELETE of a job no process runs cancels it at once; a second DELETE is 409; another user’s is 404', async () => {
    await store.create(
      optimizeRecord({
        optimize_id: 104,
        user_id: 8,
        status: 'queued',
        heartbeat_at: Date.now() - 2 * LEASE_MS,
        trials_planned: 10,
        trials_run: 0,
        credits_per_trial: 2,
      }),
    );
    const j = jobs();
    await assert.rejects(j.cancel(9, 104), (err: Error & { status?: number }) => err.status === 404);
    const view = await j.cancel(8, 104);
    assert.equal(view.status, 'cancelled');
    assert.equal(view.credits_refunded, 20);
    await assert.rejects(j.cancel(8, 104), (err: Error & { status?: number }) => err.status === 409);
    assert.deepEqual(
      refunds.filter((r) => r.ref === 'optimize:104').map((r) => r.credits),
      [20],
    );
  });
});
