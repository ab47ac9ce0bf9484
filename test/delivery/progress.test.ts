/**
 * The rule that reads journaled webhook progress back (src/delivery/progress.ts): a progress that
 * went further moves only what deliveries move, one that did not changes nothing, and the furthest
 * of every host's page wins.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import {
  PROGRESS_PAGES,
  progressPage,
  progressPageKey,
  readProgressPage,
  storedProgress,
  withProgress,
  type ProgressKv,
} from '../../src/delivery/progress.ts';
import type { DeliveryProgress, DeliveryState } from '../../schemas/delivery.ts';
import { DeliveryBuckets } from '../../schemas/messages.ts';
import { startHarness, type Harness } from './harness.ts';

const state: DeliveryState = {
  deployment_id: 'dep_a',
  channel: 'webhook',
  user_id: 7,
  cursor: 40,
  delivered: 12,
  dead_lettered: 2,
  last_delivered_at: 1_000,
  last_delivered_id: 'sig_a_1',
  current: null,
  replay: [17, 23],
  disabled: { reason: 'receiver answered 410 Gone', at: 900 },
  updated_at: 1_100,
};
const progress = (cursor: number, delivered: number, id = `sig_${cursor}`): DeliveryProgress => ({
  cursor,
  delivered,
  last_delivered_at: 2_000 + cursor,
  last_delivered_id: id,
  updated_at: 2_000 + cursor,
});

describe('withProgress', () => {
  it('takes the cursor and counters of deliveries that went further, and leaves replays, dead letters and a disabled channel', () => {
    const merged = withProgress(state, progress(55, 20));
    assert.deepEqual(merged, {
      ...state,
      cursor: 55,
      delivered: 20,
      last_delivered_at: 2_055,
      last_delivered_id: 'sig_55',
      updated_at: 2_055,
    });
  });

  it('changes nothing for a progress the state already holds, or none', () => {
    assert.equal(withProgress(state, progress(40, 12)), state);
    assert.equal(withProgress(state, progress(39, 30)), state);
    assert.equal(withProgress(state, null), state);
  });

  it('never lowers a counter the state has beyond the progress (a replay delivered since)', () => {
    assert.equal(withProgress({ ...state, delivered: 25 }, progress(41, 13)).delivered, 25);
  });
});

describe('progress pages', () => {
  let h: Harness;
  let kv: ProgressKv;
  before(async () => {
    h = await startHarness({});
    await h.stopActor();
    kv = await openBucket(h.bus, DeliveryBuckets.progress);
  });
  after(() => h?.close());

  it('a state key has one page, the same everywhere, spread over all of them', () => {
    const pages = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const page = progressPage(`webhook.dep_${i}`);
      assert.ok(Number.isInteger(page) && page >= 0 && page < PROGRESS_PAGES);
      assert.equal(progressPage(`webhook.dep_${i}`), page);
      pages.add(page);
    }
    assert.equal(pages.size, PROGRESS_PAGES);
    // A host name with dots stays one key token.
    assert.equal(progressPageKey(3, 'ip-10-0-0-1.ec2.internal-77-ab12cd'), '3.ip-10-0-0-1_ec2_internal-77-ab12cd');
  });

  it('reads the furthest entry of a key over every host, and leaves out the host that asks', async () => {
    const key = 'webhook.dep_pages';
    const page = progressPage(key);
    const other = 'webhook.dep_pages_other';
    await kv.put(progressPageKey(page, 'host-a'), { host: 'host-a', written_at: 1, entries: { [key]: progress(10, 10) } });
    await kv.put(progressPageKey(page, 'host-b'), {
      host: 'host-b',
      written_at: 2,
      entries: { [key]: progress(14, 13), [other]: progress(3, 3) },
    });
    await kv.put(progressPageKey(page, 'host-c'), { host: 'host-c', written_at: 3, entries: { [key]: progress(12, 12) } });

    assert.deepEqual(await storedProgress(kv, key), progress(14, 13));
    const withoutB = await readProgressPage(kv, page, 'host-b');
    assert.deepEqual(withoutB.get(key), progress(12, 12));
    assert.equal(withoutB.has(other), false);
    assert.equal(await storedProgress(kv, 'webhook.dep_nowhere'), null);
  });
});
