/**
 * engineOptions as a trailing-stop strategy reaches it: strategy_config take_profit null (what the
 * offline generator writes under a trailing stop) is no take profit in the engine, so the trend
 * trade runs to its trail; stepped bar by bar as the live stepper does, the trade is the same.
 * Hourly EURUSD bars from Monday 2024-01-08 00:00 UTC.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelSettings } from '../../schemas/training.ts';
import { PositionEngine, runBacktest } from '../../src/backtest/index.ts';
import { generateOffline } from '../../src/generation/offline/index.ts';
import { engineOptions, intrabarResolver } from '../../src/scoring/index.ts';
import { BarSeries } from '../../src/market/bar-series.ts';
import { noBars } from '../helpers/hostile-model-host.ts';
import { columns, type Row } from '../backtest/fixtures.ts';

const PIP = 0.0001;
/** 120 hourly bars rising 5 pips a bar (3 pips of range under each close): a trend no 2-ATR trail is hit in. */
const TREND: Row[] = Array.from({ length: 120 }, (_, i) => {
  const open = 1.1 + i * 5 * PIP;
  const close = open + 5 * PIP;
  return [open, close + PIP, close - 3 * PIP, close];
});
const LONG_AT_FIRST_BAR = Int8Array.from(TREND, (_, i) => (i === 0 ? 1 : 0));

/** A model's spec as the trainer keeps it: the generated strategy_config, the request's settings (no stop or take given). */
const specOf = (prompt: string) => ({
  symbol: 'EURUSD' as const,
  timeframe: '1h' as const,
  config: generateOffline({ description: prompt, symbol: 'EURUSD', timeframe: '1h' }).intent.config,
  settings: ModelSettings.parse({ confidence_threshold: 0.55, train_split: 0.7 }),
});

describe('engine options of a generated trailing-stop strategy', () => {
  const trailing = specOf('Donchian 20 breakout, trail the stop by 2 ATR');
  const capped = specOf('Donchian 20 breakout, stop 24 pips');

  it('strategy_config take_profit null is no take profit; the trail is the engine’s', () => {
    assert.equal(trailing.config.take_profit, null);
    assert.equal(trailing.config.stop_loss, null);
    const opts = engineOptions(trailing, null);
    assert.equal(opts.take, null);
    assert.equal(opts.stop, null);
    assert.deepEqual(opts.trail, { unit: 'atr', value: 2, period: 14 });
    // The default take where the words give no exit of their own: a fraction of the entry price.
    assert.equal(engineOptions(capped, null).take?.unit, 'pct');
  });

  it('the trend trade runs to the end instead of being capped at the default 1.5R take', () => {
    const bars = columns(TREND);
    const [ridden] = runBacktest(engineOptions(trailing, null), bars, LONG_AT_FIRST_BAR, { from: 0, to: TREND.length }).trades;
    assert.equal(ridden!.reason, 'end');
    assert.equal(ridden!.takeProfit, null);
    assert.ok(ridden!.exitPrice - ridden!.entryPrice > 500 * PIP, `rode ${(ridden!.exitPrice - ridden!.entryPrice) / PIP} pips`);
    // The same idea with a default take is closed by it, far below.
    const [cut] = runBacktest(engineOptions(capped, null), bars, LONG_AT_FIRST_BAR, { from: 0, to: TREND.length }).trades;
    assert.equal(cut!.reason, 'TP');
    assert.ok(cut!.exitPrice - cut!.entryPrice < 60 * PIP);
  });

  it('stepped bar by bar (the live stepper’s engine) the trade is the backtest’s', () => {
    const bars = columns(TREND);
    const opts = engineOptions(trailing, null);
    const backtest = runBacktest(opts, bars, LONG_AT_FIRST_BAR, { from: 0, to: TREND.length }).trades;
    const live = new PositionEngine(opts);
    TREND.forEach((_, i) => live.step(bars, i, LONG_AT_FIRST_BAR[i]!));
    assert.equal(live.openPositions()[0]?.takeProfit, null, 'the open position has no take level');
    live.finish(bars, TREND.length - 1);
    assert.deepEqual(live.closedTrades(), backtest);
  });
});

describe('intrabarResolver', () => {
  const MINUTE = 60_000;
  const T0 = Date.UTC(2024, 0, 8, 10);
  const minute = (i: number, low: number, high: number) => ({
    symbol: 'EURUSD' as const,
    timeframe: '1min' as const,
    ts: T0 + i * MINUTE,
    open: 1.1,
    high,
    low,
    close: 1.1,
    volume: 1,
    ticks: 1,
    spread: 0,
    source: 'live' as const,
  });

  it('one resolver per state of the 1-minute series, shared by every model of the symbol; a new minute, a new one that sees it', async () => {
    const finer = new BarSeries(noBars());
    finer.upsert(minute(0, 1.099, 1.101));
    const bars = { get: async () => finer };
    const first = await intrabarResolver(bars, 'EURUSD', '15min');
    assert.ok(first);
    assert.equal(await intrabarResolver(bars, 'EURUSD', '15min'), first, 'the same minutes: the same resolver');
    // A long stop at 1.095 and take at 1.102 over the first two minutes: neither is touched in minute 0.
    assert.equal(first.firstTouch(T0, T0 + 2 * MINUTE, true, 1.095, 1.102, 0), 'SL', 'nothing touched: the pessimistic default');
    finer.upsert(minute(1, 1.099, 1.103));
    const second = await intrabarResolver(bars, 'EURUSD', '15min');
    assert.notEqual(second, first, 'a minute added: a resolver over the new columns');
    assert.equal(second!.firstTouch(T0, T0 + 2 * MINUTE, true, 1.095, 1.102, 0), 'TP', 'the new minute reaches the take');
  });
});
