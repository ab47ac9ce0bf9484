import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Topics } from '../../../schemas/messages.ts';
import { startEmbeddedNats, type EmbeddedNats } from '../../../src/bus/index.ts';
import { createLogger } from '../../../src/log.ts';
import { startNatsTickSource, type NatsTickSource } from '../../../src/market/sources/nats-ticks.ts';
import { MemorySink } from './memory-sink.ts';
import { until } from './until.ts';

const log = createLogger('silent');
const T0 = 1_700_000_000_000;

describe('NATS tick source (real nats-server)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-nats-ticks-'));
  let nats: EmbeddedNats;
  let pub: NatsConnection;
  let sub: NatsConnection;
  const sources: NatsTickSource[] = [];
  const start = (sink: MemorySink, extra: Partial<Parameters<typeof startNatsTickSource>[0]> = {}) => {
    const source = startNatsTickSource({ nc: sub, sink, log, maxDelayMs: 2, ...extra });
    sources.push(source);
    return source;
  };

  before(async () => {
    nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    pub = await connect({ servers: nats.url });
    sub = await connect({ servers: nats.url });
  });
  after(async () => {
    for (const s of sources) await s.stop();
    await pub?.close();
    await sub?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers single and batched ticks with per-symbol seq; counts malformed and survives', async () => {
    const sink = new MemorySink();
    const source = start(sink);
    await sub.flush(); // the subscription is registered on the server before anyone publishes
    const eur = Topics.ticks.subject('EURUSD');
    pub.publish(eur, JSON.stringify({ ts: T0, bid: 1.1, ask: 1.1001 }));
    pub.publish(eur, JSON.stringify({ ts: T0, bid: 1.1, ask: 1.1002, bid_volume: 1, ask_volume: 2 }));
    pub.publish(eur, 'this is not json'); // malformed: 1
    pub.publish(eur, JSON.stringify({ ts: T0 })); // malformed: 1
    pub.publish(
      Topics.ticks.subject('GBPUSD'),
      JSON.stringify([
        { ts: T0 + 5, bid: 1.27, ask: 1.2701 },
        { ts: T0 + 5, bid: -1, ask: 1.2701 }, // malformed: 1
        { ts: T0 + 5, bid: 1.27, ask: 1.2702 },
      ]),
    );
    pub.publish('ticks.XAUUSD', JSON.stringify({ ts: T0, bid: 2000, ask: 2001 })); // unknown symbol: 1
    pub.publish('ticks.EURUSD.extra', JSON.stringify({ ts: T0, bid: 1, ask: 1 })); // not a tick subject: 1
    pub.publish(
      eur,
      JSON.stringify([
        { ts: T0 + 1, bid: 1.1, ask: 1.1003 },
        { ts: T0 + 1, bid: 1.1, ask: 1.1004 },
      ]),
    );
    await pub.flush();
    await until(() => source.stats().received === 11 && source.stats().accepted === 6, 'all records settled');

    assert.deepEqual(
      sink.ticksOf('EURUSD').map((t) => [t.ts - T0, t.seq, t.volume]),
      [
        [0, 0, 0],
        [0, 1, 3],
        [1, 0, 0],
        [1, 1, 0],
      ],
    );
    assert.deepEqual(
      sink.ticksOf('GBPUSD').map((t) => [t.ts - T0, t.seq, t.ask]),
      [
        [5, 0, 1.2701],
        [5, 1, 1.2702],
      ],
    );
    assert.deepEqual(source.stats(), {
      received: 11,
      accepted: 6,
      malformed: 5,
      dropped: 0,
      late: 0,
      pending: 0,
      shed: 0,
      shedBySymbol: {},
      queued: 0,
    });
    for (const batch of sink.batches) assert.equal(new Set(batch.map((t) => t.symbol)).size, 1, 'one symbol per batch');
    assert.equal(sub.isClosed(), false);
    await source.stop();
    assert.equal(source.stats().accepted, 6);
  });

  it('keeps order and seq over many messages, with batches bounded by maxBatch', async () => {
    const sink = new MemorySink();
    const source = start(sink, { maxBatch: 250, symbols: ['EURUSD', 'USDJPY'] });
    await sub.flush();
    // Three ticks per millisecond, sent as a mix of single messages and arrays.
    const tick = (i: number) => ({ ts: T0 + Math.floor(i / 3), bid: 1 + i * 1e-6, ask: 1.0001 + i * 1e-6 });
    const n = 30_000;
    for (const symbol of ['EURUSD', 'USDJPY'] as const) {
      for (let i = 0; i < n;) {
        const size = i % 7 === 0 ? 1 : 50;
        const part = Array.from({ length: Math.min(size, n - i) }, (_, k) => tick(i + k));
        pub.publish(Topics.ticks.subject(symbol), JSON.stringify(size === 1 ? part[0] : part));
        i += part.length;
      }
    }
    pub.publish(Topics.ticks.subject('GBPUSD'), JSON.stringify(tick(0))); // not subscribed here
    await pub.flush();
    await until(() => source.stats().accepted === 2 * n, 'every tick accepted');
    for (const symbol of ['EURUSD', 'USDJPY']) {
      const ticks = sink.ticksOf(symbol);
      assert.equal(ticks.length, n);
      ticks.forEach((t, i) => {
        if (t.ts !== T0 + Math.floor(i / 3) || t.seq !== i % 3) assert.fail(`${symbol} tick ${i} is (${t.ts - T0}, ${t.seq})`);
      });
    }
    assert.ok(sink.batches.every((b) => b.length <= 250));
    assert.deepEqual(source.stats(), {
      received: 2 * n,
      accepted: 2 * n,
      malformed: 0,
      dropped: 0,
      late: 0,
      pending: 0,
      shed: 0,
      shedBySymbol: {},
      queued: 0,
    });
    await source.stop();
  });

  it('bounds memory when the sink stalls: sheds messages undecoded, counts them exactly, then recovers', async (t) => {
    const sink = new MemorySink();
    sink.hold();
    // A failed assertion must not leave the sink stuck: the file's cleanup stops the source, which waits for it.
    t.after(() => sink.release());
    const message = (i: number) => JSON.stringify(Array.from({ length: 100 }, (_, k) => ({ ts: T0 + i + k, bid: 0.65, ask: 0.6501 })));
    const bytes = Buffer.byteLength(message(0));
    // Room for 10 messages in the queue, besides the batch held by the stuck sink.
    const source = start(sink, { maxBatch: 100, maxQueuedBytes: 10 * bytes });
    await sub.flush();
    const n = 20_000;
    for (let i = 0; i < n; i += 100) pub.publish(Topics.ticks.subject('AUDUSD'), message(i));
    await pub.flush();
    // Every record arrived: decoded or shed (both in received), or still queued undecoded (100 a message).
    await until(() => {
      const s = source.stats();
      return s.received + 100 * s.queued >= n;
    }, 'every message queued, decoded or shed');
    const held = source.stats();
    assert.ok(held.queued <= 10, `at most 10 messages queued (${held.queued})`);
    assert.ok(held.pending <= 200, `at most two batches decoded (${held.pending})`);
    assert.ok(held.shed >= n - 12 * 100, `the rest shed (${held.shed})`);
    assert.equal(held.shed % 100, 0, 'whole messages are shed: their records counted without decoding');
    assert.deepEqual(held.shedBySymbol, { AUDUSD: held.shed });
    sink.release();
    await until(() => source.stats().queued === 0 && source.stats().pending === 0, 'the queue written');
    const kept = sink.ticksOf('AUDUSD').map((t) => t.ts - T0);
    assert.equal(kept.length, n - held.shed);
    // What was kept is whole messages, in order (the first ones, and any that found room).
    for (let i = 0; i < kept.length; i += 100) {
      const from = kept[i]!;
      assert.equal(from % 100, 0, 'a message starts here');
      assert.deepEqual(
        kept.slice(i, i + 100),
        Array.from({ length: 100 }, (_, k) => from + k),
      );
      if (i > 0) assert.ok(from > kept[i - 1]!, 'in order');
    }
    assert.equal(kept[0], 0);
    // Still alive: new ticks flow again once the sink is back.
    pub.publish(Topics.ticks.subject('AUDUSD'), JSON.stringify({ ts: T0 + n + 1, bid: 0.65, ask: 0.6501 }));
    await pub.flush();
    await until(() => source.stats().accepted === kept.length + 1, 'the new tick accepted');
    const stats = source.stats();
    assert.equal(stats.received, stats.accepted + stats.malformed + stats.dropped + stats.late + stats.pending + stats.shed);
    assert.equal(stats.received, n + 1);
    assert.equal(sub.isClosed(), false);
    await source.stop();
  });

  it('logs a flood of malformed messages at a limited rate', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const captured = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const sink = new MemorySink();
    const source = start(sink, { log: captured, symbols: ['NZDUSD'] });
    await sub.flush();
    for (let i = 0; i < 1_000; i++) pub.publish(Topics.ticks.subject('NZDUSD'), JSON.stringify({ ts: T0 + i, bid: -0.6, ask: 0.5 }));
    pub.publish(Topics.ticks.subject('NZDUSD'), JSON.stringify({ ts: T0 + 5_000, bid: 0.6, ask: 0.6001 }));
    await pub.flush();
    await until(() => source.stats().accepted === 1, 'the good tick after the flood');
    assert.equal(source.stats().malformed, 1_000);
    const warnings = lines.filter((l) => l.msg === 'malformed tick message');
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.subject, 'ticks.NZDUSD');
    assert.match(String(warnings[0]!.reason), /bid: /);
    await source.stop();
  });

  it('stop() writes what is buffered before it resolves', async () => {
    const sink = new MemorySink();
    const source = start(sink, { maxDelayMs: 10_000, maxBatch: 1_000_000 });
    await sub.flush();
    for (let i = 0; i < 500; i++) pub.publish(Topics.ticks.subject('USDCAD'), JSON.stringify({ ts: T0 + i, bid: 1.36, ask: 1.3601 }));
    await pub.flush();
    await until(() => source.stats().queued === 500, 'every message queued');
    assert.equal(sink.count, 0, 'still queued (long delay)');
    await source.stop();
    assert.equal(sink.count, 500);
    assert.equal(source.stats().pending, 0);
  });
});
