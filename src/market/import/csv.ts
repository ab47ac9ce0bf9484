import { UnprocessableError } from '../../errors.ts';
import { badVolume, headerKey, isBlank, num, quote, wrongColumnCount } from './cells.ts';
import { parseIsoWithZone } from './timestamps.ts';
import type { ParseResult, TickFormatSpec, TickLineParser } from './types.ts';

const REQUIRED = ['ts_utc', 'bid', 'ask'] as const;
const OPTIONAL = ['bid_volume', 'ask_volume'] as const;
const LAYOUT = 'ts_utc,bid,ask[,bid_volume,ask_volume]';
const VOLUME_NAMES = OPTIONAL;

/** Epoch ms below this (1973-03-03) are taken for epoch seconds, a common mix-up, and refused. */
const MIN_EPOCH_MS = 100_000_000_000;

/** `ts_utc`: ISO-8601 with Z or an offset, or integer epoch milliseconds → epoch ms; otherwise the reason. */
export function parseTsUtc(s: string): number | string {
  const first = s.charCodeAt(0);
  if (first >= 48 && first <= 57 && s.length <= 16 && /^\d+$/.test(s)) {
    const ms = Number(s);
    return ms >= MIN_EPOCH_MS ? ms : `ts_utc ${quote(s)} is too small for epoch milliseconds (epoch seconds? multiply by 1000)`;
  }
  const ts = parseIsoWithZone(s);
  return Number.isNaN(ts) ? `ts_utc ${quote(s)} is neither ISO-8601 with a zone (2014-05-01T00:00:00.292Z) nor epoch milliseconds` : ts;
}

interface Columns {
  count: number;
  ts: number;
  bid: number;
  ask: number;
  bidVolume: number;
  askVolume: number;
}

function readHeader(file: string, text: string): Columns {
  const names = headerKey(text).split(',');
  const index = (n: string): number => names.indexOf(n);
  const unknown = names.filter((n) => !(REQUIRED as readonly string[]).includes(n) && !(OPTIONAL as readonly string[]).includes(n));
  const missing = REQUIRED.filter((n) => index(n) < 0);
  if (missing.length > 0 || unknown.length > 0 || new Set(names).size !== names.length) {
    const hint = names.some((n) => n.endsWith('_open'))
      ? ' (this looks like a bar file: import-ticks takes ticks)'
      : ' (the first line must be the header)';
    throw new UnprocessableError(
      `${file}: the csv format needs the header "${LAYOUT}", found "${text.slice(0, 80)}"${hint}: fix the header or pick the --format that matches the file`,
    );
  }
  return {
    count: names.length,
    ts: index('ts_utc'),
    bid: index('bid'),
    ask: index('ask'),
    bidVolume: index('bid_volume'),
    askVolume: index('ask_volume'),
  };
}

/** An optional volume cell: absent column or empty cell mean "not given", i.e. 0. */
const volumeAt = (c: string[], i: number): number => (i < 0 || c[i] === '' ? 0 : num(c[i]));

/** Our generic tick CSV, the layout of the shared data's normalized tick files. */
export const csv: TickFormatSpec = {
  name: 'csv',
  describe: `generic tick CSV: header "${LAYOUT}", ts_utc ISO-8601 UTC (2014-05-01T00:00:00.292Z) or epoch ms`,
  createParser(_symbol, file): TickLineParser {
    let cols: Columns | undefined;
    let header = '';
    return (text): ParseResult => {
      if (isBlank(text)) return null;
      if (!cols) {
        cols = readHeader(file, text);
        header = headerKey(text);
        return null;
      }
      const c = text.split(',');
      if (c.length !== cols.count) return wrongColumnCount(cols.count, header, c.length);
      const ts = parseTsUtc(c[cols.ts]!.trim());
      if (typeof ts === 'string') {
        if (headerKey(text) === header) return null; // files concatenated with `cat` repeat the header
        return { error: ts };
      }
      const bidVolume = volumeAt(c, cols.bidVolume);
      const askVolume = volumeAt(c, cols.askVolume);
      return (
        badVolume([bidVolume, askVolume], VOLUME_NAMES) ?? {
          ts,
          bid: num(c[cols.bid]),
          ask: num(c[cols.ask]),
          volume: bidVolume + askVolume,
        }
      );
    };
  },
};
