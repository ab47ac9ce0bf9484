/**
 * POST /api/v1/indicators, as the contract states it: key required; body {indicators (required),
 * symbol (default EURUSD), timeframe, format (`columns` default, or `rows`), limit (default 500,
 * max 5000)}; built-in indicators on OHLC without training. The keys, parameters and column
 * names are the ones GET /api/v1/indicator-schema publishes.
 *
 * Values are checked against computeIndicators run over the WHOLE cached series: the route
 * computes over the requested bars plus a warm-up, and must give the same numbers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { computeIndicators, parseIndicatorsObject } from '../../src/indicators/index.ts';
import { IndicatorsResponse, type IndicatorSchema } from '../../schemas/indicators.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const ALL_DEFAULTS = {
  sma_enabled: true,
  ema_enabled: true,
  wma_enabled: true,
  bb_enabled: true,
  rsi_enabled: true,
  macd_enabled: true,
  stoch_enabled: true,
  atr_enabled: true,
};

type Columns = Record<string, Array<number | null>> & { timestamp: string[] };
type Row = Record<string, number | null> & { timestamp: string };

describe('POST /api/v1/indicators', () => {
  let sf: TestService;
  let key: string;
  let schema: IndicatorSchema;

  before(async () => {
    // 20 days: EURUSD 15min holds more than 500 bars plus the longest warm-up whatever the weekday.
    sf = await startTestService({ HISTORY_DAYS: '20' });
    key = (await sf.mintKey()).api_key;
    schema = (await sf.api('GET', '/api/v1/indicator-schema')).body;
  });
  after(() => sf?.stop());

  const post = (body: unknown) => sf.api('POST', '/api/v1/indicators', { key, body });

  /** The indicators of `indicators` computed over the whole cached series, by column, with bar times. */
  async function fullSeries(symbol: Symbol, timeframe: Timeframe, indicators: object) {
    const c = (await sf.service.domain.market.cache.get(symbol, timeframe)).columns();
    const ohlc = { open: c.open.slice(), high: c.high.slice(), low: c.low.slice(), close: c.close.slice() };
    const values = computeIndicators(ohlc, parseIndicatorsObject(indicators));
    const index = new Map(Array.from(c.ts, (ts, i) => [new Date(ts).toISOString(), i]));
    return { values, index, length: c.ts.length };
  }

  /** Every returned value equals the full-series one at the same bar (null where it is NaN). */
  function assertMatchesFull(data: Columns, full: Awaited<ReturnType<typeof fullSeries>>, tolerance: (expected: number) => number) {
    for (const [name, column] of Object.entries(data)) {
      if (name === 'timestamp') continue;
      const expected = full.values[name];
      assert.ok(expected, `column ${name} is one the indicators produce`);
      (column as Array<number | null>).forEach((v, row) => {
        const i = full.index.get(data.timestamp[row]!);
        assert.ok(i !== undefined, `bar ${data.timestamp[row]} is in the series`);
        const e = expected[i]!;
        if (Number.isNaN(e)) {
          assert.equal(v, null, `${name} at ${data.timestamp[row]}: null where the full series has no value`);
          return;
        }
        assert.equal(typeof v, 'number', `${name} at ${data.timestamp[row]}: ${v} but the full series has ${e}`);
        assert.ok(Math.abs(v! - e) <= tolerance(e), `${name} at ${data.timestamp[row]}: ${v} vs full series ${e}`);
      });
    }
  }

  it('answers 401 without a key or with an unknown one', async () => {
    assert.equal((await sf.api('POST', '/api/v1/indicators', { body: { indicators: ALL_DEFAULTS } })).status, 401);
    const wrong = await sf.api('POST', '/api/v1/indicators', { key: 'sf_not_a_real_key_000000000000', body: { indicators: ALL_DEFAULTS } });
    assert.equal(wrong.status, 401);
  });

  it('all eight with defaults: EURUSD 15min, 500 bars, every row exact (no null), equal to the full-series values', async () => {
    const res = await post({ indicators: ALL_DEFAULTS });
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.equal(body.symbol, 'EURUSD');
    assert.equal(body.timeframe, '15min');
    assert.equal(body.format, 'columns');
    assert.equal(body.source, 'synthetic');
    assert.equal(body.count, 500);
    const expectedColumns = schema.indicators.flatMap((i) => i.columns.defaults);
    assert.equal(expectedColumns.length, 13); // sma ema wma, bb ×3, rsi, macd ×3, stoch ×2, atr
    assert.deepEqual(body.columns, expectedColumns, '`columns` as /indicator-schema names them, in its order');
    assert.deepEqual(Object.keys(body.data), ['timestamp', ...expectedColumns]);
    assert.equal(body.warmup, Math.max(...schema.indicators.map((i) => i.warmup.bars)), 'warm-up is the longest of the schema’s');

    const data: Columns = body.data;
    for (const [name, column] of Object.entries(data)) {
      assert.equal(column.length, 500, name);
      assert.ok(
        column.every((v) => v !== null),
        `${name} has a null: the warm-up history was not used`,
      );
    }
    const full = await fullSeries('EURUSD', '15min', ALL_DEFAULTS);
    assert.ok(full.length >= 500 + body.warmup, 'the series is long enough for exact values');
    // The newest 500 bars (a live bar may have closed since the request: allow for one).
    const first = full.index.get(data.timestamp[0]!)!;
    assert.ok(first >= full.length - 501 && first <= full.length - 500, `the first row is bar ${first} of ${full.length}`);
    data.timestamp.forEach((t, row) => assert.equal(full.index.get(t), first + row, 'consecutive bars, oldest first'));
    assertMatchesFull(data, full, () => 1e-9);
  });

  it('format rows and format columns carry the same numbers', async () => {
    const indicators = { ...ALL_DEFAULTS, bb_std: 2.5, rsi_period: 7 };
    const cols = await post({ indicators, limit: 60, timeframe: '5min' });
    const rows = await post({ indicators, limit: 60, timeframe: '5min', format: 'rows' });
    assert.equal(cols.status, 200, cols.text);
    assert.equal(rows.status, 200, rows.text);
    assert.equal(rows.body.format, 'rows');
    for (const res of [cols, rows]) assert.ok(IndicatorsResponse.safeParse(res.body).success, `${res.body.format}: an IndicatorsResponse`);
    assert.deepEqual(rows.body.columns, cols.body.columns);
    const data: Row[] = rows.body.data;
    assert.ok(Array.isArray(data) && data.length === 60, 'rows: an array of 60 objects');
    const byTime = new Map(cols.body.data.timestamp.map((t: string, i: number) => [t, i]));
    let shared = 0;
    for (const row of data) {
      assert.deepEqual(Object.keys(row), ['timestamp', ...cols.body.columns]);
      const i = byTime.get(row.timestamp) as number | undefined;
      if (i === undefined) continue; // a bar closed between the two requests
      shared++;
      for (const name of cols.body.columns) assert.equal(row[name], cols.body.data[name][i], `${name} at ${row.timestamp}`);
    }
    assert.ok(shared >= 59, `the two answers share ${shared} bars`);
  });

  it('a series shorter than limit + warm-up: all its bars, null only where it has no history yet', async () => {
    // 20 days of hourly bars plus today's hours (history starts at a day boundary): 480 to 504 bars
    // whatever the time of day, far below the largest limit.
    const full = await fullSeries('BTCUSD', '1h', ALL_DEFAULTS);
    assert.ok(full.length < 5000, `BTCUSD 1h has ${full.length} bars`);
    const res = await post({ indicators: ALL_DEFAULTS, symbol: 'BTCUSD', timeframe: '1h', format: 'columns', limit: 5000 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.symbol, 'BTCUSD');
    assert.equal(res.body.timeframe, '1h');
    assert.ok(
      res.body.count >= full.length && res.body.count <= full.length + 1,
      `count ${res.body.count}: every one of the ${full.length} bars`,
    );
    const data: Columns = res.body.data;
    assert.equal(data.sma_20![0], null, 'the first bar has no 20-bar SMA');
    assert.equal(typeof data.sma_20!.at(-1), 'number');
    // Values are served rounded to 10 decimal places.
    assertMatchesFull(data, full, (e) => 5e-11 + 1e-12 * Math.max(1, Math.abs(e)));
  });

  it('`columns` follows the schema’s patterns for given parameters; a parameter enables its indicator, _enabled:false drops it', async () => {
    const indicators = {
      rsi_period: 7,
      macd_fast: 8,
      macd_slow: 21,
      bb_std: 2.5,
      sma_period: 50,
      sma_enabled: false,
      atr_enabled: false,
      atr_period: 3,
    };
    const res = await post({ indicators, limit: 5 });
    assert.equal(res.status, 200, res.text);
    const byName = new Map(schema.indicators.map((i) => [i.name, i]));
    const fill = (name: string, values: Record<string, number>) =>
      byName
        .get(name as never)!
        .columns.patterns.map((p) => p.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]).replace('.', 'p')));
    assert.deepEqual(res.body.columns, [
      ...fill('bb', { period: 20, std: 2.5 }),
      ...fill('rsi', { period: 7 }),
      ...fill('macd', { fast: 8, slow: 21, signal: 9 }),
    ]);
    assert.deepEqual(res.body.columns.slice(0, 3), ['bb_upper_20_2p5', 'bb_middle_20_2p5', 'bb_lower_20_2p5']);
    assert.deepEqual(Object.keys(res.body.data), ['timestamp', ...res.body.columns]);

    const none = await post({ indicators: {}, limit: 3 });
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.body.columns, []);
    assert.equal(none.body.count, 3);
  });

  it('limit is an integer from 1 to 5000 (default 500)', async () => {
    for (const limit of [0, 5001, -1, 2.5, '100']) {
      const res = await post({ indicators: { rsi_enabled: true }, limit });
      assert.equal(res.status, 400, `limit=${JSON.stringify(limit)}: ${res.text}`);
      assert.match(res.body.error, /limit/);
    }
    const max = await post({ indicators: { rsi_enabled: true }, timeframe: '1min', limit: 5000 });
    assert.equal(max.status, 200, max.text);
    assert.equal(max.body.count, 5000);
    assert.equal(max.body.data.rsi_14.length, 5000);
    assert.ok(
      max.body.data.rsi_14.every((v: number | null) => v !== null),
      'no null in 5000 rows: the warm-up history was used',
    );
    const one = await post({ indicators: { rsi_enabled: true }, limit: 1 });
    assert.equal(one.body.count, 1);
  });

  it('unknown indicator keys are a 400 naming each of them', async () => {
    const res = await post({ indicators: { rsi_enabled: true, supertrend_enabled: true, rsi_length: 14 } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 400);
    assert.match(res.body.error, /unknown indicator keys/);
    assert.match(res.body.error, /'supertrend_enabled'/);
    assert.match(res.body.error, /'rsi_length'/);
    assert.match(res.body.error, /rsi_period/, 'and lists the keys that exist');
  });

  it('a bad parameter value is a 400 naming the key and its rule', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ rsi_period: 1 }, /rsi_period must be between 2 and 500/],
      [{ rsi_period: 501 }, /rsi_period must be between 2 and 500/],
      [{ sma_period: 14.5 }, /sma_period must be an integer/],
      [{ ema_period: '20' }, /ema_period must be a number/],
      [{ bb_std: 0 }, /bb_std must be between/],
      [{ macd_fast: 30 }, /macd_fast \(30\) must be less than macd_slow \(26\)/],
      [{ macd_fast: 12, macd_slow: 12 }, /macd_fast \(12\) must be less than macd_slow \(12\)/],
      [{ atr_enabled: 'yes' }, /atr_enabled must be true or false/],
    ];
    for (const [indicators, message] of cases) {
      const res = await post({ indicators });
      assert.equal(res.status, 400, `${JSON.stringify(indicators)}: ${res.text}`);
      assert.match(res.body.error, message, JSON.stringify(indicators));
    }
  });

  it('the other fields are checked too: indicators required and an object, symbol, timeframe, format', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /indicators/],
      [{ indicators: ['rsi'] }, /indicators/],
      [{ indicators: 'rsi' }, /indicators/],
      [{ indicators: { rsi_enabled: true }, symbol: 'XAUUSD' }, /symbol.*"BTCUSD"/],
      [{ indicators: { rsi_enabled: true }, timeframe: '4h' }, /timeframe.*"1h"/],
      [{ indicators: { rsi_enabled: true }, format: 'csv' }, /format.*"columns".*"rows"/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.body.error, message, JSON.stringify(body));
    }
  });
});
