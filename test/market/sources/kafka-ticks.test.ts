/**
 * No Kafka broker runs on this machine, so the Kafka source is tested in its own parts: record
 * decoding, and the eachBatch handler driven with a batch shaped like the one kafkajs passes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KafkaMessage, OffsetsByTopicPartition } from 'kafkajs';
import { decodeKafkaRecords, symbolFromKey } from '../../../src/market/sources/kafka-batch.ts';
import { createTickBatchHandler, type TickBatchPayload } from '../../../src/market/sources/kafka-ticks.ts';
import { createLogger } from '../../../src/log.ts';
import { MemorySink } from './memory-sink.ts';

const log = createLogger('silent');
const T0 = 1_700_000_000_000;

const record = (offset: number, key: string | null, value: unknown): KafkaMessage => ({
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  offset: String(offset),
  timestamp: String(T0),
  attributes: 0,
  headers: {},
});

describe('decodeKafkaRecords', () => {
  it('takes the symbol from the key and the ticks from the value', () => {
    const d = decodeKafkaRecords([
      record(0, 'EURUSD', { ts: T0, bid: 1.1, ask: 1.1001 }),
      record(1, 'USDJPY', [
        { ts: T0, bid: 150, ask: 150.01 },
        { ts: T0 + 1, bid: 150, ask: 150.02 },
      ]),
      record(2, 'EURUSD', { ts: T0 + 2, bid: 1.1, ask: 1.1002, bid_volume: 4 }),
    ]);
    assert.deepEqual([...d.bySymbol.keys()], ['EURUSD', 'USDJPY']);
    assert.deepEqual(
      d.bySymbol.get('EURUSD')!.map((t) => t.ts - T0),
      [0, 2],
    );
    assert.equal(d.bySymbol.get('USDJPY')!.length, 2);
    assert.equal(d.received, 4);
    assert.equal(d.malformed, 0);
  });

  it('counts records with no key, an unknown key, no value or a bad payload', () => {
    const d = decodeKafkaRecords([
      record(10, null, { ts: T0, bid: 1, ask: 1 }),
      record(11, 'eurusd', { ts: T0, bid: 1, ask: 1 }),
      record(12, 'EURUSD', null),
      record(13, 'EURUSD', 'garbage'),
      record(14, 'EURUSD', [
        { ts: T0, bid: 1, ask: 1 },
        { ts: T0, bid: 0, ask: 1 },
      ]),
    ]);
    assert.equal(d.malformed, 5);
    assert.equal(d.received, 6);
    assert.deepEqual(d.bySymbol.get('EURUSD')?.length, 1);
    assert.deepEqual(d.problem, { offset: '10', reason: 'no key is not a known symbol' });
    assert.equal(symbolFromKey(Buffer.from('GBPUSD')), 'GBPUSD');
    assert.equal(symbolFromKey('XAUUSD'), null);
  });
});

/** A stand-in for the payload kafkajs hands eachBatch, recording resolves and commits. */
function fakePayload(messages: KafkaMessage[], events: string[], partition = 0): TickBatchPayload {
  const resolved = new Map<number, string>();
  return {
    batch: {
      topic: 'ticks',
      partition,
      highWatermark: String(Number(messages.at(-1)?.offset ?? -1) + 1),
      messages,
      isEmpty: () => messages.length === 0,
      firstOffset: () => messages[0]?.offset ?? null,
      lastOffset: () => messages.at(-1)?.offset ?? '-1',
      offsetLag: () => '0',
      offsetLagLow: () => '0',
    },
    resolveOffset: (offset) => {
      events.push(`resolve ${offset}`);
      resolved.set(partition, String(Number(offset) + 1));
    },
    heartbeat: async () => {},
    uncommittedOffsets: (): OffsetsByTopicPartition => ({
      topics: [{ topic: 'ticks', partitions: [...resolved].map(([p, offset]) => ({ partition: p, offset })) }],
    }),
    commitOffsetsIfNecessary: async (offsets) => {
      const parts = offsets?.topics.flatMap((t) => t.partitions) ?? [];
      events.push(`commit ${parts.map((p) => `${p.partition}@${p.offset}`).join(',')}`);
    },
    isRunning: () => true,
    isStale: () => false,
  };
}

/** Wraps a sink so writes show up in the same event log as resolves and commits. */
function loggingSink(sink: MemorySink, events: string[]) {
  return {
    async write(ticks: Parameters<MemorySink['write']>[0]) {
      await sink.write(ticks);
      events.push(`write ${ticks[0]?.symbol} ${ticks.length}`);
    },
  };
}

describe('createTickBatchHandler (kafkajs eachBatch)', () => {
  const series = (from: number, n: number, key = 'EURUSD') =>
    Array.from({ length: n }, (_, i) => record(from + i, key, { ts: T0 + Math.floor((from + i) / 2), bid: 1.1, ask: 1.1001 }));

  it('writes slices in order with seq, and commits each slice only after the sink accepted it', async () => {
    const events: string[] = [];
    const sink = new MemorySink();
    const handler = createTickBatchHandler({
      sink: loggingSink(sink, events),
      log,
      signal: new AbortController().signal,
      maxBatch: 3,
      sliceSize: 4,
    });
    await handler(fakePayload([...series(0, 6), record(6, 'GBPUSD', { ts: T0, bid: 1.27, ask: 1.2701 }), record(7, null, '{}')], events));
    assert.deepEqual(events, [
      'write EURUSD 3',
      'write EURUSD 1',
      'resolve 3',
      'commit 0@4',
      'write EURUSD 2',
      'write GBPUSD 1',
      'resolve 7',
      'commit 0@8',
    ]);
    assert.deepEqual(
      sink.ticksOf('EURUSD').map((t) => [t.ts - T0, t.seq]),
      [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
        [2, 0],
        [2, 1],
      ],
    );
    assert.deepEqual(handler.stats(), {
      received: 8,
      accepted: 7,
      malformed: 1,
      dropped: 0,
      late: 0,
      pending: 0,
      shed: 0,
      shedBySymbol: {},
      queued: 0,
    });
  });

  it('retries a failing sink and commits nothing until it accepts', async () => {
    const events: string[] = [];
    const sink = new MemorySink();
    sink.failNext = 2;
    const handler = createTickBatchHandler({ sink: loggingSink(sink, events), log, signal: new AbortController().signal });
    await handler(fakePayload(series(0, 3), events));
    assert.equal(sink.calls, 3);
    assert.deepEqual(events, ['write EURUSD 3', 'resolve 2', 'commit 0@3']);
  });

  it('on stop, leaves the slice in progress unresolved and uncommitted', async () => {
    const events: string[] = [];
    const sink = new MemorySink();
    sink.failNext = 1_000;
    const abort = new AbortController();
    const handler = createTickBatchHandler({ sink: loggingSink(sink, events), log, signal: abort.signal });
    const running = handler(fakePayload(series(0, 3), events));
    setTimeout(() => abort.abort(), 30);
    await running;
    assert.deepEqual(events, []);
    assert.equal(handler.stats().accepted, 0);
  });

  it('does not write records again when kafkajs redelivers a slice whose commit failed', async () => {
    const events: string[] = [];
    const sink = new MemorySink();
    const handler = createTickBatchHandler({ sink: loggingSink(sink, events), log, signal: new AbortController().signal });
    const first = fakePayload(series(0, 4), events);
    first.commitOffsetsIfNecessary = async () => {
      throw new Error('The group is rebalancing');
    };
    await assert.rejects(handler(first), /rebalancing/);
    // Redelivered from the last committed offset, with two new records after it.
    await handler(fakePayload(series(0, 6), events));
    assert.deepEqual(
      sink.ticksOf('EURUSD').map((t) => [t.ts - T0, t.seq]),
      [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
        [2, 0],
        [2, 1],
      ],
    );
    assert.deepEqual(
      events.filter((e) => e.startsWith('write')),
      ['write EURUSD 4', 'write EURUSD 2'],
    );
  });

  it('skips the whole batch when kafkajs says the consumer stopped or the partition was sought', async () => {
    const events: string[] = [];
    const sink = new MemorySink();
    const handler = createTickBatchHandler({ sink, log, signal: new AbortController().signal });
    const payload = fakePayload(series(0, 3), events);
    payload.isStale = () => true;
    await handler(payload);
    assert.equal(sink.count, 0);
    assert.deepEqual(events, []);
  });
});
