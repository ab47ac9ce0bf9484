/** TradeStats (the contract's fields) from closed trades; definitions in schemas/backtest.ts. */
import type { TradeStats } from '../../schemas/backtest.ts';

/** pf and rr when there is no losing trade (JSON has no Infinity). */
export const NO_LOSS_RATIO = 999;

/** Statistics of trades in exit order (net P&L in USD), relative to `capital`. Nothing rounded. */
export function tradeStats(trades: readonly { pnl: number }[], capital: number): TradeStats {
  return statsOf(trades.length, (k) => trades[k]!.pnl, capital);
}

/** tradeStats of trades given by their net P&L alone, in exit order (the sweep's compact logs). */
export function pnlStats(pnls: ArrayLike<number>, capital: number): TradeStats {
  return statsOf(pnls.length, (k) => pnls[k]!, capital);
}

/** The one computation behind both: the same sums in the same order, so both agree to the bit. */
function statsOf(n: number, pnlAt: (k: number) => number, capital: number): TradeStats {
  if (!(Number.isFinite(capital) && capital > 0)) throw new RangeError(`tradeStats: capital must be > 0, got ${capital}`);
  let wins = 0;
  let losses = 0;
  let grossWin = 0;
  let grossLoss = 0;
  let np = 0;
  let best = -Infinity;
  let worst = Infinity;
  let equity = capital;
  let peak = capital;
  let mdd = 0;
  for (let k = 0; k < n; k++) {
    const pnl = pnlAt(k);
    if (pnl > 0) {
      wins++;
      grossWin += pnl;
    } else if (pnl < 0) {
      losses++;
      grossLoss += pnl;
    }
    np += pnl;
    if (pnl > best) best = pnl;
    if (pnl < worst) worst = pnl;
    equity += pnl;
    if (equity > peak) peak = equity;
    const dd = (equity - peak) / capital;
    if (dd < mdd) mdd = dd;
  }
  if (n === 0) return { n: 0, wins: 0, losses: 0, wr: 0, ret: 0, pf: 0, rr: 0, expect: 0, mdd: 0, np: 0, avg: 0, best: 0, worst: 0 };
  const noLoss = wins > 0 ? NO_LOSS_RATIO : 0;
  const avgWin = wins > 0 ? grossWin / wins : 0;
  return {
    n,
    wins,
    losses,
    wr: wins / n,
    ret: np / capital,
    pf: losses > 0 ? grossWin / -grossLoss : noLoss,
    rr: losses > 0 ? avgWin / (-grossLoss / losses) : noLoss,
    expect: np / n,
    mdd: mdd + 0,
    np,
    avg: np / n / capital,
    best: best / capital,
    worst: worst / capital,
  };
}
