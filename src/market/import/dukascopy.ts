import { UnprocessableError } from '../../errors.ts';
import { badVolume, headerKey, isBlank, num, quote, wrongColumnCount } from './cells.ts';
import { digits, fraction, utcFromFields } from './timestamps.ts';
import type { TickFormatSpec, TickLineParser } from './types.ts';

const LAYOUT = 'Gmt time,Ask,Bid,AskVolume,BidVolume';
const HEADER = headerKey(LAYOUT);
const VOLUME_NAMES = ['AskVolume', 'BidVolume'];

/** `DD.MM.YYYY HH:MM:SS[.mmm]` read as UTC (the GMT export), or NaN. */
export function parseDukascopyTime(s: string): number {
  if (s.length < 19 || s[2] !== '.' || s[5] !== '.' || s[10] !== ' ' || s[13] !== ':' || s[16] !== ':') return NaN;
  let ms = 0;
  if (s.length > 19) {
    const f = s[19] === '.' ? fraction(s, 20) : null;
    if (!f || f.end !== s.length) return NaN;
    ms = f.ms;
  }
  return utcFromFields(digits(s, 6, 4), digits(s, 3, 2), digits(s, 0, 2), digits(s, 11, 2), digits(s, 14, 2), digits(s, 17, 2), ms);
}

function checkHeader(file: string, text: string): void {
  const key = headerKey(text);
  if (key === HEADER) return;
  if (key.startsWith('local time')) {
    throw new UnprocessableError(
      `${file}: this Dukascopy export is in local time ("${text.slice(0, 60)}"); only GMT exports are accepted because local offsets are ambiguous: export again with the time zone set to GMT`,
    );
  }
  throw new UnprocessableError(
    `${file}: the first line must be the Dukascopy tick header "${LAYOUT}", found "${text.slice(0, 80)}": export ticks (not candles) as CSV with GMT time, or pick the --format that matches the file`,
  );
}

/** Dukascopy's CSV tick export (JForex / the website's historical data feed), GMT timestamps. */
export const dukascopy: TickFormatSpec = {
  name: 'dukascopy',
  describe: `Dukascopy CSV tick export: header "${LAYOUT}", time DD.MM.YYYY HH:MM:SS.mmm in GMT`,
  createParser(_symbol, file): TickLineParser {
    let headerSeen = false;
    return (text) => {
      if (isBlank(text)) return null;
      if (!headerSeen) {
        checkHeader(file, text);
        headerSeen = true;
        return null;
      }
      const c = text.split(',');
      if (c.length !== 5) return wrongColumnCount(5, LAYOUT, c.length);
      const ts = parseDukascopyTime(c[0]!.trim());
      if (Number.isNaN(ts)) {
        if (headerKey(text) === HEADER) return null; // files concatenated with `cat` repeat the header
        return { error: `time ${quote(c[0])} is not DD.MM.YYYY HH:MM:SS.mmm` };
      }
      const askVolume = num(c[3]);
      const bidVolume = num(c[4]);
      return badVolume([askVolume, bidVolume], VOLUME_NAMES) ?? { ts, ask: num(c[1]), bid: num(c[2]), volume: askVolume + bidVolume };
    };
  },
};
