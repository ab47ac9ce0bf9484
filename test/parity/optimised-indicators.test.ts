/**
 * Live = backtest for a model whose indicator period was optimised (issue 34 §2): the code reads
 * rsi_period from strategy_config()["indicators"] (14 in its own config) and the model is trained
 * with the saved trial's 21 (overrides.model.indicators, as POST /optimize/{id}/save submits it).
 * A ModelActor replaying the post-cutoff bars on a replay clock, its features from
 * FeatureSources.forModel (what the model host uses), gives the backtest's trades exactly: live
 * computes RSI(21), as the fit and the backtest did.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FeatureSources, ModelActor } from '../../actors/model/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { trainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';
import { Buckets } from '../../schemas/messages.ts';
import { rsiStrategy, tunedRsiJob } from '../helpers/indicator-strategy.ts';
import { log, openRealMarket, replayDeployment, type RealMarket } from '../helpers/real-market.ts';

const QUARTER = TIMEFRAME_MS['15min'];
const CODE = rsiStrategy(14);

describe('live = backtest for a model trained with an optimised RSI period', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let outcome: TrainOutcome;

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    const job = tunedRsiJob();
    outcome = await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined);
  });
  after(async () => {
    await runtime?.stop();
    await market?.close();
  });

  it('the model’s config carries the period, and a ModelActor replaying the post-cutoff bars gives the backtest’s trades', async () => {
    const { record, results, onnx } = outcome;
    assert.deepEqual(record.config.indicators, { rsi_period: 21 });
    const post = results.spans.post_cutoff!;
    const series = await market.cache.get('EURUSD', '15min');
    const ts = series.columns().ts;
    const from = series.lowerBound(Date.parse(post.from));
    const to = series.lowerBound(Date.parse(post.to) + 1);
    const deployment = replayDeployment(record, 'dep_rsi21');
    const clock = new ReplayClock(ts[from - 1]! + QUARTER);
    const features = new FeatureSources(runtime, 1, log);
    const events: SignalEvent[] = [];
    const actor = new ModelActor({
      deployment,
      model: record,
      onnx,
      features: features.forModel(record, CODE),
      bars: market.cache,
      state: await openBucket(market.bus, Buckets.actorState),
      publish: async (e) => void events.push(e),
      publishPrediction: () => undefined,
      activity: { emit: async () => 0 },
      log,
      clock,
      startAfterTs: ts[from - 1]!,
    });
    await actor.start();
    for (let i = from; i < to; i++) {
      clock.advanceTo(ts[i]! + QUARTER);
      await actor.handle(ts[i]!);
    }
    await actor.stop();
    const expected = results.pred_trade_log.filter((t) => t.exit_reason !== 'end');
    assert.ok(expected.length >= 3, `enough trades to compare (${expected.length})`);
    assert.deepEqual(
      events.filter((e) => e.action === 'close').map((e) => [e.side, e.bar_time, e.price, e.reason, e.pnl]),
      expected.map((t) => [t.side, t.exit_time, t.exit_price, t.exit_reason, t.pnl]),
    );
  });
});
