/**
 * Closed trades as rows in chunks of Float64Array (no object per trade while a backtest runs, no copying),
 * turned into `ClosedTrade` objects only when asked. What follows from the engine's settings (lots,
 * units, commission, notional, pips) is derived when a trade is read, not stored.
 */
import type { ClosedTrade, ExitReason } from '../../schemas/backtest.ts';

export const REASONS: readonly ExitReason[] = ['SL', 'TP', 'signal', 'end'];
export const SL = 0;
export const TP = 1;
export const SIGNAL = 2;
export const END = 3;

/** Field offsets inside a row. */
export const F_SIDE = 0;
export const F_REASON = 1;
export const F_ENTRY_TS = 2;
export const F_EXIT_TS = 3;
export const F_ENTRY = 4;
export const F_EXIT = 5;
export const F_GROSS = 6;
export const F_SWAP = 7;
export const F_PNL = 8;
export const F_HELD = 9;
export const F_NIGHTS = 10;
/** The position's levels (±Infinity or NaN when it had none). */
export const F_STOP = 11;
export const F_TAKE = 12;
export const ROW = 13;

const level = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** The constants of the engine that wrote the log. */
export interface TradeLogSettings {
  lots: number;
  units: number;
  pipSize: number;
  /** USD per side for the whole position (commission per lot × lots). */
  commissionSide: number;
  /** true when the base currency is USD (notional = units), else notional = units × entry. */
  baseUsd: boolean;
}

/** -0 → 0, so values survive a JSON round trip unchanged (JSON has no negative zero). */
export const z0 = (x: number): number => x + 0;

/** Rows in the first chunk (a live engine rarely needs more), and in each later one. */
const FIRST_ROWS = 256;
const CHUNK_SHIFT = 13;
const CHUNK_ROWS = 1 << CHUNK_SHIFT;

export class TradeLog {
  /** The chunk the last append() reserved a row in (rows of ROW fields). Chunks never move or grow. */
  data: Float64Array = new Float64Array(FIRST_ROWS * ROW);
  private readonly chunks: Float64Array[] = [this.data];
  private n = 0;
  private free = FIRST_ROWS;

  constructor(private readonly settings: TradeLogSettings) {}

  get length(): number {
    return this.n;
  }

  /** Reserves one more row and returns its offset in `data` (read `data` after calling). */
  append(): number {
    if (this.free === 0) {
      this.data = new Float64Array(CHUNK_ROWS * ROW);
      this.chunks.push(this.data);
      this.free = CHUNK_ROWS;
    }
    const rows = this.data.length / ROW;
    const o = (rows - this.free) * ROW;
    this.free--;
    this.n++;
    return o;
  }

  /** Appends a trade read back from a snapshot (its derived fields are recomputed, not trusted). */
  pushTrade(t: ClosedTrade): void {
    const o = this.append();
    const d = this.data;
    d[o + F_SIDE] = t.side;
    d[o + F_REASON] = REASONS.indexOf(t.reason);
    d[o + F_ENTRY_TS] = t.entryTs;
    d[o + F_EXIT_TS] = t.exitTs;
    d[o + F_ENTRY] = t.entryPrice;
    d[o + F_EXIT] = t.exitPrice;
    d[o + F_GROSS] = t.grossPnl;
    d[o + F_SWAP] = t.swap;
    d[o + F_PNL] = t.pnl;
    d[o + F_HELD] = t.barsHeld;
    d[o + F_NIGHTS] = t.nights;
    d[o + F_STOP] = t.stopLoss ?? Number.NaN;
    d[o + F_TAKE] = t.takeProfit ?? Number.NaN;
  }

  get(k: number): ClosedTrade {
    const { lots, units, pipSize, commissionSide, baseUsd } = this.settings;
    const later = k - FIRST_ROWS;
    const d = later < 0 ? this.chunks[0]! : this.chunks[1 + (later >> CHUNK_SHIFT)]!;
    const o = (later < 0 ? k : later & (CHUNK_ROWS - 1)) * ROW;
    const side = d[o + F_SIDE]! > 0 ? 1 : -1;
    const entry = d[o + F_ENTRY]!;
    const exit = d[o + F_EXIT]!;
    return {
      side,
      entryTs: d[o + F_ENTRY_TS]!,
      exitTs: d[o + F_EXIT_TS]!,
      entryPrice: entry,
      exitPrice: exit,
      lots,
      units,
      reason: REASONS[d[o + F_REASON]!]!,
      pips: z0(((exit - entry) * side) / pipSize),
      grossPnl: d[o + F_GROSS]!,
      commission: 2 * commissionSide,
      swap: d[o + F_SWAP]!,
      pnl: d[o + F_PNL]!,
      barsHeld: d[o + F_HELD]!,
      nights: d[o + F_NIGHTS]!,
      notional: baseUsd ? units : units * entry,
      stopLoss: level(d[o + F_STOP]!),
      takeProfit: level(d[o + F_TAKE]!),
    };
  }

  toArray(): ClosedTrade[] {
    const out: ClosedTrade[] = new Array(this.n);
    for (let k = 0; k < this.n; k++) out[k] = this.get(k);
    return out;
  }

  clear(): void {
    this.chunks.length = 1;
    this.data = this.chunks[0]!;
    this.free = FIRST_ROWS;
    this.n = 0;
  }
}
