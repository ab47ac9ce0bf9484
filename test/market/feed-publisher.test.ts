/**
 * The feed publisher (a feed's sink in `ingest`) on a real nats-server with the TICKS stream:
 * ticks land on `ticks.<SYMBOL>` in order; a batch written again is stored once (its message id
 * is made of its ticks); a millisecond's ticks stay in one message; after resumeAfterStream only
 * ticks after the last stored one go out; once it may no longer publish, it refuses and says so.
 * Its clock (`feeds.clock.<SYMBOL>`) is told in line behind its publishes: never ahead of what the
 * stream holds, even while its connection is held up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureStream, readFromTime, subscribe } from '../../src/bus/index.ts';
import { decodeTickPayload, FeedPublisher, isTickFrame } from '../../src/market/index.ts';
import type { Symbol } from '../../schemas/common.ts';
import type { Tick, TickClock } from '../../schemas/market.ts';
import { Streams, Topics } from '../../schemas/messages.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';
import { clockAt } from '../../src/lib/clock.ts';

const T0 = 1_700_000_000_000;
const tick = (symbol: Symbol, ts: number, seq = 0): Tick => ({ symbol, ts, seq, bid: 1.1 + ts / 1e15, ask: 1.1002, volume: seq });

describe('FeedPublisher (real nats-server)', () => {
  let nats: TestNats;
  before(async () => {
    nats = await startNats('feed-publisher');
    await ensureStream(nats.bus, Streams.ticks);
  });
  after(async () => {
    await nats?.close();
  });

  const stored = async (symbol: Symbol) => {
    const messages = await readFromTime(nats.bus, Streams.ticks.name, Topics.ticks.subject(symbol), 0, 100_000);
    return { messages: messages.length, ticks: messages.flatMap((m) => decodeTickPayload(m.data).ticks) };
  };

  it('publishes in order, stores a re-sent batch once, keeps a millisecond whole', async () => {
    const publisher = new FeedPublisher({ bus: nats.bus, feed: 'test' });
    // 1,999 single ticks, then three sharing one millisecond across the 2,000-tick message limit.
    const batch = [
      ...Array.from({ length: 1999 }, (_, i) => tick('EURUSD', T0 + i)),
      tick('EURUSD', T0 + 5000, 0),
      tick('EURUSD', T0 + 5000, 1),
      tick('EURUSD', T0 + 5000, 2),
      tick('EURUSD', T0 + 6000),
    ];
    await publisher.write(batch);
    await publisher.write(batch);
    const { messages, ticks } = await stored('EURUSD');
    assert.equal(messages, 2, 'two messages: the second batch was the first again');
    assert.deepEqual(
      ticks.map((t) => t.ts),
      batch.map((t) => t.ts),
    );
    assert.equal(ticks[2001]!.bid_volume, 2, 'a summed volume travels');
    const first = decodeTickPayload(
      (await readFromTime(nats.bus, Streams.ticks.name, Topics.ticks.subject('EURUSD'), 0, 1))[0]!.data,
    ).ticks;
    assert.equal(first.length, 2002, 'the millisecond with three ticks is not split');
    assert.equal(publisher.stats().published, 2 * batch.length, 'both writes acknowledged (the stream kept one copy)');
  });

  it('sends quotes of the instrument’s digits as tick frames (a fraction of the JSON’s bytes), others as JSON: readers get the same ticks', async () => {
    const publisher = new FeedPublisher({ bus: nats.bus, feed: 'frames' });
    const quotes = Array.from({ length: 300 }, (_, i): Tick => ({
      symbol: 'BTCUSD',
      ts: T0 + i * 7,
      seq: 0,
      bid: (6_500_000 + i) / 100,
      ask: (6_500_012 + i) / 100,
      volume: i % 3,
    }));
    const odd = tick('BTCUSD', T0 + 10_000);
    await publisher.write(quotes);
    await publisher.write([odd]);
    const messages = await readFromTime(nats.bus, Streams.ticks.name, Topics.ticks.subject('BTCUSD'), 0, 100);
    assert.deepEqual(
      messages.map((m) => isTickFrame(m.data)),
      [true, false],
      'quotes of the instrument’s digits in a frame; a price of more digits as JSON',
    );
    assert.ok(messages[0]!.data.length * 3 < new TextEncoder().encode(JSON.stringify(decodeTickPayload(messages[0]!.data).ticks)).length);
    const { ticks } = await stored('BTCUSD');
    assert.deepEqual(
      ticks.map((t) => [t.ts, t.bid, t.ask, t.bid_volume ?? 0]),
      [...quotes, odd].map((t) => [t.ts, t.bid, t.ask, t.volume]),
    );
  });

  it('after resumeAfterStream, publishes only ticks after the last one stored', async () => {
    const before = new FeedPublisher({ bus: nats.bus, feed: 'a' });
    await before.write([tick('GBPUSD', T0 + 1), tick('GBPUSD', T0 + 2), tick('GBPUSD', T0 + 3)]);
    const next = new FeedPublisher({ bus: nats.bus, feed: 'b' });
    await next.resumeAfterStream(['GBPUSD', 'USDJPY']);
    assert.deepEqual(next.resumedAfter(), { GBPUSD: T0 + 3 });
    // A take-over regenerating from earlier: the first three are skipped, not doubled.
    await next.write([tick('GBPUSD', T0 + 1), tick('GBPUSD', T0 + 2), tick('GBPUSD', T0 + 3), tick('GBPUSD', T0 + 4)]);
    await next.write([tick('USDJPY', T0 + 1)]);
    assert.deepEqual(
      (await stored('GBPUSD')).ticks.map((t) => t.ts - T0),
      [1, 2, 3, 4],
    );
    assert.equal((await stored('USDJPY')).ticks.length, 1);
    assert.deepEqual([next.stats().skipped, next.stats().published], [3, 2]);
  });

  it('refuses to publish once it may not, saying why', async () => {
    let may = true;
    const publisher = new FeedPublisher({ bus: nats.bus, feed: 'gated', mayPublish: () => may });
    await publisher.write([tick('AUDUSD', T0 + 1)]);
    may = false;
    await assert.rejects(publisher.write([tick('AUDUSD', T0 + 2)]), /no longer holds its lease/);
    assert.deepEqual(
      (await stored('AUDUSD')).ticks.map((t) => t.ts - T0),
      [1],
    );
    assert.equal(publisher.stats().refused, 1);
  });

  /**
   * A publisher telling its clock (`state.handed`: how far the test has handed it ticks) on
   * `symbol`, what is heard of it, and `close` (which also puts the stream's config back): its
   * first tick written and that tick's clock heard.
   */
  const clockedPublisher = async (feed: string, symbol: Symbol, onClock: (clock: TickClock) => void = () => undefined) => {
    const state = { handed: T0 };
    const publisher = new FeedPublisher({ bus: nats.bus, feed, clock: clockAt(() => state.handed) });
    const heard: TickClock[] = [];
    const sub = subscribe(nats.bus, Topics.tickClock, Topics.tickClock.subject(symbol), (clock) => {
      heard.push(clock);
      onClock(clock);
    });
    const { config } = await nats.bus.jsm.streams.info(Streams.ticks.name);
    const close = async () => {
      publisher.stopClock();
      sub.unsubscribe();
      await nats.bus.jsm.streams.update(Streams.ticks.name, config);
    };
    try {
      publisher.startClock();
      await publisher.write([tick(symbol, T0)]);
      state.handed = T0 + 1;
      await until('a clock told', () => heard.some((c) => c.until === T0 + 1));
    } catch (err) {
      await close();
      throw err;
    }
    return { publisher, heard, state, config, close };
  };

  it('tells its clock only behind its publishes: a held-up publisher vouches for nothing it has not stored', async () => {
    const checks: Promise<void>[] = [];
    // Whatever a clock vouches for is in the stream when it is heard.
    const { publisher, heard, state, config, close } = await clockedPublisher('clocked', 'NZDUSD', ({ until }) =>
      checks.push(
        stored('NZDUSD').then(({ ticks }) =>
          assert.equal(ticks.filter((t) => t.ts < until).length, until - T0, `every tick before ${until - T0} stored`),
        ),
      ),
    );
    try {
      // The stream stops taking NZDUSD for a while (as while its leader is elected): publishes retry.
      await nats.bus.jsm.streams.update(Streams.ticks.name, {
        ...config,
        subjects: ['ticks.EURUSD', 'ticks.GBPUSD', 'ticks.USDJPY', 'ticks.AUDUSD', 'ticks.USDCHF'],
      });
      const held = publisher.write(Array.from({ length: 99 }, (_, i) => tick('NZDUSD', T0 + 1 + i)));
      state.handed = T0 + 100;
      const told = heard.length;
      await new Promise((r) => setTimeout(r, 1_500));
      assert.ok(
        heard.slice(told).every((c) => c.until === T0 + 1),
        'nothing told past the ticks held up',
      );
      await nats.bus.jsm.streams.update(Streams.ticks.name, config);
      await held;
      await until('the clock moves on once the ticks are stored', () => heard.some((c) => c.until === T0 + 100));
      await Promise.all(checks);
      assert.equal(new Set(heard.map((c) => c.publisher)).size, 1);
    } finally {
      await close();
    }
  });

  it('tells no clock past ticks whose publish failed, until a write gets through again', async () => {
    const { publisher, heard, state, config, close } = await clockedPublisher('failing', 'USDCAD');
    try {
      // The stream refuses the next message outright (too large for it): the write fails.
      await nats.bus.jsm.streams.update(Streams.ticks.name, { ...config, max_msg_size: 200 });
      await assert.rejects(publisher.write(Array.from({ length: 20 }, (_, i) => tick('USDCAD', T0 + 1 + i))));
      state.handed = T0 + 21;
      const told = heard.length;
      await new Promise((r) => setTimeout(r, 1_200));
      assert.equal(heard.length, told, 'no clock past the ticks that never reached the stream');
      await nats.bus.jsm.streams.update(Streams.ticks.name, config);
      // The caller writes them again: stored, and the clock goes on.
      await publisher.write(Array.from({ length: 20 }, (_, i) => tick('USDCAD', T0 + 1 + i)));
      await until('the clock goes on once they are stored', () => heard.some((c) => c.until === T0 + 21));
      assert.equal((await stored('USDCAD')).ticks.length, 21);
    } finally {
      await close();
    }
  });

  it('tells no clock once it may no longer publish for its feed', async () => {
    let may = true;
    const publisher = new FeedPublisher({ bus: nats.bus, feed: 'gated-clock', mayPublish: () => may });
    const heard: TickClock[] = [];
    const sub = subscribe(nats.bus, Topics.tickClock, Topics.tickClock.subject('USDCHF'), (clock) => heard.push(clock));
    try {
      publisher.startClock();
      await publisher.write([tick('USDCHF', T0)]);
      await until('a clock told', () => heard.length > 0);
      may = false;
      await new Promise((r) => setTimeout(r, 600));
      const told = heard.length;
      await new Promise((r) => setTimeout(r, 1_200));
      assert.equal(heard.length, told, 'silent once its lease may be gone');
    } finally {
      publisher.stopClock();
      sub.unsubscribe();
    }
  });
});
