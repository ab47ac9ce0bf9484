/**
 * The position engine (rules: engine-core.ts), with what a backtest and a live actor read from it —
 * closed trades, open positions — and its snapshot: a live actor stores it after each bar and
 * `PositionEngine.restore()` resumes exactly where it stopped, trade for trade.
 */
import { EngineSnapshot, type ClosedTrade, type OpenPositionState } from '../../schemas/backtest.ts';
import { EngineCore, TRAIL_ATR, TRAIL_NONE } from './engine-core.ts';
import type { EngineOptions, OpenPosition } from './types.ts';

const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

export class PositionEngine extends EngineCore {
  /** Trades closed so far (those not drained), in exit order, as new objects. */
  closedTrades(): ClosedTrade[] {
    return this.log.toArray();
  }

  /** The net P&L of the trades closedTrades() would give, in the same order (TradeStats without the objects); a view, valid until the engine steps on. */
  closedPnls(): Float64Array {
    return this.log.pnls();
  }

  /** The entry time of each trade closedTrades() would give, in the same order (a view, like closedPnls()). */
  closedEntryTimes(): Float64Array {
    return this.log.entryTimes();
  }

  /** How many trades closedTrades() would give. */
  get closedCount(): number {
    return this.log.length;
  }

  /** The trades closed since the last drain, removed from the engine (a live actor's outbox). */
  drainClosed(): ClosedTrade[] {
    const out = this.log.toArray();
    this.log.clear();
    return out;
  }

  openPositions(): OpenPosition[] {
    const side = this.side > 0 ? 1 : -1;
    return this.positionStates().map((p) => ({ side, ...p, units: this.units }));
  }

  private positionStates(): OpenPositionState[] {
    return Array.from({ length: this.count }, (_, k) => ({
      entryTs: this.pEntryTs[k]!,
      entryPrice: this.pEntry[k]!,
      stopLoss: finiteOrNull(this.pStop[k]!),
      takeProfit: finiteOrNull(this.pTake[k]!),
      barsHeld: this.bars - this.pEntryBar[k]! + 1,
      nights: this.pNights[k]!,
      ...(this.trailUnit !== TRAIL_NONE ? { best: this.pBest[k]! } : {}),
    }));
  }

  /** Net USD P&L of every trade closed so far (drained ones included). */
  get realizedPnl(): number {
    return this.realized;
  }

  /** The whole state as plain JSON-safe data. */
  snapshot(): EngineSnapshot {
    return {
      version: 1,
      bars: this.bars,
      lastTs: this.lastTs === -Infinity ? null : this.lastTs,
      pendingSignal: this.pendingSignal as -1 | 0 | 1,
      pendingMask: this.pendingMask,
      side: this.side as -1 | 0 | 1,
      positions: this.positionStates(),
      blockedThrough: this.blockedThrough,
      nextRollover: this.lastTs === -Infinity ? null : this.nextRollAt,
      realized: this.realized,
      closed: this.log.toArray(),
      ...(this.atr === this.atr ? { atr: { value: this.atr, prevClose: this.prevClose } } : {}),
    };
  }

  /** An engine in the state `snapshot()` described (parsed and checked; same options expected). */
  static restore(opts: EngineOptions, snap: unknown): PositionEngine {
    const s = EngineSnapshot.parse(snap);
    const engine = new PositionEngine(opts);
    if (s.positions.length > engine.maxPositions)
      throw new RangeError(`restore: ${s.positions.length} open positions, maxPositions is ${engine.maxPositions}`);
    if ((s.positions.length === 0) !== (s.side === 0)) throw new RangeError('restore: side and positions disagree');
    if ((s.lastTs === null) !== (s.nextRollover === null)) throw new RangeError('restore: lastTs and nextRollover disagree');
    engine.bars = s.bars;
    engine.lastTs = s.lastTs ?? -Infinity;
    engine.pendingSignal = s.pendingSignal;
    engine.pendingMask = s.pendingMask;
    engine.side = s.side;
    engine.blockedThrough = s.blockedThrough;
    engine.nextRollAt = s.nextRollover ?? -Infinity;
    engine.realized = s.realized;
    // A snapshot from before the ATR trail (or from an engine without it): the ATR starts again.
    if (s.atr && engine.trailUnit === TRAIL_ATR) {
      engine.atr = s.atr.value;
      engine.prevClose = s.atr.prevClose;
    }
    for (const t of s.closed) engine.log.pushTrade(t);
    engine.count = s.positions.length;
    const long = s.side > 0;
    s.positions.forEach((p, k) => {
      engine.pEntryTs[k] = p.entryTs;
      engine.pEntry[k] = p.entryPrice;
      engine.pStop[k] = p.stopLoss ?? (long ? -Infinity : Infinity);
      engine.pTake[k] = p.takeProfit ?? (long ? Infinity : -Infinity);
      engine.pEntryBar[k] = s.bars - p.barsHeld + 1;
      engine.pNights[k] = p.nights;
      engine.pBest[k] = p.best ?? p.entryPrice;
    });
    engine.refresh();
    return engine;
  }
}
