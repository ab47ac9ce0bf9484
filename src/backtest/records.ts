/** What the results API serves from a run: the trade log, the equity curve, the drawdown series. */
import type { ClosedTrade, DrawdownPoint, EquityPoint, Trade } from '../../schemas/backtest.ts';
import type { BacktestRun } from './run.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The engine's compact trades as API `Trade` records; margin = notional / leverage (null without leverage). */
export function toTradeRecords(run: Pick<BacktestRun, 'trades'> | readonly ClosedTrade[], leverage?: number | null): Trade[] {
  const trades = 'trades' in run ? run.trades : run;
  const lev = leverage ?? null;
  if (lev !== null && !(Number.isFinite(lev) && lev > 0)) throw new RangeError(`toTradeRecords: leverage must be > 0, got ${lev}`);
  return trades.map((t) => ({
    side: t.side > 0 ? 'long' : 'short',
    entry_time: iso(t.entryTs),
    exit_time: iso(t.exitTs),
    entry_price: t.entryPrice,
    exit_price: t.exitPrice,
    lots: t.lots,
    units: t.units,
    exit_reason: t.reason,
    pips: t.pips,
    gross_pnl: t.grossPnl,
    commission: t.commission,
    swap: t.swap,
    pnl: t.pnl,
    bars_held: t.barsHeld,
    margin: lev === null ? null : t.notional / lev,
    stop_loss: t.stopLoss,
    take_profit: t.takeProfit,
  }));
}

/**
 * At most `maxPoints` (≥ 2) indexes of n, evenly spaced, the first and the last always included:
 * round(j · (n − 1) / (maxPoints − 1)) for j = 0 … maxPoints − 1; all n indexes when n ≤ maxPoints.
 */
export function sampleIndexes(n: number, maxPoints: number): number[] {
  if (!(Number.isInteger(maxPoints) && maxPoints >= 2)) throw new RangeError(`maxPoints must be an integer ≥ 2, got ${maxPoints}`);
  if (n <= maxPoints) return Array.from({ length: n }, (_, i) => i);
  const step = (n - 1) / (maxPoints - 1);
  return Array.from({ length: maxPoints }, (_, j) => Math.round(j * step));
}

/** Per bar: (equity − running peak) / capital, the peak starting at capital; ≤ 0. */
export function drawdowns(equity: Float64Array, capital: number): Float64Array {
  const out = new Float64Array(equity.length);
  let peak = capital;
  for (let i = 0; i < equity.length; i++) {
    const e = equity[i]!;
    if (e > peak) peak = e;
    out[i] = (e - peak) / capital + 0;
  }
  return out;
}

/** The run's mark-to-market equity at ≤ maxPoints evenly spaced bars (see sampleIndexes). */
export function equityCurve(run: Pick<BacktestRun, 'equity' | 'ts'>, maxPoints = 1000): EquityPoint[] {
  return sampleIndexes(run.equity.length, maxPoints).map((i) => ({ time: iso(run.ts[i]!), equity: run.equity[i]! }));
}

/** The drawdown of the run's equity at the same bars as equityCurve (the peak is over every bar). */
export function drawdownSeries(run: Pick<BacktestRun, 'equity' | 'ts' | 'capital'>, maxPoints = 1000): DrawdownPoint[] {
  const dd = drawdowns(run.equity, run.capital);
  return sampleIndexes(dd.length, maxPoints).map((i) => ({ time: iso(run.ts[i]!), drawdown: dd[i]! }));
}
