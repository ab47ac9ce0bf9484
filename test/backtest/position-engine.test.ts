/**
 * PositionEngine as a caller drives it: stepping, finishing, equity, nextOpen, bad options. (The
 * trading rules: engine-core.test.ts; snapshot / restore: run.test.ts.) Hourly EURUSD bars from
 * Monday 2024-01-08 00:00 UTC; 1 lot = 100,000 units, 1 pip = 10 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXIT_LONG, EXIT_SHORT, LONG_ALLOWED, PositionEngine, SHORT_ALLOWED, runBacktest, toBarColumns } from '../../src/backtest/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import { columns, flat, H, options, T0 } from './fixtures.ts';

const pips = (n: number) => ({ unit: 'pips' as const, value: n });

test('step refuses a bar that is not after the last one; finish only on the last bar stepped', () => {
  const bars = columns([flat(1.1), flat(1.1)]);
  const engine = new PositionEngine(options());
  engine.step(bars, 1, 0);
  assert.throws(() => engine.step(bars, 1, 0), /not after the last bar/);
  assert.throws(() => engine.step(bars, 0, 0), /not after the last bar/);
  assert.throws(() => engine.finish(bars, 0), /not the last bar stepped/);
});

test('bad options are refused', () => {
  assert.throws(() => new PositionEngine(options({ maxPositions: 0 })), /maxPositions/);
  assert.throws(() => new PositionEngine(options({ cooldown: -1 })), /cooldown/);
  assert.throws(() => new PositionEngine(options({ lotSize: 0 })), /lotSize/);
  assert.throws(() => new PositionEngine(options({ stop: pips(0) })), /stop/);
  assert.throws(() => new PositionEngine(options({ capital: -1 })), /capital/);
});

test('closedTrades keeps the trades, drainClosed hands them over once', () => {
  // long 1.1000 → short signal on b1 closes it at b2's open 1.1010 (+100); the short ends at b3
  const bars = columns([flat(1.1), flat(1.1), flat(1.101), flat(1.101)]);
  const engine = new PositionEngine(options());
  [1, -1, 0, 0].forEach((sig, i) => engine.step(bars, i, sig));
  assert.equal(engine.closedCount, 1);
  const kept = engine.closedTrades();
  assert.deepEqual(
    kept.map((t) => [t.side, t.entryTs, t.exitTs, t.reason]),
    [[1, T0 + H, T0 + 2 * H, 'signal']],
  );
  assert.ok(Math.abs(kept[0]!.pnl - 100) < 1e-6);
  // New objects each call: what a caller does with them does not reach the engine.
  kept[0]!.pnl = 0;
  const again = engine.closedTrades();
  assert.ok(Math.abs(again[0]!.pnl - 100) < 1e-6);
  assert.equal(engine.closedCount, 1, 'reading does not drain');
  const [first, ...rest] = engine.drainClosed();
  assert.deepEqual(first, again[0]);
  assert.deepEqual(rest, []);
  assert.deepEqual(engine.drainClosed(), []);
  assert.deepEqual(engine.closedTrades(), [], 'drained trades are gone');
  assert.deepEqual(
    engine.openPositions().map((p) => [p.side, p.entryTs, p.barsHeld, p.units]),
    [[-1, T0 + 2 * H, 2, 100_000]],
  );
  engine.finish(bars, 3);
  assert.deepEqual(
    engine.drainClosed().map((t) => t.reason),
    ['end'],
  );
  assert.ok(Math.abs(engine.realizedPnl - 100) < 1e-6);
});

test('equity: capital + closed P&L + open positions marked at the close, after their entry commission', () => {
  const bars = columns([flat(1.1), flat(1.1), flat(1.101), flat(1.102)]);
  const run = runBacktest(options({ commissionPerLot: 3, capital: 5000 }), bars, Int8Array.from([1, 0, 0, 0]), { from: 0, to: 4 });
  // b0 flat: 5000; b1 long at 1.1000, close 1.1000: 5000 − 3; b2 close 1.1010: 5000 + 100 − 3; end at 1.1020: 5000 + 200 − 6
  assert.deepEqual(
    Array.from(run.equity, (e) => Math.round(e * 1e6) / 1e6),
    [5000, 4997, 5097, 5194],
  );
  assert.equal(run.capital, 5000);
});

test('nextOpen: the side the pending signal opens at the next open, or 0', () => {
  const bars = columns([flat(1.1), [1.1, 1.1, 1.0985, 1.1], flat(1.1), flat(1.1)]);
  const engine = new PositionEngine(options({ onOpposite: 'close_only', stop: pips(10), cooldown: 1 }));
  assert.equal(engine.nextOpen(), 0);
  engine.step(bars, 0, 1, 2); // a long signal whose mask allows only shorts
  assert.equal(engine.nextOpen(), 0);
  const again = new PositionEngine(options({ onOpposite: 'close_only', stop: pips(10), cooldown: 1 }));
  again.step(bars, 0, 1);
  assert.equal(again.nextOpen(), 1);
  again.step(bars, 1, 1); // entered at b1's open, stopped inside b1: cooldown blocks b2's open
  assert.equal(again.closedCount, 1);
  assert.equal(again.nextOpen(), 0);
  again.step(bars, 2, 1);
  assert.equal(again.nextOpen(), 1);
  again.step(bars, 3, -1); // long open; close_only: a short signal opens nothing
  assert.equal(again.openPositions().length, 1);
  assert.equal(again.nextOpen(), 0);
});

test("nextOpen judges the entry times on the expected next open: after Friday's last bar, Sunday 22:00 UTC (17:00 New York)", () => {
  const bars = toBarColumns(
    [Date.UTC(2024, 0, 12, 20), Date.UTC(2024, 0, 12, 21), Date.UTC(2024, 0, 14, 22)].map((ts) => ({
      ts,
      open: 1.1,
      high: 1.1,
      low: 1.1,
      close: 1.1,
    })),
  );
  const after = (skipDays: ('fri' | 'sun')[]) => {
    const engine = new PositionEngine(options({ entryTimes: { session: null, skipDays } }));
    engine.step(bars, 0, 0);
    engine.step(bars, 1, 1);
    const said = { next: engine.expectedNextTs(), opens: engine.nextOpen(), allowed: engine.entryTimeAllowed(engine.expectedNextTs()) };
    engine.step(bars, 2, 0);
    return { ...said, opened: engine.openPositions().length };
  };
  // what is announced at Friday 21:00's close is what the engine does at Sunday 22:00's open
  assert.deepEqual(after(['sun']), { next: Date.UTC(2024, 0, 14, 22), opens: 0, allowed: false, opened: 0 });
  assert.deepEqual(after(['fri']), { next: Date.UTC(2024, 0, 14, 22), opens: 1, allowed: true, opened: 1 });
  // inside the week the expected next open is the next hour
  const engine = new PositionEngine(options({ entryTimes: { session: [8, 17], skipDays: [] } }));
  const day = columns([flat(1.1), flat(1.1)], Date.UTC(2024, 0, 9, 16));
  engine.step(day, 0, 1);
  assert.equal(engine.expectedNextTs(), Date.UTC(2024, 0, 9, 17));
  assert.equal(engine.nextOpen(), 0, 'a 16:00 signal would fill at 17:00, outside [8, 17)');
});

test('property: on real EURUSD 15-minute bars (weekends included), nextOpen() foretells each entry under random sessions, skipped days, entry masks, exit columns and on_opposite', () => {
  const m = loadBars('EURUSD', '15min', 6_000);
  const bars = toBarColumns(Array.from(m.ts, (ts, i) => ({ ts, open: m.open[i]!, high: m.high[i]!, low: m.low[i]!, close: m.close[i]! })));
  const random = seededRandom(35);
  const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sun'] as const;
  let entries = 0;
  for (let run = 0; run < 20; run++) {
    const start = Math.floor(random() * 24);
    const session = random() < 0.7 ? ([start, (start + 1 + Math.floor(random() * 22)) % 24] as [number, number]) : null;
    const skipDays = days.filter(() => random() < 0.3);
    const onOpposite = (['reverse', 'close_only', 'ignore'] as const)[run % 3]!;
    const engine = new PositionEngine(
      options({
        timeframeMs: 15 * 60_000,
        entryTimes: { session, skipDays },
        stop: pips(8),
        take: pips(8),
        maxPositions: 2,
        cooldown: Math.floor(run / 3) % 3,
        onOpposite,
      }),
    );
    for (let i = 0; i < bars.ts.length; i++) {
      const predicted = engine.nextOpen();
      const before = engine.closedCount;
      // Entry bits mostly set, exit columns now and then (an exit closes that side at the next open).
      const mask =
        (random() < 0.85 ? LONG_ALLOWED : 0) |
        (random() < 0.85 ? SHORT_ALLOWED : 0) |
        (random() < 0.08 ? EXIT_LONG : 0) |
        (random() < 0.08 ? EXIT_SHORT : 0);
      engine.step(bars, i, random() < 0.3 ? (random() < 0.5 ? 1 : -1) : 0, mask);
      const entered = [...engine.openPositions(), ...engine.closedTrades().slice(before)].filter((p) => p.entryTs === bars.ts[i]);
      assert.deepEqual(
        entered.map((p) => p.side),
        predicted === 0 ? [] : [predicted],
        `run ${run} (${JSON.stringify([session, skipDays])}): nextOpen before ${new Date(bars.ts[i]!).toISOString()}`,
      );
      entries += entered.length;
    }
  }
  assert.ok(entries > 2_000, `${entries} entries`);
});
