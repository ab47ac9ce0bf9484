/**
 * sweepBacktests: every trial of one batched pass gives, to the bit, what runBacktest gives that
 * trial alone — its trades (or their P&L and entry times), tradeStats of them and its equity at the marks — on real 15-minute
 * EURUSD and USDJPY bars (HistData 2017, ../shared/data/fx, with their 1-minute bars for the
 * intrabar resolver) and on seeded synthetic markets, for trials across every option: levels in
 * pips / pct / usd, trails in pct / pips / atr, thresholds, cooldowns, directions, max positions,
 * on_opposite modes, entry times (session hours, skipped days: judged on the fill bar), entry / exit
 * masks and the finer-bar resolver; and for seeded random option sets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  finerBarResolver,
  runBacktest,
  sweepBacktests,
  toBarColumns,
  tradeStats,
  type BarColumns,
  type EngineOptions,
  type EntryTimes,
  type FirstTouch,
  type IntrabarResolver,
  type Level,
  type SweepTrial,
  type Trail,
} from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';
import { entryMask, toSignals } from '../../src/scoring/decisions.ts';
import type { Symbol } from '../../schemas/common.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';

const M1 = 60_000;
const M15 = 900_000;

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Real bars of the symbol at 15 minutes and the 1-minute bars beneath, with a spread varying by bar. */
function realMarket(symbol: Symbol, bars15: number): { bars: BarColumns; finer: BarColumns } {
  const pip = INSTRUMENTS[symbol].pipSize;
  const withSpread = (c: ReturnType<typeof loadBars>): BarColumns => ({
    ...c,
    spread: Float64Array.from(c.ts, (_, i) => (0.2 + (i % 7) * 0.15) * pip),
  });
  const bars = withSpread(loadBars(symbol, '15min', bars15));
  return { bars, finer: withSpread(loadBars(symbol, '1min', bars15 * 15)) };
}

/** p(up) from past closes only (what a model's probabilities stand in for): a logistic of a fast − slow EMA gap. */
function probaUp(bars: BarColumns): Float64Array {
  const out = new Float64Array(bars.close.length);
  let fast = bars.close[0]!;
  let slow = fast;
  let range = 0;
  for (let i = 0; i < out.length; i++) {
    const c = bars.close[i]!;
    if (i > 0) range += (Math.abs(c - bars.close[i - 1]!) - range) / 32;
    fast += (c - fast) * (2 / 9);
    slow += (c - slow) * (2 / 33);
    out[i] = range > 0 ? 1 / (1 + Math.exp(-(fast - slow) / (4 * range))) : 0.5;
  }
  return out;
}

/** A random walk of 15-minute bars with gaps at some opens (and the weekend shut for FX), plus its 1-minute bars. */
function syntheticMarket(
  random: () => number,
  count: number,
  price: number,
  pip: number,
  weekends: boolean,
): { bars: BarColumns; finer: BarColumns } {
  const coarse: { ts: number; open: number; high: number; low: number; close: number; spread: number }[] = [];
  const fine: typeof coarse = [];
  let p = price;
  for (let ts = Date.UTC(2024, 2, 4); coarse.length < count; ts += M15) {
    const d = new Date(ts);
    const day = d.getUTCDay();
    if (!weekends && (day === 6 || (day === 5 && d.getUTCHours() >= 22) || (day === 0 && d.getUTCHours() < 22))) continue;
    const spread = (0.3 + random()) * pip;
    const group = [];
    for (let m = 0; m < 15; m++) {
      const open = m === 0 && random() < 0.04 ? p + (random() - 0.5) * 40 * pip : p;
      const close = open + (random() - 0.5) * 4 * pip;
      const bar = {
        ts: ts + m * M1,
        open,
        high: Math.max(open, close) + random() * 2 * pip,
        low: Math.min(open, close) - random() * 2 * pip,
        close,
        spread,
      };
      group.push(bar);
      fine.push(bar);
      p = close;
    }
    coarse.push({
      ts,
      open: group[0]!.open,
      high: Math.max(...group.map((b) => b.high)),
      low: Math.min(...group.map((b) => b.low)),
      close: p,
      spread,
    });
  }
  return { bars: toBarColumns(coarse), finer: toBarColumns(fine) };
}

const LEVELS = (jpy: boolean): (Level | null)[] => [
  null,
  { unit: 'pips', value: 12 },
  { unit: 'pips', value: 35 },
  { unit: 'pct', value: jpy ? 0.002 : 0.0015 },
  { unit: 'usd', value: 150 },
  { unit: 'usd', value: 600 },
];
const TRAILS: (Trail | null)[] = [
  null,
  { unit: 'pct', value: 0.001 },
  { unit: 'pips', value: 15 },
  { unit: 'atr', value: 2, period: 14 },
  { unit: 'atr', value: 0.7, period: 3 },
];
/** Session hours and skipped days as the optimiser sweeps them (strategy_config session_filter, skip_days). */
const ENTRY_TIMES: (EntryTimes | null)[] = [
  null,
  { session: [7, 20], skipDays: [] },
  { session: [22, 6], skipDays: ['fri'] },
  { session: null, skipDays: ['mon', 'thu', 'sun'] },
];
const POS_RULES: Pick<EngineOptions, 'direction' | 'cooldown' | 'maxPositions' | 'onOpposite'>[] = [
  { direction: 'both', cooldown: 0, maxPositions: 1, onOpposite: 'reverse' },
  { direction: 'both', cooldown: 3, maxPositions: 1, onOpposite: 'reverse' },
  { direction: 'both', cooldown: 0, maxPositions: 3, onOpposite: 'reverse' },
  { direction: 'both', cooldown: 1, maxPositions: 2, onOpposite: 'close_only' },
  { direction: 'both', cooldown: 0, maxPositions: 1, onOpposite: 'ignore' },
  { direction: 'long', cooldown: 0, maxPositions: 2, onOpposite: 'reverse' },
  { direction: 'short', cooldown: 5, maxPositions: 1, onOpposite: 'close_only' },
  { direction: 'short', cooldown: 0, maxPositions: 3, onOpposite: 'ignore' },
];

/**
 * A grid over every option: each threshold's signals (shared by its trials, as an optimiser
 * shares them), entry times, masks (none, entry rules per side, exit columns), and every
 * level, trail and pos_rules value at least once, with and without fill at bid/ask and the resolver.
 */
function gridTrials(
  bars: BarColumns,
  finer: BarColumns,
  symbol: Symbol,
  resolver: IntrabarResolver = finerBarResolver(finer),
): SweepTrial[] {
  const instrument = INSTRUMENTS[symbol];
  const jpy = symbol.endsWith('JPY');
  const pUp = probaUp(bars);
  const thresholds = [0.5, 0.54, 0.6];
  const signals = thresholds.map((t) => toSignals(pUp, t));
  const n = bars.ts.length;
  const rules = entryMask(bars, {
    minAtr: null,
    trendColumn: null,
    entryLong: Float64Array.from({ length: n }, (_, i) => (pUp[i]! > 0.52 ? 1 : 0)),
    entryShort: Float64Array.from({ length: n }, (_, i) => (i % 3 ? 1 : 0)),
  });
  const exits = entryMask(bars, {
    minAtr: null,
    trendColumn: null,
    exitLong: Float64Array.from({ length: n }, (_, i) => (pUp[i]! < 0.47 ? 1 : 0)),
    exitShort: Float64Array.from({ length: n }, (_, i) => (pUp[i]! > 0.53 ? 1 : 0)),
  });
  const masks = [undefined, rules, exits];
  const levels = LEVELS(jpy);
  const trials: SweepTrial[] = [];
  let k = 0;
  for (const stop of levels) {
    for (const take of levels) {
      for (const trail of TRAILS) {
        const rules = POS_RULES[k % POS_RULES.length]!;
        trials.push({
          options: {
            instrument,
            timeframeMs: M15,
            ...rules,
            stop,
            take,
            trail,
            entryTimes: ENTRY_TIMES[Math.floor(k / 5) % ENTRY_TIMES.length],
            lotSize: [0.5, 1, 2][k % 3]!,
            commissionPerLot: k % 2 ? 3.5 : 0,
            swapLong: -6.5,
            swapShort: 1.2,
            fillAtBidAsk: k % 4 !== 0,
            resolver: k % 3 === 0 ? resolver : null,
            capital: k % 5 === 0 ? 2_500 : 10_000,
          },
          signals: signals[k % signals.length]!,
          mask: masks[Math.floor(k / 3) % masks.length],
        });
        k++;
      }
    }
  }
  return trials;
}

/** Each sweep result against runBacktest of its trial alone: trades, stats (to the bit), equity at the marks. */
function assertSameAsRunBacktest(
  bars: BarColumns,
  trials: readonly SweepTrial[],
  range: { from: number; to: number },
  marks: Int32Array,
  where: string,
): number {
  const withTrades = sweepBacktests(bars, trials, range, { marks, trades: true });
  const pnlOnly = sweepBacktests(bars, trials, range, { marks, block: 7 });
  let trades = 0;
  trials.forEach((trial, t) => {
    const run = runBacktest(trial.options, bars, trial.signals, range, trial.mask);
    const capital = trial.options.capital ?? 10_000;
    const stats = tradeStats(run.trades, capital);
    const expectedMarks = Float64Array.from(marks, (m) => run.equity[m - range.from]!);
    const got = withTrades[t]!;
    assert.deepStrictEqual(got.trades, run.trades, `${where} trial ${t}: trades differ`);
    assert.equal(got.tradeCount, run.tradeCount, `${where} trial ${t}: trade count`);
    assert.deepStrictEqual(got.stats, stats, `${where} trial ${t}: stats differ`);
    assert.deepStrictEqual(got.markEquity, expectedMarks, `${where} trial ${t}: equity at the marks differs`);
    const lean = pnlOnly[t]!;
    assert.equal(lean.trades, undefined, `${where} trial ${t}: trades made though not asked for`);
    assert.deepStrictEqual(lean.stats, stats, `${where} trial ${t}: stats differ (P&L-only log, block 7)`);
    assert.equal(lean.tradeCount, run.tradeCount);
    for (const r of [got, lean]) {
      assert.deepStrictEqual(
        r.pnl,
        Float64Array.from(run.trades, (x) => x.pnl),
        `${where} trial ${t}: P&L column differs`,
      );
      assert.deepStrictEqual(
        r.entryTs,
        Float64Array.from(run.trades, (x) => x.entryTs),
        `${where} trial ${t}: entry times differ`,
      );
    }
    assert.deepStrictEqual(lean.markEquity, expectedMarks, `${where} trial ${t}: marks differ (P&L-only log, block 7)`);
    trades += run.tradeCount;
  });
  return trades;
}

/** Marks: a few inside the range, the first and the last bar (equity after the final 'end' close). */
const marksOf = (range: { from: number; to: number }, count: number): Int32Array => {
  const span = range.to - range.from;
  const inner = Array.from({ length: count }, (_, k) => range.from + Math.floor(((k + 1) * span) / (count + 1)));
  return Int32Array.from(new Set([range.from, ...inner, range.to - 1]));
};

for (const symbol of ['EURUSD', 'USDJPY'] as const) {
  test(`real ${symbol} 15-minute bars: each of a grid of trials over every option equals its runBacktest exactly`, () => {
    const { bars, finer } = realMarket(symbol, 3_000);
    const trials = gridTrials(bars, finer, symbol);
    const range = { from: 40, to: bars.ts.length - 25 };
    const trades = assertSameAsRunBacktest(bars, trials, range, marksOf(range, 10), symbol);
    assert.ok(trials.length >= 180 && trades > trials.length * 20, `${trials.length} trials, ${trades} trades: the grid barely trades`);
  });
}

test('every exit reason, every on_opposite mode, trails and the resolver are exercised by the real-data grid', () => {
  const { bars, finer } = realMarket('EURUSD', 3_000);
  // the finer-bar resolver itself, its answers counted
  const finerBars = finerBarResolver(finer);
  const answers: FirstTouch[] = [];
  const counting: IntrabarResolver = { firstTouch: (...args) => answers[answers.push(finerBars.firstTouch(...args)) - 1]! };
  const trials = gridTrials(bars, finer, 'EURUSD', counting);
  const result = sweepBacktests(bars, trials, { from: 0, to: bars.ts.length }, { trades: true });
  const reasons = new Set(result.flatMap((r) => r.trades!.map((t) => t.reason)));
  assert.deepEqual([...reasons].sort(), ['SL', 'TP', 'end', 'signal']);
  for (const mode of ['reverse', 'close_only', 'ignore'] as const) {
    assert.ok(
      trials.some((t, k) => t.options.onOpposite === mode && result[k]!.tradeCount > 0),
      `no trading trial with on_opposite ${mode}`,
    );
  }
  for (const unit of ['pct', 'pips', 'atr'] as const) {
    assert.ok(
      trials.some((t, k) => t.options.trail?.unit === unit && result[k]!.trades!.some((x) => x.reason === 'SL')),
      `no trailed stop exit (${unit})`,
    );
  }
  assert.ok(answers.includes('TP') && answers.includes('SL'), `the resolver answered ${answers.length} times, never both ways`);
});

/** A random option set (every field drawn), on one of a few seeded synthetic markets. */
function randomTrial(random: () => number, symbol: Symbol, n: number, finer: BarColumns, shared: Int8Array[]): SweepTrial {
  const jpy = symbol.endsWith('JPY');
  const busy = 0.05 + random() * 0.5;
  const signals =
    random() < 0.5 ? pick(random, shared) : Int8Array.from({ length: n }, () => (random() < busy ? (random() < 0.5 ? 1 : -1) : 0));
  const mask = random() < 0.4 ? Uint8Array.from({ length: n }, () => (random() < 0.8 ? 3 : Math.floor(random() * 16))) : undefined;
  const level = (): Level | null =>
    pick(random, [
      null,
      { unit: 'pips', value: 3 + Math.floor(random() * 30) },
      { unit: 'usd', value: 10 + random() * 400 },
      { unit: 'pct', value: 0.0003 + random() * 0.003 },
    ] as const);
  return {
    options: {
      instrument: INSTRUMENTS[symbol],
      timeframeMs: M15,
      direction: pick(random, ['both', 'both', 'long', 'short'] as const),
      cooldown: pick(random, [0, 0, 1, 4]),
      maxPositions: pick(random, [1, 1, 2, 4]),
      onOpposite: pick(random, ['reverse', 'close_only', 'ignore'] as const),
      stop: level(),
      take: level(),
      trail: pick(random, [
        null,
        null,
        { unit: 'pct', value: 0.0003 + random() * 0.002 },
        { unit: 'pips', value: 2 + random() * 20 },
        { unit: 'atr', value: 0.5 + random() * 3, period: pick(random, [1, 2, 5, 14]) },
      ] as const),
      lotSize: pick(random, [0.1, 1, 2.5]),
      commissionPerLot: pick(random, [0, 3.5]),
      swapLong: pick(random, [0, -6.2, 1.3]),
      swapShort: pick(random, [0, 2.1, -4]),
      fillAtBidAsk: random() < 0.5,
      resolver: random() < 0.4 ? finerBarResolver(finer) : null,
      capital: pick(random, [10_000, 2_500, undefined]),
      entryTimes: pick(random, ENTRY_TIMES),
    },
    signals,
    ...(mask ? { mask } : {}),
  };
}

test('property: 12 seeded markets × 40 random option sets each (shared and own signals, random masks) equal their runBacktest exactly', () => {
  let trades = 0;
  for (let seed = 1; seed <= 12; seed++) {
    const random = seededRandom(seed);
    const symbol = pick(random, ['EURUSD', 'USDJPY', 'BTCUSD'] as const);
    const inst = INSTRUMENTS[symbol];
    const price = symbol === 'USDJPY' ? 150 : symbol === 'BTCUSD' ? 60_000 : 1.1;
    const pip = symbol === 'BTCUSD' ? 5 * inst.pipSize : inst.pipSize;
    const { bars, finer } = syntheticMarket(random, 600 + Math.floor(random() * 600), price, pip, inst.weekends);
    const n = bars.ts.length;
    const shared = [0.2, 0.45].map((busy) => Int8Array.from({ length: n }, () => (random() < busy ? (random() < 0.5 ? 1 : -1) : 0)));
    const trials = Array.from({ length: 40 }, () => randomTrial(random, symbol, n, finer, shared));
    const from = Math.floor(random() * 30);
    const range = { from, to: n - Math.floor(random() * 30) };
    trades += assertSameAsRunBacktest(bars, trials, range, marksOf(range, Math.floor(random() * 20)), `seed ${seed} (${symbol})`);
  }
  assert.ok(trades > 12 * 40 * 10, `only ${trades} trades: the random trials barely trade`);
});

test('the tile size changes nothing; an empty range and no marks give the stats of no trade', () => {
  const random = seededRandom(99);
  const { bars, finer } = syntheticMarket(random, 500, 1.1, 0.0001, false);
  const shared = [Int8Array.from({ length: 500 }, () => (random() < 0.3 ? (random() < 0.5 ? 1 : -1) : 0))];
  const trials = Array.from({ length: 25 }, () => randomTrial(random, 'EURUSD', 500, finer, shared));
  const range = { from: 3, to: 497 };
  const marks = marksOf(range, 30);
  const reference = sweepBacktests(bars, trials, range, { marks, trades: true });
  for (const block of [1, 2, 13, 64, 1_000])
    assert.deepStrictEqual(sweepBacktests(bars, trials, range, { marks, trades: true, block }), reference, `block ${block}`);

  const empty = sweepBacktests(bars, trials, { from: 10, to: 10 });
  assert.deepStrictEqual(
    empty.map((r) => [r.tradeCount, r.stats, r.markEquity.length]),
    trials.map((t) => [0, tradeStats([], t.options.capital ?? 10_000), 0]),
  );
  assert.deepStrictEqual(sweepBacktests(bars, [], range, { marks }), []);
});

test('bad input is refused with what to fix: a range outside the bars, marks outside the range or out of order, short signals or masks', () => {
  const random = seededRandom(5);
  const { bars, finer } = syntheticMarket(random, 100, 1.1, 0.0001, false);
  const trial = randomTrial(random, 'EURUSD', 100, finer, [new Int8Array(100)]);
  assert.throws(() => sweepBacktests(bars, [trial], { from: 0, to: 101 }), /range \[0, 101\) is not inside the 100 bars/);
  assert.throws(
    () => sweepBacktests(bars, [trial], { from: 10, to: 50 }, { marks: Int32Array.of(50) }),
    /mark 50 is outside the range \[10, 50\)/,
  );
  assert.throws(
    () => sweepBacktests(bars, [trial], { from: 10, to: 50 }, { marks: Int32Array.of(20, 20) }),
    /strictly increasing \(20 then 20\)/,
  );
  assert.throws(
    () => sweepBacktests(bars, [{ ...trial, signals: new Int8Array(60) }], { from: 0, to: 100 }),
    /trial 0 has 60 signals for bars up to 100/,
  );
  assert.throws(() => sweepBacktests(bars, [{ ...trial, mask: new Uint8Array(60) }], { from: 0, to: 100 }), /trial 0 has 60 entry masks/);
  assert.throws(() => sweepBacktests(bars, [trial], { from: 0, to: 100 }, { block: 0 }), /block must be an integer ≥ 1/);
});
