/**
 * /predict of a model whose RSI period was optimised (its config's indicators.rsi_period 21, the
 * code's own 14): the features are computed with the model's 21, so /predict over the post-cutoff
 * span trades exactly as the pipeline's post-cutoff backtest did. Real bars, NATS and sandbox.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StrategyRuntime } from '../../src/sandbox/runtime-pool.ts';
import { trainPipeline, type TrainOutcome } from '../../src/training/index.ts';
import { rsiStrategy, tunedRsiJob } from '../helpers/indicator-strategy.ts';
import { log, openRealMarket, predictOnly, type RealMarket } from '../helpers/real-market.ts';

const CODE = rsiStrategy(14);

describe('/predict of a model trained with an optimised indicator period', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let outcome: TrainOutcome;

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    const job = tunedRsiJob('Rsi21');
    outcome = await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined);
  });
  after(async () => {
    await runtime?.stop();
    await market?.close();
  });

  it('computes the features with the model’s stored indicator values: its trades are the post-cutoff backtest’s', async () => {
    const { record, results } = outcome;
    assert.deepEqual(record.config.indicators, { rsi_period: 21 });
    const training = await predictOnly(market, runtime, outcome, CODE);
    const predicted = await training.predict(record.user_id, { model_name: 'Rsi21' });
    const view = (t: { side: string; entry_time: string; exit_time: string; exit_reason: string; pnl: number }) => [
      t.side,
      t.entry_time,
      t.exit_time,
      t.exit_reason,
      t.pnl,
    ];
    assert.ok(results.pred_trade_log.length >= 3, `enough trades to compare (${results.pred_trade_log.length})`);
    assert.deepEqual(predicted.trades.map(view), results.pred_trade_log.map(view));
  });
});
