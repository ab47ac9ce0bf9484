/**
 * The feed publisher (a feed's sink in `ingest`) on a real nats-server with the TICKS stream:
 * ticks land on `ticks.<SYMBOL>` in order; a batch written again is stored once (its message id
 * is made of its ticks); a millisecond's ticks stay in one message; after resumeAfterStream only
 * ticks after the last stored one go out; once it may no longer publish, it refuses and says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureStream, readFromTime } from '../../src/bus/index.ts';
import { decodeTicks, FeedPublisher } from '../../src/market/index.ts';
import type { Symbol } from '../../schemas/common.ts';
import type { Tick } from '../../schemas/market.ts';
import { Streams, Subjects } from '../../schemas/messages.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

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
    const messages = await readFromTime(nats.bus, Streams.ticks.name, Subjects.ticks(symbol), 0, 100_000);
    return { messages: messages.length, ticks: messages.flatMap((m) => decodeTicks(m.data).ticks) };
  };

  it('publishes in order, stores a re-sent batch once, keeps a millisecond whole', async () => {
    const publisher = new FeedPublisher({ bus: nats.bus, feed: 'test' });
    // 1,999 single ticks, then three sharing one millisecond across the 2,000-tick message limit.
    const batch = [...Array.from({ length: 1999 }, (_, i) => tick('EURUSD', T0 + i)), tick('EURUSD', T0 + 5000, 0), tick('EURUSD', T0 + 5000, 1), tick('EURUSD', T0 + 5000, 2), tick('EURUSD', T0 + 6000)];
    await publisher.write(batch);
    await publisher.write(batch);
    const { messages, ticks } = await stored('EURUSD');
    assert.equal(messages, 2, 'two messages: the second batch was the first again');
    assert.deepEqual(
      ticks.map((t) => t.ts),
      batch.map((t) => t.ts),
    );
    assert.equal(ticks[2001]!.bid_volume, 2, 'a summed volume travels');
    const first = decodeTicks((await readFromTime(nats.bus, Streams.ticks.name, Subjects.ticks('EURUSD'), 0, 1))[0]!.data).ticks;
    assert.equal(first.length, 2002, 'the millisecond with three ticks is not split');
    assert.equal(publisher.stats().published, 2 * batch.length, 'both writes acknowledged (the stream kept one copy)');
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
    assert.deepEqual((await stored('GBPUSD')).ticks.map((t) => t.ts - T0), [1, 2, 3, 4]);
    assert.equal((await stored('USDJPY')).ticks.length, 1);
    assert.deepEqual([next.stats().skipped, next.stats().published], [3, 2]);
  });

  it('refuses to publish once it may not, saying why', async () => {
    let may = true;
    const publisher = new FeedPublisher({ bus: nats.bus, feed: 'gated', mayPublish: () => may });
    await publisher.write([tick('AUDUSD', T0 + 1)]);
    may = false;
    await assert.rejects(publisher.write([tick('AUDUSD', T0 + 2)]), /no longer holds its lease/);
    assert.deepEqual((await stored('AUDUSD')).ticks.map((t) => t.ts - T0), [1]);
    assert.equal(publisher.stats().refused, 1);
  });
});
