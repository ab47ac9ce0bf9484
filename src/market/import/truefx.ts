import type { Symbol } from '../../../schemas/common.ts';
import { headerKey, isBlank, num, quote, wrongColumnCount } from './cells.ts';
import { digits, fraction, parseIsoWithZone, utcFromFields } from './timestamps.ts';
import type { ParseResult, TickFormatSpec, TickLineParser } from './types.ts';

const LAYOUT = 'pair,time,bid,ask';
/** The header of TrueFX ticks as redistributed by nautilus_trader (the sample in the shared data). */
const TIMESTAMP_HEADER = 'timestamp,bid,ask';

/** `YYYYMMDD HH:MM:SS[.mmm]` read as UTC, or NaN. */
export function parseTrueFxTime(s: string): number {
  if (s.length < 17 || s[8] !== ' ' || s[11] !== ':' || s[14] !== ':') return NaN;
  let ms = 0;
  if (s.length > 17) {
    const f = s[17] === '.' ? fraction(s, 18) : null;
    if (!f || f.end !== s.length) return NaN;
    ms = f.ms;
  }
  return utcFromFields(digits(s, 0, 4), digits(s, 4, 2), digits(s, 6, 2), digits(s, 9, 2), digits(s, 12, 2), digits(s, 15, 2), ms);
}

/** TrueFX's own monthly files: `EUR/USD,20130101 22:00:00.123,bid,ask`; the pair must be --symbol. */
function nativeRow(text: string, symbol: Symbol, slashed: string): ParseResult {
  const c = text.split(',');
  if (c.length !== 4) return wrongColumnCount(4, LAYOUT, c.length);
  const pair = c[0]!.trim().toUpperCase();
  if (pair !== slashed && pair !== symbol) return { error: `pair ${quote(c[0])} is not the imported symbol ${symbol}` };
  const ts = parseTrueFxTime(c[1]!.trim());
  if (Number.isNaN(ts)) return { error: `time ${quote(c[1])} is not YYYYMMDD HH:MM:SS.mmm` };
  return { ts, bid: num(c[2]), ask: num(c[3]), volume: 0 };
}

/** `timestamp,bid,ask` with `2013-01-01 22:00:00.295000+00:00`: no pair column, so --symbol is trusted. */
function timestampRow(text: string): ParseResult {
  const c = text.split(',');
  if (c.length !== 3) return wrongColumnCount(3, TIMESTAMP_HEADER, c.length);
  const ts = parseIsoWithZone(c[0]!.trim());
  if (Number.isNaN(ts)) return { error: `time ${quote(c[0])} is not YYYY-MM-DD HH:MM:SS.ffffff+00:00` };
  return { ts, bid: num(c[1]), ask: num(c[2]), volume: 0 };
}

/**
 * TrueFX ticks, UTC. Two layouts, told apart by the first line: TrueFX's own (no header, pair
 * column) and the `timestamp,bid,ask` re-export that the only real TrueFX sample we have uses.
 */
export const truefx: TickFormatSpec = {
  name: 'truefx',
  describe: 'TrueFX ticks, UTC: "EUR/USD,20130101 22:00:00.123,bid,ask" (no header), or the "timestamp,bid,ask" re-export',
  createParser(symbol): TickLineParser {
    const slashed = `${symbol.slice(0, 3)}/${symbol.slice(3)}`;
    let layout: 'native' | 'timestamp' | undefined;
    return (text) => {
      if (isBlank(text)) return null;
      if (layout === undefined) {
        layout = headerKey(text) === TIMESTAMP_HEADER ? 'timestamp' : 'native';
        if (layout === 'timestamp') return null;
      }
      if (layout === 'native') return nativeRow(text, symbol, slashed);
      if (text.charCodeAt(0) === 116 /* t */ && headerKey(text) === TIMESTAMP_HEADER) return null; // repeated header
      return timestampRow(text);
    };
  },
};
