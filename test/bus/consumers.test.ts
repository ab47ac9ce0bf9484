/**
 * Following a stream on a real nats-server: followStreamEach hands every message on the filter to
 * its callback in stream order from the sequence asked for (or only what comes after, with 'new'),
 * the same messages followStream iterates, headers readable; a callback that throws ends it and
 * `closed` says why; `close` ends it quietly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { headers } from '@nats-io/transport-node';
import { ensureStream, followStream, followStreamEach, type Followed } from '../../src/bus/index.ts';
import type { StreamSpec } from '../../schemas/messages.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

const stream: StreamSpec = { name: 'SF_TEST_FOLLOW', subjects: ['follow.>'], maxMessages: 100_000, maxAgeSeconds: 3600 };

const waitFor = async (ok: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('followStreamEach', () => {
  let nats: TestNats;
  const publish = async (subject: string, text: string, header?: string) => {
    const h = header ? headers() : undefined;
    h?.set('X-Note', header!);
    return (await nats.bus.js.publish(subject, text, h ? { headers: h } : {})).seq;
  };
  const seen = (msgs: Followed[]) =>
    msgs.map((m) => `${m.seq} ${m.subject} ${new TextDecoder().decode(m.data)} ${m.header('X-Note') ?? '-'}`);

  before(async () => {
    nats = await startNats('consumers');
    await ensureStream(nats.bus, stream);
  });
  after(() => nats.close());

  it('hands each message on the filter to the callback in stream order from a sequence, as followStream iterates them', async () => {
    const first = await publish('follow.a', 'one', 'n1');
    await publish('follow.b', 'other');
    await publish('follow.a', 'two');
    const got: Followed[] = [];
    const follower = await followStreamEach(nats.bus, stream, 'follow.a', first, (m) => void got.push(m));
    await waitFor(() => got.length === 2, 'two messages');
    await publish('follow.a', 'three', 'n3');
    await waitFor(() => got.length === 3, 'the third');
    await follower.close();
    assert.equal(await follower.closed, undefined);
    assert.deepEqual(seen(got), [`${first} follow.a one n1`, `${first + 2} follow.a two -`, `${first + 3} follow.a three n3`]);

    const iterated: Followed[] = [];
    const followed = await followStream(nats.bus, stream, 'follow.a', first);
    for await (const m of followed) if (iterated.push(m) === 3) break;
    await followed.close();
    assert.deepEqual(seen(iterated), seen(got));
  });

  it("with 'new' sees only what comes after; a callback that throws ends it, and closed says why", async () => {
    await publish('follow.c', 'before');
    const got: string[] = [];
    const follower = await followStreamEach(nats.bus, stream, 'follow.c', 'new', (m) => {
      const text = new TextDecoder().decode(m.data);
      got.push(text);
      if (text === 'bad') throw new Error('callback failed');
    });
    await publish('follow.c', 'after');
    await publish('follow.c', 'bad');
    const err = await follower.closed;
    assert.match((err as Error).message, /callback failed/);
    assert.deepEqual(got, ['after', 'bad']);
    await follower.close();
  });
});
