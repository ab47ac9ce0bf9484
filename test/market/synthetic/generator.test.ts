/**
 * The synthetic tick process: deterministic (seed, pieces, hourly checkpoints as stored in KV),
 * and realistic enough for a trader on a year of EURUSD: price level, spreads and their
 * session pattern, the session pattern of volatility, weekend closes, volatility clustering,
 * fat tails and quote digits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Symbol } from '../../../schemas/common.ts';
import { SyntheticCheckpoint, type GeneratorState, type Tick } from '../../../schemas/market.ts';
import { instrument } from '../../../src/lib/instruments.ts';
import { SyntheticTickGenerator, initialState } from '../../../src/market/synthetic/generator.ts';

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Wednesday 2024-01-03 00:00 UTC; ten days from it cover a whole weekend (Fri 5th 22:00 → Sun 7th 22:00). */
const START = Date.UTC(2024, 0, 3);
const END = START + 10 * DAY;

interface Run {
  ticks: Tick[];
  hours: Array<{ hour: number; state: GeneratorState }>;
  final: GeneratorState;
}

function run(symbol: Symbol, seed: string, until: number, start = START): Run {
  const generator = new SyntheticTickGenerator(instrument(symbol), initialState(instrument(symbol), start, seed));
  const ticks: Tick[] = [];
  const hours: Run['hours'] = [];
  generator.generate(
    until,
    (t) => ticks.push(t),
    (hour, state) => hours.push({ hour, state }),
  );
  return { ticks, hours, final: generator.snapshot() };
}

/** Null when the two tick lists are identical, else where they first differ. */
function difference(a: readonly Tick[], b: readonly Tick[]): string | null {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (
      !x ||
      !y ||
      x.ts !== y.ts ||
      x.seq !== y.seq ||
      x.bid !== y.bid ||
      x.ask !== y.ask ||
      x.volume !== y.volume ||
      x.symbol !== y.symbol
    ) {
      return `tick ${i} of ${a.length}/${b.length}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`;
    }
  }
  return null;
}

/** Index of the first tick at or after `ts`. */
function firstAtOrAfter(ticks: readonly Tick[], ts: number): number {
  let lo = 0;
  let hi = ticks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ticks[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A checkpoint as it goes into NATS KV and comes back (JsonKv: schema-parsed JSON both ways). */
function throughKv(symbol: Symbol, hour: number, state: GeneratorState): GeneratorState {
  const stored = JSON.stringify(SyntheticCheckpoint.parse({ symbol, seed: 's', hour, state, previous: null }));
  return SyntheticCheckpoint.parse(JSON.parse(stored)).state;
}

/** FX is closed from Friday 22:00 to Sunday 22:00 UTC (written out here, not taken from seasonality.ts). */
function fxClosed(ts: number): boolean {
  const d = new Date(ts);
  const day = d.getUTCDay();
  const hour = d.getUTCHours();
  return day === 6 || (day === 5 && hour >= 22) || (day === 0 && hour < 22);
}

/** Deterministic PRNG (mulberry32) for the test's own choices. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SyntheticTickGenerator: determinism', () => {
  const reference = run('EURUSD', 'alpha', END);

  it('gives identical ticks for the same seed', () => {
    assert.ok(reference.ticks.length > 50_000, `${reference.ticks.length} ticks in ten days`);
    const again = run('EURUSD', 'alpha', END);
    assert.equal(difference(again.ticks, reference.ticks), null);
    assert.deepEqual(again.final, reference.final);
    // (ts, seq) identifies a tick, and ticks come in time order.
    for (let i = 1; i < reference.ticks.length; i++) {
      const p = reference.ticks[i - 1]!;
      const t = reference.ticks[i]!;
      assert.ok(t.ts > p.ts || (t.ts === p.ts && t.seq === p.seq + 1), `order at ${i}`);
      if (t.ts > p.ts) assert.equal(t.seq, 0);
    }
  });

  it('gives the same ticks and checkpoints when generated in many pieces as in one go', () => {
    const r = rng(42);
    const generator = new SyntheticTickGenerator(instrument('EURUSD'), initialState(instrument('EURUSD'), START, 'alpha'));
    const ticks: Tick[] = [];
    const hours: Run['hours'] = [];
    let until = START;
    let calls = 0;
    while (until < END) {
      // Pieces from 1 ms to 3 h; some end exactly on an hour, some exactly on a tick's millisecond.
      const kind = r();
      if (kind < 0.15) until = (Math.floor(until / HOUR) + 1) * HOUR;
      else if (kind < 0.3 && ticks.length > 0) until = Math.max(until + 1, ticks.at(-1)!.ts + 1);
      else until += 1 + Math.floor(r() ** 3 * 3 * HOUR);
      until = Math.min(until, END);
      generator.generate(
        until,
        (t) => ticks.push(t),
        (hour, state) => hours.push({ hour, state }),
      );
      calls++;
      assert.ok(ticks.length === 0 || ticks.at(-1)!.ts <= until, 'nothing after the requested time');
    }
    assert.ok(calls > 300, `${calls} pieces`);
    assert.equal(difference(ticks, reference.ticks), null);
    assert.deepEqual(
      hours.map((h) => h.hour),
      reference.hours.map((h) => h.hour),
    );
    assert.deepEqual(hours, reference.hours);
    assert.deepEqual(generator.snapshot(), reference.final);
  });

  it('reproduces exactly the following ticks from every hourly checkpoint, JSON round-tripped', () => {
    const hours = reference.hours;
    // A checkpoint at every open hour boundary; a weekend's closed hours are skipped, its first
    // boundary jumping to the Sunday 22:00 reopen (even when that lies past the requested end,
    // as the second weekend's does here: END is Saturday 00:00).
    const expected: number[] = [];
    for (let h = START + HOUR; h <= END; h += HOUR) {
      if (!fxClosed(h)) {
        if (expected.at(-1) !== h) expected.push(h);
      } else if (!fxClosed(h - HOUR)) expected.push(h + 48 * HOUR);
    }
    assert.deepEqual(
      hours.map((h) => new Date(h.hour).toISOString()),
      expected.map((h) => new Date(h).toISOString()),
    );
    const reopen = Date.UTC(2024, 0, 7, 22);
    assert.ok(
      hours.some((h) => h.hour === reopen),
      'a checkpoint at the Sunday 22:00 reopen',
    );
    assert.ok(hours.length > 180, `${hours.length} checkpoints`);
    for (const { hour, state } of hours) {
      // Each checkpoint: the next two hours, compared with the uninterrupted run.
      const resumed = new SyntheticTickGenerator(instrument('EURUSD'), throughKv('EURUSD', hour, state));
      const ticks: Tick[] = [];
      const until = Math.min(END, hour + 2 * HOUR);
      resumed.generate(until, (t) => ticks.push(t));
      const from = firstAtOrAfter(reference.ticks, hour);
      const to = firstAtOrAfter(reference.ticks, until + 1);
      assert.equal(difference(ticks, reference.ticks.slice(from, to)), null, `from ${new Date(hour).toISOString()}`);
    }
    // Some of them all the way to the end, the reopen included.
    const picks = [hours[0]!, hours[37]!, hours.find((h) => h.hour === reopen)!, hours.at(-2)!];
    for (const { hour, state } of picks) {
      const resumed = new SyntheticTickGenerator(instrument('EURUSD'), throughKv('EURUSD', hour, state));
      const ticks: Tick[] = [];
      const checkpoints: number[] = [];
      resumed.generate(
        END,
        (t) => ticks.push(t),
        (h) => checkpoints.push(h),
      );
      assert.equal(
        difference(ticks, reference.ticks.slice(firstAtOrAfter(reference.ticks, hour))),
        null,
        `from ${new Date(hour).toISOString()} to the end`,
      );
      assert.deepEqual(
        checkpoints,
        reference.hours.filter((h) => h.hour > hour).map((h) => h.hour),
      );
      assert.deepEqual(resumed.snapshot(), reference.final);
    }
  });

  it('gives different series for different seeds (and symbols)', () => {
    const other = run('EURUSD', 'beta', START + DAY);
    const mine = reference.ticks.filter((t) => t.ts <= START + DAY);
    assert.notEqual(difference(other.ticks, mine), null);
    assert.notEqual(other.ticks[0]!.bid, mine[0]!.bid);
    const sameTimes = other.ticks.slice(0, 1000).filter((t, i) => t.ts === mine[i]?.ts).length;
    assert.ok(sameTimes < 50, `arrival times differ too (${sameTimes} of 1000 equal)`);
    // Seeds are per symbol: two pairs on one seed are not copies of each other.
    const gbp = run('GBPUSD', 'alpha', START + DAY);
    assert.notDeepEqual(
      gbp.ticks.slice(0, 100).map((t) => t.ts),
      mine.slice(0, 100).map((t) => t.ts),
    );
  });
});

describe('SyntheticTickGenerator: realism', () => {
  it('a year of EURUSD looks like EURUSD', (t) => {
    const inst = instrument('EURUSD');
    const start = Date.UTC(2023, 0, 2); // a Monday
    const end = start + 365 * DAY;
    const generator = new SyntheticTickGenerator(inst, initialState(inst, start, 'signalforge'));
    let n = 0;
    let minBid = Infinity;
    let maxBid = -Infinity;
    let spreadSum = 0;
    let weekendTicks = 0;
    let badDigits = 0;
    let fiveDecimals = 0;
    const spreadByHour = Array.from({ length: 24 }, () => ({ sum: 0, n: 0 }));
    // Hourly bid bars by hour start: [open, high, low, close].
    const hourly = new Map<number, [number, number, number, number]>();
    generator.generate(end, (tick) => {
      n++;
      const { ts, bid, ask } = tick;
      if (bid < minBid) minBid = bid;
      if (bid > maxBid) maxBid = bid;
      const spread = ask - bid;
      spreadSum += spread;
      const slot = spreadByHour[new Date(ts).getUTCHours()]!;
      slot.sum += spread;
      slot.n++;
      if (fxClosed(ts)) weekendTicks++;
      // 5 decimals: an integer number of points, and printed with at most 5 decimals.
      for (const price of [bid, ask]) {
        const text = String(price);
        const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
        if (decimals > 5 || Math.abs(price * 1e5 - Math.round(price * 1e5)) > 1e-6) badDigits++;
        if (decimals === 5) fiveDecimals++;
      }
      const h = Math.floor(ts / HOUR) * HOUR;
      const bar = hourly.get(h);
      if (!bar) hourly.set(h, [bid, bid, bid, bid]);
      else {
        if (bid > bar[1]) bar[1] = bid;
        if (bid < bar[2]) bar[2] = bid;
        bar[3] = bid;
      }
    });
    const pips = (x: number) => x / inst.pipSize;

    // Price level: within ±25 % of the instrument's level all year.
    const level = inst.synthetic.price;
    assert.ok(minBid > 0.75 * level && maxBid < 1.25 * level, `bid range ${minBid} … ${maxBid} around ${level}`);

    // Spreads: 0.5–1.5 pips on average; wider in the 21–22 UTC rollover than in the 12–15 overlap.
    const avgSpread = pips(spreadSum / n);
    const spreadIn = (hours: number[]) =>
      pips(hours.reduce((s, h) => s + spreadByHour[h]!.sum, 0) / hours.reduce((s, h) => s + spreadByHour[h]!.n, 0));
    const rollover = spreadIn([21, 22]);
    const overlap = spreadIn([12, 13, 14, 15]);
    assert.ok(avgSpread >= 0.5 && avgSpread <= 1.5, `average spread ${avgSpread.toFixed(3)} pips`);
    assert.ok(rollover > overlap, `rollover ${rollover.toFixed(2)} vs overlap ${overlap.toFixed(2)} pips`);

    // Sessions: the London/New York overlap moves at least 1.5× as much per hour as Asia.
    const rangeIn = (hours: number[]) => {
      let sum = 0;
      let count = 0;
      for (const [h, bar] of hourly) {
        if (!hours.includes(new Date(h).getUTCHours())) continue;
        sum += bar[1] - bar[2];
        count++;
      }
      return pips(sum / count);
    };
    const overlapRange = rangeIn([12, 13, 14, 15]);
    const asiaRange = rangeIn([0, 1, 2, 3, 4, 5]);
    assert.ok(overlapRange >= 1.5 * asiaRange, `hourly range overlap ${overlapRange.toFixed(1)} vs Asia ${asiaRange.toFixed(1)} pips`);

    // Weekends: no tick from Friday 22:00 to Sunday 22:00 UTC, and no hourly bar there.
    assert.equal(weekendTicks, 0);
    assert.equal([...hourly.keys()].filter(fxClosed).length, 0);

    // Hourly log returns between consecutive open hours: clustering and fat tails.
    const returns: number[] = [];
    for (const [h, bar] of hourly) {
      const prev = hourly.get(h - HOUR);
      if (prev) returns.push(Math.log(bar[3] / prev[3]));
    }
    const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const mu = mean(returns);
    const m2 = mean(returns.map((r) => (r - mu) ** 2));
    const m4 = mean(returns.map((r) => (r - mu) ** 4));
    const kurtosis = m4 / m2 ** 2; // 3 for a normal distribution
    const abs = returns.map(Math.abs);
    const absMean = mean(abs);
    let num = 0;
    let den = 0;
    for (let i = 0; i < abs.length; i++) {
      den += (abs[i]! - absMean) ** 2;
      if (i > 0) num += (abs[i]! - absMean) * (abs[i - 1]! - absMean);
    }
    const acf1 = num / den;
    assert.ok(returns.length > 5_000, `${returns.length} hourly returns`);
    assert.ok(acf1 > 0.1, `lag-1 autocorrelation of |hourly returns| ${acf1.toFixed(3)}`);
    assert.ok(kurtosis > 4, `kurtosis of hourly returns ${kurtosis.toFixed(2)}`);
    const annualVol = Math.sqrt(m2 * returns.length); // one year of open hours

    // Quote digits.
    assert.equal(badDigits, 0, 'EURUSD prices are whole points at 5 decimals');
    assert.ok(fiveDecimals > n, 'and most use the 5th decimal');

    t.diagnostic(
      `EURUSD 1 year: ${n} ticks, bid ${minBid}…${maxBid}, spread avg ${avgSpread.toFixed(2)} pips ` +
        `(overlap ${overlap.toFixed(2)}, rollover ${rollover.toFixed(2)}), hourly range overlap ${overlapRange.toFixed(1)} / Asia ${asiaRange.toFixed(1)} pips, ` +
        `|r| acf(1) ${acf1.toFixed(3)}, kurtosis ${kurtosis.toFixed(2)}, realised vol ${(100 * annualVol).toFixed(1)} %`,
    );
  });

  it('quotes JPY pairs at 3 decimals, the other FX pairs at 5, BTCUSD at 2', () => {
    const cases: Array<[Symbol, number]> = [
      ['USDJPY', 3],
      ['EURUSD', 5],
      ['GBPUSD', 5],
      ['USDCHF', 5],
      ['AUDUSD', 5],
      ['NZDUSD', 5],
      ['USDCAD', 5],
      ['BTCUSD', 2],
    ];
    for (const [symbol, digits] of cases) {
      const { ticks } = run(symbol, 'digits', START + 2 * DAY);
      assert.ok(ticks.length > 1000, symbol);
      let full = 0;
      for (const tick of ticks) {
        assert.ok(tick.ask > tick.bid, `${symbol}: synthetic quotes are never crossed`);
        for (const price of [tick.bid, tick.ask]) {
          const text = String(price);
          const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
          assert.ok(decimals <= digits, `${symbol} ${text}`);
          if (decimals === digits) full++;
        }
      }
      assert.ok(full > ticks.length / 2, `${symbol}: the last decimal is in use (${full} of ${2 * ticks.length})`);
      // The level is the instrument's: USDJPY near 150, not 1.5.
      const level = instrument(symbol).synthetic.price;
      assert.ok(Math.abs(ticks[0]!.bid / level - 1) < 0.05, `${symbol} starts near ${level}`);
    }
  });

  it('closes FX from Friday 22:00 to Sunday 22:00 UTC, but BTCUSD trades through the weekend', () => {
    const fx = run('USDJPY', 'weekend', END);
    assert.equal(fx.ticks.filter((t) => fxClosed(t.ts)).length, 0);
    const friday = Date.UTC(2024, 0, 5, 22);
    const sunday = Date.UTC(2024, 0, 7, 22);
    const last = fx.ticks[firstAtOrAfter(fx.ticks, friday) - 1]!;
    const first = fx.ticks[firstAtOrAfter(fx.ticks, friday)]!;
    assert.ok(friday - last.ts < 5 * 60_000, 'trades until Friday 22:00');
    assert.ok(first.ts >= sunday && first.ts - sunday < 5 * 60_000, 'reopens at Sunday 22:00');

    const btc = run('BTCUSD', 'weekend', END);
    const weekend = btc.ticks.filter((t) => t.ts >= friday && t.ts < sunday);
    assert.ok(weekend.length > 10_000, `${weekend.length} BTCUSD ticks at the weekend`);
    const weekendHours = new Set(weekend.map((t) => Math.floor(t.ts / HOUR)));
    assert.equal(weekendHours.size, 48, 'in every weekend hour');
  });
});
