/**
 * The pure part of the OANDA v20 pricing stream: one JSON line in, a tick (or a heartbeat, or a
 * reason for rejecting it) out. Line format (docs: developer.oanda.com, Pricing › pricing/stream):
 *   {"type":"PRICE","instrument":"EUR_USD","time":"2016-09-20T15:05:47.960449532Z",
 *    "bids":[{"price":"1.11590","liquidity":10000000}],"asks":[{"price":"1.11601",...}],"tradeable":true,...}
 *   {"type":"HEARTBEAT","time":"..."}
 */
import type { Symbol } from '../../../schemas/common.ts';
import { parseTick, type TickMessage } from './tick-decoder.ts';

/** EURUSD → EUR_USD (OANDA names instruments BASE_QUOTE). */
export const toOandaInstrument = (symbol: Symbol): string => `${symbol.slice(0, 3)}_${symbol.slice(3)}`;

export type OandaLine =
  | { kind: 'price'; symbol: Symbol; tick: TickMessage }
  | { kind: 'heartbeat' }
  /** A quote OANDA marks as not tradeable (market closed, halted): indicative only, not a tick. */
  | { kind: 'untradeable'; symbol: Symbol }
  /** Another message type OANDA may add; ignored. */
  | { kind: 'other'; type: string }
  | { kind: 'malformed'; reason: string };

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/**
 * RFC 3339 with up to nanoseconds → epoch ms. The fraction is truncated, not rounded, so a
 * tick at 12:00:59.9996 stays in the 12:00 bar where it happened.
 */
export function parseOandaTime(time: unknown): number | null {
  if (typeof time !== 'string') return null;
  const m = RFC3339.exec(time);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  return Number.isFinite(t) ? t : null;
}

/** Best (first) price of a bucket list, as a number; OANDA sends prices as decimal strings. */
function topPrice(buckets: unknown): number | null {
  if (!Array.isArray(buckets) || buckets.length === 0) return null;
  const first: unknown = buckets[0];
  if (typeof first !== 'object' || first === null) return null;
  const price = (first as { price?: unknown }).price;
  if (typeof price !== 'string' || price.trim() === '') return null;
  const n = Number(price);
  return Number.isFinite(n) ? n : null;
}

/**
 * Maps one stream line. Volume is left out: OANDA's `liquidity` is the size available at that
 * price, not traded volume, so bars built from these ticks count ticks.
 */
export function parseOandaLine(line: string, instruments: ReadonlyMap<string, Symbol>): OandaLine {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return { kind: 'malformed', reason: 'line is not JSON' };
  }
  if (typeof msg !== 'object' || msg === null) return { kind: 'malformed', reason: 'line is not an object' };
  const m = msg as Record<string, unknown>;
  if (m.type === 'HEARTBEAT') return { kind: 'heartbeat' };
  if (m.type !== 'PRICE') return { kind: 'other', type: String(m.type) };
  const symbol = typeof m.instrument === 'string' ? instruments.get(m.instrument) : undefined;
  if (!symbol) return { kind: 'malformed', reason: `instrument ${String(m.instrument)} was not asked for` };
  if (m.tradeable === false) return { kind: 'untradeable', symbol };
  const ts = parseOandaTime(m.time);
  if (ts === null) return { kind: 'malformed', reason: `time ${JSON.stringify(m.time)} is not RFC 3339` };
  // The same rules as every other tick source (TickMessage): positive finite prices; a crossed quote is kept.
  const tick = parseTick({ ts, bid: topPrice(m.bids), ask: topPrice(m.asks) });
  if (!tick) return { kind: 'malformed', reason: 'price has no valid best bid/ask' };
  return { kind: 'price', symbol, tick };
}
