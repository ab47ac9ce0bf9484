/**
 * The position engine's core: signals in, fills and closed trades out, one bar at a time. The backtest
 * runs it over history (run.ts); a live model actor runs the same code on each closed bar, and can
 * stop and resume through `snapshot()` / `PositionEngine.restore()` without changing a trade.
 *
 * `step(bars, i, signal, mask)` handles bar i, in this order:
 *  1. swap: every 17:00 New York rollover R with previous bar < R ≤ this bar's open adds its
 *     nights to each open position (rollover.ts);
 *  2. at the open: an exit bit of the previous bar's mask (4: longs, 8: shorts) closes the open
 *     positions of that side ('signal'); then the previous bar's signal acts (a signal on bar t fills at the open of t+1):
 *     - opposite to the open positions: on_opposite reverse = close all, then open one on the
 *       signal's side if entry is allowed; close_only = close all; ignore = nothing;
 *     - same side or flat: open one more position if entry is allowed and fewer than
 *       max_positions are open;
 *     - 0 does nothing. Entry is allowed when the direction rule and the signal's entry mask
 *       (bit 1 long, bit 2 short) allow the side, this bar's open time passes opts.entryTimes
 *       (session hours and skipped days are judged on the bar the position opens at, the next
 *       bar that exists — after a weekend, Sunday's first) and no cooldown runs (a close on bar
 *       k blocks entries at the opens of bars k+1 … k+cooldown; a reverse at the closing open
 *       itself is not blocked by that close);
 *  3. inside the bar: each open position (also one opened at this open) against its own stop and
 *     take, longs on bid high/low, shorts on ask = bid + spread under fill_at_bid_ask (else bid):
 *     the bar opens beyond a level → fill at the open; reaches one → fill at the level; reaches
 *     both → the resolver says which came first, else the stop;
 *  3b. the trailing stop (opts.trail), after that check: each open position keeps its best price
 *     since entry — longs the highest bid high, shorts the lowest ask low under fill_at_bid_ask
 *     (else bid), the prices the stop check uses — starting at the entry price. Bar i updates the
 *     best, then the stop moves to best − distance (long) / best + distance (short) when that is
 *     tighter than the current stop; it never loosens, and the fixed stop stays as a floor (the
 *     tighter of both wins). A trail set from bar i therefore acts from bar i+1: no look-ahead
 *     inside a bar. At the entry the stop already starts at entry ∓ distance (with the ATR of
 *     the bars before). A hit is an ordinary stop close ('SL'; a gap through it fills at the open).
 *     Distance: pct = value × best; pips = value × pip size; atr = value × ATR(period) of the bars stepped, updated on
 *     every bar (flat too) with the indicator registry's recursion (src/lib/wilder.ts: true
 *     range, high − low on the first bar stepped, then ewm alpha 1/period, adjust=False);
 *  4. the bar's own signal is kept for the next open.
 * `finish(bars, i)` closes whatever is open at bar i's close ('end'); `nextOpen()`, asked after
 * step(i), tells the side bar i's signal will enter at the next open (a live actor announces it,
 * before that bar exists: the entry times are judged on its expected open, market-hours.ts).
 * Positions are kept in typed arrays with the nearest stop / take and the equity terms derived
 * (refresh) whenever they change, so a bar that reaches no level costs O(1) and nothing allocates
 * per bar; closed trades go to a columnar log (trade-log.ts).
 */
import { contractSize, levelDistance, usdLeg } from './money.ts';
import { entryHourTable, hourOfWeek } from './entry-times.ts';
import { expectedNextOpen } from './market-hours.ts';
import { checkOptions, CLOSE_ONLY, DIRECTION_MASK, IGNORE, ON_OPPOSITE, REVERSE } from './options.ts';
import { nextRollover, nightsOnWeekday, rolloverAfter, weekdayUtc } from './rollover.ts';
import { ewmStep, givenAlpha, trueRange } from '../lib/wilder.ts';
import {
  END,
  F_ENTRY,
  F_ENTRY_TS,
  F_EXIT,
  F_EXIT_TS,
  F_GROSS,
  F_HELD,
  F_NIGHTS,
  F_PNL,
  F_REASON,
  F_SIDE,
  F_STOP,
  F_SWAP,
  F_TAKE,
  SIGNAL,
  SL,
  TP,
  TradeLog,
  z0,
} from './trade-log.ts';
import { EXIT_LONG, EXIT_SHORT, type BarColumns, type EngineOptions, type IntrabarResolver, type Level } from './types.ts';

/** How a position closes (closeAt): the reason, and where the price comes from. */
const AT_STOP = SL; // the stop level
const AT_TAKE = TP; // the take level
const AT_OPEN_SIGNAL = SIGNAL; // the bar open
const AT_CLOSE_END = END; // the bar close
const AT_OPEN_SL = 4; // the bar open, beyond the stop (gap)
const AT_OPEN_TP = 5; // the bar open, beyond the take (gap)

/** Trailing stop units (opts.trail). */
export const TRAIL_NONE = 0;
const TRAIL_PCT = 1;
export const TRAIL_ATR = 2;
const TRAIL_PRICE = 3;

/** The engine's state and its bar-by-bar rules; PositionEngine (position-engine.ts) adds reading and persisting. */
export class EngineCore {
  protected readonly opts: EngineOptions;
  protected readonly leg: 'quote' | 'base';
  protected readonly baseUsd: boolean;
  protected readonly units: number;
  protected readonly weekends: boolean;
  protected readonly dirMask: number;
  protected readonly onOpposite: number;
  protected readonly maxPositions: number;
  protected readonly cooldown: number;
  protected readonly fill: boolean;
  protected readonly tfMs: number;
  protected readonly resolver: IntrabarResolver | null;
  /** The distance when it does not depend on the entry price (pips; usd on a USD-quoted pair), else NaN. */
  protected readonly stopFixed: number;
  protected readonly takeFixed: number;
  protected readonly commissionSide: number;
  protected readonly swapLongNight: number;
  protected readonly swapShortNight: number;
  protected readonly capital: number;
  protected readonly log: TradeLog;
  /** The trailing stop: TRAIL_NONE / TRAIL_PCT / TRAIL_PRICE / TRAIL_ATR, its value (pips as a price distance), and the ATR's alpha. */
  protected readonly trailUnit: number;
  protected readonly trailValue: number;
  protected readonly atrAlpha: number;
  /** Per hour of the week, whether a position may open at a bar opening then (opts.entryTimes); null = always. */
  protected readonly entryHours: Uint8Array | null;

  // State: all in the snapshot.
  protected bars = 0;
  protected lastTs = -Infinity;
  protected pendingSignal = 0;
  protected pendingMask = 3;
  protected side = 0;
  protected count = 0;
  protected blockedThrough = 0;
  protected nextRollAt = -Infinity;
  protected realized = 0;
  /** ATR of the bars stepped (NaN before the first) and the last close, when the trail is in ATR. */
  protected atr = NaN;
  protected prevClose = NaN;
  /** Open positions, oldest first: entry time, price, levels, entry bar (engine clock), swap nights. */
  protected readonly pEntryTs: Float64Array;
  protected readonly pEntry: Float64Array;
  protected readonly pStop: Float64Array;
  protected readonly pTake: Float64Array;
  protected readonly pEntryBar: Float64Array;
  protected readonly pNights: Float64Array;
  /** Best price since entry (trailing stop). */
  protected readonly pBest: Float64Array;

  // Derived from the open positions by refresh() whenever they change, so a bar that reaches no
  // level costs O(1): the nearest stop and take, the sums the mark-to-market equity needs.
  protected nearStop = 0;
  protected nearTake = 0;
  /**
   * Equity = eqBase + eqK · mark (USD-quoted) or eqBase + eqK / mark (USD-based), from
   * Σ_k [units·side·(mark − entry_k) (÷ mark) − commission + nights_k·swap] + capital + realized.
   */
  protected eqBase = 0;
  protected eqK = 0;
  /** Open shorts are marked at the ask (fill_at_bid_ask). */
  protected markAtAsk = false;

  /** @param keep 'pnl': log each closed trade's P&L and entry time only (TradeStats, no trades to read: the sweep). */
  constructor(opts: EngineOptions, keep: 'trades' | 'pnl' = 'trades') {
    checkOptions(opts);
    const { instrument, lotSize, maxPositions } = opts;
    this.opts = opts;
    this.leg = usdLeg(instrument);
    this.baseUsd = this.leg === 'base';
    this.units = lotSize * contractSize(instrument);
    this.weekends = instrument.weekends;
    this.dirMask = DIRECTION_MASK[opts.direction];
    this.onOpposite = ON_OPPOSITE[opts.onOpposite];
    this.maxPositions = maxPositions;
    this.cooldown = opts.cooldown;
    this.fill = opts.fillAtBidAsk;
    this.tfMs = opts.timeframeMs;
    this.resolver = opts.resolver ?? null;
    const fixed = (l: Level | null) =>
      l === null
        ? Infinity
        : l.unit === 'pips'
          ? l.value * instrument.pipSize
          : l.unit === 'usd' && !this.baseUsd
            ? l.value / this.units
            : NaN;
    this.stopFixed = fixed(opts.stop);
    this.takeFixed = fixed(opts.take);
    this.commissionSide = opts.commissionPerLot * lotSize;
    this.swapLongNight = opts.swapLong * lotSize;
    this.swapShortNight = opts.swapShort * lotSize;
    this.capital = opts.capital ?? 10_000;
    this.eqBase = this.capital;
    this.pEntryTs = new Float64Array(maxPositions);
    this.pEntry = new Float64Array(maxPositions);
    this.pStop = new Float64Array(maxPositions);
    this.pTake = new Float64Array(maxPositions);
    this.pEntryBar = new Float64Array(maxPositions);
    this.pNights = new Float64Array(maxPositions);
    this.pBest = new Float64Array(maxPositions);
    const trail = opts.trail ?? null;
    this.trailUnit = trail === null ? TRAIL_NONE : trail.unit === 'pct' ? TRAIL_PCT : trail.unit === 'pips' ? TRAIL_PRICE : TRAIL_ATR;
    this.trailValue = trail === null ? 0 : trail.unit === 'pips' ? trail.value * instrument.pipSize : trail.value;
    this.atrAlpha = trail?.unit === 'atr' ? givenAlpha(1 / trail.period) : NaN;
    this.entryHours = entryHourTable(opts.entryTimes);
    this.log = new TradeLog(
      { lots: lotSize, units: this.units, pipSize: instrument.pipSize, commissionSide: this.commissionSide, baseUsd: this.baseUsd },
      keep === 'trades',
    );
  }

  /** Handles bar i (see the file comment); `signal` (−1/0/1) and `entryMask` (entry and exit bits) belong to bar i's close. */
  step(bars: BarColumns, i: number, signal: number, entryMask = 3): void {
    const ts = bars.ts[i]!;
    if (!(ts > this.lastTs)) throw new RangeError(`step: bar ${i} (ts ${ts}) is not after the last bar stepped (ts ${this.lastTs})`);
    if (ts >= this.nextRollAt) this.rollOver(ts);
    this.lastTs = ts;
    const b = ++this.bars;
    if (this.count > 0 && (this.pendingMask & (this.side > 0 ? EXIT_LONG : EXIT_SHORT)) !== 0) this.closeAll(bars, i, AT_OPEN_SIGNAL, b);
    if (this.pendingSignal !== 0 && !this.full()) this.act(bars, i, b);
    // An open position far from its levels (the common case) costs the reach test alone, inlined here.
    if (this.count > 0 && this.reachesLevel(bars, i)) this.checkLevels(bars, i, b);
    if (this.trailUnit !== TRAIL_NONE) {
      if (this.trailUnit === TRAIL_ATR) this.updateAtr(bars, i);
      if (this.count > 0) this.trail(bars, i);
    }
    this.pendingSignal = signal > 0 ? 1 : signal < 0 ? -1 : 0;
    this.pendingMask = entryMask & 15;
  }

  /** step(bars, i, signals[i], masks[i]) for each bar i of [from, to) (the sweep's tiles). */
  stepRange(bars: BarColumns, from: number, to: number, signals: Int8Array, masks: Uint8Array): void {
    for (let i = from; i < to; i++) this.step(bars, i, signals[i]!, masks[i]!);
  }

  /** Closes every open position at bar i's close ('end'); bar i must be the last bar stepped. */
  finish(bars: BarColumns, i: number): void {
    if (bars.ts[i] !== this.lastTs) throw new RangeError(`finish: bar ${i} is not the last bar stepped`);
    if (this.count > 0) this.closeAll(bars, i, AT_CLOSE_END, this.bars);
    this.pendingSignal = 0;
  }

  /** Equity in USD at bar i's close: capital + closed net P&L + open positions marked to market. */
  equity(bars: BarColumns, i: number): number {
    const close = bars.close[i]!;
    const mark = this.markAtAsk ? close + bars.spread[i]! : close;
    return this.baseUsd ? this.eqBase + this.eqK / mark : this.eqBase + this.eqK * mark;
  }

  /** equity(bars, i) written to out[j] (no number crosses a call boundary: the backtest's hot loop). */
  writeEquity(bars: BarColumns, i: number, out: Float64Array, j: number): void {
    out[j] = this.equity(bars, i);
  }

  /** Adds the nights of every rollover R ≤ ts (and after the previous bar) to the open positions. */
  private rollOver(ts: number): void {
    if (this.lastTs === -Infinity) {
      this.nextRollAt = nextRollover(ts, this.weekends).at; // the first bar: nothing is open yet
      return;
    }
    let at = this.nextRollAt;
    while (at <= ts) {
      const nights = nightsOnWeekday(weekdayUtc(at), this.weekends);
      for (let k = 0; k < this.count; k++) this.pNights[k]! += nights;
      at = rolloverAfter(at, this.weekends);
    }
    this.nextRollAt = at;
    if (this.count > 0) this.refresh();
  }

  /**
   * The side the pending signal (the last bar's) will open at the next open — 1 or −1 — or 0 when
   * it opens nothing there. Exact: nothing else at that open changes whether it may open.
   */
  nextOpen(): 1 | -1 | 0 {
    const sig = this.pendingSignal;
    if (sig === 0) return 0;
    // An exit column closing the open side at the next open starts the cooldown there (step 1):
    // nothing opens at that bar, whatever the signal.
    if (this.count > 0 && (this.pendingMask & (this.side > 0 ? EXIT_LONG : EXIT_SHORT)) !== 0) return 0;
    const allowed = this.entryAllowed(sig, this.bars + 1, this.expectedNextTs());
    if (this.count > 0 && this.side !== sig) return this.onOpposite === REVERSE && allowed ? (sig as 1 | -1) : 0;
    return allowed && this.count < this.maxPositions ? (sig as 1 | -1) : 0;
  }

  /**
   * The open time expected of the bar after the last one stepped (market-hours.ts): exact unless
   * the feed has a gap there or the market keeps a holiday.
   */
  expectedNextTs(): number {
    return expectedNextOpen(this.lastTs, this.tfMs, this.weekends);
  }

  /** Whether a position may open at a bar opening at `ts` by opts.entryTimes (session hours, skipped days). */
  entryTimeAllowed(ts: number): boolean {
    const hours = this.entryHours;
    return hours === null || hours[hourOfWeek(ts)] === 1;
  }

  /** Direction rule, the signal's entry mask, the cooldown and the entry times, for an entry at bar b (engine clock) opening at `ts`. */
  private entryAllowed(sig: number, b: number, ts: number): boolean {
    return (
      b > this.blockedThrough &&
      (this.dirMask & this.pendingMask & (sig > 0 ? 1 : 2)) !== 0 &&
      (this.entryHours === null || this.entryHours[hourOfWeek(ts)] === 1)
    );
  }

  /** Already max_positions open on the pending signal's side: step 2 has nothing to do (a run of signals, the common case). */
  private full(): boolean {
    return this.side === this.pendingSignal && this.count >= this.maxPositions;
  }

  /** Step 2: the pending signal at bar i's open. */
  private act(bars: BarColumns, i: number, b: number): void {
    const sig = this.pendingSignal;
    const allowed = this.entryAllowed(sig, b, bars.ts[i]!);
    if (this.count > 0 && this.side !== sig) {
      if (this.onOpposite === IGNORE) return;
      this.closeAll(bars, i, AT_OPEN_SIGNAL, b);
      if (this.onOpposite === CLOSE_ONLY || !allowed) return;
    } else if (!allowed || this.count >= this.maxPositions) return;
    this.open(bars, i, sig);
  }

  private open(bars: BarColumns, i: number, sig: number): void {
    const open = bars.open[i]!;
    const entry = sig > 0 && this.fill ? open + bars.spread[i]! : open;
    const k = this.count++;
    this.side = sig;
    this.pEntryTs[k] = bars.ts[i]!;
    this.pEntry[k] = entry;
    let dStop = this.stopFixed;
    if (dStop !== dStop) dStop = levelDistance(this.opts.stop!, 'stop', sig, entry, this.units, this.opts.instrument, this.leg);
    let dTake = this.takeFixed;
    if (dTake !== dTake) dTake = levelDistance(this.opts.take!, 'take', sig, entry, this.units, this.opts.instrument, this.leg);
    this.pStop[k] = entry - sig * dStop;
    this.pTake[k] = entry + sig * dTake;
    this.pEntryBar[k] = this.bars;
    this.pNights[k] = 0;
    this.pBest[k] = entry;
    if (this.trailUnit !== TRAIL_NONE) this.tighten(k, sig, entry);
    this.refresh();
  }

  /** ATR after bar i: the registry's recursion over the bars stepped (see the file comment). */
  private updateAtr(bars: BarColumns, i: number): void {
    const prev = this.prevClose;
    const tr = trueRange(bars.high[i]!, bars.low[i]!, prev === prev ? prev : undefined);
    const atr = this.atr;
    this.atr = atr === atr ? ewmStep(atr, tr, this.atrAlpha) : tr;
    this.prevClose = bars.close[i]!;
  }

  /** Step 3b: the best prices take in bar i, the stops follow them (never looser). */
  private trail(bars: BarColumns, i: number): void {
    const sig = this.side;
    const long = sig > 0;
    const extreme = long ? bars.high[i]! : bars.low[i]! + (this.fill ? bars.spread[i]! : 0);
    for (let k = 0; k < this.count; k++) {
      const best = this.pBest[k]!;
      if (long ? extreme > best : extreme < best) this.pBest[k] = extreme;
      // Stops only tighten, so the nearest stop is the nearer of itself and a moved one (no rescan).
      const level = this.tighten(k, sig, this.pBest[k]!);
      if (long ? level > this.nearStop : level < this.nearStop) this.nearStop = level;
    }
  }

  /** Moves position k's stop to best ∓ the trail distance when that is tighter; the stop after. */
  private tighten(k: number, sig: number, best: number): number {
    const unit = this.trailUnit;
    const dist = unit === TRAIL_PCT ? this.trailValue * best : unit === TRAIL_PRICE ? this.trailValue : this.trailValue * this.atr;
    const level = best - sig * dist;
    const stop = this.pStop[k]!;
    // NaN (no ATR yet) compares false: the stop stays.
    if (sig > 0 ? level > stop : level < stop) return (this.pStop[k] = level);
    return stop;
  }

  /** Recomputes the nearest levels and the equity terms from the open positions (in order: deterministic). */
  protected refresh(): void {
    const long = this.side > 0;
    const c = this.count;
    let nearStop = long ? -Infinity : Infinity;
    let nearTake = long ? Infinity : -Infinity;
    let sumEntry = 0;
    let sumNights = 0;
    for (let k = 0; k < c; k++) {
      const stop = this.pStop[k]!;
      const take = this.pTake[k]!;
      if (long ? stop > nearStop : stop < nearStop) nearStop = stop;
      if (long ? take < nearTake : take > nearTake) nearTake = take;
      sumEntry += this.pEntry[k]!;
      sumNights += this.pNights[k]!;
    }
    this.nearStop = nearStop;
    this.nearTake = nearTake;
    const perPrice = this.units * this.side;
    const costs = sumNights * (long ? this.swapLongNight : this.swapShortNight) - c * this.commissionSide;
    // USD-quoted: Σ perPrice·(mark − entry_k) = c·perPrice·mark − perPrice·Σentry
    // USD-based:  Σ perPrice·(mark − entry_k) / mark = c·perPrice − perPrice·Σentry / mark
    this.eqBase = this.capital + this.realized + costs + (this.baseUsd ? c * perPrice : -perPrice * sumEntry);
    this.eqK = this.baseUsd ? -perPrice * sumEntry : c * perPrice;
    this.markAtAsk = this.side < 0 && this.fill;
  }

  /** Whether bar i may reach the nearest stop or take of the open positions (open lies between low and high); else step 3 has nothing to do. */
  private reachesLevel(bars: BarColumns, i: number): boolean {
    const long = this.side > 0;
    const off = !long && this.fill ? bars.spread[i]! : 0;
    return !(long
      ? bars.low[i]! + off > this.nearStop && bars.high[i]! + off < this.nearTake
      : bars.high[i]! + off < this.nearStop && bars.low[i]! + off > this.nearTake);
  }

  /** Step 3: stops and takes inside bar i (one that reachesLevel). */
  private checkLevels(bars: BarColumns, i: number, b: number): void {
    const long = this.side > 0;
    const off = !long && this.fill ? bars.spread[i]! : 0;
    const high = bars.high[i]! + off;
    const low = bars.low[i]! + off;
    const open = bars.open[i]! + off;
    const before = this.count;
    let k = 0;
    while (k < this.count) {
      const stop = this.pStop[k]!;
      const take = this.pTake[k]!;
      let how = -1;
      if (long ? open <= stop : open >= stop) how = AT_OPEN_SL;
      else if (long ? open >= take : open <= take) how = AT_OPEN_TP;
      else {
        const hitStop = long ? low <= stop : high >= stop;
        const hitTake = long ? high >= take : low <= take;
        if (hitStop && hitTake) how = this.takeCameFirst(bars, i, k, off) ? AT_TAKE : AT_STOP;
        else if (hitStop) how = AT_STOP;
        else if (hitTake) how = AT_TAKE;
      }
      if (how < 0) k++;
      else this.closeAt(k, how, bars, i);
    }
    if (this.count < before) {
      this.refresh();
      this.startCooldown(b);
    }
  }

  private takeCameFirst(bars: BarColumns, i: number, k: number, off: number): boolean {
    if (this.resolver === null) return false;
    const ts = bars.ts[i]!;
    return this.resolver.firstTouch(ts, ts + this.tfMs, this.side > 0, this.pStop[k]!, this.pTake[k]!, off) === 'TP';
  }

  private closeAll(bars: BarColumns, i: number, how: number, b: number): void {
    while (this.count > 0) this.closeAt(0, how, bars, i);
    this.refresh();
    this.startCooldown(b);
  }

  private startCooldown(b: number): void {
    if (b + this.cooldown > this.blockedThrough) this.blockedThrough = b + this.cooldown;
  }

  /**
   * Closes position k inside (or at the open / close of) bar i, logs the trade, keeps the rest in
   * entry order. `how` says the reason and the price: a level, the open or the close (a short
   * buys back at the ask under fill_at_bid_ask).
   */
  private closeAt(k: number, how: number, bars: BarColumns, i: number): void {
    const side = this.side;
    let price: number;
    if (how === AT_STOP) price = this.pStop[k]!;
    else if (how === AT_TAKE) price = this.pTake[k]!;
    else {
      price = how === AT_CLOSE_END ? bars.close[i]! : bars.open[i]!;
      if (side < 0 && this.fill) price += bars.spread[i]!;
    }
    const entry = this.pEntry[k]!;
    const nights = this.pNights[k]!;
    const quotePnl = this.units * (price - entry) * side;
    const gross = z0(this.baseUsd ? quotePnl / price : quotePnl);
    const swap = nights === 0 ? 0 : z0(nights * (side > 0 ? this.swapLongNight : this.swapShortNight));
    const pnl = z0(gross - 2 * this.commissionSide + swap);
    const o = this.log.append(pnl, this.pEntryTs[k]!);
    const d = this.log.data;
    d[o + F_SIDE] = side;
    d[o + F_REASON] = how & 3;
    d[o + F_ENTRY_TS] = this.pEntryTs[k]!;
    d[o + F_EXIT_TS] = bars.ts[i]!;
    d[o + F_ENTRY] = entry;
    d[o + F_EXIT] = price;
    d[o + F_GROSS] = gross;
    d[o + F_SWAP] = swap;
    d[o + F_PNL] = pnl;
    // bars the position was open in: from its entry bar to this one, which a signal exit (at its open) does not count
    d[o + F_HELD] = this.bars - this.pEntryBar[k]! + (how === AT_OPEN_SIGNAL ? 0 : 1);
    d[o + F_NIGHTS] = nights;
    d[o + F_STOP] = this.pStop[k]!;
    d[o + F_TAKE] = this.pTake[k]!;
    this.realized += pnl;
    const last = --this.count;
    for (let j = k; j < last; j++) {
      this.pEntryTs[j] = this.pEntryTs[j + 1]!;
      this.pEntry[j] = this.pEntry[j + 1]!;
      this.pStop[j] = this.pStop[j + 1]!;
      this.pTake[j] = this.pTake[j + 1]!;
      this.pEntryBar[j] = this.pEntryBar[j + 1]!;
      this.pNights[j] = this.pNights[j + 1]!;
      this.pBest[j] = this.pBest[j + 1]!;
    }
    if (last === 0) this.side = 0;
  }
}
