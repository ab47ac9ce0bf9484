/**
 * The compact form of a tick batch on NATS (`ticks.<SYMBOL>`): a binary frame about a tenth the
 * size of the JSON array, for feeds that publish at high rates. Every tick message is stored in
 * the TICKS stream before it is read, and nats-server's cost there grows with the bytes: at ~50
 * bytes a tick in JSON it took most of a core on 2 cores (market-ingest), more than the service.
 *
 *   bytes 0–3   "SFT" 0x01 (a JSON payload starts with `[`, `{` or white space: never this)
 *   byte  4     digits d: prices are integers of 10^-d
 *   byte  5     flags: bit 0 = a bid_volume column follows the ticks
 *   varint      n, the number of ticks
 *   n × ( zigzag varint ts − previous ts (the first: ts itself),
 *         zigzag varint bid points − previous bid points (the first: the points),
 *         zigzag varint ask points − bid points )
 *   [n × float64 LE bid_volume, −1 = absent]
 *
 * A tick decoded from a frame is judged by the same rules as a JSON one (TickMessage): a frame that
 * is cut short or malformed counts as one malformed record, a tick that breaks a rule as one.
 */
import type { TickColumns } from '../../store/index.ts';
import type { ColumnsDecodeResult } from './columns-decoder.ts';
import { tickNumbersOk, type DecodeResult, type TickMessage } from './tick-decoder.ts';

const MAGIC = [0x53, 0x46, 0x54, 0x01] as const;
const HEADER = 6;
const HAS_BID_VOLUME = 1;
/** Bytes a tick takes at least (three varints): a frame claiming more ticks than its bytes hold is broken, not allocated for. */
const MIN_TICK_BYTES = 3;

/** Whether a payload is a tick frame (else it is JSON). */
export function isTickFrame(payload: Uint8Array): boolean {
  return (
    payload.length >= HEADER && payload[0] === MAGIC[0] && payload[1] === MAGIC[1] && payload[2] === MAGIC[2] && payload[3] === MAGIC[3]
  );
}

/**
 * The frame of `ticks` with prices of `digits` decimals, or null when they do not fit it exactly
 * (a price with more decimals, a timestamp that is not an integer, an ask_volume): those go as JSON.
 */
export function encodeTickFrame(ticks: readonly TickMessage[], digits: number): Uint8Array | null {
  if (!Number.isInteger(digits) || digits < 0 || digits > 10 || ticks.length === 0) return null;
  const scale = 10 ** digits;
  const points = (price: number): number | null => {
    const p = Math.round(price * scale);
    return Number.isSafeInteger(p) && p / scale === price ? p : null;
  };
  const hasVolume = ticks.some((t) => t.bid_volume !== undefined);
  const out = new Writer(HEADER + 5 + ticks.length * (hasVolume ? 20 : 12));
  out.bytes(MAGIC);
  out.byte(digits);
  out.byte(hasVolume ? HAS_BID_VOLUME : 0);
  out.varint(ticks.length);
  let ts = 0;
  let bid = 0;
  for (const t of ticks) {
    const b = points(t.bid);
    const a = points(t.ask);
    if (b === null || a === null || !Number.isSafeInteger(t.ts) || t.ask_volume !== undefined) return null;
    out.zigzag(t.ts - ts);
    out.zigzag(b - bid);
    out.zigzag(a - b);
    ts = t.ts;
    bid = b;
  }
  if (hasVolume) for (const t of ticks) out.float64(t.bid_volume ?? -1);
  return out.done();
}

/** The ticks of a frame as a JSON payload decodes them (decodeTicks); never throws. */
export function decodeTickFrame(payload: Uint8Array): DecodeResult {
  const rows = new PlainRows();
  if (!readFrame(payload, rows)) return { ticks: [], malformed: 1, problem: BROKEN };
  const ticks: TickMessage[] = [];
  let malformed = 0;
  let firstBad: unknown = undefined;
  for (let i = 0; i < rows.length; i++) {
    if (rowOk(rows, i)) ticks.push(rowTick(rows, i));
    else if (malformed++ === 0) firstBad = rowTick(rows, i);
  }
  return malformed > 0 ? { ticks, malformed, problem: { kind: 'tick', value: firstBad } } : { ticks, malformed: 0 };
}

/** Appends a frame's valid ticks to `out` (seq left 0), counting rejected records as decodeTickFrame does; no object per tick. */
export function decodeTickFrameInto(payload: Uint8Array, out: TickColumns): ColumnsDecodeResult {
  const start = out.length;
  if (!readFrame(payload, out)) {
    out.length = start;
    return { ticks: 0, malformed: 1, problem: BROKEN };
  }
  let kept = start;
  let malformed = 0;
  let firstBad: unknown = undefined;
  for (let i = start; i < out.length; i++) {
    if (!rowOk(out, i)) {
      if (malformed++ === 0) firstBad = rowTick(out, i);
      continue;
    }
    if (i !== kept) out.move(i, kept);
    if (out.volume[kept] === ABSENT) out.volume[kept] = 0;
    out.seq[kept] = 0;
    kept++;
  }
  out.length = kept;
  const ticks = kept - start;
  return malformed > 0 ? { ticks, malformed, problem: { kind: 'tick', value: firstBad } } : { ticks, malformed: 0 };
}

/** How many ticks a frame says it holds (0 when its header is broken). */
export function frameCount(payload: Uint8Array): number {
  const r = new Reader(payload, HEADER);
  const n = r.varint();
  return n === null || n * MIN_TICK_BYTES > r.left() ? 0 : n;
}

const BROKEN = { kind: 'shape', value: 'a tick frame cut short or malformed' } as const;
/** A frame's bid_volume for "none" (and how a row holds it until judged). */
const ABSENT = -1;

/** Rows a frame decodes into: the tick columns themselves, or plain ones for the object form. */
type FrameRows = Pick<TickColumns, 'ts' | 'bid' | 'ask' | 'volume' | 'length' | 'reserve'>;

class PlainRows implements FrameRows {
  length = 0;
  ts = new Float64Array(0);
  bid = new Float64Array(0);
  ask = new Float64Array(0);
  volume = new Float64Array(0);

  reserve(extra: number): void {
    const n = this.length + extra;
    for (const column of ['ts', 'bid', 'ask', 'volume'] as const) {
      const bigger = new Float64Array(n);
      bigger.set(this[column].subarray(0, this.length));
      this[column] = bigger;
    }
  }
}

/** Whether row `i` keeps TickMessage's rules (as parseTick judges the tick object). */
const rowOk = (rows: FrameRows, i: number): boolean =>
  tickNumbersOk(rows.ts[i]!, rows.bid[i]!, rows.ask[i]!, rows.volume[i] === ABSENT ? undefined : rows.volume[i]);

/** Row `i` as the tick object a JSON payload of the same tick gives. */
function rowTick(rows: FrameRows, i: number): TickMessage {
  const tick: TickMessage = { ts: rows.ts[i]!, bid: rows.bid[i]!, ask: rows.ask[i]! };
  if (rows.volume[i] !== ABSENT) tick.bid_volume = rows.volume[i]!;
  return tick;
}

/**
 * Decodes a frame's ticks into rows appended to `out` (volume ABSENT where the frame has none),
 * not yet judged; false when the frame itself is broken (the rows past `out.length` are then junk).
 */
function readFrame(payload: Uint8Array, out: FrameRows): boolean {
  if (!isTickFrame(payload)) return false;
  const digits = payload[4]!;
  const flags = payload[5]!;
  if (digits > 10 || (flags & ~HAS_BID_VOLUME) !== 0) return false;
  const scale = 10 ** digits;
  const r = new Reader(payload, HEADER);
  const n = r.varint();
  if (n === null || n * MIN_TICK_BYTES > r.left()) return false;
  out.reserve(n);
  const at = out.length;
  const { ts: tsColumn, bid: bidColumn, ask: askColumn, volume } = out;
  let ts = 0;
  let bid = 0;
  for (let i = at; i < at + n; i++) {
    const dts = r.zigzag();
    const dbid = r.zigzag();
    const spread = r.zigzag();
    if (dts === null || dbid === null || spread === null) return false;
    ts += dts;
    bid += dbid;
    tsColumn[i] = ts;
    bidColumn[i] = bid / scale;
    askColumn[i] = (bid + spread) / scale;
    volume[i] = ABSENT;
  }
  if (flags & HAS_BID_VOLUME) {
    if (r.left() < n * 8) return false;
    for (let i = at; i < at + n; i++) volume[i] = r.float64();
  }
  if (r.left() !== 0) return false;
  out.length = at + n;
  return true;
}

/** A signed delta as the unsigned number a frame stores: 0, -1, 1, -2, … → 0, 1, 2, 3, … */
const zigzag = (v: number): number => (v >= 0 ? v * 2 : -v * 2 - 1);

/** The bytes of `v` as a zigzag varint, as a frame writes its deltas (7 bits a byte, low first). */
export function zigzagBytes(v: number): number[] {
  const w = new Writer(10);
  w.zigzag(v);
  return [...w.done()];
}

class Writer {
  private buf: Uint8Array;
  private at = 0;
  private readonly view: () => DataView;

  constructor(size: number) {
    this.buf = new Uint8Array(size);
    let view = new DataView(this.buf.buffer);
    this.view = () => (view.buffer === this.buf.buffer ? view : (view = new DataView(this.buf.buffer)));
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    bigger.set(this.buf.subarray(0, this.at));
    this.buf = bigger;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  bytes(list: readonly number[]): void {
    for (const b of list) this.byte(b);
  }

  /** An unsigned integer up to 2^53, 7 bits a byte (arithmetic, not 32-bit shifts). */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.at++] = v;
  }

  zigzag(v: number): void {
    this.varint(zigzag(v));
  }

  float64(v: number): void {
    this.room(8);
    this.view().setFloat64(this.at, v, true);
    this.at += 8;
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.at);
  }
}

class Reader {
  private readonly view: DataView;

  constructor(
    private readonly buf: Uint8Array,
    private at: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  left(): number {
    return this.buf.length - this.at;
  }

  varint(): number | null {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      if (this.at >= this.buf.length) return null;
      const b = this.buf[this.at++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return Number.isSafeInteger(v) ? v : null;
      mul *= 0x80;
    }
    return null;
  }

  zigzag(): number | null {
    const v = this.varint();
    return v === null ? null : v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  float64(): number {
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }
}
