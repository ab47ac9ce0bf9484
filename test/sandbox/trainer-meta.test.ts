/**
 * The `train` job with entry rules (meta-labels) on real EURUSD 15-minute bars: the rule rows and
 * their triple-barrier labels agree with the position engine itself — each labelled rule bar's
 * trade, run alone through the engine with the strategy's stop and take (no finer bars, no spread),
 * closes at the label's end bar, by take-profit when the label is 1 and by stop when it is 0, or
 * is still open at the time limit with the label the sign of its return there. The fit sees only
 * rule rows, purged by their label's end; without rules the job is the direction model's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runBacktest, type BarColumns } from '../../src/backtest/index.ts';
import { createLogger } from '../../src/log.ts';
import { StrategyRuntime, type TrainResult } from '../../src/sandbox/runtime-pool.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import { options } from '../backtest/fixtures.ts';

const HORIZON = 8;
const STOP = 0.002;
const TAKE = 0.003;

const code = (rules: boolean) => `
import numpy as np
import pandas as pd

def feature_engineering(df, close, open_, high, low):
    ret = close.pct_change()
    df['ret_1'] = ret
    df['ret_4'] = close.pct_change(4)
    df['vol_20'] = ret.rolling(20).std()
    df['range'] = (high - low) / close
    df['up_rule'] = (df['ret_4'] > 0.001).astype(float)
    df['down_rule'] = (df['ret_4'] < -0.001).astype(float)
    return df

def strategy_config():
    return {
        'model_type': 'RandomForestClassifier', 'model_params': {'n_estimators': 30, 'max_depth': 5},
        'signal_threshold': 0.55, 'direction': 'both', 'stop_loss': ${STOP}, 'take_profit': ${TAKE},
        'cooldown': 0, 'max_positions': 1, 'on_opposite': 'close_only', 'session_filter': None,
        'min_atr': None, 'trend_filter': None, 'target_horizon': ${HORIZON},
        ${rules ? "'entry_long': 'up_rule', 'entry_short': 'down_rule'," : ''}
        'objective': 'test', 'notes': 'test', 'title': 'meta test',
    }
`;

describe('StrategyRuntime.train with entry rules (meta-labels, real EURUSD 15-min bars)', () => {
  let runtime: StrategyRuntime;
  let bars: BarColumns;
  let meta: TrainResult;
  let direction: TrainResult;
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    const ohlc = loadBars('EURUSD', '15min', 4000);
    bars = { ...ohlc, spread: new Float64Array(ohlc.ts.length) };
    [meta, direction] = await Promise.all([
      runtime.train(code(true), bars, { folds: { k: 3, scheme: 'rolling', embargo: 10 } }),
      runtime.train(code(false), bars),
    ]);
  });
  after(async () => {
    await runtime?.stop();
  });

  it('answers the rule rows and labels of the test span; none without rules, and the same spans either way', () => {
    assert.equal(direction.meta, null);
    const m = meta.meta!;
    assert.ok(m.rowsTrain >= 50 && m.rowsTest > 20, `rows ${m.rowsTrain} / ${m.rowsTest}`);
    assert.equal(m.bars.length, m.rowsTest);
    assert.deepEqual([meta.splitIndex, meta.rowsTrain, meta.rowsTest], [direction.splitIndex, direction.rowsTrain, direction.rowsTest]);
    assert.ok(
      m.bars.every((b) => b >= meta.splitIndex),
      'test-span rows only',
    );
    const k = meta.features.length;
    const col = (name: string, bar: number) => meta.matrix[(bar - meta.warmup) * k + meta.features.indexOf(name)]!;
    for (let r = 0; r < m.bars.length; r++) {
      const b = m.bars[r]!;
      assert.equal(m.sides[r], col('up_rule', b) > 0 ? 1 : -1, `bar ${b}: the firing rule's side`);
      assert.ok(m.ends[r]! > b && m.ends[r]! <= b + HORIZON, `bar ${b}: ends within the time limit (${m.ends[r]})`);
    }
    assert.ok(meta.folds.length > 0, 'walk-forward folds fitted on rule rows');
    assert.notDeepEqual(
      Array.from(meta.probaUp.subarray(0, 200)),
      Array.from(direction.probaUp.subarray(0, 200)),
      'another model: P(win), not p(up)',
    );
  });

  it("labels each rule trade as the position engine closes it: take-profit 1, stop 0, at the label's end bar; else the sign at the time limit", () => {
    const m = meta.meta!;
    const engine = options({ timeframeMs: 900_000, stop: { unit: 'pct', value: STOP }, take: { unit: 'pct', value: TAKE } });
    const counts = { TP: 0, SL: 0, end: 0 };
    for (let r = 0; r < m.bars.length; r++) {
      const t = m.bars[r]!;
      const signals = new Int8Array(bars.ts.length);
      signals[t] = m.sides[r]!;
      const [trade] = runBacktest(engine, bars, signals, { from: t, to: t + HORIZON + 1 }).trades;
      assert.ok(trade, `bar ${t}: the engine opened the trade`);
      const exitBar = bars.ts.indexOf(trade.exitTs);
      if (trade.reason === 'TP' || trade.reason === 'SL') {
        assert.equal(m.labels[r], trade.reason === 'TP' ? 1 : 0, `bar ${t}: label vs the engine's ${trade.reason}`);
        assert.equal(m.ends[r], exitBar, `bar ${t}: end bar`);
      } else {
        assert.equal(trade.reason, 'end');
        assert.equal(m.ends[r], t + HORIZON, `bar ${t}: the time limit`);
        assert.equal(m.labels[r], m.sides[r]! * (trade.exitPrice - trade.entryPrice) > 0 ? 1 : 0, `bar ${t}: the sign at the limit`);
      }
      counts[trade.reason as keyof typeof counts]++;
    }
    assert.ok(counts.TP > 0 && counts.SL > 0 && counts.end > 0, `every kind of end seen: ${JSON.stringify(counts)}`);
  });
});
