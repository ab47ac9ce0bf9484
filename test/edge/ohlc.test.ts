/**
 * GET /api/v1/ohlc, as the contract states it: key required; query symbol (default EURUSD),
 * timeframe (1min, 5min, 15min, 1h; default 15min), start/end (UTC days, end inclusive), limit
 * (default 1000, max 5000); envelope {symbol, timeframe, source, count, candles}, candles oldest
 * first, each {timestamp (bar open), open, high, low, close, volume}.
 *
 * Runs on the real service with 20 days of synthetic history, so that every series is longer
 * than the default limit whatever the weekday. Expected rows come from the service's own bar
 * cache (sf.service.market.cache), which the route must serve unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTRUMENTS, TIMEFRAME_MS } from '../../src/market/index.ts';
import { SYMBOLS, TIMEFRAMES, type Symbol, type Timeframe } from '../../schemas/common.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import type { Candle } from '../../schemas/market.ts';

const DAY_MS = 86_400_000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

describe('GET /api/v1/ohlc', () => {
  let sf: TestService;
  let key: string;
  /** The most recent full UTC day (before today) that has EURUSD bars, and the one before it. */
  let D: number;
  let prevD: number;

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '20' });
    key = (await sf.mintKey()).api_key;
    const ts = (await sf.service.domain.market.cache.get('EURUSD', '1min')).columns().ts;
    const today = dayStart(Date.now());
    const days = [...new Set(Array.from(ts, dayStart))].filter((d) => d < today);
    D = days.at(-1)!;
    prevD = days.at(-2)!;
    assert.ok(D && prevD, 'the synthetic history has at least two full trading days');
  });
  after(() => sf?.stop());

  const ohlc = (query: Record<string, string | number> = {}) =>
    sf.api('GET', `/api/v1/ohlc?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, { key });

  /** The cached bars of a series as candles, with their epoch-ms open times. */
  async function cached(symbol: Symbol, timeframe: Timeframe): Promise<Array<Candle & { ts: number }>> {
    const c = (await sf.service.domain.market.cache.get(symbol, timeframe)).columns();
    return Array.from(c.ts, (ts, i) => ({
      ts,
      timestamp: new Date(ts).toISOString(),
      open: c.open[i]!,
      high: c.high[i]!,
      low: c.low[i]!,
      close: c.close[i]!,
      volume: c.volume[i]!,
    }));
  }
  const strip = (bars: Array<Candle & { ts: number }>): Candle[] => bars.map(({ ts: _ts, ...candle }) => candle);

  /** What every candle list must satisfy: shape, OHLC consistency, aligned and increasing times. */
  function assertWellFormed(candles: Candle[], timeframe: Timeframe, label: string): void {
    let previous = Number.NEGATIVE_INFINITY;
    for (const c of candles) {
      assert.deepEqual(Object.keys(c).sort(), ['close', 'high', 'low', 'open', 'timestamp', 'volume'], label);
      assert.match(c.timestamp, ISO_MS, label);
      const ts = Date.parse(c.timestamp);
      assert.equal(ts % TIMEFRAME_MS[timeframe], 0, `${label}: ${c.timestamp} is not a ${timeframe} bar open`);
      assert.ok(ts > previous, `${label}: ${c.timestamp} does not follow the previous candle`);
      previous = ts;
      for (const f of ['open', 'high', 'low', 'close', 'volume'] as const) assert.ok(Number.isFinite(c[f]), `${label}: ${f}`);
      assert.ok(c.high >= Math.max(c.open, c.close), `${label} ${c.timestamp}: high ${c.high} below open/close`);
      assert.ok(c.low <= Math.min(c.open, c.close), `${label} ${c.timestamp}: low ${c.low} above open/close`);
      assert.ok(c.low > 0, `${label}: positive prices`);
      assert.ok(c.volume > 0, `${label}: a bar exists only where ticks exist`);
    }
  }

  it('answers 401 without a key or with an unknown one', async () => {
    const none = await sf.api('GET', '/api/v1/ohlc');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 401);
    assert.match(none.body.error, /X-API-Key/);
    const wrong = await sf.api('GET', '/api/v1/ohlc', { key: 'sf_not_a_real_key_000000000000' });
    assert.equal(wrong.status, 401);
  });

  it('defaults to EURUSD 15min, the latest 1000 bars, oldest first, in the documented envelope', async () => {
    const before = await cached('EURUSD', '15min');
    assert.ok(before.length > 1000, `the series (${before.length} bars) is longer than the default limit`);
    const res = await ohlc();
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(res.body).sort(), ['candles', 'count', 'source', 'symbol', 'timeframe']);
    assert.equal(res.body.symbol, 'EURUSD');
    assert.equal(res.body.timeframe, '15min');
    assert.equal(res.body.source, 'synthetic');
    assert.equal(res.body.count, 1000);
    assert.equal(res.body.candles.length, 1000);
    assertWellFormed(res.body.candles, '15min', 'default');

    // The latest bars: nothing older than the newest bar already cached when we asked, and
    // exactly the 1000 cached bars that end at the last candle.
    const last = Date.parse(res.body.candles.at(-1).timestamp);
    assert.ok(last >= before.at(-1)!.ts, 'the newest bar is included');
    const after = await cached('EURUSD', '15min');
    const end = after.findIndex((b) => b.ts === last);
    assert.ok(end >= 999, `the last candle is bar ${end} of the cached series`);
    assert.deepEqual(res.body.candles, strip(after.slice(end - 999, end + 1)));
  });

  it('serves every symbol (BTCUSD too) at every timeframe, each at its own price level', async () => {
    for (const symbol of SYMBOLS) {
      for (const timeframe of TIMEFRAMES) {
        const res = await ohlc({ symbol, timeframe, limit: 200 });
        const label = `${symbol} ${timeframe}`;
        assert.equal(res.status, 200, `${label}: ${res.text}`);
        assert.equal(res.body.symbol, symbol);
        assert.equal(res.body.timeframe, timeframe);
        assert.equal(res.body.source, 'synthetic');
        assert.equal(res.body.count, 200, label);
        assertWellFormed(res.body.candles, timeframe, label);
        const level = INSTRUMENTS[symbol].synthetic.price;
        const close = res.body.candles.at(-1).close;
        assert.ok(close > level / 2 && close < level * 2, `${label}: close ${close} is not near ${level}`);
      }
    }
  });

  it('start and end select whole UTC days, end inclusive', async () => {
    const all = await cached('EURUSD', '15min');
    const inDay = all.filter((b) => b.ts >= D && b.ts < D + DAY_MS);
    const res = await ohlc({ start: day(D), end: day(D), limit: 5000 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.count, inDay.length);
    assert.deepEqual(res.body.candles, strip(inDay));
    assert.ok(inDay.length > 0, 'start = end is the whole of that day (end is inclusive)');

    // Only `end`: the latest `limit` bars up to the end of that day.
    const upToD = all.filter((b) => b.ts < D + DAY_MS);
    const tail = await ohlc({ end: day(D), limit: 10 });
    assert.deepEqual(tail.body.candles, strip(upToD.slice(-10)));

    // A window with no bars is an empty answer, not an error.
    const empty = await ohlc({ start: '2001-01-01', end: '2001-01-02' });
    assert.equal(empty.status, 200);
    assert.equal(empty.body.count, 0);
    assert.deepEqual(empty.body.candles, []);
    assert.equal(empty.body.source, 'none');
  });

  it('with start, returns the first `limit` bars from that day: pages forward by moving start', async () => {
    const all = await cached('EURUSD', '15min');
    const fromPrev = all.filter((b) => b.ts >= prevD);
    const first = await ohlc({ start: day(prevD), limit: 7 });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.candles, strip(fromPrev.slice(0, 7)), 'the first 7 bars from start, not the latest 7');

    // Paging day by day: page(prevD) + page(D) is the two-day window.
    const pageA = await ohlc({ start: day(prevD), end: day(prevD), limit: 5000 });
    const pageB = await ohlc({ start: day(D), end: day(D), limit: 5000 });
    const both = await ohlc({ start: day(prevD), end: day(D), limit: 5000 });
    assert.ok(pageA.body.count > 0 && pageB.body.count > 0, 'both days have bars');
    assert.deepEqual([...pageA.body.candles, ...pageB.body.candles], both.body.candles);
    assert.ok(Date.parse(pageB.body.candles[0].timestamp) >= D, 'the second page starts on its day');
  });

  it('limit is an integer from 1 to 5000', async () => {
    for (const limit of ['0', '5001', '-1', '1.5', 'abc']) {
      const res = await ohlc({ limit });
      assert.equal(res.status, 400, `limit=${limit}: ${res.text}`);
      assert.equal(res.body.code, 400);
      assert.match(res.body.error, /limit/, `limit=${limit}: the message names the field`);
    }
    const max = await ohlc({ timeframe: '1min', limit: 5000 });
    assert.equal(max.status, 200, max.text);
    assert.equal(max.body.count, 5000);
    assertWellFormed(max.body.candles, '1min', 'limit=5000');
    const one = await ohlc({ limit: 1 });
    assert.equal(one.body.count, 1);
  });

  it('an unknown symbol or timeframe is a 400 listing the allowed values', async () => {
    const symbol = await ohlc({ symbol: 'XAUUSD' });
    assert.equal(symbol.status, 400, symbol.text);
    assert.match(symbol.body.error, /symbol/);
    for (const s of SYMBOLS) assert.ok(symbol.body.error.includes(s), `the message lists ${s}: ${symbol.body.error}`);

    const lower = await ohlc({ symbol: 'eurusd' });
    assert.equal(lower.status, 400);

    const timeframe = await ohlc({ timeframe: '4h' });
    assert.equal(timeframe.status, 400, timeframe.text);
    assert.match(timeframe.body.error, /timeframe/);
    for (const t of TIMEFRAMES) assert.ok(timeframe.body.error.includes(`"${t}"`), `the message lists ${t}: ${timeframe.body.error}`);
  });

  it('a date that is not YYYY-MM-DD is a 400 naming the field', async () => {
    for (const [field, value] of [
      ['start', '2024-13-01'],
      ['start', '2024-02-30'],
      ['end', '20240101'],
      ['end', 'yesterday'],
      ['start', '2024-05-01T00:00:00Z'],
    ] as const) {
      const res = await ohlc({ [field]: value });
      assert.equal(res.status, 400, `${field}=${value}: ${res.text}`);
      assert.match(res.body.error, new RegExp(`\\b${field}\\b`), `${field}=${value}: ${res.body.error}`);
    }
  });

  it('start after end is a 400 saying so; start equal to end is one day', async () => {
    const res = await ohlc({ start: day(D), end: day(prevD) });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error, /start .*after end/);
    const same = await ohlc({ start: day(D), end: day(D) });
    assert.equal(same.status, 200);
    assert.ok(same.body.count > 0, 'start = end is that whole day');
  });

  it('5min, 15min and 1h bars are the aggregation of the 1min bars over the same span', async () => {
    for (const symbol of ['EURUSD', 'BTCUSD'] as const) {
      const minutes: Candle[] = (await ohlc({ symbol, timeframe: '1min', start: day(D), end: day(D), limit: 5000 })).body.candles;
      assert.ok(minutes.length > 100 && minutes.length <= 1440, `${symbol}: ${minutes.length} 1-min bars in a day`);
      for (const timeframe of ['5min', '15min', '1h'] as const) {
        const size = TIMEFRAME_MS[timeframe];
        const groups = new Map<number, Candle[]>();
        for (const m of minutes) {
          const bucket = Math.floor(Date.parse(m.timestamp) / size) * size;
          if (!groups.has(bucket)) groups.set(bucket, []);
          groups.get(bucket)!.push(m);
        }
        const res = await ohlc({ symbol, timeframe, start: day(D), end: day(D), limit: 5000 });
        const label = `${symbol} ${timeframe}`;
        assert.equal(res.body.count, groups.size, `${label}: one bar per bucket that has 1-min bars`);
        for (const bar of res.body.candles as Candle[]) {
          const ms = groups.get(Date.parse(bar.timestamp));
          assert.ok(ms, `${label} ${bar.timestamp}: no 1-min bars`);
          assert.equal(bar.open, ms[0]!.open, `${label} ${bar.timestamp} open`);
          assert.equal(bar.close, ms.at(-1)!.close, `${label} ${bar.timestamp} close`);
          assert.equal(bar.high, Math.max(...ms.map((m) => m.high)), `${label} ${bar.timestamp} high`);
          assert.equal(bar.low, Math.min(...ms.map((m) => m.low)), `${label} ${bar.timestamp} low`);
          const volume = ms.reduce((s, m) => s + m.volume, 0);
          assert.ok(
            Math.abs(bar.volume - volume) <= 1e-9 * Math.max(1, volume),
            `${label} ${bar.timestamp} volume ${bar.volume} vs ${volume}`,
          );
        }
      }
    }
  });

  it('a bar built from live ticks appears without a restart: the cache follows NATS bars.>', async () => {
    // EURUSD idles at weekends (our ticks alone make the bar) and BTCUSD never does (our ticks
    // join the synthetic feed's): between them, both cases are exercised whatever the day.
    for (const symbol of ['EURUSD', 'BTCUSD'] as const) {
      // The series is loaded in the cache already; the new bar must reach it over NATS.
      assert.equal((await ohlc({ symbol, timeframe: '1min', limit: 5 })).status, 200);
      // A live feed publishes on ticks.<SYMBOL>. A price far above the synthetic one marks our tick.
      // It is stamped a little ahead of the synthetic feed (which writes up to now), so it is not
      // late; the second tick, in the next minute, closes our minute's bar at once (a bar closes
      // when a tick of a later bar arrives), so the test need not wait for the minute to end.
      const mark = Math.round(INSTRUMENTS[symbol].synthetic.price * 3 * 100) / 100 + 0.01;
      const ts = Date.now() + 1_000;
      const minute = Math.floor(ts / 60_000) * 60_000;
      sf.service.bus.nc.publish(
        `ticks.${symbol}`,
        JSON.stringify([
          { ts, bid: mark, ask: mark + 0.02 },
          { ts: minute + 60_000, bid: mark - 0.01, ask: mark + 0.01 },
        ]),
      );
      const stamp = new Date(minute).toISOString();
      const deadline = Date.now() + 10_000;
      let bar: Candle | undefined;
      while (!bar && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        const res = await ohlc({ symbol, timeframe: '1min', limit: 5 });
        bar = (res.body.candles as Candle[]).find((c) => c.timestamp === stamp);
        if (bar && bar.high !== mark) bar = undefined; // the feed's own bar, not yet ours
      }
      assert.ok(bar, `${symbol}: the live bar ${stamp} with high ${mark} did not appear in /ohlc`);
      assert.equal(bar.close, mark, `${symbol}: our tick is the last of its minute`);
      assert.ok(bar.low <= bar.open && bar.volume >= 1, `${symbol}: a well-formed bar: ${JSON.stringify(bar)}`);
    }
  });
});
