/**
 * runBacktest against invariants, on seeded random markets and signals (many runs, every option
 * drawn at random): the money adds up, no trade enters before the bar after its signal, never more
 * than max_positions open, and a run split anywhere — snapshot → JSON → restore → continue, as a
 * live actor does across restarts — gives exactly the same trades and equity.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  finerBarResolver,
  PositionEngine,
  runBacktest,
  toBarColumns,
  type BarColumns,
  type EngineOptions,
  type Level,
} from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { loadFxBars } from '../indicators/fx-data.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';

const M15 = 900_000;
const H = 3_600_000;

/** FX is shut from Friday 22:00 to Sunday 22:00 UTC (close enough for a test market). */
const closed = (ts: number) => {
  const d = new Date(ts);
  const day = d.getUTCDay();
  const h = d.getUTCHours();
  return day === 6 || (day === 5 && h >= 22) || (day === 0 && h < 22);
};

/** A random walk of 15-min bars (with gaps at some opens) and the hourly bars made from them. */
function market(random: () => number, hours: number, price: number, pip: number): { coarse: BarColumns; finer: BarColumns } {
  const fine: { ts: number; open: number; high: number; low: number; close: number; spread: number }[] = [];
  const coarse: typeof fine = [];
  let p = price;
  for (let ts = Date.UTC(2024, 2, 4), made = 0; made < hours; ts += H) {
    if (closed(ts)) continue;
    made++;
    const group = [];
    for (let q = 0; q < 4; q++) {
      const open = random() < 0.03 ? p + (random() - 0.5) * 30 * pip : p;
      const close = open + (random() - 0.5) * 12 * pip;
      const high = Math.max(open, close) + random() * 6 * pip;
      const low = Math.min(open, close) - random() * 6 * pip;
      const bar = { ts: ts + q * M15, open, high, low, close, spread: (0.5 + random()) * pip };
      group.push(bar);
      fine.push(bar);
      p = close;
    }
    coarse.push({
      ts,
      open: group[0]!.open,
      high: Math.max(...group.map((b) => b.high)),
      low: Math.min(...group.map((b) => b.low)),
      close: group[3]!.close,
      spread: group[0]!.spread,
    });
  }
  return { coarse: toBarColumns(coarse), finer: toBarColumns(fine) };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

function randomLevel(random: () => number, jpy: boolean): Level | null {
  return pick(random, [
    null,
    { unit: 'pips', value: 5 + Math.floor(random() * 30) },
    { unit: 'usd', value: 20 + random() * 300 },
    { unit: 'pct', value: (jpy ? 0.0005 : 0.0005) + random() * 0.003 },
  ] as const);
}

function randomCase(seed: number) {
  const random = seededRandom(seed);
  const jpy = random() < 0.3;
  const instrument = jpy ? INSTRUMENTS.USDJPY : INSTRUMENTS.EURUSD;
  const { coarse, finer } = market(random, 300 + Math.floor(random() * 300), jpy ? 150 : 1.1, instrument.pipSize);
  const n = coarse.ts.length;
  const busy = 0.1 + random() * 0.6;
  const signals = Int8Array.from({ length: n }, () => (random() < busy ? (random() < 0.5 ? 1 : -1) : 0));
  const mask = random() < 0.5 ? Uint8Array.from({ length: n }, () => (random() < 0.8 ? 3 : Math.floor(random() * 3))) : undefined;
  const opts: EngineOptions = {
    instrument,
    timeframeMs: H,
    direction: pick(random, ['both', 'both', 'long', 'short'] as const),
    cooldown: pick(random, [0, 0, 1, 3]),
    maxPositions: pick(random, [1, 1, 2, 3]),
    onOpposite: pick(random, ['reverse', 'close_only', 'ignore'] as const),
    stop: randomLevel(random, jpy),
    take: randomLevel(random, jpy),
    lotSize: pick(random, [0.1, 1, 2.5]),
    commissionPerLot: pick(random, [0, 3.5]),
    swapLong: pick(random, [0, -6.2, 1.3]),
    swapShort: pick(random, [0, 2.1, -4]),
    fillAtBidAsk: random() < 0.5,
    resolver: random() < 0.5 ? finerBarResolver(finer) : null,
    capital: pick(random, [10_000, 2_500]),
    trail: pick(random, [
      null,
      null,
      { unit: 'pct', value: 0.0005 + random() * 0.003 },
      { unit: 'pips', value: 5 + random() * 30 },
      { unit: 'atr', value: 0.5 + random() * 3, period: pick(random, [2, 5, 14]) },
    ] as const),
  };
  const from = Math.floor(random() * 20);
  const to = n - Math.floor(random() * 20);
  return { random, opts, bars: coarse, signals, mask, range: { from, to } };
}

const RUNS = 300;

test(`invariants over ${RUNS} random runs`, () => {
  let tradesSeen = 0;
  const reasons = new Set<string>();
  for (let seed = 1; seed <= RUNS; seed++) {
    const { opts, bars, signals, mask, range } = randomCase(seed);
    const run = runBacktest(opts, bars, signals, range, mask);
    const where = `seed ${seed}`;
    const index = new Map(Array.from(bars.ts, (ts, i) => [ts, i]));

    // the money adds up: Σ pnl = final equity − capital; pnl = gross − commission + swap
    const sum = run.trades.reduce((s, t) => s + t.pnl, 0);
    assert.ok(Math.abs(sum - (run.equity[run.equity.length - 1]! - run.capital)) < 1e-6, `${where}: Σ pnl ${sum} vs equity`);
    for (const t of run.trades) assert.ok(Math.abs(t.pnl - (t.grossPnl - t.commission + t.swap)) < 1e-9, `${where}: pnl parts`);

    for (const t of run.trades) {
      const e = index.get(t.entryTs)!;
      const x = index.get(t.exitTs)!;
      // entered at the open of the bar after a signal of its side, inside the range, allowed by mask and direction
      assert.ok(e - 1 >= range.from && x < range.to && x >= e, `${where}: bars ${e}..${x} outside [${range.from}, ${range.to})`);
      assert.equal(signals[e - 1], t.side, `${where}: entry at bar ${e} without a signal on bar ${e - 1}`);
      if (mask) assert.ok(mask[e - 1]! & (t.side > 0 ? 1 : 2), `${where}: masked entry`);
      if (opts.direction !== 'both') assert.equal(t.side, opts.direction === 'long' ? 1 : -1, `${where}: direction`);
      if (t.reason === 'end') assert.equal(x, range.to - 1, `${where}: end before the last bar`);
      if (t.reason === 'signal') assert.equal(signals[x - 1], -t.side, `${where}: signal exit without an opposite signal`);
      reasons.add(t.reason);
    }

    // never more than max_positions open, and all on one side: count at each entry instant
    for (const t of run.trades) {
      const open = run.trades.filter(
        (u) => u.entryTs <= t.entryTs && (u.exitTs > t.entryTs || (u.exitTs === t.entryTs && u.reason !== 'signal')),
      );
      assert.ok(open.length <= opts.maxPositions, `${where}: ${open.length} open at ${t.entryTs}`);
      assert.ok(
        open.every((u) => u.side === t.side),
        `${where}: both sides open at once`,
      );
    }
    tradesSeen += run.trades.length;
  }
  assert.ok(tradesSeen > RUNS * 20, `only ${tradesSeen} trades: the random cases barely trade`);
  assert.deepEqual([...reasons].sort(), ['SL', 'TP', 'end', 'signal']);
});

test('a trailing stop only tightens: each SL exit of a trailed run is at or beyond its initial stop', () => {
  let trailed = 0;
  for (let seed = 1; seed <= RUNS; seed++) {
    const { opts, bars, signals, mask, range } = randomCase(seed);
    if (!opts.trail) continue;
    const index = new Map(Array.from(bars.ts, (ts, i) => [ts, i]));
    for (const t of runBacktest(opts, bars, signals, range, mask).trades) {
      if (t.reason !== 'SL') continue;
      // the level a trade records is the one at exit; for a long it lies above entry − its initial distance
      if (opts.trail.unit === 'pct') {
        const initial = t.entryPrice - t.side * opts.trail.value * t.entryPrice;
        assert.ok(
          t.side > 0 ? t.stopLoss! >= initial - 1e-12 : t.stopLoss! <= initial + 1e-12,
          `seed ${seed}: stop ${t.stopLoss} looser than ${initial}`,
        );
      }
      const x = index.get(t.exitTs)!;
      // a stop exit fills at the level or, on a gap, at the open beyond it
      const open = bars.open[x]! + (t.side < 0 && opts.fillAtBidAsk ? bars.spread[x]! : 0);
      assert.ok(
        t.exitPrice === t.stopLoss || t.exitPrice === open,
        `seed ${seed}: SL exit ${t.exitPrice} is neither the stop nor the open`,
      );
      trailed++;
    }
  }
  assert.ok(trailed > 100, `only ${trailed} trailed stop exits`);
});

test('snapshot → JSON → restore at random points gives exactly the trades and equity of one run; nextOpen() predicts each entry', () => {
  for (let seed = 1; seed <= 100; seed++) {
    const { random, opts, bars, signals, mask, range } = randomCase(seed);
    const whole = runBacktest(opts, bars, signals, range, mask);
    const splits = new Set(Array.from({ length: 4 }, () => range.from + Math.floor(random() * (range.to - range.from))));
    let engine = new PositionEngine(opts);
    const equity: number[] = [];
    const drained = [];
    for (let i = range.from; i < range.to; i++) {
      if (splits.has(i)) {
        if (random() < 0.5) drained.push(...engine.drainClosed()); // a live actor emits trades as they close
        engine = PositionEngine.restore(opts, JSON.parse(JSON.stringify(engine.snapshot())));
      }
      const predicted = engine.nextOpen();
      const closedBefore = engine.closedCount;
      engine.step(bars, i, signals[i]!, mask ? mask[i]! : 3);
      // nextOpen() said, before this bar, which side its open would enter (if any)
      const entered = [...engine.openPositions(), ...engine.closedTrades().slice(closedBefore)].filter((p) => p.entryTs === bars.ts[i]);
      assert.deepEqual(
        entered.map((p) => p.side),
        predicted === 0 ? [] : [predicted],
        `seed ${seed}: nextOpen at bar ${i}`,
      );
      if (i === range.to - 1) engine.finish(bars, i);
      equity.push(engine.equity(bars, i));
    }
    drained.push(...engine.drainClosed());
    assert.deepEqual(drained, whole.trades, `seed ${seed}: trades differ`);
    assert.deepEqual(equity, Array.from(whole.equity), `seed ${seed}: equity differs`);
  }
});

test('ATR trail on real bars: snapshot → JSON → restore mid-trade gives the trades of an uninterrupted run', () => {
  const ohlc = loadFxBars(4000);
  const bars: BarColumns = {
    ...ohlc,
    ts: Float64Array.from(ohlc.close, (_, i) => Date.UTC(2024, 0, 8) + i * 60_000),
    spread: new Float64Array(ohlc.close.length).fill(0.00008),
  };
  const n = bars.ts.length;
  // Long for a while, then short, then long: trailed exits on both sides, positions open at the splits.
  const signals = Int8Array.from({ length: n }, (_, i) => (i < 100 ? 0 : Math.floor(i / 700) % 2 === 0 ? 1 : -1));
  const opts: EngineOptions = {
    instrument: INSTRUMENTS.EURUSD,
    timeframeMs: 60_000,
    direction: 'both',
    cooldown: 0,
    maxPositions: 2,
    onOpposite: 'reverse',
    stop: { unit: 'pips', value: 15 },
    take: null,
    lotSize: 1,
    commissionPerLot: 0,
    swapLong: 0,
    swapShort: 0,
    fillAtBidAsk: true,
    trail: { unit: 'atr', value: 1.5, period: 14 },
  };
  const whole = runBacktest(opts, bars, signals, { from: 0, to: n });
  assert.ok(whole.trades.filter((t) => t.reason === 'SL').length > 30, 'trailed exits to compare');
  let engine = new PositionEngine(opts);
  let restoredOpen = 0;
  for (let i = 0; i < n; i++) {
    if (i % 97 === 0 && i > 0) {
      const snap = JSON.parse(JSON.stringify(engine.snapshot())) as ReturnType<PositionEngine['snapshot']>;
      assert.ok(snap.atr, 'the snapshot carries the ATR');
      if (snap.positions.length > 0) {
        restoredOpen++;
        assert.ok(
          snap.positions.every((p) => typeof p.best === 'number'),
          "and each position's best price",
        );
      }
      engine = PositionEngine.restore(opts, snap);
    }
    engine.step(bars, i, signals[i]!);
    if (i === n - 1) engine.finish(bars, i);
  }
  assert.ok(restoredOpen > 10, `restored mid-trade ${restoredOpen} times`);
  assert.deepEqual(engine.closedTrades(), whole.trades);
});

test('a snapshot from before the trailing stop (no best, no ATR) still restores', () => {
  const { opts, bars } = randomCase(11);
  const trailed: EngineOptions = { ...opts, direction: 'both', stop: null, take: null, trail: { unit: 'atr', value: 20, period: 14 } };
  const engine = new PositionEngine(trailed);
  for (let i = 0; i < 100; i++) engine.step(bars, i, 1);
  const { atr: _atr, ...old } = engine.snapshot();
  const positions = old.positions.map(({ best: _best, ...p }) => p);
  assert.ok(positions.length > 0, 'a position open');
  const restored = PositionEngine.restore(trailed, { ...old, positions });
  assert.deepEqual(
    restored.openPositions().map((p) => p.best),
    positions.map((p) => p.entryPrice),
    'the best starts again at the entry',
  );
  restored.step(bars, 100, 0); // steps on, the ATR starting again from this bar
  assert.ok(restored.snapshot().atr, 'ATR kept from here');
});

test('a snapshot is plain JSON and restores only into a compatible engine', () => {
  const { opts, bars, signals } = randomCase(7);
  const engine = new PositionEngine({ ...opts, maxPositions: 3 });
  for (let i = 0; i < 200; i++) engine.step(bars, i, signals[i]! || 1);
  const snap = engine.snapshot();
  assert.deepEqual(JSON.parse(JSON.stringify(snap)), snap);
  assert.throws(() => PositionEngine.restore(opts, { ...snap, version: 2 }));
  if (snap.positions.length > 1) assert.throws(() => PositionEngine.restore({ ...opts, maxPositions: 1 }, snap), /maxPositions/);
});

test('runBacktest refuses a range outside the bars or signals too short', () => {
  const { opts, bars, signals } = randomCase(3);
  assert.throws(() => runBacktest(opts, bars, signals, { from: 5, to: 4 }), /range/);
  assert.throws(() => runBacktest(opts, bars, signals, { from: 0, to: bars.ts.length + 1 }), /range/);
  assert.throws(() => runBacktest(opts, bars, signals.subarray(0, 10), { from: 0, to: 20 }), /signals/);
  const empty = runBacktest(opts, bars, signals, { from: 4, to: 4 });
  assert.equal(empty.trades.length, 0);
  assert.equal(empty.equity.length, 0);
});
