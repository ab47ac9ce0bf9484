/** The request/reply port: `ask` and `answer` over a real nats-server, for JSON and byte services. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { answer, ask, connectBus, startEmbeddedNats, type Bus, type EmbeddedNats, type TopicSubscription } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';

const log = createLogger('silent');
let dir: string;
let nats: EmbeddedNats;
let bus: Bus;
const subs: TopicSubscription[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-rr-'));
  nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  bus = await connectBus(nats.url, 'test-request-reply', log);
});

after(async () => {
  for (const s of subs) s.unsubscribe();
  await bus?.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const Sum = { subject: 'test.sum', request: z.object({ a: z.number(), b: z.number() }) };
const Echo = { subject: 'test.echo', request: null };
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('ask and answer', () => {
  it('a JSON service: the answerer gets the parsed request, the asker the reply bytes', async () => {
    subs.push(
      answer(bus, Sum, async ({ a, b }) => JSON.stringify({ sum: a + b }), { log, invalid: (reason) => JSON.stringify({ error: reason }) }),
    );
    assert.deepEqual(JSON.parse(text(await ask(bus, Sum, { a: 2, b: 3 }, 5_000))), { sum: 5 });
  });

  it('a JSON request that does not parse gets the service’s invalid reply, and the asker refuses to send one', async () => {
    const reply = JSON.parse(text(await ask(bus, { subject: Sum.subject, request: null }, Buffer.from('{"a":"two"}'), 5_000)));
    assert.match(reply.error, /expected number/i);
    const notJson = JSON.parse(text(await ask(bus, { subject: Sum.subject, request: null }, Buffer.from('not json'), 5_000)));
    assert.match(notJson.error, /not JSON/);
    await assert.rejects(ask(bus, Sum, { a: 'two' } as never, 5_000), z.ZodError);
  });

  it('a byte service: the request’s bytes in, the handler’s bytes out', async () => {
    subs.push(answer(bus, Echo, async (bytes) => Uint8Array.from(bytes).reverse(), { log }));
    assert.deepEqual([...(await ask(bus, Echo, Uint8Array.of(1, 2, 3), 5_000))], [3, 2, 1]);
  });

  it('a service nobody answers rejects with “no responders”', async () => {
    await assert.rejects(ask(bus, { subject: 'test.nobody', request: null }, new Uint8Array(0), 5_000), /no responders|503/i);
  });

  it('a queue group: each request is answered once, by one member', async () => {
    const Who = { subject: 'test.who', request: null };
    let calls = 0;
    for (const name of ['a', 'b']) {
      subs.push(answer(bus, Who, async () => (calls++, name), { log, queue: 'who' }));
    }
    for (let i = 0; i < 6; i++) assert.match(text(await ask(bus, Who, new Uint8Array(0), 5_000)), /^[ab]$/);
    await bus.nc.flush();
    assert.equal(calls, 6, 'six requests, six answers');
  });
});
