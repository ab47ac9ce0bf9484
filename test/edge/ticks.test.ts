/**
 * GET /api/v1/ticks (legacy; /ohlc is preferred), as the contract states it: key required; the
 * same query as /ohlc (symbol, timeframe, start, end, limit default 1000 max 5000); envelope
 * {symbol, source, count, ticks}, ticks oldest first, each {timestamp, bid, ask, volume}.
 *
 * The ticks are checked against the bars /ohlc serves: bars are resampled from these very ticks
 * (bid price, open = first, close = last, volume = tick count when the source has no volumes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTRUMENTS } from '../../src/market/index.ts';
import { SYMBOLS, TIMEFRAMES } from '../../schemas/common.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import type { Candle } from '../../schemas/market.ts';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface TickRow {
  timestamp: string;
  bid: number;
  ask: number;
  volume: number;
}
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** 1-minute bars built from ticks by the documented rules, keyed by bar open (ms). */
function minuteBars(ticks: TickRow[]): Map<number, Candle> {
  const bars = new Map<number, Candle & { sum: number; n: number }>();
  for (const t of ticks) {
    const ts = Math.floor(Date.parse(t.timestamp) / MINUTE_MS) * MINUTE_MS;
    const bar = bars.get(ts);
    if (!bar) {
      bars.set(ts, {
        timestamp: new Date(ts).toISOString(),
        open: t.bid,
        high: t.bid,
        low: t.bid,
        close: t.bid,
        volume: 0,
        sum: t.volume,
        n: 1,
      });
      continue;
    }
    bar.high = Math.max(bar.high, t.bid);
    bar.low = Math.min(bar.low, t.bid);
    bar.close = t.bid;
    bar.sum += t.volume;
    bar.n++;
  }
  return new Map([...bars].map(([ts, { sum, n, ...bar }]) => [ts, { ...bar, volume: sum > 0 ? sum : n }]));
}

describe('GET /api/v1/ticks', () => {
  let sf: TestService;
  let key: string;
  /** The most recent full UTC day before today: BTCUSD trades on it whatever the weekday. */
  let D: number;

  before(async () => {
    // Three days: the forex majors have at least one full weekday of ticks even on a Monday.
    sf = await startTestService({ HISTORY_DAYS: '3' });
    key = (await sf.mintKey()).api_key;
    D = dayStart(Date.now()) - DAY_MS;
  });
  after(() => sf?.stop());

  const get = (path: string, query: Record<string, string | number> = {}) =>
    sf.api('GET', `/api/v1/${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, { key });
  const ticks = (query: Record<string, string | number> = {}) => get('ticks', query);

  function assertWellFormed(rows: TickRow[], label: string): void {
    let previous = Number.NEGATIVE_INFINITY;
    for (const t of rows) {
      assert.deepEqual(Object.keys(t).sort(), ['ask', 'bid', 'timestamp', 'volume'], label);
      assert.match(t.timestamp, ISO_MS, label);
      const ts = Date.parse(t.timestamp);
      assert.ok(ts >= previous, `${label}: ${t.timestamp} comes before the previous tick`);
      previous = ts;
      assert.ok(t.bid > 0 && Number.isFinite(t.bid), label);
      assert.ok(t.ask >= t.bid, `${label} ${t.timestamp}: ask ${t.ask} below bid ${t.bid}`);
      assert.ok(t.volume >= 0, label);
    }
  }

  it('answers 401 without a key or with an unknown one', async () => {
    assert.equal((await sf.api('GET', '/api/v1/ticks')).status, 401);
    assert.equal((await sf.api('GET', '/api/v1/ticks', { key: 'sf_not_a_real_key_000000000000' })).status, 401);
  });

  it('defaults to EURUSD, the latest 1000 ticks, oldest first, in the documented envelope', async () => {
    const newestBar = (await get('ohlc', { timeframe: '1min', limit: 1 })).body.candles[0] as Candle;
    const res = await ticks();
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['count', 'source', 'symbol', 'ticks']);
    assert.equal(res.body.symbol, 'EURUSD');
    assert.equal(res.body.source, 'synthetic');
    assert.equal(res.body.count, 1000);
    assert.equal(res.body.ticks.length, 1000);
    assertWellFormed(res.body.ticks, 'default');
    // The latest ticks: they reach at least into the newest 1-min bar's minute.
    assert.ok(Date.parse(res.body.ticks.at(-1).timestamp) >= Date.parse(newestBar.timestamp), 'the newest ticks are included');
    const level = INSTRUMENTS.EURUSD.synthetic.price;
    assert.ok(
      res.body.ticks.every((t: TickRow) => t.bid > level / 2 && t.bid < level * 2),
      `EURUSD prices near ${level}`,
    );
  });

  it('serves every symbol, BTCUSD too', async () => {
    for (const symbol of SYMBOLS) {
      const res = await ticks({ symbol, limit: 20 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.symbol, symbol);
      assert.equal(res.body.count, 20, symbol);
      assertWellFormed(res.body.ticks, symbol);
      const level = INSTRUMENTS[symbol].synthetic.price;
      assert.ok(
        res.body.ticks.every((t: TickRow) => t.bid > level / 2 && t.bid < level * 2),
        `${symbol} near ${level}`,
      );
    }
  });

  it('start = end = D: the first ticks of that UTC day, and they build the day’s 1-min bars', async () => {
    const res = await ticks({ symbol: 'BTCUSD', start: day(D), end: day(D), limit: 5000 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.count, 5000, 'a BTCUSD day has more than 5000 synthetic ticks');
    const rows: TickRow[] = res.body.ticks;
    assertWellFormed(rows, 'day');
    assert.ok(
      rows.every((t) => Date.parse(t.timestamp) >= D && Date.parse(t.timestamp) < D + DAY_MS),
      'every tick within the day',
    );

    const bars: Candle[] = (await get('ohlc', { symbol: 'BTCUSD', timeframe: '1min', start: day(D), end: day(D), limit: 5000 })).body
      .candles;
    assert.equal(rows[0]!.bid, bars[0]!.open, 'the first tick of the day opens its first bar');
    assert.equal(Date.parse(bars[0]!.timestamp), Math.floor(Date.parse(rows[0]!.timestamp) / MINUTE_MS) * MINUTE_MS);
    // Every minute these ticks cover completely (all but the last, cut by the limit) is its bar.
    const built = [...minuteBars(rows).values()].slice(0, -1);
    const lastFull = Date.parse(built.at(-1)!.timestamp);
    assert.ok(built.length > 100, `${built.length} whole minutes covered`);
    assert.deepEqual(
      built,
      bars.filter((b) => Date.parse(b.timestamp) <= lastFull),
    );
  });

  it('with start only, the first `limit` ticks from that day; with end only, the latest up to that day’s end', async () => {
    const day0 = (await ticks({ symbol: 'BTCUSD', start: day(D), end: day(D), limit: 5000 })).body.ticks as TickRow[];
    const first = await ticks({ symbol: 'BTCUSD', start: day(D), limit: 25 });
    assert.deepEqual(first.body.ticks, day0.slice(0, 25), 'paging forward from start, not the latest 25');

    const tail = await ticks({ symbol: 'BTCUSD', end: day(D), limit: 3000 });
    assert.equal(tail.status, 200);
    assert.equal(tail.body.count, 3000);
    const rows: TickRow[] = tail.body.ticks;
    assert.ok(
      rows.every((t) => Date.parse(t.timestamp) < D + DAY_MS),
      'nothing after the end day',
    );
    // The last tick before the end closes the day's last bar; the minutes the tail covers whole are its bars.
    const bars: Candle[] = (await get('ohlc', { symbol: 'BTCUSD', timeframe: '1min', end: day(D), limit: 1000 })).body.candles;
    assert.equal(rows.at(-1)!.bid, bars.at(-1)!.close);
    assert.equal(Date.parse(bars.at(-1)!.timestamp), Math.floor(Date.parse(rows.at(-1)!.timestamp) / MINUTE_MS) * MINUTE_MS);
    const built = [...minuteBars(rows).values()].slice(1);
    const firstFull = Date.parse(built[0]!.timestamp);
    assert.deepEqual(
      built,
      bars.filter((b) => Date.parse(b.timestamp) >= firstFull),
    );

    // `timeframe` is accepted and ignored.
    for (const timeframe of TIMEFRAMES) {
      const same = await ticks({ symbol: 'BTCUSD', start: day(D), limit: 25, timeframe });
      assert.equal(same.status, 200);
      assert.deepEqual(same.body, first.body, timeframe);
    }

    const empty = await ticks({ start: '2001-01-01', end: '2001-01-31' });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, { symbol: 'EURUSD', source: 'none', count: 0, ticks: [] });
  });

  it('limit is an integer from 1 to 5000', async () => {
    for (const limit of ['0', '5001', '-5', '2.5', 'many']) {
      const res = await ticks({ limit });
      assert.equal(res.status, 400, `limit=${limit}: ${res.text}`);
      assert.match(res.body.error, /limit/);
    }
    const max = await ticks({ limit: 5000 });
    assert.equal(max.status, 200);
    assert.equal(max.body.count, 5000);
    assertWellFormed(max.body.ticks, 'limit=5000');
    assert.equal((await ticks({ limit: 1 })).body.count, 1);
  });

  it('an unknown symbol or timeframe, a bad date, or start after end is a 400 that says which', async () => {
    const symbol = await ticks({ symbol: 'DOGEUSD' });
    assert.equal(symbol.status, 400);
    for (const s of SYMBOLS) assert.ok(symbol.body.error.includes(s), symbol.body.error);
    const timeframe = await ticks({ timeframe: '1d' });
    assert.equal(timeframe.status, 400);
    for (const t of TIMEFRAMES) assert.ok(timeframe.body.error.includes(`"${t}"`), timeframe.body.error);
    for (const [field, value] of [
      ['start', '2024-1-5'],
      ['end', '2024-04-31'],
      ['start', 'now'],
    ] as const) {
      const res = await ticks({ [field]: value });
      assert.equal(res.status, 400, `${field}=${value}`);
      assert.match(res.body.error, new RegExp(`\\b${field}\\b`), res.body.error);
    }
    const swapped = await ticks({ start: day(D), end: day(D - DAY_MS) });
    assert.equal(swapped.status, 400);
    assert.match(swapped.body.error, /start .*after end/);
  });
});
