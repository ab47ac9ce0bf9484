/**
 * Calendar periods of a bar's open time, for timeframe.change() and the session anchor of ta.vwap.
 * Periods are UTC, like the time parts (hour, dayofweek…): days start at 00:00 UTC, weeks on Sunday
 * 00:00 UTC (the forex week's first bars, Sunday evening, open a new week as on TradingView),
 * months on the 1st; an intraday period of n minutes starts at a multiple of n minutes from 00:00 UTC.
 */
import { str, type Builtin, type Ctx } from '../runtime/ctx.ts';
import type { Value } from '../runtime/values.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** 1970-01-01 was a Thursday: shift so that weeks start on Sunday. */
const SUNDAY_SHIFT = 4 * DAY;

/** A period number for a timestamp; `size` is minutes, or D/W/M. */
export type Period = { kind: 'minutes'; size: number } | { kind: 'D' | 'W' | 'M' } | { kind: 'chart' };

/** Pine timeframe strings: "" (the chart's), "5", "240", "D"/"1D", "W"/"1W", "M"/"1M". */
export function parsePeriod(ctx: Ctx, v: Value | undefined): Period {
  const tf = str(v).trim();
  if (tf === '') return { kind: 'chart' };
  const m = /^(\d*)([DWM]?)$/.exec(tf);
  const count = m && m[1] !== '' ? Number(m[1]) : 1;
  if (!m || count < 1 || (m[2] !== '' && count !== 1) || (m[2] === '' && count > 1440 * 7)) {
    return ctx.fail(
      `timeframe ${JSON.stringify(tf)} is not supported here: use minutes ("60", "240"), "D", "W" or "M"`,
      `timeframe ${JSON.stringify(tf)}`,
    );
  }
  return m[2] === '' ? { kind: 'minutes', size: count } : { kind: m[2] as 'D' | 'W' | 'M' };
}

export function periodOf(ts: number, p: Period): number {
  switch (p.kind) {
    case 'chart':
      return ts;
    case 'minutes':
      return Math.floor(ts / (p.size * MINUTE));
    case 'D':
      return Math.floor(ts / DAY);
    case 'W':
      return Math.floor((ts + SUNDAY_SHIFT) / (7 * DAY));
    case 'M': {
      const d = new Date(ts);
      return d.getUTCFullYear() * 12 + d.getUTCMonth();
    }
  }
}

/** When the period holding `ts` began (ms, UTC). */
export function periodStart(ts: number, p: Period): number {
  switch (p.kind) {
    case 'chart':
      return ts;
    case 'minutes':
      return periodOf(ts, p) * p.size * MINUTE;
    case 'D':
      return periodOf(ts, p) * DAY;
    case 'W':
      return periodOf(ts, p) * 7 * DAY - SUNDAY_SHIFT;
    case 'M': {
      const d = new Date(ts);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
  }
}

/** Whether bar `i` opens a new period (the first bar always does). */
export function opensPeriod(ts: Float64Array, i: number, p: Period): boolean {
  return i === 0 || periodOf(ts[i]!, p) !== periodOf(ts[i - 1]!, p);
}

export const DAY_PERIOD: Period = { kind: 'D' };

export const PERIODS: Record<string, Builtin> = {
  'timeframe.change': { params: ['timeframe'], fn: (ctx, a) => opensPeriod(ctx.bars.ts, ctx.bar, parsePeriod(ctx, a[0])) },
};
