/**
 * Decodes a tick payload (tick-decoder.ts: one TickMessage JSON object or an array of them)
 * straight from its bytes into TickColumns: no text decoding, no JSON.parse, no object per tick.
 * The scanner accepts the plain shape publishers send — objects whose keys are among ts, bid,
 * ask, bid_volume, ask_volume (each at most once, no escapes), numbers as values. Anything else
 * (strings, unknown or repeated keys, nested values, numbers beyond the exact fast path, broken
 * JSON) makes it undo what it appended and hand the whole payload to decodeTicks, the reference
 * decoder, so both always give the same ticks and the same malformed count (a test proves it).
 *
 * Numbers: JSON.parse rounds the decimal correctly; so does `m / 10^k` (or `m * 10^k`) when the
 * digit string m has at most 15 digits and k ≤ 22, because both operands are exact doubles and
 * IEEE division rounds once — every quote a feed sends. A longer number (a computed float
 * printed in full, 1.0850600000000001) is converted alone by the engine (Number of its text),
 * which costs more but spares the rest of the message the fallback.
 */
import type { TickColumns } from '../../store/index.ts';
import { decodeTicks, tickVolume, type DecodeProblem } from './tick-decoder.ts';

export interface ColumnsDecodeResult {
  /** Valid ticks appended to the columns. */
  ticks: number;
  /** Records rejected (as decodeTicks counts them). */
  malformed: number;
  problem?: DecodeProblem;
}

const SP = 32,
  TAB = 9,
  LF = 10,
  CR = 13,
  QUOTE = 34,
  COMMA = 44,
  MINUS = 45,
  PLUS = 43,
  DOT = 46;
const D0 = 48,
  D9 = 57,
  COLON = 58,
  LBRACKET = 91,
  RBRACKET = 93,
  LBRACE = 123,
  RBRACE = 125,
  BACKSLASH = 92;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const MAX_DIGITS = 15;

// Keys, as bits of a `seen` mask.
const TS = 1,
  BID = 2,
  ASK = 4,
  BID_VOL = 8,
  ASK_VOL = 16;
const REQUIRED = TS | BID | ASK;

/** The index of the first byte at or after `pos` that is not JSON whitespace. */
function skipWs(b: Uint8Array, pos: number, n: number): number {
  while (pos < n) {
    const c = b[pos]!;
    if (c !== SP && c !== LF && c !== CR && c !== TAB) break;
    pos++;
  }
  return pos;
}

/** Which key the bytes [start, end) name (a bit), or 0. */
function keyBit(b: Uint8Array, start: number, end: number): number {
  const len = end - start;
  const c0 = b[start];
  if (len === 2) return c0 === 116 && b[start + 1] === 115 ? TS : 0; // ts
  if (len === 3) {
    if (c0 === 98 && b[start + 1] === 105 && b[start + 2] === 100) return BID; // bid
    if (c0 === 97 && b[start + 1] === 115 && b[start + 2] === 107) return ASK; // ask
    return 0;
  }
  if (len === 10 && b[start + 3] === 95) {
    for (let i = 0; i < 6; i++) if (b[start + 4 + i] !== VOLUME[i]) return 0; // _volume
    const head = keyBit(b, start, start + 3);
    return head === BID ? BID_VOL : head === ASK ? ASK_VOL : 0;
  }
  return 0;
}
const VOLUME = [...'volume'].map((c) => c.charCodeAt(0));

/**
 * The fast path alone, one pass with everything in locals (this loop is most of the ingest's
 * CPU): appends the payload's valid ticks to `out` and returns the counts, or returns null —
 * having appended part of them — when the payload needs the reference decoder.
 */
export function scanTicksInto(b: Uint8Array, out: TickColumns): ColumnsDecodeResult | null {
  const n = b.length;
  let pos = skipWs(b, 0, n);
  let ticks = 0;
  let malformed = 0;
  let problem: DecodeProblem | undefined;
  const isArray = b[pos] === LBRACKET;
  if (isArray) {
    pos = skipWs(b, pos + 1, n);
    if (b[pos] === RBRACKET) return skipWs(b, pos + 1, n) === n ? { ticks: 0, malformed: 0 } : null;
  }
  for (;;) {
    // One object: {"key": number, ...}
    if (b[pos] !== LBRACE) return null;
    pos = skipWs(b, pos + 1, n);
    let seen = 0,
      ts = 0,
      bid = 0,
      ask = 0,
      bidVol = 0,
      askVol = 0;
    if (b[pos] === RBRACE) pos++;
    else {
      for (;;) {
        if (b[pos] !== QUOTE) return null;
        const start = ++pos;
        while (pos < n && b[pos] !== QUOTE && b[pos] !== BACKSLASH) pos++;
        if (b[pos] !== QUOTE) return null;
        const bit = keyBit(b, start, pos);
        if (bit === 0 || (seen & bit) !== 0) return null;
        pos = skipWs(b, pos + 1, n);
        if (b[pos] !== COLON) return null;
        pos = skipWs(b, pos + 1, n);
        // A JSON number (see the header for how it is computed exactly).
        const numberAt = pos;
        let neg = false;
        if (b[pos] === MINUS) {
          neg = true;
          pos++;
        }
        let c = pos < n ? b[pos]! : -1;
        let mant = 0;
        let digits = 0;
        if (c === D0) c = ++pos < n ? b[pos]! : -1;
        else if (c > D0 && c <= D9) {
          do {
            mant = mant * 10 + (c - D0);
            digits++;
            c = ++pos < n ? b[pos]! : -1;
          } while (c >= D0 && c <= D9);
        } else return null;
        let frac = 0;
        if (c === DOT) {
          c = ++pos < n ? b[pos]! : -1;
          if (c < D0 || c > D9) return null;
          do {
            mant = mant * 10 + (c - D0);
            if (mant !== 0) digits++;
            frac++;
            c = ++pos < n ? b[pos]! : -1;
          } while (c >= D0 && c <= D9);
        }
        let p = -frac;
        if (c === 101 || c === 69) {
          c = ++pos < n ? b[pos]! : -1;
          let expNeg = false;
          if (c === MINUS || c === PLUS) {
            expNeg = c === MINUS;
            c = ++pos < n ? b[pos]! : -1;
          }
          if (c < D0 || c > D9) return null;
          let exp = 0;
          do {
            exp = exp * 10 + (c - D0);
            if (exp > 1000) return null;
            c = ++pos < n ? b[pos]! : -1;
          } while (c >= D0 && c <= D9);
          p += expNeg ? -exp : exp;
        }
        let value: number;
        if (digits <= MAX_DIGITS && p <= 22 && p >= -22) {
          value = p === 0 ? mant : p > 0 ? mant * POW10[p]! : mant / POW10[-p]!;
          if (neg) value = -value;
        } else {
          // Beyond the exact arithmetic (a computed float printed with 17 digits): the engine's
          // own conversion of just this number, which rounds as JSON.parse does.
          value = Number(String.fromCharCode.apply(null, b.subarray(numberAt, pos) as unknown as number[]));
        }
        seen |= bit;
        if (bit === TS) ts = value;
        else if (bit === BID) bid = value;
        else if (bit === ASK) ask = value;
        else if (bit === BID_VOL) bidVol = value;
        else askVol = value;
        pos = skipWs(b, pos, n);
        c = b[pos++]!;
        if (c === RBRACE) break;
        if (c !== COMMA) return null;
        pos = skipWs(b, pos, n);
      }
    }
    // The TickMessage rules (parseTick): safe positive integer ts, positive finite prices,
    // non-negative finite volumes (JSON numbers are never NaN; 1e400 is Infinity).
    if (
      (seen & REQUIRED) === REQUIRED &&
      Number.isSafeInteger(ts) &&
      ts > 0 &&
      bid > 0 &&
      bid < Infinity &&
      ask > 0 &&
      ask < Infinity &&
      ((seen & BID_VOL) === 0 || (bidVol >= 0 && bidVol < Infinity)) &&
      ((seen & ASK_VOL) === 0 || (askVol >= 0 && askVol < Infinity))
    ) {
      out.push(ts, 0, bid, ask, bidVol + askVol);
      ticks++;
    } else {
      malformed++;
      problem ??= { kind: 'tick', value: objectValue(seen, ts, bid, ask, bidVol, askVol) };
    }
    if (!isArray) break;
    pos = skipWs(b, pos, n);
    const c = b[pos++];
    if (c === RBRACKET) break;
    if (c !== COMMA) return null;
    pos = skipWs(b, pos, n);
  }
  if (skipWs(b, pos, n) !== n) return null;
  return problem ? { ticks, malformed, problem } : { ticks, malformed };
}

/** An object as JSON.parse would have given it (for the log line of a rejection). */
function objectValue(seen: number, ts: number, bid: number, ask: number, bidVol: number, askVol: number): Record<string, number> {
  const v: Record<string, number> = {};
  if (seen & TS) v.ts = ts;
  if (seen & BID) v.bid = bid;
  if (seen & ASK) v.ask = ask;
  if (seen & BID_VOL) v.bid_volume = bidVol;
  if (seen & ASK_VOL) v.ask_volume = askVol;
  return v;
}

/**
 * Appends the valid ticks of one payload to `out` (seq left 0: the caller numbers them) and
 * counts the rejected records exactly as decodeTicks does. Never throws.
 */
export function decodeTicksInto(payload: Uint8Array, out: TickColumns): ColumnsDecodeResult {
  const start = out.length;
  const fast = scanTicksInto(payload, out);
  if (fast) return fast;
  out.length = start;
  const slow = decodeTicks(payload);
  out.reserve(slow.ticks.length);
  for (const t of slow.ticks) out.push(t.ts, 0, t.bid, t.ask, tickVolume(t));
  return slow.problem
    ? { ticks: slow.ticks.length, malformed: slow.malformed, problem: slow.problem }
    : { ticks: slow.ticks.length, malformed: slow.malformed };
}

/**
 * How many records a payload holds, without decoding it: the `{` bytes of an array (a tick
 * object holds no nested object), 1 for anything else. Exact for every well-formed payload;
 * what a shed message is counted as.
 */
export function countRecords(payload: Uint8Array): number {
  const i = skipWs(payload, 0, payload.length);
  if (payload[i] !== LBRACKET) return 1;
  let count = 0;
  for (let at = payload.indexOf(LBRACE, i); at !== -1; at = payload.indexOf(LBRACE, at + 1)) count++;
  return count;
}
