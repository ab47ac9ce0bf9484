/**
 * The random-entry baseline: could random entries have done as well? The strategy's trades keep
 * their sides and holding times (bars) and are entered at random bars of the same range, `runs`
 * times; the p-value is the share of runs whose return (and profit factor) reached the
 * strategy's, with the +1 correction ((k + 1) / (runs + 1)) that keeps it a valid p-value.
 *
 * What is simulated, exactly, for a trade of side s held h bars (h = its barsHeld, at least 1):
 *  - placement: when the holding times fit in the range side by side (Σh ≤ bars of the range, as
 *    with one position at a time), the trades are put in a random order and spread over the range
 *    without overlapping, every such arrangement equally likely (choose which of the F + n slots
 *    of F free bars and n trades hold trades). When they do not fit (the strategy held several
 *    positions at once), each trade is entered at a uniform random bar on its own;
 *  - the fill: entered at the open of its first bar e, closed at the close of its last bar
 *    e + h − 1 — the engine's prices: a long buys at the ask (open + spread) and sells at the
 *    bid, a short sells at the bid and buys back at the ask (close + that bar's spread) when
 *    fillAtBidAsk, else everything at the bid;
 *  - the money: USD P&L by money.ts (usdPnl, contractSize: the engine's own rules), commission
 *    commissionPerLot × lots on each side, swap nights × swapLong/swapShort × lots for each 17:00
 *    New York rollover R with entry open < R ≤ open of the last bar (rollover.ts, as the engine).
 *  - not simulated: stops, takes and trailing stops (the random trade's holding time is given),
 *    cooldown and the intrabar resolver — the baseline asks only "was the timing of entries worth
 *    anything", holding everything else about the trades fixed.
 */
import type { RandomBaseline } from '../../schemas/robustness.ts';
import { contractSize, nextRollover, NO_LOSS_RATIO, usdLeg, usdPnl, type BarColumns, type EngineOptions } from '../backtest/index.ts';
import { histogram, HISTOGRAM_BINS } from './histogram.ts';
import { randomInt, seededRandom } from '../lib/seeded-random.ts';

/** What a strategy trade contributes: its side, holding time in bars and net USD P&L. */
export interface BaselineTrade {
  side: 1 | -1;
  barsHeld: number;
  pnl: number;
}

export interface RandomBaselineInput {
  bars: BarColumns;
  /** The bars the strategy traded, `to` exclusive (the test span). */
  range: { from: number; to: number };
  /** The strategy's trades over the range. */
  trades: readonly BaselineTrade[];
  options: EngineOptions;
  runs?: number;
  seed: number;
  /** Histogram bins of the random runs' returns. */
  bins?: number;
}

/** Runs when none are asked for: the "at least 1,000". */
export const BASELINE_RUNS = 1000;

/** Profit factor by the rule of TradeStats.pf (999 with wins and no loss, 0 with neither). */
export function profitFactor(grossWin: number, grossLoss: number): number {
  if (grossLoss < 0) return grossWin / -grossLoss;
  return grossWin > 0 ? NO_LOSS_RATIO : 0;
}

/**
 * Swap nights charged between bar `from` and each bar of the range: cum[j] counts the nights of
 * the rollovers R with ts[from] < R ≤ ts[from + j], so a position entered at bar a and last held
 * in bar b pays cum[b − from] − cum[a − from] (rollover.ts's rule).
 */
function cumulativeNights(bars: BarColumns, from: number, to: number, weekends: boolean): Float64Array {
  const cum = new Float64Array(to - from);
  if (to <= from) return cum;
  let next = nextRollover(bars.ts[from]!, weekends);
  let nights = 0;
  for (let i = from; i < to; i++) {
    const ts = bars.ts[i]!;
    while (next.at <= ts) {
      nights += next.nights;
      next = nextRollover(next.at, weekends);
    }
    cum[i - from] = nights;
  }
  return cum;
}

/**
 * Sorts n distinct slots drawn uniformly from [0, m) in O(n): counted into n equal-width buckets
 * (about one slot each), laid out bucket by bucket, then an insertion sort that only moves slots
 * within their bucket. (A comparison sort per run was a third of the baseline's time.)
 */
export function sortSlots(slots: Int32Array, out: Int32Array, buckets: Int32Array, m: number): void {
  const n = slots.length;
  if (n < 2) return;
  buckets.fill(0);
  const scale = n / m;
  for (let i = 0; i < n; i++) buckets[((slots[i]! * scale) | 0) + 1]!++;
  for (let b = 1; b <= n; b++) buckets[b]! += buckets[b - 1]!;
  for (let i = 0; i < n; i++) out[buckets[(slots[i]! * scale) | 0]!++] = slots[i]!;
  for (let i = 1; i < n; i++) {
    const v = out[i]!;
    let j = i - 1;
    while (j >= 0 && out[j]! > v) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = v;
  }
  slots.set(out);
}

export function randomBaseline(input: RandomBaselineInput): RandomBaseline {
  const { bars, range, trades, options, seed, bins = HISTOGRAM_BINS } = input;
  const runs = input.runs ?? BASELINE_RUNS;
  const { from, to } = range;
  if (!(Number.isInteger(runs) && runs >= 1)) throw new RangeError(`randomBaseline: runs must be an integer ≥ 1, got ${runs}`);
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from < to && to <= bars.ts.length)) {
    throw new RangeError(`randomBaseline: range [${from}, ${to}) is not a non-empty range inside the ${bars.ts.length} bars`);
  }
  const capital = options.capital ?? 10_000;
  const n = trades.length;
  let strategyWin = 0;
  let strategyLoss = 0;
  for (const t of trades) {
    if (t.pnl > 0) strategyWin += t.pnl;
    else if (t.pnl < 0) strategyLoss += t.pnl;
  }
  const strategyReturn = (strategyWin + strategyLoss) / capital;
  const strategyPf = profitFactor(strategyWin, strategyLoss);

  const length = to - from;
  const sides = new Int8Array(n);
  const holds = new Int32Array(n);
  let held = 0;
  trades.forEach((t, i) => {
    sides[i] = t.side;
    holds[i] = Math.min(Math.max(1, Math.round(t.barsHeld)), length);
    held += holds[i]!;
  });

  const leg = usdLeg(options.instrument);
  const units = options.lotSize * contractSize(options.instrument);
  const commission = 2 * options.commissionPerLot * options.lotSize;
  const swapLong = options.swapLong * options.lotSize;
  const swapShort = options.swapShort * options.lotSize;
  const fill = options.fillAtBidAsk;
  const nights = swapLong !== 0 || swapShort !== 0 ? cumulativeNights(bars, from, to, options.instrument.weekends) : null;
  const { open, close, spread } = bars;
  /** Net USD P&L of a trade entered at the open of bar e and closed at the close of bar x. */
  const pnlOf = (side: number, e: number, x: number): number => {
    const entry = side > 0 && fill ? open[e]! + spread[e]! : open[e]!;
    const exit = side < 0 && fill ? close[x]! + spread[x]! : close[x]!;
    let pnl = usdPnl(leg, side, units, entry, exit) - commission;
    if (nights !== null) pnl += (nights[x - from]! - nights[e - from]!) * (side > 0 ? swapLong : swapShort);
    return pnl;
  };

  const random = seededRandom(seed);
  const returns = new Float64Array(runs);
  let kReturn = 0;
  let kPf = 0;
  const free = length - held;
  const packed = free >= 0;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const slots = new Int32Array(n);
  const buckets = new Int32Array(n + 1);
  const scratch = new Int32Array(n);
  const m = free + n;
  const taken = packed ? new Uint8Array(m) : null;
  // Many free slots (m ≥ 2n): draw each trade's slot in turn, redrawing taken ones — a uniformly
  // random ordered sample, so the trades' order comes free (≤ 1.4 draws a trade). Few: shuffle the
  // trades and pick the set by Floyd's algorithm (exactly n draws, however full the range).
  const byRejection = m >= 2 * n;
  const owner = taken !== null && byRejection ? new Int32Array(m) : null;
  for (let r = 0; r < runs; r++) {
    let win = 0;
    let loss = 0;
    if (taken !== null) {
      if (owner !== null) {
        for (let k = 0; k < n; k++) {
          let t = randomInt(random, m);
          while (taken[t]) t = randomInt(random, m);
          taken[t] = 1;
          owner[t] = k;
          slots[k] = t;
        }
      } else {
        // Random order of the trades (Fisher–Yates), then which of the m slots hold a trade (Floyd's sampling).
        for (let i = n - 1; i > 0; i--) {
          const j = randomInt(random, i + 1);
          const t = order[i]!;
          order[i] = order[j]!;
          order[j] = t;
        }
        for (let j = m - n, c = 0; j < m; j++, c++) {
          const t = randomInt(random, j + 1);
          const pick = taken[t] ? j : t;
          taken[pick] = 1;
          slots[c] = pick;
        }
      }
      sortSlots(slots, scratch, buckets, m);
      let usedBars = 0;
      for (let c = 0; c < n; c++) {
        const slot = slots[c]!;
        taken[slot] = 0;
        const k = owner !== null ? owner[slot]! : order[c]!;
        // slot − c free bars come before this trade, and the c trades placed before it.
        const e = from + slot - c + usedBars;
        const h = holds[k]!;
        usedBars += h;
        const pnl = pnlOf(sides[k]!, e, e + h - 1);
        if (pnl > 0) win += pnl;
        else if (pnl < 0) loss += pnl;
      }
    } else {
      for (let k = 0; k < n; k++) {
        const h = holds[k]!;
        const e = from + randomInt(random, length - h + 1);
        const pnl = pnlOf(sides[k]!, e, e + h - 1);
        if (pnl > 0) win += pnl;
        else if (pnl < 0) loss += pnl;
      }
    }
    const ret = (win + loss) / capital;
    returns[r] = ret;
    if (ret >= strategyReturn) kReturn++;
    if (profitFactor(win, loss) >= strategyPf) kPf++;
  }
  return {
    runs,
    seed,
    trades: n,
    return_p_value: (kReturn + 1) / (runs + 1),
    pf_p_value: (kPf + 1) / (runs + 1),
    strategy_return: strategyReturn,
    strategy_pf: strategyPf,
    returns: histogram(returns, bins),
  };
}
