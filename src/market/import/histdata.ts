import { UnprocessableError } from '../../errors.ts';
import { isBlank, num, quote, wrongColumnCount } from './cells.ts';
import { NEW_YORK_FIRST_YEAR, newYorkWallToUtc } from '../../lib/new-york-time.ts';
import { digits, utcFromFields } from './timestamps.ts';
import type { ParseResult, TickFormatSpec, TickLineParser } from './types.ts';

const LAYOUT = 'datetime,bid,ask,volume';

/**
 * `YYYYMMDD HHMMSSmmm` (or without the mmm) as New York wall time → epoch ms UTC; a string when
 * it cannot be converted. HistData documents "EST without DST", but its files are New York local
 * time with DST (checked against UTC feeds in /work/shared/data/fx/histdata_m1/README.md), so
 * America/New_York rules apply, not a fixed −5 h.
 */
export function parseHistdataTime(s: string): number | string {
  if (s[8] !== ' ' || (s.length !== 18 && s.length !== 15)) return `time ${quote(s)} is not YYYYMMDD HHMMSSmmm`;
  const y = digits(s, 0, 4);
  const ms = s.length === 18 ? digits(s, 15, 3) : 0;
  const wall = utcFromFields(y, digits(s, 4, 2), digits(s, 6, 2), digits(s, 9, 2), digits(s, 11, 2), digits(s, 13, 2), ms);
  if (Number.isNaN(wall)) return `time ${quote(s)} is not YYYYMMDD HHMMSSmmm`;
  if (y < NEW_YORK_FIRST_YEAR) return `time ${quote(s)} is before ${NEW_YORK_FIRST_YEAR}, where the built-in New York DST rules stop`;
  const ts = newYorkWallToUtc(wall, y);
  if (Number.isNaN(ts)) return `time ${quote(s)} does not exist in New York (clocks jump from 02:00 to 03:00 that day)`;
  return ts;
}

/** HistData.com "Generic ASCII" tick files, DAT_ASCII_<PAIR>_T_<YYYYMM>.csv: no header, New York time. */
export const histdata: TickFormatSpec = {
  name: 'histdata',
  describe: 'HistData ASCII ticks (DAT_ASCII_EURUSD_T_201701.csv): "20170102 170000123,bid,ask,volume", no header, New York time with DST',
  createParser(_symbol, file): TickLineParser {
    let first = true;
    return (text): ParseResult => {
      if (isBlank(text)) return null;
      if (first) {
        first = false;
        // The M1 bar files look alike but are ';'-separated; refusing them beats 100 % bad rows.
        if (text.includes(';')) {
          throw new UnprocessableError(
            `${file}: this looks like a HistData 1-minute bar file (';'-separated OHLC), not a tick file: import-ticks takes the tick files DAT_ASCII_<PAIR>_T_<YYYYMM>.csv`,
          );
        }
      }
      const c = text.split(',');
      if (c.length !== 4) return wrongColumnCount(4, LAYOUT, c.length);
      const ts = parseHistdataTime(c[0]!.trim());
      if (typeof ts === 'string') return { error: ts };
      return { ts, bid: num(c[1]), ask: num(c[2]), volume: num(c[3]) };
    };
  },
};
