/**
 * The bar rules of StreamingResampler, on hand-made tick sequences whose bars are worked out
 * here by hand: OHLC by bid, arrival order within a millisecond, volume, opening spread, one
 * bar per timeframe, closing by a later tick or by closeDue, late and repeated ticks, flush.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { BarMessage, DataSource, Tick } from '../../schemas/market.ts';
import { StreamingResampler } from '../../src/market/resampler.ts';
import { TickColumns } from '../../src/store/tick-columns.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
/** Monday 2024-01-08 10:00:00 UTC: a whole hour, so every timeframe's bar starts here. */
const T0 = Date.UTC(2024, 0, 8, 10, 0, 0);

const tick = (ts: number, bid: number, ask: number, extra: Partial<Tick> = {}): Tick => ({
  symbol: 'EURUSD',
  ts,
  seq: 0,
  bid,
  ask,
  volume: 0,
  ...extra,
});

/** A resampler that records every closed bar in order. */
function recorder(graceMs?: number) {
  const bars: BarMessage[] = [];
  const resampler = new StreamingResampler((bar) => bars.push(bar), graceMs);
  const push = (t: Tick, source: DataSource = 'live') => resampler.push(t, source);
  const of = (timeframe: Timeframe, symbol: Symbol = 'EURUSD') => bars.filter((b) => b.timeframe === timeframe && b.symbol === symbol);
  /** `timeframe@offset-from-T0-in-minutes` of each closed bar, in the order they closed. */
  const closed = () => bars.map((b) => `${b.timeframe}@${(b.ts - T0) / MIN}`);
  return { bars, resampler, push, of, closed };
}

/** The OHLC-and-more of a bar, without symbol/timeframe/source. */
const ohlc = (b: BarMessage | undefined) =>
  b && { ts: b.ts, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, ticks: b.ticks, spread: b.spread };

describe('StreamingResampler', () => {
  it('builds OHLC from the bid, never the ask, stamped with the bar open time', () => {
    const r = recorder();
    // The ask's extremes (1.1030 / 1.0950) lie outside the bid's: a bar by ask or mid would differ.
    r.push(tick(T0 + 5_000, 1.1, 1.1002));
    r.push(tick(T0 + 15_000, 1.101, 1.103));
    r.push(tick(T0 + 25_000, 1.099, 1.095));
    r.push(tick(T0 + 59_999, 1.1005, 1.1007));
    r.resampler.flush();
    assert.deepEqual(ohlc(r.of('1min')[0]), {
      ts: T0,
      open: 1.1,
      high: 1.101,
      low: 1.099,
      close: 1.1005,
      volume: 4,
      ticks: 4,
      spread: 1.1002 - 1.1,
    });
    assert.equal(r.of('1min')[0]!.source, 'live');
    assert.equal(r.of('1min')[0]!.symbol, 'EURUSD');
  });

  it('takes open and close by arrival order (seq) among ticks sharing a millisecond', () => {
    const r = recorder();
    r.push(tick(T0 + 100, 1.2, 1.2001, { seq: 0 }));
    r.push(tick(T0 + 100, 1.21, 1.2101, { seq: 1 }));
    r.push(tick(T0 + 100, 1.19, 1.1901, { seq: 2 }));
    r.push(tick(T0 + 900, 1.205, 1.2051, { seq: 0 }));
    r.push(tick(T0 + 900, 1.195, 1.1951, { seq: 1 }));
    r.resampler.flush();
    const bar = r.of('1min')[0]!;
    assert.equal(bar.open, 1.2, 'first of the opening millisecond');
    assert.equal(bar.close, 1.195, 'last of the closing millisecond');
    assert.equal(bar.high, 1.21);
    assert.equal(bar.low, 1.19);
    assert.equal(bar.ticks, 5);
  });

  it('counts ticks as volume when the source gives none, and sums volume when it does', () => {
    const noVolume = recorder();
    for (let i = 0; i < 7; i++) noVolume.push(tick(T0 + i * 1000, 1.1, 1.1001));
    noVolume.resampler.flush();
    assert.deepEqual([noVolume.of('1min')[0]!.volume, noVolume.of('1min')[0]!.ticks], [7, 7]);

    const withVolume = recorder();
    withVolume.push(tick(T0, 1.1, 1.1001, { volume: 1.5 }));
    withVolume.push(tick(T0 + 1000, 1.1, 1.1001, { volume: 0 }));
    withVolume.push(tick(T0 + 2000, 1.1, 1.1001, { volume: 2.25 }));
    withVolume.resampler.flush();
    for (const tf of ['1min', '5min', '15min', '1h'] as const) {
      assert.deepEqual([withVolume.of(tf)[0]!.volume, withVolume.of(tf)[0]!.ticks], [3.75, 3], tf);
    }
  });

  it('records spread = ask − bid of the opening tick, negative for a crossed quote', () => {
    const r = recorder();
    r.push(tick(T0, 1.3875, 1.387)); // crossed, as FXCM publishes them
    r.push(tick(T0 + 1000, 1.3874, 1.3879)); // a wider spread later does not count
    r.push(tick(T0 + MIN, 1.3874, 1.3876));
    r.resampler.flush();
    const [first, second] = r.of('1min');
    assert.equal(first!.spread, 1.387 - 1.3875);
    assert.ok(first!.spread < 0);
    assert.equal(first!.open, 1.3875, 'the crossed quote opens the bar by its bid');
    assert.equal(second!.spread, 1.3876 - 1.3874);
    assert.equal(r.of('1h')[0]!.spread, 1.387 - 1.3875, 'the hour opened on the crossed quote too');
  });

  it('makes one bar per timeframe, each stamped at its own interval start', () => {
    const r = recorder();
    const ts = T0 + 37 * MIN + 12_345; // 10:37:12.345
    r.push(tick(ts, 1.1, 1.1001));
    assert.equal(r.bars.length, 0, 'nothing closes on the first tick');
    r.resampler.flush();
    assert.deepEqual(
      r.bars.map((b) => [b.timeframe, b.ts - T0]),
      [
        ['1min', 37 * MIN],
        ['5min', 35 * MIN],
        ['15min', 30 * MIN],
        ['1h', 0],
      ],
    );
    for (const b of r.bars) assert.deepEqual([b.open, b.high, b.low, b.close, b.ticks], [1.1, 1.1, 1.1, 1.1, 1]);
  });

  it('closes a bar when a tick of a later bar arrives, and only then; no bar for an empty interval', () => {
    const r = recorder();
    r.push(tick(T0 + 10_000, 1.1, 1.1001));
    r.push(tick(T0 + MIN - 1, 1.1002, 1.1003)); // last millisecond of minute 0
    assert.deepEqual(r.closed(), []);
    r.push(tick(T0 + MIN, 1.1004, 1.1005)); // first millisecond of minute 1 belongs to minute 1
    assert.deepEqual(r.closed(), ['1min@0']);
    assert.deepEqual([r.of('1min')[0]!.ticks, r.of('1min')[0]!.close], [2, 1.1002]);
    r.push(tick(T0 + 4 * MIN, 1.1006, 1.1007)); // minutes 2 and 3 have no ticks: no bars
    assert.deepEqual(r.closed(), ['1min@0', '1min@1']);
    r.push(tick(T0 + 5 * MIN, 1.1008, 1.1009));
    assert.deepEqual(r.closed(), ['1min@0', '1min@1', '1min@4', '5min@0']);
    assert.deepEqual(ohlc(r.of('5min')[0]), {
      ts: T0,
      open: 1.1,
      high: 1.1006,
      low: 1.1,
      close: 1.1006,
      volume: 4,
      ticks: 4,
      spread: 1.1001 - 1.1,
    });
    r.push(tick(T0 + HOUR + 1, 1.1, 1.1001));
    assert.deepEqual(r.closed().slice(4), ['1min@5', '5min@5', '15min@0', '1h@0']);
    assert.equal(r.of('1h')[0]!.ticks, 5);
    assert.equal(r.resampler.stats().bars, 8);
  });

  it('closeDue(now) closes a bar at its end plus the grace time, not a millisecond before', () => {
    const r = recorder(2_000);
    r.push(tick(T0 + 30_000, 1.1, 1.1001));
    r.resampler.closeDue(T0 + MIN + 1_999);
    assert.deepEqual(r.closed(), []);
    r.resampler.closeDue(T0 + MIN + 2_000);
    assert.deepEqual(r.closed(), ['1min@0']);
    r.resampler.closeDue(T0 + 5 * MIN + 1_999);
    assert.deepEqual(r.closed(), ['1min@0']);
    r.resampler.closeDue(T0 + HOUR + 2_000);
    assert.deepEqual(r.closed(), ['1min@0', '5min@0', '15min@0', '1h@0']);
    r.resampler.closeDue(T0 + 10 * HOUR);
    assert.equal(r.bars.length, 4, 'a closed bar is never emitted twice');
    // A tick after the grace close opens new bars as usual.
    assert.equal(r.push(tick(T0 + HOUR + 5_000, 1.2, 1.2001)), true);
    r.resampler.flush();
    assert.deepEqual(r.closed().slice(4), ['1min@60', '5min@60', '15min@60', '1h@60']);
  });

  it('honours another grace time', () => {
    const r = recorder(10_000);
    r.push(tick(T0, 1.1, 1.1001));
    r.resampler.closeDue(T0 + MIN + 9_999);
    assert.equal(r.bars.length, 0);
    r.resampler.closeDue(T0 + MIN + 10_000);
    assert.deepEqual(r.closed(), ['1min@0']);
  });

  it('refuses a tick from before the open 1-min bar: counted as late, nothing changes', () => {
    const r = recorder();
    assert.equal(r.push(tick(T0 + 3 * MIN + 500, 1.1, 1.1001)), true);
    assert.equal(r.push(tick(T0 + 2 * MIN + 59_000, 1.5, 1.5001)), false);
    assert.equal(r.push(tick(T0 + 3 * MIN + 100, 1.6, 1.6001)), false, 'same minute but older than the last tick');
    assert.deepEqual(r.resampler.stats(), { ticks: 1, late: 2, bars: 0 });
    r.resampler.flush();
    assert.equal(r.of('1min').length, 1, 'no bar for minute 2');
    for (const b of r.bars) assert.deepEqual([b.high, b.low, b.ticks], [1.1, 1.1, 1], b.timeframe);
  });

  it('refuses a tick inside a bar already closed by closeDue, and never reopens it', () => {
    const r = recorder(2_000);
    r.push(tick(T0 + 10_000, 1.1, 1.1001));
    r.resampler.closeDue(T0 + MIN + 2_000);
    assert.deepEqual(r.closed(), ['1min@0']);
    // After the last tick taken, but inside the closed minute: a late arrival.
    assert.equal(r.push(tick(T0 + 50_000, 1.3, 1.3001)), false);
    assert.equal(r.resampler.stats().late, 1);
    // The still-open 5-min bar must not take it either: every timeframe aggregates the same ticks.
    assert.equal(r.push(tick(T0 + MIN + 3_000, 1.2, 1.2001)), true);
    r.resampler.flush();
    assert.deepEqual(
      r.of('1min').map((b) => [b.ts - T0, b.ticks, b.high]),
      [
        [0, 1, 1.1],
        [MIN, 1, 1.2],
      ],
    );
    assert.deepEqual(ohlc(r.of('5min')[0]), {
      ts: T0,
      open: 1.1,
      high: 1.2,
      low: 1.1,
      close: 1.2,
      volume: 2,
      ticks: 2,
      spread: 1.1001 - 1.1,
    });
    assert.deepEqual(r.resampler.stats(), { ticks: 2, late: 1, bars: 5 });
  });

  it('refuses a tick inside a bar closed by a later tick (1-min closed, higher timeframes still open)', () => {
    const r = recorder();
    r.push(tick(T0 + 10_000, 1.1, 1.1001, { seq: 0 }));
    r.push(tick(T0 + MIN + 10, 1.1, 1.1001));
    assert.equal(r.push(tick(T0 + MIN + 5, 0.9, 0.9001)), false);
    r.resampler.flush();
    for (const b of r.bars) assert.notEqual(b.low, 0.9, b.timeframe);
    assert.equal(r.resampler.stats().late, 1);
  });

  it('refuses a repeated tick (same ts and seq) or an earlier seq, so a retried batch changes nothing', () => {
    const r = recorder();
    const batch = [
      tick(T0 + 1000, 1.1, 1.1001, { seq: 0 }),
      tick(T0 + 1000, 1.12, 1.1201, { seq: 1 }),
      tick(T0 + 2000, 1.09, 1.0901, { seq: 0 }),
    ];
    assert.deepEqual(
      batch.map((t) => r.push(t)),
      [true, true, true],
    );
    // The source retries the whole batch after a failed write.
    assert.deepEqual(
      batch.map((t) => r.push(t)),
      [false, false, false],
    );
    assert.equal(r.push(tick(T0 + 2000, 1.5, 1.5001, { seq: 0 })), false, 'same key, other prices: still a repeat');
    assert.equal(r.push(tick(T0 + 2000, 1.11, 1.1101, { seq: 1 })), true, 'the next seq of that millisecond is new');
    assert.deepEqual(r.resampler.stats(), { ticks: 4, late: 4, bars: 0 });
    r.resampler.flush();
    assert.deepEqual(ohlc(r.of('1min')[0]), {
      ts: T0,
      open: 1.1,
      high: 1.12,
      low: 1.09,
      close: 1.11,
      volume: 4,
      ticks: 4,
      spread: 1.1001 - 1.1,
    });
  });

  it('keeps symbols apart: one symbol’s time does not make another’s ticks late', () => {
    const r = recorder();
    r.push(tick(T0 + 30 * MIN, 1.1, 1.1001));
    assert.equal(r.push({ ...tick(T0 + 5 * MIN, 1.27, 1.2702), symbol: 'GBPUSD' }), true);
    assert.equal(r.push(tick(T0 + 31 * MIN, 1.1, 1.1001)), true);
    assert.deepEqual(r.closed(), ['1min@30'], 'a GBPUSD tick closes no EURUSD bar');
    r.resampler.flush();
    assert.deepEqual(
      r.of('1min', 'GBPUSD').map((b) => [b.ts - T0, b.open]),
      [[5 * MIN, 1.27]],
    );
    assert.equal(r.resampler.stats().late, 0);
  });

  it('records each bar’s source from its opening tick', () => {
    const r = recorder();
    r.push(tick(T0, 1.1, 1.1001), 'import');
    r.push(tick(T0 + MIN, 1.1, 1.1001), 'synthetic');
    r.resampler.flush();
    assert.deepEqual(
      r.of('1min').map((b) => b.source),
      ['import', 'synthetic'],
    );
    assert.equal(r.of('1h')[0]!.source, 'import');
  });

  it('flush closes every open bar of every symbol, once', () => {
    const r = recorder();
    r.push(tick(T0 + 7 * MIN, 1.1, 1.1001));
    r.push({ ...tick(T0 + 8 * MIN, 151.2, 151.21), symbol: 'USDJPY' });
    r.resampler.flush();
    assert.equal(r.bars.length, 8);
    assert.deepEqual(new Set(r.bars.map((b) => `${b.symbol} ${b.timeframe}`)).size, 8);
    r.resampler.flush();
    r.resampler.closeDue(Number.MAX_SAFE_INTEGER);
    assert.equal(r.bars.length, 8, 'nothing left open');
    // And the flushed bars stay closed: a tick inside them is late.
    assert.equal(r.push(tick(T0 + 7 * MIN + 1, 1.1, 1.1001)), false);
  });
});

describe('StreamingResampler.pushColumns', () => {
  /** Deterministic PRNG so a failure can be replayed. */
  const rng = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

  it('takes a batch exactly as push() takes its ticks one by one, and keeps only what it took', () => {
    const r = rng(5);
    const one = recorder(1_000);
    const many = recorder(1_000);
    let ts = T0;
    let taken = 0;
    for (let round = 0; round < 300; round++) {
      const symbol: Symbol = round % 3 === 0 ? 'GBPUSD' : 'EURUSD';
      const batch = new TickColumns(symbol, 8);
      const n = Math.floor(r() * 60);
      for (let i = 0; i < n; i++) {
        const x = r();
        // Mostly forward in time (often within the same minute), some repeats, some late, some far ahead.
        ts += x < 0.05 ? -30_000 : x < 0.1 ? 0 : x < 0.7 ? Math.floor(r() * 2_000) : Math.floor(r() * 400_000);
        const t = x > 0.995 ? ts + 10 * HOUR : ts;
        batch.push(t, x < 0.1 ? 1 : 0, 1.1 + r() / 100, 1.1002 + r() / 100, x < 0.3 ? Math.round(r() * 10) : 0);
      }
      const maxTs = ts + 5 * HOUR;
      const expected = batch.toTicks().filter((t) => t.ts <= maxTs && one.push(t));
      const future = batch.toTicks().filter((t) => t.ts > maxTs).length;
      assert.equal(many.resampler.pushColumns(batch, 'live', maxTs), future);
      assert.deepEqual(batch.toTicks(), expected, `round ${round}: the batch holds what was taken`);
      taken += expected.length;
      if (round % 50 === 49) {
        one.resampler.closeDue(ts + 3 * MIN);
        many.resampler.closeDue(ts + 3 * MIN);
      }
    }
    one.resampler.flush();
    many.resampler.flush();
    assert.deepEqual(many.bars, one.bars);
    assert.deepEqual(many.resampler.stats(), one.resampler.stats());
    assert.ok(taken > 5_000 && one.resampler.stats().late > 100, `taken ${taken}, late ${one.resampler.stats().late}`);
  });
});
