/**
 * SIGNAL_FIRED, one event per bot and bar (FiredCoalescer) on a real nats-server with the real
 * activity bus and feed: every entry is named once, in an event of its own bot and bar; a bot with
 * more than FIRED_MODELS_MAX models on a bar gets further events; other kinds go straight through;
 * the public event keeps no side or price.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildActivity, FiredCoalescer, type Activity } from '../../src/community/index.ts';
import { FIRED_MODELS_MAX, type ActivityEvent } from '../../schemas/activity.ts';
import { activityModelText } from '../../src/lib/activity-text.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

const model = (k: number) => ({
  name: `Model ${k}`,
  stem: `7_EURUSD_1min_Model ${k}`,
  symbol: 'EURUSD' as const,
  timeframe: '1min' as const,
});

describe('FiredCoalescer', () => {
  let nats: TestNats;
  let activity: Activity;

  before(async () => {
    nats = await startNats('fired-coalescer');
    activity = await buildActivity({ bus: nats.bus, log, replicas: 1 });
  });
  after(async () => {
    activity?.stop();
    await nats?.close();
  });

  /** The events stored after id `from`, oldest first. */
  const storedAfter = async (from: number, count: number): Promise<ActivityEvent[]> => {
    for (let i = 0; i < 100; i++) {
      const page = activity.feed.list({ since: from, limit: 200 });
      if (page.count >= count) return page.events;
      await new Promise((r) => setTimeout(r, 50));
    }
    return activity.feed.list({ since: from, limit: 200 }).events;
  };

  it("gathers a bot's entries of one bar into one event naming each model once, per bot and per bar", async () => {
    const coalescer = new FiredCoalescer(activity.bus, log, 200);
    const from = activity.feed.list({ limit: 1 }).events[0]?.id ?? 0;
    const bar1 = '2026-03-02T10:00:00.000Z';
    const bar2 = '2026-03-02T10:01:00.000Z';
    const fired = (bot: string, k: number, bar: string) =>
      coalescer.emit({ kind: 'SIGNAL_FIRED', bot, model: model(k), bar_time: bar, metrics: { side: 'long', price: 1.1 } });
    const count = FIRED_MODELS_MAX + 20;
    const ids = await Promise.all([
      ...Array.from({ length: count }, (_, k) => fired('alice', k, bar1)),
      // The same entry again (an actor replaying its bar) is named once.
      fired('alice', 3, bar1),
      fired('bob', 0, bar1),
      fired('alice', 0, bar2),
    ]);
    const events = await storedAfter(from, 4);
    assert.equal(events.length, 4, 'alice bar 1 (two events: over the most one names), bob bar 1, alice bar 2');
    for (const e of events) {
      assert.equal(e.kind, 'SIGNAL_FIRED');
      assert.equal(e.metrics, undefined, 'no side or price in public');
      assert.deepEqual(e.model, e.models![0]);
      assert.ok(e.models!.length <= FIRED_MODELS_MAX);
    }
    const aliceBar1 = events.filter((e) => e.bot === 'alice' && e.bar_time === bar1);
    assert.deepEqual(
      aliceBar1.flatMap((e) => e.models!.map((m) => m.name)).sort(),
      Array.from({ length: count }, (_, k) => `Model ${k}`).sort(),
      'every model of alice on bar 1 once',
    );
    assert.deepEqual(
      events.filter((e) => e.bot === 'bob').map((e) => [e.bar_time, e.models!.map((m) => m.name)]),
      [[bar1, ['Model 0']]],
    );
    assert.deepEqual(
      events.filter((e) => e.bot === 'alice' && e.bar_time === bar2).map((e) => e.models!.map((m) => m.name)),
      [['Model 0']],
    );
    // Each entry's emit resolves with the id of the event that names it.
    const byId = new Map(events.map((e) => [e.id, e]));
    assert.equal(byId.get(ids[count]!)!.models!.filter((m) => m.name === 'Model 3').length, 1);
    assert.equal(byId.get(ids[count + 1]!)!.bot, 'bob');
    for (let k = 0; k < count; k++)
      assert.ok(
        byId.get(ids[k]!)!.models!.some((m) => m.name === `Model ${k}`),
        `Model ${k}'s id`,
      );
    assert.equal(activityModelText(aliceBar1.find((e) => e.models!.length === FIRED_MODELS_MAX)!), `Model 0 +${FIRED_MODELS_MAX - 1} more`);
  });

  it('passes every other kind through at once, and flush sends what is gathered without waiting', async () => {
    const coalescer = new FiredCoalescer(activity.bus, log, 60_000);
    const from = activity.feed.list({ limit: 1 }).events[0]?.id ?? 0;
    const deployed = await coalescer.emit({ kind: 'DEPLOYED', bot: 'carol', model: model(1) });
    assert.ok(deployed > from);
    const pending = coalescer.emit({ kind: 'SIGNAL_FIRED', bot: 'carol', model: model(1), bar_time: '2026-03-02T10:00:00.000Z' });
    coalescer.flush();
    const id = await pending;
    const events = await storedAfter(from, 2);
    assert.deepEqual(
      events.map((e) => [e.id, e.kind]),
      [
        [deployed, 'DEPLOYED'],
        [id, 'SIGNAL_FIRED'],
      ],
    );
  });
});
