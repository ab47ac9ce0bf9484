/**
 * Closed trades as rows in chunks of Float64Array (no object per trade while a backtest runs, rows never copied; the P&L also in a column of its own),
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

/**
 * Rows in the first chunk (a live engine rarely needs more); each later chunk doubles, up to
 * CHUNK_ROWS (a run of a few hundred trades allocates kilobytes, not a fixed large chunk).
 */
const FIRST_SHIFT = 8;
const FIRST_ROWS = 1 << FIRST_SHIFT;
const CHUNK_SHIFT = 13;
const CHUNK_ROWS = 1 << CHUNK_SHIFT;
/** Chunks 0 … GROWING−1 double (256 … 8,192 rows); the rows they hold together. */
const GROWING = CHUNK_SHIFT - FIRST_SHIFT + 1;
const GROWING_ROWS = FIRST_ROWS * ((1 << GROWING) - 1);

/** A column twice as long, with the values so far. */
function grown(column: Float64Array): Float64Array<ArrayBuffer> {
  const out = new Float64Array(2 * column.length);
  out.set(column);
  return out;
}

export class TradeLog {
  /** The chunk the last append() reserved a row in (rows of ROW fields). Chunks never move or grow. */
  data: Float64Array;
  private readonly chunks: Float64Array[];
  /** Every trade's net P&L and entry time, in order (kept also when the rows are not). */
  private pnl = new Float64Array(FIRST_ROWS);
  private entryTs = new Float64Array(FIRST_ROWS);
  private n = 0;
  private free: number;

  /**
   * @param rows false: keep the P&L and entry time alone (pnls(), entryTimes()); the rows are written to one scratch row and
   *             dropped, so get() / toArray() refuse (the sweep's trials, which need only TradeStats).
   */
  constructor(
    private readonly settings: TradeLogSettings,
    private readonly rows = true,
  ) {
    this.data = new Float64Array((rows ? FIRST_ROWS : 1) * ROW);
    this.chunks = [this.data];
    this.free = rows ? FIRST_ROWS : Infinity;
  }

  get length(): number {
    return this.n;
  }

  /** Records a trade of net P&L `pnl` entered at `entryTs`; returns the offset in `data` of its row (read `data` after calling). */
  append(pnl: number, entryTs: number): number {
    const k = this.n++;
    if (k === this.pnl.length) {
      this.pnl = grown(this.pnl);
      this.entryTs = grown(this.entryTs);
    }
    this.pnl[k] = pnl;
    this.entryTs[k] = entryTs;
    if (!this.rows) return 0;
    if (this.free === 0) {
      const c = this.chunks.length;
      this.data = new Float64Array((c < GROWING ? FIRST_ROWS << c : CHUNK_ROWS) * ROW);
      this.chunks.push(this.data);
      this.free = this.data.length / ROW;
    }
    const o = (this.data.length / ROW - this.free) * ROW;
    this.free--;
    return o;
  }

  /** The net P&L of every trade, in order (what TradeStats needs, without making the trades): a view, valid until the next append or clear. */
  pnls(): Float64Array {
    return this.pnl.subarray(0, this.n);
  }

  /** The entry time of every trade, in order (a view, like pnls()). */
  entryTimes(): Float64Array {
    return this.entryTs.subarray(0, this.n);
  }

  /** Appends a trade read back from a snapshot (its derived fields are recomputed, not trusted). */
  pushTrade(t: ClosedTrade): void {
    const o = this.append(t.pnl, t.entryTs);
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
    if (!this.rows) throw new Error("TradeLog: this log keeps each trade's P&L only (make it with rows = true to read trades)");
    const { lots, units, pipSize, commissionSide, baseUsd } = this.settings;
    let c: number;
    let row: number;
    if (k < GROWING_ROWS) {
      c = 31 - Math.clz32((k >> FIRST_SHIFT) + 1);
      row = k - FIRST_ROWS * ((1 << c) - 1);
    } else {
      c = GROWING + ((k - GROWING_ROWS) >> CHUNK_SHIFT);
      row = (k - GROWING_ROWS) & (CHUNK_ROWS - 1);
    }
    const d = this.chunks[c]!;
    const o = row * ROW;
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
    this.free = this.rows ? FIRST_ROWS : Infinity;
    this.n = 0;
  }
}
