/**
 * The bar builder on a real nats-server and a real chdb store, on a replay clock: ticks in, each
 * closed bar stored before it is published on `bars.<SYMBOL>.<tf>` (a subscriber reads it back at
 * once), a quiet market's bar closed by the grace timer, the ticks stored beside their bars, and a
 * tick stamped far ahead of the clock refused and counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BarBuilder } from '../../../actors/bar-builder/index.ts';
import { subscribe } from '../../../src/bus/index.ts';
import { ReplayClock } from '../../../src/lib/clock.ts';
import { BarsRepo, TicksRepo } from '../../../src/store/index.ts';
import type { BarMessage, Tick } from '../../../schemas/market.ts';
import { Topics } from '../../../schemas/messages.ts';
import { log, startNats, until, type TestNats } from '../../helpers/nats.ts';
import { tempStore } from '../../store/temp-store.ts';

const store = tempStore('bar-builder');
const T0 = Date.UTC(2024, 4, 1, 10, 0, 0);
const tick = (ts: number, bid: number, seq = 0): Tick => ({ symbol: 'EURUSD', ts, seq, bid, ask: bid + 0.0001, volume: 0 });

describe('BarBuilder', () => {
  let nats: TestNats;
  let bars: BarsRepo;
  let ticks: TicksRepo;
  let clock: ReplayClock;
  let builder: BarBuilder;
  /** Each published 1-min bar, with whether the store already held it when it arrived. */
  const published: { bar: BarMessage; storedFirst: Promise<boolean> }[] = [];

  before(async () => {
    nats = await startNats('bar-builder');
    bars = new BarsRepo(store.client);
    ticks = new TicksRepo(store.client);
    subscribe(nats.bus, Topics.bars, Topics.bars.subject('EURUSD', '1min'), (bar) => {
      const storedFirst = bars.load('EURUSD', '1min', bar.ts, bar.ts + 1).then((c) => c.ts.length === 1 && c.close[0] === bar.close);
      published.push({ bar, storedFirst });
    });
    clock = new ReplayClock(T0);
    builder = new BarBuilder({ ticks, bars, bus: nats.bus, log, clock, graceMs: 2_000 });
    await builder.start();
  });
  after(async () => {
    await builder?.stop();
    await nats?.close();
  });

  it('closes a minute on the first tick of the next, stores it, then publishes it', async () => {
    const sink = builder.sink('live');
    await sink.write([tick(T0 + 1_000, 1.1), tick(T0 + 20_000, 1.1012), tick(T0 + 40_000, 1.0995), tick(T0 + 59_000, 1.1003)]);
    assert.equal(published.length, 0, 'the minute is still open');
    clock.advanceTo(T0 + 61_000);
    await sink.write([tick(T0 + 61_000, 1.1005)]);
    await until('the 10:00 bar published', () => published.length === 1);
    const { bar, storedFirst } = published[0]!;
    assert.deepEqual(
      [bar.symbol, bar.timeframe, bar.ts, bar.open, bar.high, bar.low, bar.close, bar.ticks, bar.source],
      ['EURUSD', '1min', T0, 1.1, 1.1012, 1.0995, 1.1003, 4, 'live'],
    );
    assert.equal(await storedFirst, true, 'a subscriber reads the published bar back from the store');
    assert.equal(await ticks.count('EURUSD', T0, T0 + 60_000), 4, 'the bar’s ticks are stored with it');
  });

  it('closes a quiet minute by the grace timer, without a later tick', async () => {
    // Nothing after 10:01:01; 10:02 + 2 s of grace later the 10:01 bar closes on the clock alone.
    clock.advanceTo(T0 + 120_000 + 2_500);
    await until('the 10:01 bar published', () => published.length === 2);
    const { bar, storedFirst } = published[1]!;
    assert.deepEqual([bar.ts, bar.open, bar.close, bar.ticks], [T0 + 60_000, 1.1005, 1.1005, 1]);
    assert.equal(await storedFirst, true);
  });

  /** A builder on its own clock (2 s of grace) that asks `quietUntil` before the quiet rule closes a bar. */
  const askingBuilder = (clock: ReplayClock, quietUntil: (symbol: string) => Promise<number>) =>
    new BarBuilder({ ticks, bars, bus: nats.bus, log, clock, graceMs: 2_000, quietUntil });

  it('with a source to ask, closes a quiet bar only by the time the source says it may', async () => {
    const own = new ReplayClock(T0);
    let sourceClock = Number.NEGATIVE_INFINITY;
    const asked: string[] = [];
    const waiting = askingBuilder(own, async (symbol) => {
      asked.push(symbol);
      return sourceClock;
    });
    await waiting.start();
    try {
      await waiting.sink('live').write([{ ...tick(T0 + 1_000, 1.3), symbol: 'USDJPY' }]);
      const stored = async (tf: '1min' | '5min') => (await bars.load('USDJPY', tf, T0, T0 + 1)).ts.length;
      // By this machine's clock every bar up to the hour is over.
      own.advanceTo(T0 + 10 * 60_000);
      await until('the source asked', () => asked.length >= 1);
      assert.equal(await stored('1min'), 0, 'the bar waits while the source holds more ticks');
      // A tick of the same minute that waited behind a stalled reader or a held-up publisher is still taken.
      await waiting.sink('live').write([{ ...tick(T0 + 30_000, 1.31), symbol: 'USDJPY' }]);
      // The source's clock passed the minute (and its grace), not the five minutes.
      sourceClock = T0 + 60_000 + 2_000;
      own.advanceTo(T0 + 10 * 60_000 + 3_000);
      await until('the minute closed by the source’s clock', async () => (await stored('1min')) === 1);
      const bar = await bars.load('USDJPY', '1min', T0, T0 + 1);
      assert.deepEqual([bar.open[0], bar.close[0]], [1.3, 1.31]);
      const asks = asked.length;
      own.advanceTo(own.now() + 1_000);
      await until('asked again', () => asked.length > asks);
      await new Promise((r) => setImmediate(r));
      await waiting.flush();
      assert.equal(await stored('5min'), 0, 'the five-minute bar is not over by the source’s clock');
      sourceClock = own.now();
      own.advanceTo(own.now() + 1_000);
      await until('the five minutes closed once the source is quiet', async () => (await stored('5min')) === 1);
      assert.deepEqual([...new Set(asked)], ['USDJPY']);
    } finally {
      await waiting.stop();
    }
  });

  it('closes nothing once stopped, even when the source answers after the stop (the symbol is the next owner’s)', async () => {
    const own = new ReplayClock(T0);
    let answer: (until: number) => void = () => undefined;
    let asked = 0;
    const stopping = askingBuilder(own, () => {
      asked++;
      return new Promise<number>((resolve) => (answer = resolve));
    });
    await stopping.start();
    await stopping.sink('live').write([{ ...tick(T0 + 1_000, 1.4), symbol: 'NZDUSD' }]);
    own.advanceTo(T0 + 10 * 60_000);
    await until('the source asked', () => asked === 1);
    await stopping.stop();
    answer(own.now());
    await new Promise((r) => setTimeout(r, 100));
    await stopping.flush();
    assert.equal((await bars.load('NZDUSD', '1min', T0, T0 + 1)).ts.length, 0, 'no bar written after the stop');
  });

  it('refuses a tick stamped far ahead of the clock, and counts it', async () => {
    const before = builder.stats().future;
    await builder.sink('live').write([tick(clock.now() + 3_600_000, 1.2)]);
    assert.equal(builder.stats().future, before + 1);
    await builder.flush();
    assert.equal(await ticks.count('EURUSD', clock.now() + 3_000_000, clock.now() + 4_000_000), 0, 'not stored');
  });
});
