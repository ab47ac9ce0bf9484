/**
 * The embedded service tracks every shared entry: an entry written as the share endpoint writes it
 * (KV `sf_community`, frozen code and ONNX in the `sf_community` object store) gets its LiveRecord
 * from the bar closed at publication, and it grows as the synthetic feed closes bars. Real
 * service, NATS, chdb and sandboxed Python. (Live trades = backtest, restarts, crashes and two
 * hosts: test/actors/tracker/tracker-host.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tradeStats } from '../../src/backtest/index.ts';
import { openBlobStore, openBucket } from '../../src/bus/index.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import { LiveTradesRepo } from '../../src/store/index.ts';
import type { CommunityEntryRecord } from '../../schemas/community.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import { eventually } from '../helpers/live.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { lastTwoTradingDays, trainModel } from '../helpers/training.ts';

describe('the track record in the running service', () => {
  let sf: TestService;

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '4' });
  });
  after(() => sf.stop());

  it('a shared entry is tracked from the bar closed at publication, bar after bar', async () => {
    const { api_key: key, user_id } = await sf.mintKey('track_author');
    // BTCUSD trades through weekends: the feed closes a bar every minute whatever the day.
    const [endDay] = await lastTwoTradingDays(sf, key, 'BTCUSD');
    await trainModel(sf, key, { symbol: 'BTCUSD', end_date: endDay });
    const { models } = sf.service.domain.training;
    const model = (await models.resolve(user_id, 'Model 1'))!;
    const [onnx, code] = await Promise.all([models.onnx(model), models.code(model)]);

    const { bus } = sf.service;
    const files = await openBlobStore(bus, ObjectStores.community);
    await files.put('1/strategy.py', new TextEncoder().encode(code));
    await files.put('1/model.onnx', onnx);
    const sharedAt = Date.now();
    const entry: CommunityEntryRecord = {
      community_id: 1,
      user_id,
      author: 'track_author',
      title: 'Tracked',
      description: 'tracked live',
      parent_id: null,
      created_at: sharedAt,
      model,
      post_cutoff_stats: null,
    };
    await (await openBucket(bus, Buckets.community)).put('1', entry);

    const records = await openBucket(bus, Buckets.trackRecords);
    const first = await eventually('the first LiveRecord', async () => (await records.get('1'))?.value);
    const minute = TIMEFRAME_MS['1min'];
    // Its first bar is the last one closed when it was shared.
    assert.ok(first.since <= sharedAt && first.since > sharedAt - 3 * minute, `since ${first.since}, shared ${sharedAt}`);
    assert.equal(first.last_bar_ts, first.since - minute);
    assert.ok(sf.service.actors.tracker!.shards().some((s) => s.running().some((t) => t.communityId === 1)));

    // The synthetic feed closes the next minute: the record follows it.
    const next = await eventually(
      'a later bar tracked',
      async () => {
        const r = (await records.get('1'))?.value;
        return r && r.last_bar_ts > first.last_bar_ts ? r : null;
      },
      90_000,
    );
    assert.equal(next.since, first.since);
    assert.ok(next.bars >= 2);
    const stored = await new LiveTradesRepo(sf.service.clickhouse).ofEntry(1);
    assert.deepEqual(next.stats, tradeStats(stored.slice(0, next.stats.n), model.settings.capital));
  });
});
