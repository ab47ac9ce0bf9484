/**
 * The position engine, shared by the backtest and the live model actors: signals in, fills and
 * trades out, bar by bar; USD P&L, TradeStats, equity and drawdown for the results API.
 * Rules: engine-core.ts (order of events in a bar), money.ts (USD, risk units), rollover.ts (swap
 * nights), intrabar.ts (SL vs TP inside one bar), schemas/backtest.ts (definitions); snapshot and
 * restore: position-engine.ts.
 */
export { PositionEngine } from './position-engine.ts';
export { toBarColumns } from '../lib/bar-columns.ts';
export { runBacktest, type BacktestRun } from './run.ts';
export { tradeStats, pnlStats, NO_LOSS_RATIO } from './stats.ts';
export { sweepBacktests, type SweepOptions, type SweepResult, type SweepTrial } from './sweep.ts';
export { toTradeRecords, equityCurve, drawdownSeries, drawdowns, sampleIndexes } from './records.ts';
export { finerBarResolver, lowerBound } from './intrabar.ts';
export { LONG_ALLOWED, SHORT_ALLOWED, BOTH_ALLOWED, EXIT_LONG, EXIT_SHORT } from './types.ts';
export { contractSize, levelDistance, usdLeg, usdPnl } from './money.ts';
export { nextRollover, nightsBetween } from './rollover.ts';
export { entryHourTable, weekdayOf, type EntryTimes } from './entry-times.ts';
export { expectedNextOpen } from './market-hours.ts';
export type {
  BarColumns,
  Direction,
  EngineOptions,
  FirstTouch,
  IntrabarResolver,
  Level,
  OnOpposite,
  OpenPosition,
  Trail,
} from './types.ts';
export type {
  ClosedTrade,
  DrawdownPoint,
  EngineSnapshot,
  EquityPoint,
  ExecutionSettings,
  ExitReason,
  OpenPositionState,
  Trade,
  TradeStats,
} from '../../schemas/backtest.ts';
