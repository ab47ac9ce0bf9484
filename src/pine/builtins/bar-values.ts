/** The bar's own series (open … time parts, UTC) and the built-in variables' names. */
import { VOLUME_VARIABLES } from './ta-volume.ts';
import { NA, type Bars, type Value } from '../runtime/values.ts';

/** Series built into every script, by name: the bar's fields and time parts (UTC). */
export const BAR_FIELDS = new Set([
  'open',
  'high',
  'low',
  'close',
  'volume',
  'hl2',
  'hlc3',
  'ohlc4',
  'hlcc4',
  'time',
  'time_close',
  'bar_index',
  'last_bar_index',
  'year',
  'month',
  'dayofmonth',
  'dayofweek',
  'hour',
  'minute',
  'second',
  'weekofyear',
]);
export const OTHER_VARIABLES = new Set([
  'barstate.isfirst',
  'barstate.islast',
  'barstate.isconfirmed',
  'barstate.isnew',
  'barstate.ishistory',
  'barstate.isrealtime',
  'barstate.islastconfirmedhistory',
  'syminfo.mintick',
  'syminfo.ticker',
  'syminfo.tickerid',
  'syminfo.root',
  'syminfo.currency',
  'syminfo.basecurrency',
  'syminfo.type',
  'syminfo.timezone',
  'syminfo.pointvalue',
  'syminfo.pricescale',
  'syminfo.minmove',
  'timeframe.period',
  'timeframe.multiplier',
  'timeframe.isintraday',
  'timeframe.isminutes',
  'timeframe.isseconds',
  'timeframe.isdaily',
  'timeframe.isweekly',
  'timeframe.ismonthly',
  'timeframe.isdwm',
  'timeframe.isticks',
  'strategy.position_size',
  'ta.tr',
  'ta.obv',
  ...VOLUME_VARIABLES,
  'dayofweek.sunday',
  'dayofweek.monday',
  'dayofweek.tuesday',
  'dayofweek.wednesday',
  'dayofweek.thursday',
  'dayofweek.friday',
  'dayofweek.saturday',
]);

/** A bar field's value at bar j. */
export function barField(b: Bars, name: string, j: number): Value {
  switch (name) {
    case 'open':
      return b.open[j]!;
    case 'high':
      return b.high[j]!;
    case 'low':
      return b.low[j]!;
    case 'close':
      return b.close[j]!;
    case 'volume':
      return b.volume[j]!;
    case 'hl2':
      return (b.high[j]! + b.low[j]!) / 2;
    case 'hlc3':
      return (b.high[j]! + b.low[j]! + b.close[j]!) / 3;
    case 'ohlc4':
      return (b.open[j]! + b.high[j]! + b.low[j]! + b.close[j]!) / 4;
    case 'hlcc4':
      return (b.high[j]! + b.low[j]! + b.close[j]! + b.close[j]!) / 4;
    case 'time':
      return b.ts[j]!;
    case 'time_close':
      return j + 1 < b.close.length ? b.ts[j + 1]! : NA;
    case 'bar_index':
      return j;
    case 'last_bar_index':
      return b.close.length - 1;
  }
  return timePart(name, b.ts[j]!);
}

/** The UTC time parts Pine names: year, month, dayofmonth, dayofweek (Sunday = 1), hour, minute, second, weekofyear. */
export const TIME_PARTS = ['year', 'month', 'dayofmonth', 'dayofweek', 'hour', 'minute', 'second', 'weekofyear'];

/** One UTC time part of a timestamp (ms); the bar fields of the same names read it at the bar's open. */
export function timePart(name: string, ts: number): number {
  if (ts !== ts) return NA;
  const d = new Date(ts);
  switch (name) {
    case 'year':
      return d.getUTCFullYear();
    case 'month':
      return d.getUTCMonth() + 1;
    case 'dayofmonth':
      return d.getUTCDate();
    case 'dayofweek':
      return d.getUTCDay() + 1; // Pine: Sunday = 1
    case 'hour':
      return d.getUTCHours();
    case 'minute':
      return d.getUTCMinutes();
    case 'second':
      return d.getUTCSeconds();
    default: {
      const start = Date.UTC(d.getUTCFullYear(), 0, 1);
      return Math.ceil(((ts - start) / 86_400_000 + new Date(start).getUTCDay() + 1) / 7);
    }
  }
}
