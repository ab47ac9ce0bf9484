/**
 * The position engine's rules (src/backtest/engine-core.ts), one small hand-computed case each.
 * Bars are hourly from Monday 2024-01-08 00:00 UTC (New York on EST, so the 17:00 rollover is
 * 22:00 UTC); EURUSD 1 lot = 100,000 units, so 1 pip (0.0001) = 10 USD. Prices are bid unless
 * fill_at_bid_ask.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  finerBarResolver,
  PositionEngine,
  runBacktest,
  toBarColumns,
  type BarColumns,
  type ClosedTrade,
  type EngineOptions,
} from '../../src/backtest/index.ts';
import { computeIndicators } from '../../src/indicators/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { loadFxBars } from '../indicators/fx-data.ts';
import { columns, flat, H, options, T0, type Row } from './fixtures.ts';

function trades(over: Partial<EngineOptions>, rows: Row[], signals: number[], mask?: number[], start = T0): ClosedTrade[] {
  const bars = columns(rows, start);
  return runBacktest(options(over), bars, Int8Array.from(signals), { from: 0, to: rows.length }, mask && Uint8Array.from(mask)).trades;
}

const near = (actual: number, expected: number, what = 'value', eps = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= eps, `${what}: ${actual} ≠ ${expected}`);

/** The parts of a trade a case checks, money to 1e-9. */
function expectTrade(
  t: ClosedTrade | undefined,
  want: {
    side: 1 | -1;
    entry: [number, number];
    exit: [number, number];
    reason: ClosedTrade['reason'];
    pips?: number;
    pnl?: number;
    held?: number;
  },
) {
  assert.ok(t, 'trade missing');
  assert.equal(t.side, want.side, 'side');
  assert.equal(t.entryTs, T0 + want.entry[0] * H, 'entry bar');
  near(t.entryPrice, want.entry[1], 'entry price');
  assert.equal(t.exitTs, T0 + want.exit[0] * H, 'exit bar');
  near(t.exitPrice, want.exit[1], 'exit price');
  assert.equal(t.reason, want.reason, 'reason');
  if (want.pips !== undefined) near(t.pips, want.pips, 'pips', 1e-6);
  if (want.pnl !== undefined) near(t.pnl, want.pnl, 'pnl', 1e-6);
  if (want.held !== undefined) assert.equal(t.barsHeld, want.held, 'bars held');
}

const pips = (n: number) => ({ unit: 'pips' as const, value: n });

test('a signal on bar t fills at the open of bar t+1, not at the close of t', () => {
  // long at b1 open 1.1010; end at b2 close 1.1030: +20 pips = 100,000 × 0.0020 = 200 USD; held b1, b2
  const [t, ...rest] = trades(
    {},
    [
      [1.1, 1.1005, 1.0995, 1.1],
      [1.101, 1.1015, 1.1005, 1.1012],
      [1.102, 1.1035, 1.1015, 1.103],
    ],
    [1, 0, 0],
  );
  assert.equal(rest.length, 0);
  expectTrade(t, { side: 1, entry: [1, 1.101], exit: [2, 1.103], reason: 'end', pips: 20, pnl: 200, held: 2 });
  assert.equal(t!.grossPnl, t!.pnl);
  assert.equal(t!.commission, 0);
  assert.equal(t!.swap, 0);
});

test('the signal of the last bar has no next open and does nothing', () => {
  assert.deepEqual(trades({}, [flat(1.1), flat(1.1)], [0, 1]), []);
});

test('SL: a bar whose low reaches the stop closes at the stop', () => {
  // entry 1.1000, stop 10 pips → 1.0990; b2 low 1.0985 → exit 1.0990: −10 pips = −100 USD
  const [t] = trades({ stop: pips(10) }, [flat(1.1), [1.1, 1.1004, 1.0996, 1.1], [1.1, 1.1002, 1.0985, 1.099]], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.099], reason: 'SL', pips: -10, pnl: -100, held: 2 });
});

test('SL is checked on the entry bar itself, after its open', () => {
  // entered at b1 open 1.1000; b1 low 1.0985 → SL 1.0990 inside the entry bar: held 1
  const [t] = trades({ stop: pips(10) }, [flat(1.1), [1.1, 1.1004, 1.0985, 1.0995], flat(1.1)], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [1, 1.099], reason: 'SL', pnl: -100, held: 1 });
});

test('TP: a bar whose high reaches the take closes at the take', () => {
  // entry 1.1000, take 20 pips → 1.1020; b2 high 1.1025 → +20 pips = +200 USD
  const [t] = trades({ take: pips(20) }, [flat(1.1), flat(1.1), [1.1, 1.1025, 1.0995, 1.101]], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.102], reason: 'TP', pips: 20, pnl: 200 });
});

test('short: stop above, take below the entry', () => {
  // short at 1.1000: stop 10 → 1.1010, take 20 → 1.0980; b2 low 1.0975 → TP +200
  const [t] = trades({ stop: pips(10), take: pips(20) }, [flat(1.1), flat(1.1), [1.1, 1.1005, 1.0975, 1.099]], [-1, 0, 0]);
  expectTrade(t, { side: -1, entry: [1, 1.1], exit: [2, 1.098], reason: 'TP', pips: 20, pnl: 200 });
  // b2 high 1.1012 → SL 1.1010: −100
  const [s] = trades({ stop: pips(10), take: pips(20) }, [flat(1.1), flat(1.1), [1.1, 1.1012, 1.0995, 1.1]], [-1, 0, 0]);
  expectTrade(s, { side: -1, entry: [1, 1.1], exit: [2, 1.101], reason: 'SL', pips: -10, pnl: -100 });
});

test('each trade records the levels its position had: stop and take prices, null when there was none', () => {
  const rows: Row[] = [flat(1.1), flat(1.1), [1.1, 1.1005, 1.0975, 1.099]];
  const [short] = trades({ stop: pips(10), take: pips(20) }, rows, [-1, 0, 0]);
  near(short!.stopLoss!, 1.101, 'short stop above');
  near(short!.takeProfit!, 1.098, 'short take below');
  const [long] = trades({ stop: pips(10) }, [flat(1.1), flat(1.1), flat(1.1)], [1, 0, 0]);
  near(long!.stopLoss!, 1.099, 'long stop below');
  assert.equal(long!.takeProfit, null, 'no take');
  const [bare] = trades({}, [flat(1.1), flat(1.1), flat(1.1)], [1, 0, 0]);
  assert.deepEqual([bare!.stopLoss, bare!.takeProfit], [null, null]);
});

const bothBar: Row = [1.1, 1.1022, 1.0985, 1.1]; // reaches TP 1.1020 and SL 1.0990 of a long from 1.1000

test('SL and TP inside one bar, nothing finer: the stop (conservative)', () => {
  const [t] = trades({ stop: pips(10), take: pips(20) }, [flat(1.1), flat(1.1), bothBar], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.099], reason: 'SL', pnl: -100 });
});

/** 15-min bars under the hourly bar b2 (2024-01-08 02:00 UTC). */
const finerUnderB2 = (rows: Row[]) => columns(rows, T0 + 2 * H, H / 4);

test('SL and TP inside one bar, finer bars say TP came first: TP', () => {
  // 02:00 reaches 1.1022 ≥ TP (low 1.0998 > SL); 02:15 falls to 1.0985 — after the take
  const resolver = finerBarResolver(finerUnderB2([[1.1, 1.1022, 1.0998, 1.102], [1.102, 1.102, 1.0985, 1.099], flat(1.1), flat(1.1)]));
  const [t] = trades({ stop: pips(10), take: pips(20), resolver }, [flat(1.1), flat(1.1), bothBar], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.102], reason: 'TP', pnl: 200 });
});

test('SL and TP inside one bar, finer bars say SL came first: SL', () => {
  const resolver = finerBarResolver(finerUnderB2([[1.1, 1.1005, 1.0985, 1.0995], [1.0995, 1.1022, 1.099, 1.1], flat(1.1), flat(1.1)]));
  const [t] = trades({ stop: pips(10), take: pips(20), resolver }, [flat(1.1), flat(1.1), bothBar], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.099], reason: 'SL', pnl: -100 });
});

test('SL and TP inside one finer bar too: cannot tell, SL', () => {
  const resolver = finerBarResolver(finerUnderB2([[1.1, 1.1022, 1.0985, 1.1], flat(1.1), flat(1.1), flat(1.1)]));
  const [t] = trades({ stop: pips(10), take: pips(20), resolver }, [flat(1.1), flat(1.1), bothBar], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.099], reason: 'SL' });
});

test('a gap through a level fills at the bar open', () => {
  // SL 1.0990, b2 opens at 1.0980: exit 1.0980 = −20 pips = −200 (worse than the stop)
  const [t] = trades({ stop: pips(10), take: pips(20) }, [flat(1.1), flat(1.1), [1.098, 1.099, 1.097, 1.0975]], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.098], reason: 'SL', pips: -20, pnl: -200 });
  // TP 1.1020, b2 opens at 1.1030: exit 1.1030 = +30 pips = +300
  const [u] = trades({ stop: pips(10), take: pips(20) }, [flat(1.1), flat(1.1), [1.103, 1.104, 1.0985, 1.1]], [1, 0, 0]);
  expectTrade(u, { side: 1, entry: [1, 1.1], exit: [2, 1.103], reason: 'TP', pips: 30, pnl: 300 });
});

test('a 0 signal never closes a position', () => {
  const rows: Row[] = [flat(1.1), flat(1.1), flat(1.101), flat(1.102), flat(1.103)];
  const all = trades({}, rows, [1, 0, 0, 0, 0]);
  assert.equal(all.length, 1);
  // long 1.1000 → end at b4 close 1.1030: +300
  expectTrade(all[0], { side: 1, entry: [1, 1.1], exit: [4, 1.103], reason: 'end', pnl: 300, held: 4 });
});

// b2 opens at 1.1010, b3 closes at 1.1005; signals: long on b0, short on b1
const oppRows: Row[] = [flat(1.1), flat(1.1), flat(1.101), [1.101, 1.101, 1.1005, 1.1005]];

test('on_opposite reverse: close all at the next open, open the other side at the same open', () => {
  const [long, short, ...rest] = trades({ onOpposite: 'reverse' }, oppRows, [1, -1, 0, 0]);
  assert.equal(rest.length, 0);
  // long 1.1000 → 1.1010 at b2 open: +100; short 1.1010 → end 1.1005: +5 pips = +50
  expectTrade(long, { side: 1, entry: [1, 1.1], exit: [2, 1.101], reason: 'signal', pnl: 100, held: 1 });
  expectTrade(short, { side: -1, entry: [2, 1.101], exit: [3, 1.1005], reason: 'end', pnl: 50, held: 2 });
});

test('on_opposite close_only: close all, open nothing', () => {
  const all = trades({ onOpposite: 'close_only' }, oppRows, [1, -1, 0, 0]);
  assert.equal(all.length, 1);
  expectTrade(all[0], { side: 1, entry: [1, 1.1], exit: [2, 1.101], reason: 'signal', pnl: 100 });
});

test('on_opposite ignore: the position stays', () => {
  const all = trades({ onOpposite: 'ignore' }, oppRows, [1, -1, 0, 0]);
  assert.equal(all.length, 1);
  expectTrade(all[0], { side: 1, entry: [1, 1.1], exit: [3, 1.1005], reason: 'end', pnl: 50 });
});

test('cooldown: a close on bar k blocks entries at the opens of k+1 … k+cooldown', () => {
  // long at b1 1.1000, SL 1.0990 inside b1 (k = 1); entries at b2, b3 blocked; the b3 signal opens at b4
  const rows: Row[] = [flat(1.1), [1.1, 1.1, 1.0985, 1.1], flat(1.1), flat(1.1), flat(1.1), flat(1.1)];
  const [first, second, ...rest] = trades({ stop: pips(10), cooldown: 2 }, rows, [1, 1, 1, 1, 1, 1]);
  assert.equal(rest.length, 0);
  expectTrade(first, { side: 1, entry: [1, 1.1], exit: [1, 1.099], reason: 'SL' });
  expectTrade(second, { side: 1, entry: [4, 1.1], exit: [5, 1.1], reason: 'end' });
  // cooldown 0: the b1 signal opens again at b2
  const again = trades({ stop: pips(10), cooldown: 0 }, rows, [1, 1, 1, 1, 1, 1]);
  assert.equal(again[1]!.entryTs, T0 + 2 * H);
});

test('cooldown after a signal exit; a reverse at the closing open is not blocked by that close', () => {
  const rows: Row[] = [flat(1.1), flat(1.1), flat(1.1), flat(1.1), flat(1.1), flat(1.1)];
  // close_only, cooldown 1: the b1 short signal closes the long at b2 (k = 2); b2's signal would open at b3: blocked; b3's opens at b4
  const closeOnly = trades({ onOpposite: 'close_only', cooldown: 1 }, rows, [1, -1, -1, -1, 0, 0]);
  assert.deepEqual(
    closeOnly.map((t) => [t.side, (t.entryTs - T0) / H, (t.exitTs - T0) / H, t.reason]),
    [
      [1, 1, 2, 'signal'],
      [-1, 4, 5, 'end'],
    ],
  );
  // reverse, cooldown 3: the short still opens at b2, where the long closed
  const reverse = trades({ onOpposite: 'reverse', cooldown: 3 }, rows, [1, -1, 0, 0, 0, 0]);
  assert.deepEqual(
    reverse.map((t) => [t.side, (t.entryTs - T0) / H, t.reason]),
    [
      [1, 1, 'signal'],
      [-1, 2, 'end'],
    ],
  );
});

test('max_positions: same-direction signals add positions, each with its own stop', () => {
  // entries at b1 1.1010 (stop 15 pips → 1.0995) and b2 1.1020 (stop 1.1005); the b2 signal (3rd) is refused.
  // b3 low 1.1000 stops the second: −15 pips = −150; the first ends at b3 close 1.1030: +200
  const rows: Row[] = [flat(1.1), flat(1.101), flat(1.102), [1.103, 1.1035, 1.1, 1.103]];
  const all = trades({ maxPositions: 2, stop: pips(15) }, rows, [1, 1, 1, 0]);
  assert.equal(all.length, 2);
  expectTrade(all[0], { side: 1, entry: [2, 1.102], exit: [3, 1.1005], reason: 'SL', pnl: -150, held: 2 });
  expectTrade(all[1], { side: 1, entry: [1, 1.101], exit: [3, 1.103], reason: 'end', pnl: 200, held: 3 });
  // with max 1 only the first opens
  assert.equal(trades({ maxPositions: 1, stop: pips(15) }, rows, [1, 1, 1, 0]).length, 1);
});

test('direction long: shorts never open, but a short signal still closes a long (reverse degrades to close)', () => {
  assert.deepEqual(trades({ direction: 'long' }, oppRows, [-1, 0, 0, 0]), []);
  const all = trades({ direction: 'long', onOpposite: 'reverse' }, oppRows, [1, -1, 0, 0]);
  assert.equal(all.length, 1);
  expectTrade(all[0], { side: 1, entry: [1, 1.1], exit: [2, 1.101], reason: 'signal' });
  assert.deepEqual(trades({ direction: 'short' }, oppRows, [1, 0, 0, 0]), []);
});

test('entryMask: bit 1 allows longs, bit 2 shorts, for the signal of that bar', () => {
  const rows: Row[] = [flat(1.1), flat(1.1), flat(1.1)];
  assert.deepEqual(trades({}, rows, [1, 0, 0], [0, 3, 3]), []);
  assert.deepEqual(trades({}, rows, [1, 0, 0], [2, 3, 3]), []);
  assert.equal(trades({}, rows, [1, 0, 0], [1, 0, 0]).length, 1);
  assert.equal(trades({}, rows, [-1, 0, 0], [2, 0, 0]).length, 1);
  // the b1 short signal may not open a short (mask 1): it still closes the long, no short follows
  const all = trades({ onOpposite: 'reverse' }, oppRows, [1, -1, 0, 0], [3, 1, 3, 3]);
  assert.deepEqual(
    all.map((t) => [t.side, t.reason]),
    [[1, 'signal']],
  );
});

/** Hourly flat bars at the given open times (UTC), price 1.1 rising 1 pip a bar. */
const at = (times: number[]) =>
  toBarColumns(times.map((ts, i) => ({ ts, open: 1.1 + i * 1e-4, high: 1.1 + i * 1e-4, low: 1.1 + i * 1e-4, close: 1.1 + i * 1e-4 })));
const entriesAt = (over: Partial<EngineOptions>, bars: BarColumns, signals: number[]) =>
  runBacktest(options(over), bars, Int8Array.from(signals), { from: 0, to: bars.ts.length }).trades.map((t) => [
    t.side,
    new Date(t.entryTs).toISOString(),
  ]);

test("entry times judge the bar the position opens at: no Friday entry on Thursday 23:00's signal", () => {
  // Thursday 2024-01-11 21:00 … Friday 01:00 UTC
  const bars = at([21, 22, 23, 24, 25].map((h) => Date.UTC(2024, 0, 11, h)));
  const noFridays = { entryTimes: { session: null, skipDays: ['fri'] as const } };
  // signal on Thursday 22:00 → fills Thursday 23:00: opens
  assert.deepEqual(entriesAt(noFridays, bars, [0, 1, 0, 0, 0]), [[1, '2024-01-11T23:00:00.000Z']]);
  // signal on Thursday 23:00 → would fill Friday 00:00: nothing opens, however many Thursday signals come
  assert.deepEqual(entriesAt(noFridays, bars, [0, 0, 1, 1, 0]), []);
  // no Thursdays: the Thursday 23:00 signal opens on Friday 00:00 (the signal bar's day does not count)
  assert.deepEqual(entriesAt({ entryTimes: { session: null, skipDays: ['thu'] } }, bars, [1, 1, 1, 0, 0]), [
    [1, '2024-01-12T00:00:00.000Z'],
  ]);
});

test("entry times: the session [start, end) holds the fill bar's open hour, wrapping past midnight", () => {
  const bars = at(Array.from({ length: 24 }, (_, h) => Date.UTC(2024, 0, 9, h))); // a Tuesday
  const each = (session: [number, number]) =>
    Array.from({ length: 23 }, (_, k) => {
      const signals = new Array(24).fill(0);
      signals[k] = 1;
      return entriesAt({ entryTimes: { session, skipDays: [] } }, bars, signals).length ? k + 1 : -1;
    }).filter((h) => h >= 0);
  // the fill hours, each opened by the signal of the hour before
  assert.deepEqual(each([8, 17]), [8, 9, 10, 11, 12, 13, 14, 15, 16]);
  assert.deepEqual(each([22, 3]), [1, 2, 22, 23]);
});

test('entry times across the weekend: the fill bar is the next bar that exists, Sunday 22:00 after Friday 21:00', () => {
  const bars = at([Date.UTC(2024, 0, 12, 20), Date.UTC(2024, 0, 12, 21), Date.UTC(2024, 0, 14, 22), Date.UTC(2024, 0, 14, 23)]);
  assert.deepEqual(entriesAt({ entryTimes: { session: null, skipDays: ['sun'] } }, bars, [0, 1, 0, 0]), []);
  assert.deepEqual(entriesAt({ entryTimes: { session: null, skipDays: ['fri'] } }, bars, [0, 1, 0, 0]), [[1, '2024-01-14T22:00:00.000Z']]);
  // session [0, 22): Friday 20:00's signal fills at Friday 21:00; Friday 21:00's would fill at Sunday 22:00, outside
  assert.deepEqual(entriesAt({ entryTimes: { session: [0, 22], skipDays: [] } }, bars, [1, 0, 0, 0]), [[1, '2024-01-12T21:00:00.000Z']]);
  assert.deepEqual(entriesAt({ entryTimes: { session: [0, 22], skipDays: [] } }, bars, [0, 1, 0, 0]), []);
});

test('entry times stop openings, never closings: an exit, a reverse and the stops act on a filtered bar', () => {
  const bars = at([21, 22, 23, 24, 25].map((h) => Date.UTC(2024, 0, 11, h)));
  const noFridays = { session: null, skipDays: ['fri'] as const };
  const run = (over: Partial<EngineOptions>, signals: number[], mask?: number[]) =>
    runBacktest(
      options({ entryTimes: noFridays, ...over }),
      bars,
      Int8Array.from(signals),
      { from: 0, to: 5 },
      mask && Uint8Array.from(mask),
    ).trades.map((t) => [t.side, t.reason, new Date(t.entryTs).getUTCHours(), new Date(t.exitTs).getUTCHours()]);
  // long from Thursday 22:00; a short signal on Thursday 23:00 reverses at Friday 00:00: the long closes, no short opens
  assert.deepEqual(run({}, [1, 0, -1, 0, 0]), [[1, 'signal', 22, 0]]);
  // the exit bit of Thursday 23:00 closes the long at Friday 00:00
  assert.deepEqual(run({}, [1, 0, 0, 0, 0], [3, 3, 3 | 4, 3, 3]), [[1, 'signal', 22, 0]]);
  // a stop reached on Friday's bars closes as ever (1 pip stop, the price falls from Friday 00:00)
  const falling = toBarColumns(
    [21, 22, 23, 24].map((h, i) => ({ ts: Date.UTC(2024, 0, 11, h), open: 1.1, high: 1.1, low: i === 3 ? 1.098 : 1.1, close: 1.1 })),
  );
  const stopped = runBacktest(options({ entryTimes: noFridays, stop: pips(1) }), falling, Int8Array.from([1, 0, 0, 0]), {
    from: 0,
    to: 4,
  }).trades;
  assert.deepEqual(
    stopped.map((t) => [t.reason, new Date(t.exitTs).toISOString()]),
    [['SL', '2024-01-12T00:00:00.000Z']],
  );
});

test('exit bits: 4 closes longs, 8 shorts, at the next open; the other side is left alone', () => {
  const rows: Row[] = [flat(1.1), flat(1.101), [1.102, 1.103, 1.1015, 1.1025], flat(1.104), flat(1.105)];
  // long at b1 open 1.1010; the exit bit of b2 closes it at b3's open 1.1040 ('signal'), not at the end
  const [t, ...rest] = trades({}, rows, [1, 0, 0, 0, 0], [3, 3, 3 | 4, 3, 3]);
  assert.equal(rest.length, 0);
  expectTrade(t, { side: 1, entry: [1, 1.101], exit: [3, 1.104], reason: 'signal', pips: 30, held: 2 });
  // a short is not closed by the long exit bit: it runs to the end
  const [s] = trades({}, rows, [-1, 0, 0, 0, 0], [3, 3, 3 | 4, 3, 3]);
  expectTrade(s, { side: -1, entry: [1, 1.101], exit: [4, 1.105], reason: 'end' });
  // the short exit bit closes it
  const [s2] = trades({}, rows, [-1, 0, 0, 0, 0], [3, 3, 3 | 8, 3, 3]);
  expectTrade(s2, { side: -1, entry: [1, 1.101], exit: [3, 1.104], reason: 'signal' });
  // flat: an exit bit does nothing; a same-side signal does not re-open at the exit's open (a close
  // blocks entries at its own open, like any close), but on the bar after
  assert.deepEqual(trades({}, rows, [0, 0, 0, 0, 0], [15, 15, 15, 15, 15]), []);
  const reentered = trades({ maxPositions: 1 }, rows, [1, 0, 1, 1, 0], [3, 3, 1 | 4, 3, 3]);
  assert.deepEqual(
    reentered.map((x) => [x.entryTs, x.exitTs, x.reason]),
    [
      [T0 + H, T0 + 3 * H, 'signal'],
      [T0 + 4 * H, T0 + 4 * H, 'end'],
    ],
  );
});

test('exit bits survive a snapshot and restore between the bar and the next open', () => {
  const rows: Row[] = [flat(1.1), flat(1.101), flat(1.102), flat(1.104)];
  const bars = columns(rows, T0);
  const whole = new PositionEngine(options({}));
  const split = new PositionEngine(options({}));
  const masks = [3, 3, 3 | 4, 3];
  const signals = [1, 0, 0, 0];
  let resumed = split;
  for (let i = 0; i < rows.length; i++) {
    whole.step(bars, i, signals[i]!, masks[i]!);
    resumed.step(bars, i, signals[i]!, masks[i]!);
    if (i === 2) resumed = PositionEngine.restore(options({}), JSON.parse(JSON.stringify(resumed.snapshot())));
  }
  assert.deepEqual(resumed.drainClosed(), whole.drainClosed());
  assert.equal(whole.openPositions().length, 0);
});

test('end: what is open after the last bar closes at its close', () => {
  const [t] = trades({ stop: pips(50), take: pips(50) }, [flat(1.1), flat(1.1), [1.1, 1.1012, 1.0991, 1.1007]], [-1, 0, 0]);
  // short 1.1000 → 1.1007: −7 pips = −70
  expectTrade(t, { side: -1, entry: [1, 1.1], exit: [2, 1.1007], reason: 'end', pips: -7, pnl: -70, held: 2 });
});

test('USD P&L: USD-quoted as is; USD-based ÷ the exit price, JPY pips 0.01', () => {
  // EURUSD 1 lot 1.1000 → 1.1050: 100,000 × 0.0050 = 500 USD, 50 pips
  const [eur] = trades({}, [flat(1.1), flat(1.1), flat(1.105)], [1, 0, 0]);
  near(eur!.grossPnl, 500, 'EURUSD gross', 1e-6);
  near(eur!.pips, 50, 'EURUSD pips', 1e-6);
  // USDJPY 1 lot 150.00 → 150.50: 100,000 × 0.50 = 50,000 JPY ÷ 150.50 = 332.2259136… USD, 50 pips
  const jpy = { instrument: INSTRUMENTS.USDJPY };
  const [long] = trades(jpy, [flat(150), flat(150), flat(150.5)], [1, 0, 0]);
  near(long!.grossPnl, 50_000 / 150.5, 'USDJPY long gross');
  near(long!.pips, 50, 'USDJPY pips', 1e-9);
  const [short] = trades(jpy, [flat(150), flat(150), flat(150.5)], [-1, 0, 0]);
  near(short!.grossPnl, -50_000 / 150.5, 'USDJPY short gross');
  assert.equal(long!.notional, 100_000); // USD-based: notional = units
  // BTCUSD: 1 lot = 1 unit, pip 1: 62,000 → 62,100 = 100 USD, 100 pips
  const [btc] = trades({ instrument: INSTRUMENTS.BTCUSD }, [flat(62_000), flat(62_000), flat(62_100)], [1, 0, 0]);
  assert.equal(btc!.units, 1);
  assert.equal(btc!.grossPnl, 100);
  assert.equal(btc!.pips, 100);
});

test('cross pairs are refused (no USD leg to convert with)', () => {
  const eurgbp = { ...INSTRUMENTS.EURUSD, symbol: 'EURUSD' as const, base: 'EUR', quote: 'GBP' };
  assert.throws(() => new PositionEngine(options({ instrument: eurgbp })), /neither currency is USD/);
});

test('commission: per lot per side, on the entry and on the exit', () => {
  // 2 lots 1.1000 → 1.1010: gross 200,000 × 0.0010 = 200; commission 7 × 2 lots × 2 sides = 28; pnl 172
  const [t] = trades({ lotSize: 2, commissionPerLot: 7 }, [flat(1.1), flat(1.1), flat(1.101)], [1, 0, 0]);
  near(t!.grossPnl, 200, 'gross', 1e-6);
  assert.equal(t!.commission, 28);
  near(t!.pnl, 172, 'pnl', 1e-6);
  assert.equal(t!.lots, 2);
  assert.equal(t!.units, 200_000);
});

test('swap: one night per 17:00 New York rollover held over; Wednesday counts three', () => {
  const mon20 = Date.UTC(2024, 0, 8, 20); // Monday 20:00 UTC = 15:00 EST
  const rows: Row[] = [flat(1.1), flat(1.1), flat(1.1), flat(1.1)];
  // entry 21:00, end bar 22:00 (= 17:00 New York): held over it → 1 night × −5 × 2 lots = −10
  const [held] = trades({ swapLong: -5, lotSize: 2 }, rows.slice(0, 3), [1, 0, 0], undefined, mon20);
  assert.equal(held!.nights, 1);
  assert.equal(held!.swap, -10);
  assert.equal(held!.pnl, -10);
  // entry at the 22:00 open itself: that rollover is not held over
  const [after] = trades({ swapLong: -5 }, rows, [0, 1, 0, 0], undefined, mon20);
  assert.equal(after!.entryTs, Date.UTC(2024, 0, 8, 22));
  assert.equal(after!.nights, 0);
  assert.equal(after!.swap, 0);
  // Wednesday 2024-01-10, same hours: 3 nights; a short with swap_short +2 earns 3 × 2 = +6
  const wed20 = Date.UTC(2024, 0, 10, 20);
  const [wedLong] = trades({ swapLong: -5 }, rows.slice(0, 3), [1, 0, 0], undefined, wed20);
  assert.equal(wedLong!.nights, 3);
  assert.equal(wedLong!.swap, -15);
  const [wedShort] = trades({ swapShort: 2 }, rows.slice(0, 3), [-1, 0, 0], undefined, wed20);
  assert.equal(wedShort!.swap, 6);
});

test('swap: a signal exit at the open of the rollover bar has held over it', () => {
  const mon20 = Date.UTC(2024, 0, 8, 20);
  // long at 21:00, short signal on the 21:00 bar → closed at the 22:00 open
  const [t] = trades({ swapLong: -5, onOpposite: 'close_only' }, [flat(1.1), flat(1.1), flat(1.1)], [1, -1, 0], undefined, mon20);
  assert.equal(t!.reason, 'signal');
  assert.equal(t!.nights, 1);
});

function openLevels(over: Partial<EngineOptions>, entry: number, side: 1 | -1) {
  const bars = columns([flat(entry), flat(entry)]);
  const engine = new PositionEngine(options(over));
  engine.step(bars, 0, side);
  engine.step(bars, 1, 0);
  const [p] = engine.openPositions();
  assert.ok(p);
  return p;
}

test('risk_unit levels: pips, usd and pct from the entry price', () => {
  // pips 10 → 0.0010; take 25 pips → 0.0025
  let p = openLevels({ stop: pips(10), take: pips(25) }, 1.1, 1);
  near(p.stopLoss!, 1.099, 'pips stop');
  near(p.takeProfit!, 1.1025, 'pips take');
  // usd 50 at 1 lot EURUSD: 50 / 100,000 = 0.0005
  p = openLevels({ stop: { unit: 'usd', value: 50 }, take: { unit: 'usd', value: 80 } }, 1.1, 1);
  near(p.stopLoss!, 1.0995, 'usd stop');
  near(p.takeProfit!, 1.1008, 'usd take');
  // usd 50 at 2 lots: 0.00025
  p = openLevels({ stop: { unit: 'usd', value: 50 }, lotSize: 2 }, 1.1, 1);
  near(p.stopLoss!, 1.09975, 'usd stop 2 lots');
  // pct 0.01 of 1.1000 = 0.011; a short's stop is above
  p = openLevels({ stop: { unit: 'pct', value: 0.01 }, take: { unit: 'pct', value: 0.02 } }, 1.1, -1);
  near(p.stopLoss!, 1.111, 'pct stop');
  near(p.takeProfit!, 1.078, 'pct take');
  assert.equal(openLevels({}, 1.1, 1).stopLoss, null);
});

test('risk_unit usd on a USD-based pair: the stop loses, the take earns, exactly that many USD', () => {
  // USDJPY long 1 lot at 150: stop d = 100 × 150 / (100,000 + 100) = 0.14985…, take d = 100 × 150 / (100,000 − 100) = 0.15015…
  const jpy = { instrument: INSTRUMENTS.USDJPY, stop: { unit: 'usd' as const, value: 100 }, take: { unit: 'usd' as const, value: 100 } };
  const p = openLevels(jpy, 150, 1);
  near(p.stopLoss!, 150 - 15_000 / 100_100, 'stop');
  near(p.takeProfit!, 150 + 15_000 / 99_900, 'take');
  const [sl] = trades(jpy, [flat(150), flat(150), [150, 150.05, 149.8, 149.9]], [1, 0, 0]);
  assert.equal(sl!.reason, 'SL');
  near(sl!.grossPnl, -100, 'gross at the stop');
  const upBar: Row = [150, 150.2, 149.95, 150.1];
  const [tp] = trades(jpy, [flat(150), flat(150), upBar], [1, 0, 0]);
  assert.equal(tp!.reason, 'TP');
  near(tp!.grossPnl, 100, 'gross at the take');
  // a short: its stop is 150 + 0.15015…, which the same bar's 150.2 reaches
  const [shortSl] = trades(jpy, [flat(150), flat(150), upBar], [-1, 0, 0]);
  assert.equal(shortSl!.reason, 'SL');
  near(shortSl!.grossPnl, -100, 'short gross at the stop');
});

test('fill_at_bid_ask: longs buy the ask and sell the bid; shorts sell the bid and buy back the ask', () => {
  const s = 0.0002; // 2 pips spread at every open
  const rows: Row[] = [
    [1.1, 1.1, 1.1, 1.1, s],
    [1.1, 1.1, 1.1, 1.1, s],
    [1.101, 1.101, 1.099, 1.099, s],
  ];
  // long: 1.1000 + 0.0002 = 1.1002 → end at bid 1.0990: −12 pips = −120
  const [long] = trades({ fillAtBidAsk: true }, rows, [1, 0, 0]);
  expectTrade(long, { side: 1, entry: [1, 1.1002], exit: [2, 1.099], reason: 'end', pnl: -120 });
  // short: sell the bid 1.1000 → buy back the ask 1.0990 + 0.0002 = 1.0992: +8 pips = +80
  const [short] = trades({ fillAtBidAsk: true }, rows, [-1, 0, 0]);
  expectTrade(short, { side: -1, entry: [1, 1.1], exit: [2, 1.0992], reason: 'end', pnl: 80 });
  // without it: both at the bid, ±10 pips
  near(trades({}, rows, [1, 0, 0])[0]!.pnl, -100, 'bid only', 1e-6);
});

test('fill_at_bid_ask: a short is stopped by the ask', () => {
  // short at 1.1000, stop 10 pips = ask 1.1010; b2 bid high 1.1009 → ask high 1.1011 ≥ 1.1010: SL at 1.1010
  const s = 0.0002;
  const rows: Row[] = [
    [1.1, 1.1, 1.1, 1.1, s],
    [1.1, 1.1, 1.1, 1.1, s],
    [1.1, 1.1009, 1.0995, 1.1, s],
  ];
  const [t] = trades({ fillAtBidAsk: true, stop: pips(10) }, rows, [-1, 0, 0]);
  expectTrade(t, { side: -1, entry: [1, 1.1], exit: [2, 1.101], reason: 'SL', pnl: -100 });
  // at the bid only, 1.1009 does not reach 1.1010: the short ends at the close 1.1000
  assert.equal(trades({ stop: pips(10) }, rows, [-1, 0, 0])[0]!.reason, 'end');
});

// Trailing stop (step 3b). Prices near 1.0000 so a 0.1 % trail is 0.0010 of the best price.
const pctTrail = (value: number) => ({ unit: 'pct' as const, value });

test('trail (long): starts at entry − distance, follows the highest high only after the bar, hits as a stop', () => {
  const rows: Row[] = [flat(1), [1, 1.003, 0.9995, 1.002], [1.002, 1.0025, 1.0021, 1.0022], [1.0022, 1.0023, 1.0015, 1.0016]];
  const bars = columns(rows);
  const engine = new PositionEngine(options({ trail: pctTrail(0.001), stop: pips(50) }));
  engine.step(bars, 0, 1);
  // b1: entered at 1.0000, stop 0.9990 (the trail, tighter than the fixed 0.9950); b1's low 0.9995 is above it.
  // The stop moves with b1's high 1.0030 only after b1: 1.0030 − 0.0010030 = 1.0019970 (b1's low is below that: no look-ahead)
  engine.step(bars, 1, 0);
  const [p1] = engine.openPositions();
  near(p1!.stopLoss!, 1.003 - 0.001 * 1.003, 'stop after b1');
  near(p1!.best!, 1.003, 'best after b1');
  // b2 makes no new high: the stop stays
  engine.step(bars, 2, 0);
  near(engine.openPositions()[0]!.stopLoss!, 1.003 - 0.001 * 1.003, 'stop after b2');
  // b3's low 1.0015 reaches it: SL at the trailed level, which the trade records
  engine.step(bars, 3, 0);
  const [t] = engine.closedTrades();
  expectTrade(t, { side: 1, entry: [1, 1], exit: [3, 1.003 - 0.001 * 1.003], reason: 'SL', held: 3 });
  near(t!.stopLoss!, 1.003 - 0.001 * 1.003, 'trade stop_loss = the level at exit');
});

test('trail: the initial trail protects the entry bar', () => {
  // entry 1.0000, trail 0.1 % → 0.9990; b1's low 0.9985 → SL at 0.9990 inside the entry bar
  const [t] = trades({ trail: pctTrail(0.001) }, [flat(1), [1, 1.0005, 0.9985, 0.999], flat(1)], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1], exit: [1, 0.999], reason: 'SL', held: 1 });
});

test('trail (short): follows the lowest low; under fill_at_bid_ask the lowest ask low, hit by the ask', () => {
  const rows: Row[] = [flat(1), [1, 1.0005, 0.997, 0.998], [0.9975, 0.9985, 0.9972, 0.998]];
  // bid: best 0.9970 after b1 → stop 0.9970 + 0.000997 = 0.997997; b2's high 0.9985 reaches it
  const [t] = trades({ trail: pctTrail(0.001) }, rows, [-1, 0, 0]);
  expectTrade(t, { side: -1, entry: [1, 1], exit: [2, 0.997 + 0.001 * 0.997], reason: 'SL' });
  // ask = bid + 0.0002: best ask low 0.9972 → stop 0.9972 × 1.001; b2's ask high 0.9987 reaches it
  const s = 0.0002;
  const [u] = trades(
    { trail: pctTrail(0.001), fillAtBidAsk: true },
    rows.map(([o, h, l, c]) => [o, h, l, c, s]),
    [-1, 0, 0],
  );
  expectTrade(u, { side: -1, entry: [1, 1], exit: [2, 0.9972 + 0.001 * 0.9972], reason: 'SL' });
});

test('trail: a gap through the trailed stop fills at the open', () => {
  // stop 1.001997 after b1; b2 opens at 1.0015, below it: SL at the open
  const [t] = trades({ trail: pctTrail(0.001) }, [flat(1), [1, 1.003, 0.9995, 1.002], [1.0015, 1.0018, 1.001, 1.0012]], [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1], exit: [2, 1.0015], reason: 'SL' });
  near(t!.stopLoss!, 1.003 - 0.001 * 1.003, 'the trailed level');
});

test('trail: never loosens when the ATR grows; a tighter fixed stop stays as the floor', () => {
  // ATR(2) trail × 2. b0 TR 0.0020 = ATR; entry 1.0000 at b1 → stop 1.0000 − 0.0040 = 0.9960.
  // b1 TR 0.0025 → ATR (0.002 + 0.0025)/2 = 0.00225, best 1.0020 → stop 1.0020 − 0.0045 = 0.9975.
  // b2 no new high, TR 0.0043 → ATR 0.003275: 1.0020 − 0.00655 would loosen it: the stop stays 0.9975.
  const rows: Row[] = [
    [1, 1.001, 0.999, 1],
    [1, 1.002, 0.9995, 1.001],
    [1.001, 1.0019, 0.9976, 0.998],
    [0.998, 0.9985, 0.9974, 0.998],
  ];
  const bars = columns(rows);
  const atrTrail = { trail: { unit: 'atr' as const, value: 2, period: 2 } };
  const engine = new PositionEngine(options(atrTrail));
  engine.step(bars, 0, 1);
  engine.step(bars, 1, 0);
  const after1 = 1.002 - 2 * ((0.5 * 0.002 + 0.5 * 0.0025) / (0.5 + 0.5));
  near(engine.openPositions()[0]!.stopLoss!, after1, 'stop after b1');
  engine.step(bars, 2, 0);
  near(engine.openPositions()[0]!.stopLoss!, after1, 'stop after the wide b2');
  engine.step(bars, 3, 0);
  expectTrade(engine.closedTrades()[0], { side: 1, entry: [1, 1], exit: [3, after1], reason: 'SL' });
  // A fixed stop of 5 pips (0.9995) is tighter than a 1 % trail (0.99, then 1.002 × 0.99): it stays, b1's low 0.9995 hits it
  const [f] = trades({ trail: pctTrail(0.01), stop: pips(5) }, rows, [1, 0, 0, 0]);
  expectTrade(f, { side: 1, entry: [1, 1], exit: [1, 0.9995], reason: 'SL' });
});

test('trail in pips: a fixed distance behind the best price (JPY pips 0.01)', () => {
  // EURUSD, 20 pips: entry 1.1000 → 1.0980; b1 high 1.1030 → 1.1010; b2 low 1.1005 → SL at 1.1010 (+10 pips)
  const rows: Row[] = [flat(1.1), [1.1, 1.103, 1.099, 1.102], [1.102, 1.1025, 1.1005, 1.101]];
  const [t] = trades({ trail: { unit: 'pips', value: 20 } }, rows, [1, 0, 0]);
  expectTrade(t, { side: 1, entry: [1, 1.1], exit: [2, 1.103 - 20 * 0.0001], reason: 'SL', pips: 10 });
  // USDJPY short, 20 pips = 0.20: entry 150.00 → 150.20; b1 low 149.50 → 149.70; b2 high 149.80 → SL at 149.70
  const jpy: Row[] = [flat(150), [150, 150.1, 149.5, 149.6], [149.6, 149.8, 149.55, 149.7]];
  const [u] = trades({ instrument: INSTRUMENTS.USDJPY, trail: { unit: 'pips', value: 20 } }, jpy, [-1, 0, 0]);
  expectTrade(u, { side: -1, entry: [1, 150], exit: [2, 149.5 + 20 * 0.01], reason: 'SL', pips: 30 });
});

test('bad trails are refused', () => {
  assert.throws(() => new PositionEngine(options({ trail: pctTrail(0) })), /trail/);
  assert.throws(() => new PositionEngine(options({ trail: pctTrail(1) })), /trail/);
  assert.throws(() => new PositionEngine(options({ trail: { unit: 'atr', value: 2, period: 0 } })), /period/);
  assert.throws(() => new PositionEngine(options({ trail: { unit: 'pips', value: -5 } })), /trail/);
  assert.throws(() => new PositionEngine(options({ trail: { unit: 'atr', value: Number.NaN, period: 14 } })), /trail/);
});

/**
 * The ATR trail by hand on real EURUSD 1-minute bars (nominal times): the registry's ATR(14) column
 * (NaN over its warm-up, then the recursion from bar 0 — the engine also steps from bar 0, so the
 * values must agree to the bit), and a plain loop of the trailing rule — enter at the open, the stop at entry ∓ k·ATR of the bar
 * before, a gap through it fills at the open, a touch at the level, else the best and the stop move
 * with the bar. The engine must give exactly these trades.
 */
function handAtrTrail(bars: BarColumns, atr: Float64Array, side: 1 | -1, k: number, first: number): [number, number, string][] {
  const out: [number, number, string][] = [];
  let open = false;
  let best = 0;
  let stop = 0;
  const n = bars.ts.length;
  for (let i = first; i < n; i++) {
    const o = bars.open[i]!;
    if (!open) {
      open = true;
      best = o;
      stop = o - side * k * atr[i - 1]!;
    }
    if (side > 0 ? o <= stop : o >= stop) out.push([i, o, 'SL']);
    else if (side > 0 ? bars.low[i]! <= stop : bars.high[i]! >= stop) out.push([i, stop, 'SL']);
    else {
      best = side > 0 ? Math.max(best, bars.high[i]!) : Math.min(best, bars.low[i]!);
      const level = best - side * k * atr[i]!;
      if (side > 0 ? level > stop : level < stop) stop = level;
      continue;
    }
    open = false; // the signal on every bar re-enters at the next open
  }
  return out;
}

test("ATR trail on real bars equals a hand computation from the indicator registry's ATR values", () => {
  const ohlc = loadFxBars(3000);
  const bars: BarColumns = {
    ...ohlc,
    ts: Float64Array.from(ohlc.close, (_, i) => T0 + i * 60_000),
    spread: new Float64Array(ohlc.close.length),
  };
  const atr = computeIndicators(ohlc, [{ name: 'atr', params: { period: 14 } }]).atr_14!;
  for (const side of [1, -1] as const) {
    const opts = options({ timeframeMs: 60_000, trail: { unit: 'atr', value: 2, period: 14 } });
    // Signals from the first bar with a registry value on: entries from the bar after it.
    const first = atr.findIndex((x) => !Number.isNaN(x));
    assert.ok(first > 300 && first < 1000, `ATR warm-up ${first}`);
    const run = runBacktest(opts, bars, new Int8Array(bars.ts.length).fill(side, first), { from: 0, to: bars.ts.length });
    const got = run.trades
      .filter((t) => t.reason === 'SL')
      .map((t): [number, number, string] => [(t.exitTs - T0) / 60_000, t.exitPrice, t.reason]);
    const want = handAtrTrail(bars, atr, side, 2, first + 1);
    assert.ok(want.length > 20, `${want.length} stops: enough to compare`);
    assert.deepEqual(got, want, `side ${side}`);
  }
});
