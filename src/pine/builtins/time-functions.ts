/**
 * Time functions: year(t)…weekofyear(t), timestamp(), time(timeframe, session) and
 * timeframe.in_seconds(). Everything is UTC, like the time parts of the bars; another timezone
 * argument is refused rather than read as UTC.
 */
import { TIME_PARTS, timePart } from './bar-values.ts';
import { num, str, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { parsePeriod, periodStart } from './periods.ts';
import { NA, type Value } from '../runtime/values.ts';

const UTC_NAMES = /^(utc|gmt|etc\/utc|etc\/gmt|z)([+-]0{1,2}(:?00)?)?$/i;

/** A timezone argument: absent or UTC, else a 422 (our times are UTC). */
function utcOnly(ctx: Ctx, tz: Value | undefined): void {
  if (tz === undefined || tz === null) return;
  const name = str(tz).trim();
  if (!UTC_NAMES.test(name))
    ctx.fail(
      `timezone ${JSON.stringify(name)} is not supported: times here are UTC; remove the timezone argument or use "UTC"`,
      `timezone ${JSON.stringify(name)}`,
    );
}

/** A date string: ISO (2024-01-31, 2024-01-31T10:00, read as UTC) or with an explicit offset or GMT/UTC. */
function parseDate(ctx: Ctx, text: string): number {
  const s = text.trim();
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/.test(s);
  const explicit = /([+-]\d{2}:?\d{2}|Z|GMT|UTC)$/i.test(s);
  const ms = iso ? Date.parse(s.length === 10 ? s : `${s}Z`) : explicit ? Date.parse(s) : NaN;
  if (ms !== ms)
    ctx.fail(
      `timestamp(${JSON.stringify(s)}): write the date as 2024-01-31 or 2024-01-31T10:00 (UTC), or with an offset such as 2024-01-31T10:00+02:00`,
    );
  return ms;
}

/** Minutes after 00:00 of "HHMM". */
const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(2, 4));

/** Whether a bar opening at `ts` lies in a Pine session string ("0930-1600", "2200-0400", "0000-0000:23456", several by commas). */
function inSession(ctx: Ctx, session: string, ts: number): boolean {
  const [spans, days] = session.split(':');
  if (!/^\d{4}-\d{4}(,\d{4}-\d{4})*$/.test(spans ?? '') || (days !== undefined && !/^[1-7]+$/.test(days))) {
    ctx.fail(
      `session ${JSON.stringify(session)} is not understood: write it as "0930-1600", several as "0930-1200,1300-1600", days after a colon ("0930-1600:23456", 1 = Sunday)`,
    );
  }
  const d = new Date(ts);
  if (days !== undefined && !days.includes(String(d.getUTCDay() + 1))) return false;
  const t = d.getUTCHours() * 60 + d.getUTCMinutes();
  return spans!.split(',').some((span) => {
    const start = minutesOf(span.slice(0, 4));
    const end = minutesOf(span.slice(5, 9));
    if (start === end) return true;
    return start < end ? t >= start && t < end : t >= start || t < end;
  });
}

const CHART_SECONDS: Record<string, number> = { '1min': 60, '5min': 300, '15min': 900, '1h': 3600 };

export const TIME_FUNCTIONS: Record<string, Builtin> = {
  ...Object.fromEntries(
    TIME_PARTS.map((part) => [
      part,
      { params: ['time', 'timezone'], fn: (ctx: Ctx, a: Value[]) => (utcOnly(ctx, a[1]), timePart(part, num(a[0]))) },
    ]),
  ),
  timestamp: {
    // timestamp("2024-01-31"), timestamp(year, month, day, hour, minute, second), timestamp("UTC", year, …).
    params: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6'],
    fn: (ctx, a) => {
      const given = a.filter((v) => v !== undefined);
      if (given.length === 1 && typeof given[0] === 'string') return parseDate(ctx, given[0]);
      const parts = typeof given[0] === 'string' ? (utcOnly(ctx, given[0]), given.slice(1)) : given;
      const [y, mo, d, h, mi, s] = parts.map((v) => num(v));
      if (parts.length < 3) ctx.fail('timestamp() needs a date string, or year, month and day');
      return Date.UTC(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0);
    },
  },
  time: {
    // The open of the period of `timeframe` holding this bar; na outside `session` when one is given.
    params: ['timeframe', 'session', 'timezone'],
    fn: (ctx, a) => {
      utcOnly(ctx, a[2]);
      const ts = ctx.bars.ts[ctx.bar]!;
      if (a[1] !== undefined && a[1] !== null && !inSession(ctx, str(a[1]), ts)) return NA;
      return periodStart(ts, parsePeriod(ctx, a[0]));
    },
  },
  'timeframe.in_seconds': {
    params: ['timeframe'],
    fn: (ctx, a) => {
      const p = a[0] === undefined ? { kind: 'chart' as const } : parsePeriod(ctx, a[0]);
      switch (p.kind) {
        case 'chart':
          return CHART_SECONDS[ctx.timeframe] ?? ctx.fail(`the chart timeframe ${ctx.timeframe} has no length in seconds`);
        case 'minutes':
          return p.size * 60;
        case 'D':
          return 86_400;
        case 'W':
          return 604_800;
        case 'M':
          // TradingView's month: 30.4167 days.
          return 2_628_003;
      }
    },
  },
};
