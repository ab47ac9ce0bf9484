import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectBus, startEmbeddedNats, type Bus, type EmbeddedNats } from '../../src/bus/index.ts';
import { buildActivity, type Activity } from '../../src/community/index.ts';
import { createLogger } from '../../src/log.ts';
import type { ActivityEvent } from '../../schemas/activity.ts';
import { Streams, Topics } from '../../schemas/messages.ts';

const log = createLogger('silent');

describe('activity bus and feed', () => {
  let dir: string;
  let nats: EmbeddedNats;
  let bus: Bus;
  let activity: Activity;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-activity-'));
    nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: dir, log });
    bus = await connectBus(nats.url, 'test', log);
    activity = await buildActivity({ bus, log, replicas: 1 });
  });
  after(async () => {
    activity.stop();
    await bus.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses events that carry anything beyond the public fields', async () => {
    const smuggled = { kind: 'TRAINED', bot: 'alice', code: 'def feature_engineering(df): ...' };
    await assert.rejects(activity.bus.emit(smuggled as never), /unrecognized key/i);
    const prompt = { kind: 'TRAINED', bot: 'alice', model: { name: 'm', prompt: 'buy when rsi < 30' } };
    await assert.rejects(activity.bus.emit(prompt as never), /unrecognized key/i);
    await assert.rejects(activity.bus.emit({ kind: 'NOT_A_KIND', bot: 'alice' } as never));
  });

  it('assigns rising ids and times, and pages newest first by `before`', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) {
      const kind = i % 5 === 0 ? 'DEPLOYED' : 'TRAINED';
      ids.push(
        await activity.bus.emit({ kind, bot: `bot-${i}`, model: { name: `Model ${i}`, symbol: 'EURUSD' }, metrics: { wr: 0.5, n: i } }),
      );
    }
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    await waitFor(() => activity.feed.list({ limit: 200 }).count >= 25);

    const seen: ActivityEvent[] = [];
    let before: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = activity.feed.list({ limit: 10, before });
      seen.push(...res.events);
      if (!res.next_before) break;
      before = res.next_before;
    }
    assert.deepEqual(
      seen.map((e) => e.id),
      [...ids].reverse(),
      'pages cover every event once, newest first',
    );
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.ts > seen[i]!.ts, 'timestamps fall strictly');
  });

  it('filters by kind and follows `since` oldest first', async () => {
    const deployed = activity.feed.list({ limit: 200, kind: 'DEPLOYED' });
    assert.equal(deployed.count, 5);
    assert.ok(deployed.events.every((e) => e.kind === 'DEPLOYED'));

    const all = activity.feed
      .list({ limit: 200 })
      .events.map((e) => e.id)
      .reverse();
    const after = activity.feed.list({ limit: 3, since: all[10]! });
    assert.deepEqual(
      after.events.map((e) => e.id),
      all.slice(11, 14),
    );
    assert.equal(after.next_before, null);
  });

  it('never stores or serves the side and price of a live signal, even of an event stored raw on the stream', async () => {
    const model = { name: 'Live', symbol: 'EURUSD' as const, timeframe: '15min' as const };
    const viaBus = await activity.bus.emit({ kind: 'SIGNAL_FIRED', bot: 'dave', model, metrics: { side: 'long', price: 1.0842 } });
    const stored = await bus.jsm.streams.getMessage(Streams.activity.name, { seq: viaBus });
    assert.ok(stored && !('metrics' in stored.json<object>()), `stored: ${stored?.string()}`);
    // Written by an older process, before the rule: the feed applies it on the way out too.
    const raw = await bus.js.publish(
      Topics.activity.subject('SIGNAL_FIRED'),
      JSON.stringify({ kind: 'SIGNAL_FIRED', bot: 'dave', model, metrics: { side: 'short', price: 1.0901 } }),
    );
    await waitFor(() => activity.feed.list({ limit: 200, since: viaBus }).count >= 1);
    const listed = activity.feed.list({ limit: 200, kind: 'SIGNAL_FIRED' }).events.filter((e) => e.id === viaBus || e.id === raw.seq);
    assert.equal(listed.length, 2);
    for (const event of listed) assert.deepEqual(Object.keys(event).sort(), ['bot', 'id', 'kind', 'model', 'ts']);
  });

  it('tells subscribers about new events and survives a reload from the stream', async () => {
    const received: number[] = [];
    const unsubscribe = activity.feed.subscribe((e) => received.push(e.id));
    const id = await activity.bus.emit({ kind: 'SHARED', bot: 'carol', community_id: 7, parent_id: 3 });
    await waitFor(() => received.includes(id));
    unsubscribe();

    const before = activity.feed.list({ limit: 200 });
    activity.stop();
    activity = await buildActivity({ bus, log, replicas: 1 });
    assert.deepEqual(activity.feed.list({ limit: 200 }), before);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
