/**
 * The position engine: signals in, fills and closed trades out, one bar at a time. The backtest
 * runs it over history (run.ts); a live model actor runs the same code on each closed bar, and can
 * stop and resume through `snapshot()` / `PositionEngine.restore()` without changing a trade.
 *
 * `step(bars, i, signal, mask)` handles bar i, in this order:
 *  1. swap: every 17:00 New York rollover R with previous bar < R ≤ this bar's open adds its
 *     nights to each open position (rollover.ts);
 *  2. at the open: the previous bar's signal acts (a signal on bar t fills at the open of t+1):
 *     - opposite to the open positions: on_opposite reverse = close all, then open one on the
 *       signal's side if entry is allowed; close_only = close all; ignore = nothing;
 *     - same side or flat: open one more position if entry is allowed and fewer than
 *       max_positions are open;
 *     - 0 does nothing. Entry is allowed when the direction rule and the signal's entry mask
 *       (bit 1 long, bit 2 short) allow the side and no cooldown runs (a close on bar k blocks
 *       entries at the opens of bars k+1 … k+cooldown; a reverse at the closing open itself is
 *       not blocked by that close);
 *  3. inside the bar: each open position (also one opened at this open) against its own stop and
 *     take, longs on bid high/low, shorts on ask = bid + spread under fill_at_bid_ask (else bid):
 *     the bar opens beyond a level → fill at the open; reaches one → fill at the level; reaches
 *     both → the resolver says which came first, else the stop;
 *  4. the bar's own signal is kept for the next open.
 * `finish(bars, i)` closes whatever is open at bar i's close ('end').
 */
import { EngineSnapshot, type ClosedTrade, type ExitReason } from '../../schemas/backtest.ts';
import { checkLevel, contractSize, levelDistance, usdLeg, usdNotional, usdPnl } from './money.ts';
import { nextRollover, nightsOnWeekday } from './rollover.ts';
import type { BarColumns, EngineOptions, IntrabarResolver, Level, OpenPosition } from './types.ts';

const REVERSE = 0;
const CLOSE_ONLY = 1;
const IGNORE = 2;

const DIRECTION_MASK = { both: 3, long: 1, short: 2 } as const;
const ON_OPPOSITE = { reverse: REVERSE, close_only: CLOSE_ONLY, ignore: IGNORE } as const;

/** -0 → 0, so values survive a JSON round trip unchanged (JSON has no negative zero). */
const z0 = (x: number): number => x + 0;

export class PositionEngine {
  private readonly opts: EngineOptions;
  private readonly leg: 'quote' | 'base';
  private readonly lots: number;
  private readonly units: number;
  private readonly pipSize: number;
  private readonly weekends: boolean;
  private readonly dirMask: number;
  private readonly onOpposite: number;
  private readonly maxPositions: number;
  private readonly cooldown: number;
  private readonly fill: boolean;
  private readonly tfMs: number;
  private readonly resolver: IntrabarResolver | null;
  private readonly stopLevel: Level | null;
  private readonly takeLevel: Level | null;
  private readonly commissionSide: number;
  private readonly swapLongNight: number;
  private readonly swapShortNight: number;
  private readonly capital: number;

  // State (all of it in the snapshot).
  private bars = 0;
  private lastTs = -Infinity;
  private pendingSignal = 0;
  private pendingMask = 3;
  private side = 0;
  private count = 0;
  private blockedThrough = 0;
  private nextRollAt = NaN;
  private realized = 0;
  private closed: ClosedTrade[] = [];
  private readonly pEntryTs: Float64Array;
  private readonly pEntry: Float64Array;
  private readonly pStop: Float64Array;
  private readonly pTake: Float64Array;
  private readonly pHeld: Float64Array;
  private readonly pNights: Float64Array;

  constructor(opts: EngineOptions) {
    const { instrument, lotSize, maxPositions, cooldown, timeframeMs } = opts;
    if (!(Number.isFinite(lotSize) && lotSize > 0)) throw new RangeError(`lotSize must be > 0, got ${lotSize}`);
    if (!(Number.isInteger(maxPositions) && maxPositions >= 1)) throw new RangeError(`maxPositions must be an integer ≥ 1, got ${maxPositions}`);
    if (!(Number.isInteger(cooldown) && cooldown >= 0)) throw new RangeError(`cooldown must be an integer ≥ 0, got ${cooldown}`);
    if (!(Number.isFinite(timeframeMs) && timeframeMs > 0)) throw new RangeError(`timeframeMs must be > 0, got ${timeframeMs}`);
    if (!(opts.commissionPerLot >= 0 && Number.isFinite(opts.commissionPerLot))) throw new RangeError(`commissionPerLot must be ≥ 0, got ${opts.commissionPerLot}`);
    if (!Number.isFinite(opts.swapLong) || !Number.isFinite(opts.swapShort)) throw new RangeError('swapLong / swapShort must be finite');
    if (!(opts.direction in DIRECTION_MASK)) throw new RangeError(`direction must be both, long or short, got ${opts.direction}`);
    if (!(opts.onOpposite in ON_OPPOSITE)) throw new RangeError(`onOpposite must be reverse, close_only or ignore, got ${opts.onOpposite}`);
    checkLevel('stop', opts.stop);
    checkLevel('take', opts.take);
    this.opts = opts;
    this.leg = usdLeg(instrument);
    this.lots = lotSize;
    this.units = lotSize * contractSize(instrument);
    this.pipSize = instrument.pipSize;
    this.weekends = instrument.weekends;
    this.dirMask = DIRECTION_MASK[opts.direction];
    this.onOpposite = ON_OPPOSITE[opts.onOpposite];
    this.maxPositions = maxPositions;
    this.cooldown = cooldown;
    this.fill = opts.fillAtBidAsk;
    this.tfMs = timeframeMs;
    this.resolver = opts.resolver ?? null;
    this.stopLevel = opts.stop;
    this.takeLevel = opts.take;
    this.commissionSide = opts.commissionPerLot * lotSize;
    this.swapLongNight = opts.swapLong * lotSize;
    this.swapShortNight = opts.swapShort * lotSize;
    this.capital = opts.capital ?? 10_000;
    this.pEntryTs = new Float64Array(maxPositions);
    this.pEntry = new Float64Array(maxPositions);
    this.pStop = new Float64Array(maxPositions);
    this.pTake = new Float64Array(maxPositions);
    this.pHeld = new Float64Array(maxPositions);
    this.pNights = new Float64Array(maxPositions);
  }

  /** Handles bar i (see the file comment); `signal` (−1/0/1) and `entryMask` belong to bar i's close. */
  step(bars: BarColumns, i: number, signal: number, entryMask = 3): void {
    const ts = bars.ts[i]!;
    if (!(ts > this.lastTs)) throw new RangeError(`step: bar ${i} (ts ${ts}) is not after the last bar stepped (ts ${this.lastTs})`);
    if (this.lastTs === -Infinity) this.nextRollAt = nextRollover(ts, this.weekends).at;
    else if (ts >= this.nextRollAt) this.rollOver(ts);
    this.lastTs = ts;
    const b = ++this.bars;
    if (this.pendingSignal !== 0) this.act(bars, i, b, ts);
    if (this.count > 0) this.checkLevels(bars, i, b, ts);
    this.pendingSignal = signal > 0 ? 1 : signal < 0 ? -1 : 0;
    this.pendingMask = entryMask & 3;
  }

  /** Closes every open position at bar i's close ('end'); bar i must be the last bar stepped. */
  finish(bars: BarColumns, i: number): void {
    if (bars.ts[i] !== this.lastTs) throw new RangeError(`finish: bar ${i} is not the last bar stepped`);
    if (this.count > 0) {
      const close = bars.close[i]!;
      this.closeAll(this.side < 0 && this.fill ? close + bars.spread[i]! : close, 'end', this.lastTs, this.bars);
    }
    this.pendingSignal = 0;
  }

  /** Equity in USD at bar i's close: capital + closed net P&L + open positions marked to market. */
  equity(bars: BarColumns, i: number): number {
    let e = this.capital + this.realized;
    if (this.count === 0) return e;
    const close = bars.close[i]!;
    const side = this.side;
    const mark = side < 0 && this.fill ? close + bars.spread[i]! : close;
    const swap = side > 0 ? this.swapLongNight : this.swapShortNight;
    for (let k = 0; k < this.count; k++) {
      e += usdPnl(this.leg, side, this.units, this.pEntry[k]!, mark) - this.commissionSide + this.pNights[k]! * swap;
    }
    return e;
  }

  /** Trades closed so far (those not drained), in exit order. */
  closedTrades(): ClosedTrade[] {
    return this.closed.slice();
  }

  /** The trades closed since the last drain, removed from the engine (a live actor's outbox). */
  drainClosed(): ClosedTrade[] {
    const out = this.closed;
    this.closed = [];
    return out;
  }

  openPositions(): OpenPosition[] {
    const out: OpenPosition[] = [];
    for (let k = 0; k < this.count; k++) {
      out.push({
        side: this.side > 0 ? 1 : -1,
        entryTs: this.pEntryTs[k]!,
        entryPrice: this.pEntry[k]!,
        stopLoss: finiteOrNull(this.pStop[k]!),
        takeProfit: finiteOrNull(this.pTake[k]!),
        barsHeld: this.pHeld[k]!,
        nights: this.pNights[k]!,
        units: this.units,
      });
    }
    return out;
  }

  /** Net USD P&L of every trade closed so far (drained ones included). */
  get realizedPnl(): number {
    return this.realized;
  }

  /** The whole state as plain JSON-safe data. */
  snapshot(): EngineSnapshot {
    const positions: EngineSnapshot['positions'] = [];
    for (let k = 0; k < this.count; k++) {
      positions.push({
        entryTs: this.pEntryTs[k]!,
        entryPrice: this.pEntry[k]!,
        stopLoss: finiteOrNull(this.pStop[k]!),
        takeProfit: finiteOrNull(this.pTake[k]!),
        barsHeld: this.pHeld[k]!,
        nights: this.pNights[k]!,
      });
    }
    return {
      version: 1,
      bars: this.bars,
      lastTs: this.lastTs === -Infinity ? null : this.lastTs,
      pendingSignal: this.pendingSignal as -1 | 0 | 1,
      pendingMask: this.pendingMask,
      side: this.side as -1 | 0 | 1,
      positions,
      blockedThrough: this.blockedThrough,
      nextRollover: Number.isNaN(this.nextRollAt) ? null : this.nextRollAt,
      realized: this.realized,
      closed: this.closed.map((t) => ({ ...t })),
    };
  }

  /** An engine in the state `snapshot()` described (parsed and checked; same options expected). */
  static restore(opts: EngineOptions, snap: unknown): PositionEngine {
    const s = EngineSnapshot.parse(snap);
    const engine = new PositionEngine(opts);
    if (s.positions.length > engine.maxPositions) throw new RangeError(`restore: ${s.positions.length} open positions, maxPositions is ${engine.maxPositions}`);
    if ((s.positions.length === 0) !== (s.side === 0)) throw new RangeError('restore: side and positions disagree');
    if ((s.lastTs === null) !== (s.nextRollover === null)) throw new RangeError('restore: lastTs and nextRollover disagree');
    engine.bars = s.bars;
    engine.lastTs = s.lastTs ?? -Infinity;
    engine.pendingSignal = s.pendingSignal;
    engine.pendingMask = s.pendingMask;
    engine.side = s.side;
    engine.blockedThrough = s.blockedThrough;
    engine.nextRollAt = s.nextRollover ?? NaN;
    engine.realized = s.realized;
    engine.closed = s.closed.map((t) => ({ ...t }));
    engine.count = s.positions.length;
    const long = s.side > 0;
    s.positions.forEach((p, k) => {
      engine.pEntryTs[k] = p.entryTs;
      engine.pEntry[k] = p.entryPrice;
      engine.pStop[k] = p.stopLoss ?? (long ? -Infinity : Infinity);
      engine.pTake[k] = p.takeProfit ?? (long ? Infinity : -Infinity);
      engine.pHeld[k] = p.barsHeld;
      engine.pNights[k] = p.nights;
    });
    return engine;
  }

  /** Adds the nights of every rollover R ≤ ts (and after the previous bar) to the open positions. */
  private rollOver(ts: number): void {
    let at = this.nextRollAt;
    while (at <= ts) {
      const nights = nightsOnWeekday(new Date(at).getUTCDay(), this.weekends);
      for (let k = 0; k < this.count; k++) this.pNights[k]! += nights;
      at = nextRollover(at, this.weekends).at;
    }
    this.nextRollAt = at;
  }

  /** Step 2: the pending signal at bar i's open. */
  private act(bars: BarColumns, i: number, b: number, ts: number): void {
    const sig = this.pendingSignal;
    const allowed = b > this.blockedThrough && (this.dirMask & this.pendingMask & (sig > 0 ? 1 : 2)) !== 0;
    if (this.count > 0 && this.side !== sig) {
      if (this.onOpposite === IGNORE) return;
      const open = bars.open[i]!;
      this.closeAll(this.side < 0 && this.fill ? open + bars.spread[i]! : open, 'signal', ts, b);
      if (this.onOpposite === CLOSE_ONLY || !allowed) return;
    } else if (!allowed || this.count >= this.maxPositions) return;
    this.open(bars, i, ts, sig);
  }

  private open(bars: BarColumns, i: number, ts: number, sig: number): void {
    const open = bars.open[i]!;
    const entry = sig > 0 && this.fill ? open + bars.spread[i]! : open;
    const k = this.count++;
    this.side = sig;
    this.pEntryTs[k] = ts;
    this.pEntry[k] = entry;
    const dStop = this.stopLevel ? levelDistance(this.stopLevel, 'stop', sig, entry, this.units, this.opts.instrument, this.leg) : Infinity;
    const dTake = this.takeLevel ? levelDistance(this.takeLevel, 'take', sig, entry, this.units, this.opts.instrument, this.leg) : Infinity;
    this.pStop[k] = entry - sig * dStop;
    this.pTake[k] = entry + sig * dTake;
    this.pHeld[k] = 0;
    this.pNights[k] = 0;
  }

  /** Step 3: stops and takes inside bar i. */
  private checkLevels(bars: BarColumns, i: number, b: number, ts: number): void {
    const long = this.side > 0;
    const off = !long && this.fill ? bars.spread[i]! : 0;
    const open = bars.open[i]! + off;
    const high = bars.high[i]! + off;
    const low = bars.low[i]! + off;
    const before = this.count;
    let k = 0;
    while (k < this.count) {
      this.pHeld[k]! += 1;
      const stop = this.pStop[k]!;
      const take = this.pTake[k]!;
      let reason: ExitReason | null = null;
      let price = 0;
      if (long ? open <= stop : open >= stop) {
        reason = 'SL';
        price = open;
      } else if (long ? open >= take : open <= take) {
        reason = 'TP';
        price = open;
      } else {
        const hitStop = long ? low <= stop : high >= stop;
        const hitTake = long ? high >= take : low <= take;
        if (hitStop && hitTake && this.resolver !== null && this.resolver.firstTouch(ts, ts + this.tfMs, long, stop, take, off) === 'TP') {
          reason = 'TP';
          price = take;
        } else if (hitStop) {
          reason = 'SL';
          price = stop;
        } else if (hitTake) {
          reason = 'TP';
          price = take;
        }
      }
      if (reason === null) k++;
      else this.closeAt(k, price, reason, ts);
    }
    if (this.count < before) this.startCooldown(b);
  }

  private closeAll(price: number, reason: ExitReason, ts: number, b: number): void {
    while (this.count > 0) this.closeAt(0, price, reason, ts);
    this.startCooldown(b);
  }

  private startCooldown(b: number): void {
    if (b + this.cooldown > this.blockedThrough) this.blockedThrough = b + this.cooldown;
  }

  /** Closes position k at `price` (bar open time `ts`), records the trade, keeps the rest in entry order. */
  private closeAt(k: number, price: number, reason: ExitReason, ts: number): void {
    const side = this.side;
    const entry = this.pEntry[k]!;
    const nights = this.pNights[k]!;
    const gross = z0(usdPnl(this.leg, side, this.units, entry, price));
    const commission = 2 * this.commissionSide;
    const swap = nights === 0 ? 0 : nights * (side > 0 ? this.swapLongNight : this.swapShortNight);
    const pnl = z0(gross - commission + swap);
    this.closed.push({
      side: side > 0 ? 1 : -1,
      entryTs: this.pEntryTs[k]!,
      exitTs: ts,
      entryPrice: entry,
      exitPrice: price,
      lots: this.lots,
      units: this.units,
      reason,
      pips: z0(((price - entry) * side) / this.pipSize),
      grossPnl: gross,
      commission,
      swap: z0(swap),
      pnl,
      barsHeld: this.pHeld[k]!,
      nights,
      notional: usdNotional(this.leg, this.units, entry),
    });
    this.realized += pnl;
    const last = --this.count;
    for (let j = k; j < last; j++) {
      this.pEntryTs[j] = this.pEntryTs[j + 1]!;
      this.pEntry[j] = this.pEntry[j + 1]!;
      this.pStop[j] = this.pStop[j + 1]!;
      this.pTake[j] = this.pTake[j + 1]!;
      this.pHeld[j] = this.pHeld[j + 1]!;
      this.pNights[j] = this.pNights[j + 1]!;
    }
    if (last === 0) this.side = 0;
  }
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
