/**
 * Optimising an indicator period end to end (issue 34 §2), on real EURUSD bars, the real sandbox,
 * sampler and runner: a grid over indicators.rsi_period fits each value's own fold models with its
 * features recomputed (different fold stats per value); the saved trial's train job gives a model
 * whose config carries the chosen period; that model's live features (FeatureSources.forModel, what
 * the model actor uses) are RSI of that period; and a strategy that does not read the period is
 * refused (422) saying how to make it tunable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { UnprocessableError } from '../../src/errors.ts';
import { INDICATOR_RULES } from '../../src/indicators/index.ts';
import { OptimizeStore } from '../../src/optimize/index.ts';
import { parseObjective } from '../../src/optimize/objective.ts';
import { OptimizeRunner } from '../../src/optimize/runner.ts';
import { ModelSaver } from '../../src/optimize/save-model.ts';
import { checkSearchSpace } from '../../src/optimize/search-space.ts';
import { StrategyRuntime, type FeaturesResult } from '../../src/sandbox/runtime-pool.ts';
import { FeatureSources, sliceBars } from '../../src/scoring/index.ts';
import { trainPipeline } from '../../src/training/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { OptimizeJobRequest, type OptimizeRecord } from '../../schemas/optimize.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import type { JobRecord, TrainRequest } from '../../schemas/training.ts';
import { rsiStrategy } from '../helpers/indicator-strategy.ts';
import { optimizeRecord } from '../helpers/optimize-record.ts';
import { log, openRealMarket, trainJob, type RealMarket } from '../helpers/real-market.ts';
import { strategyCode } from '../helpers/strategies.ts';

const CODE = rsiStrategy(14);
const owner = { user: 1, nice: 0, overran: () => undefined };
const column = (r: FeaturesResult, name: string) => Array.from(r.values[r.columns.indexOf(name)]!);

describe('optimising indicators.rsi_period', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let store: OptimizeStore;
  let job: OptimizeRecord;

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2, perUser: 2 });
    const [jobs, chunks, counters] = await Promise.all([
      openBucket(market.bus, Buckets.optimize),
      openBucket(market.bus, Buckets.optimizeTrials),
      openBucket(market.bus, Buckets.counters),
    ]);
    store = new OptimizeStore(jobs, counters, chunks);
    const request = OptimizeJobRequest.parse({
      code: CODE,
      symbol: 'EURUSD',
      timeframe: '15min',
      start_date: '2017-01-02',
      end_date: '2017-02-10',
      parameters: { 'indicators.rsi_period': { type: 'choice', values: [7, 14, 21] } },
      method: 'grid',
      walk_forward: { folds: 3, scheme: 'anchored', embargo: 0 },
    });
    const config = StrategyConfig.parse(await runtime.config(CODE));
    const space = checkSearchSpace(request, { config, indicators: INDICATOR_RULES, riskUnit: request.risk_unit });
    assert.equal(space.engineOnly, false, 'an indicator period changes the model');
    const runner = new OptimizeRunner({ store, runtime, bars: market.cache, log });
    const queued = optimizeRecord({
      optimize_id: 1,
      user_id: 7,
      status: 'running',
      request,
      objective: parseObjective('sharpe'),
      trials_planned: space.trials,
      credits_charged: space.trials * 5,
    });
    await store.create(queued);
    await runner.run(queued, space, owner);
    job = (await store.get(7, 1))!;
  });
  after(async () => {
    await runtime?.stop();
    await market?.close();
  });

  it('runs each period as its own model variant: three trials, each with its own fold stats', async () => {
    assert.equal(job.status, 'done', job.error ?? job.status);
    const trials = await store.trials(7, 1);
    const byPeriod = trials.map((t) => [t.params['indicators.rsi_period'] as number, t.state] as const).sort((a, b) => a[0] - b[0]);
    assert.deepEqual(byPeriod, [
      [7, 'done'],
      [14, 'done'],
      [21, 'done'],
    ]);
    const stats = new Set(trials.map((t) => JSON.stringify([t.in_sample, t.out_of_sample])));
    assert.equal(stats.size, 3, 'each period fits its own fold models on its own features');
  });

  it('a saved trial’s model carries its period in its config, and its live features are RSI of that period', async () => {
    const trial = (await store.trials(7, 1)).find((t) => t.params['indicators.rsi_period'] === 21)!;
    let submitted: { train: TrainRequest; overrides: JobRecord['overrides'] } | null = null;
    const saver = new ModelSaver({
      // The train queue: what the saver submits is run through the real train pipeline below.
      training: {
        submit: async (_caller, train, overrides) => (
          (submitted = { train, overrides }),
          { job_id: 1, model_name: 'rsi21', model_stem: 'stem', status: 'queued' as const }
        ),
        finished: async () => {
          throw new Error('not asked');
        },
      },
      deployments: {
        deploy: async () => {
          throw new Error('not asked');
        },
      },
      log,
    });
    await saver.save({ user_id: 7, username: 'tester', plan: 'pro' }, job, trial, { model_name: 'rsi21' });
    assert.deepEqual(submitted!.overrides?.model, { indicators: { rsi_period: 21 } });
    const trained = await trainPipeline({ runtime, bars: market.cache })(
      { ...trainJob(submitted!.train), overrides: submitted!.overrides },
      async () => undefined,
    );
    assert.deepEqual(trained.record.config.indicators, { rsi_period: 21 });

    const series = await market.cache.get('EURUSD', '15min');
    const bars = sliceBars(series.columns(), 0, 1500);
    const source = new FeatureSources(runtime, 1, log).forModel(trained.record, CODE);
    try {
      const live = column(await source.features(bars), 'rsi');
      assert.deepEqual(live, column(await runtime.features(CODE, bars, {}, { rsi_period: 21 }), 'rsi'));
      assert.notDeepEqual(live, column(await runtime.features(CODE, bars), 'rsi'), 'not the code’s own RSI(14)');
    } finally {
      await source.release();
    }
  });

  it('refuses a period the code does not read, saying how to make it tunable', async () => {
    const plain = StrategyConfig.parse(await runtime.config(strategyCode()));
    const request = OptimizeJobRequest.parse({
      code: strategyCode(),
      parameters: { 'indicators.rsi_period': { type: 'int', low: 7, high: 21 } },
    });
    assert.throws(
      () => checkSearchSpace(request, { config: plain, indicators: INDICATOR_RULES }),
      (err: unknown) =>
        err instanceof UnprocessableError &&
        /indicators.rsi_period: the strategy does not read it .*strategy_config\(\)\["indicators"\]\["rsi_period"\]/.test(err.message),
    );
  });
});
