/**
 * Stream publishes in batches on a real nats-server: a turn's publishes go out back to back, each
 * stored under its own id and resolved with its own sequence; a repeat of an id is stored once;
 * a publish no stream takes goes the slow way and fails with the client's error; KV puts and core
 * NATS messages ride along; an answer that never comes sends the message again, stored once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { ensureStream, openBucket, publishBatched, StreamBatcher } from '../../src/bus/index.ts';
import type { BucketSpec, StreamSpec } from '../../schemas/messages.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

const stream: StreamSpec = { name: 'SF_TEST_BATCH', subjects: ['batch.>'], maxMessages: 100_000, maxAgeSeconds: 3600 };
const Note = z.object({ n: z.number().int() }).strict();
const topic = { subject: (k: number) => `batch.${k % 7}`, all: 'batch.>', schema: Note, stream };
const spec: BucketSpec<typeof Note> = { name: 'sf_test_batch_kv', schema: Note, ttlSeconds: 0 };

describe('StreamBatcher', () => {
  let nats: TestNats;
  const stored = async () => (await nats.bus.jsm.streams.info(stream.name)).state.messages;

  before(async () => {
    nats = await startNats('stream-batch');
    await ensureStream(nats.bus, stream);
  });
  after(() => nats.close());

  it('stores a turn’s 500 publishes, each with its own sequence, the fast way; a repeated id is stored once', async () => {
    const batcher = new StreamBatcher(nats.bus);
    const seqs = await Promise.all(Array.from({ length: 500 }, (_, k) => publishBatched(batcher, topic, [k], { n: k }, `note-${k}`)));
    const numbers = seqs.map((s) => s!.seq);
    assert.equal(new Set(numbers).size, 500);
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
      'stored in the order published',
    );
    assert.equal(await stored(), 500);
    assert.deepEqual(batcher.counts, { batched: 500, again: 0, sent: 0 });
    // The same ids again (a replayed bar): acknowledged with the first copy's sequence, nothing added.
    const again = await Promise.all(Array.from({ length: 50 }, (_, k) => publishBatched(batcher, topic, [k], { n: k }, `note-${k}`)));
    assert.deepEqual(
      again.map((s) => s!.seq),
      numbers.slice(0, 50),
    );
    assert.equal(await stored(), 500);
    batcher.close();
  });

  it('checks the payload by its schema before anything is sent', async () => {
    const batcher = new StreamBatcher(nats.bus);
    await assert.rejects(publishBatched(batcher, topic, [1], { n: 1.5 } as never, 'bad'), /expected int/i);
    assert.equal(batcher.counts.batched, 0);
    batcher.close();
  });

  it('a publish no stream takes goes the slow way and fails with the client’s error', async () => {
    const batcher = new StreamBatcher(nats.bus);
    await assert.rejects(batcher.publish('nowhere.at.all', '{}', 'lost-1'), /jetstream is not enabled|no responders|503/i);
    assert.equal(batcher.counts.again, 1);
    batcher.close();
  });

  it('puts KV values with the batch: each readable at the revision it resolved with', async () => {
    const batcher = new StreamBatcher(nats.bus);
    const kv = await openBucket(nats.bus, spec, 1, { batcher });
    const revisions = await Promise.all(Array.from({ length: 100 }, (_, k) => kv.put(`key${k}`, { n: k })));
    for (let k = 0; k < 100; k += 17) {
      const got = await kv.get(`key${k}`);
      assert.deepEqual(got, { value: { n: k }, revision: revisions[k] });
    }
    assert.equal(batcher.counts.batched, 100);
    // A compare-and-set through the batch: the revision read wins once; the same revision again is stale.
    const seen = (await kv.get('key3'))!;
    const [won, lost] = await Promise.allSettled([
      kv.update('key3', { n: 30 }, seen.revision),
      kv.update('key3', { n: 31 }, seen.revision),
    ]);
    assert.equal(won.status, 'fulfilled');
    assert.equal(lost.status, 'rejected');
    assert.equal((lost as PromiseRejectedResult).reason.name, 'StaleRevisionError');
    assert.deepEqual((await kv.get('key3'))!.value, { n: 30 });
    batcher.close();
  });

  it('sends a turn’s core NATS messages (a topic no stream stores) with its stored ones, in order, stored by no stream', async () => {
    const batcher = new StreamBatcher(nats.bus);
    const live = { subject: (k: number) => `live.${k}`, all: 'live.>', schema: Note };
    const heard: number[] = [];
    const sub = nats.bus.nc.subscribe('live.>', { callback: (_err, msg) => void heard.push((msg.json() as { n: number }).n) });
    const before = await stored();
    const answers = await Promise.all([
      ...Array.from({ length: 300 }, (_, k) => publishBatched(batcher, live, [k], { n: k })),
      publishBatched(batcher, topic, [1], { n: 1 }, 'with-live-1'),
    ]);
    assert.deepEqual(answers.slice(0, 300), Array(300).fill(null), 'a core message has no sequence');
    await nats.bus.nc.flush();
    assert.deepEqual(
      heard,
      Array.from({ length: 300 }, (_, k) => k),
    );
    assert.equal(await stored(), before + 1, 'only the stored topic’s message is in the stream');
    assert.deepEqual(batcher.counts, { batched: 1, again: 0, sent: 300 });
    await assert.rejects(publishBatched(batcher, live, [1], { n: 0.5 } as never), /expected int/i);
    sub.unsubscribe();
    batcher.close();
  });

  it('an answer that never comes (its inbox unheard) sends the message again the slow way: stored once, by its id', async () => {
    // Acknowledgements after 1 ms are too late: the batch's timer has sent every message again.
    const batcher = new StreamBatcher(nats.bus, 0);
    const before = await stored();
    const seqs = await Promise.all(Array.from({ length: 20 }, (_, k) => batcher.publish('batch.late', `{"n":${k}}`, `late-${k}`)));
    assert.equal(new Set(seqs).size, 20);
    assert.equal(await stored(), before + 20, 'each stored once, though sent twice');
    batcher.close();
  });
});
