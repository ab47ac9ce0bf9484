/**
 * POST /fork's rules on a real nats-server: the caller gets the entry's frozen code as a strategy
 * of their own with what POST /train needs, once per user; FORKED once; own entries allowed but
 * not counted; unknown entries 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CommunityIndex, communityEntry, Fork, LeaderboardView, suggestedModelName } from '../../src/community/index.ts';
import { log } from '../helpers/nats.ts';
import { EntryNotFoundError } from '../../src/errors.ts';
import { clockAt } from '../../src/lib/clock.ts';
import { ForkResponse } from '../../schemas/community.ts';
import { ModelName, TrainRequest } from '../../schemas/training.ts';
import { caller, saveModel, startHarness, type Harness } from './harness.ts';

describe('fork', () => {
  let h: Harness;
  let entryId: number;

  before(async () => {
    h = await startHarness('fork');
    await saveModel(h, { user: 1, name: 'Trend #1 (fast)', test: [0.01, 0.02], code: 'the shared code' });
    entryId = (await h.share.share(caller(1), { title: 'Trend' })).entry.community_id;
    h.events.length = 0;
  });
  after(() => h.close());

  it('copies the code into the caller’s account with a ready POST /train body, and announces it', async () => {
    const forked = ForkResponse.parse(await h.fork.fork(caller(2), entryId));
    assert.equal(forked.created, true);
    assert.equal(forked.forked_from, entryId);
    assert.equal(forked.code, 'the shared code');
    assert.equal(forked.symbol, 'EURUSD');
    assert.equal(forked.timeframe, '15min');
    assert.equal(forked.forked_at, new Date(1_800_000_000_000).toISOString());
    assert.equal(forked.suggested_model_name, `fork-${entryId} Trend -1 -fast-`);
    assert.ok(ModelName.safeParse(forked.suggested_model_name).success);
    const train = TrainRequest.parse(forked.train_request);
    assert.equal(train.code, 'the shared code');
    assert.equal(train.model_name, forked.suggested_model_name);
    assert.equal(train.confidence_threshold, 0.55);
    assert.equal(train.train_split, 0.7);
    assert.equal(train.start_date, '2023-07-10', 'the first day of the parent’s fit span (warm-up included)');
    assert.equal(train.end_date, '2023-11-03', 'the last day the parent trained on');
    assert.equal(await h.store.forkCode(2, entryId), 'the shared code', 'a copy kept in the caller’s account');
    assert.deepEqual(h.events, [
      {
        kind: 'FORKED',
        bot: 'user2',
        model: {
          name: 'Trend #1 (fast)',
          stem: '1_EURUSD_15min_Trend #1 (fast)',
          symbol: 'EURUSD',
          timeframe: '15min',
          model_type: 'RandomForestClassifier',
        },
        metrics: { n: 2, wr: 1, ret: 0.03, pf: 999, mdd: 0 },
        community_id: entryId,
        parent_id: entryId,
      },
    ]);
    assert.equal(h.index.forksOf(entryId), 1);
  });

  it('gives a user’s earlier fork back when they fork again: no second event, no second count', async () => {
    const again = await h.fork.fork(caller(2), entryId);
    assert.equal(again.created, false);
    assert.equal(again.code, 'the shared code');
    assert.equal(h.events.length, 1);
    assert.equal(h.index.forksOf(entryId), 1);
  });

  it('counts one fork per user when one user’s forks race', async () => {
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => h.fork.fork(caller(3), entryId)));
    assert.equal(outcomes.filter((o) => o.created).length, 1);
    assert.equal(h.events.length, 2);
    assert.equal(h.index.forksOf(entryId), 2);
  });

  it('lets the author fork their own entry, without counting it', async () => {
    const own = await h.fork.fork(caller(1), entryId);
    assert.equal(own.created, true);
    assert.equal(h.index.forksOf(entryId), 2);
    assert.ok(h.index.hasForked(1, entryId));
  });

  it('answers 404 for an unknown entry', async () => {
    await assert.rejects(h.fork.fork(caller(2), 999), EntryNotFoundError);
  });

  it('takes the span from trained_span for a model recorded before fit_span was kept', async () => {
    await saveModel(h, { user: 5, name: 'Old model', test: [0.01], record: { fit_span: undefined } });
    const old = (await h.share.share(caller(5), { model_stem: '5_EURUSD_15min_Old model', title: 'Old' })).entry.community_id;
    const forked = await h.fork.fork(caller(6), old);
    assert.deepEqual([forked.train_request.start_date, forked.train_request.end_date], ['2023-07-22', '2023-11-03']);
  });

  it('counts only forks by established accounts; trial keys and new accounts are shown apart, and count once established', async () => {
    await saveModel(h, { user: 40, name: 'Popular', test: [0.01, 0.02] });
    const id = (await h.share.share(caller(40), { title: 'Popular' })).entry.community_id;
    const now = 1_800_000_000_000;
    const day = 86_400_000;
    // An attacker's fresh trial keys, an account claimed yesterday, and one claimed 6 days 23 hours ago.
    for (let user = 41; user <= 45; user++) await h.fork.fork(caller(user, { is_trial: true, created_at: now - 3_600_000 }), id);
    await h.fork.fork(caller(46, { created_at: now - 2 * day, claimed_at: now - day }), id);
    await h.fork.fork(caller(47, { created_at: now - 30 * day, claimed_at: now - 7 * day + 3_600_000 }), id);
    assert.equal(h.index.forksOf(id), 0, 'none of them counts');
    assert.equal(h.index.trialForksOf(id), 7, 'all of them are shown apart');
    // Counted: claimed a week ago to the millisecond, and a trial on the paid plan.
    await h.fork.fork(caller(48, { created_at: now - 20 * day, claimed_at: now - 7 * day }), id);
    await h.fork.fork(caller(49, { plan: 'pro', is_trial: true, created_at: now }), id);
    assert.equal(h.index.forksOf(id), 2);
    assert.equal(h.index.trialForksOf(id), 7);
    assert.equal((await h.store.fork(41, id))?.counts, false, 'the stored fork says it does not count');
    assert.equal((await h.store.fork(48, id))?.counts, true);

    // Account 46, established a week later, forks again: the same copy, and its fork counts now.
    const later = new Fork({
      store: h.store,
      index: h.index,
      activity: { emit: async () => undefined },
      log,
      clock: clockAt(() => now + 7 * day),
    });
    const again = await later.fork(caller(46, { created_at: now - 2 * day, claimed_at: now - day }), id);
    assert.equal(again.created, false);
    assert.equal(h.index.forksOf(id), 3);
    assert.equal(h.index.trialForksOf(id), 6);
    assert.equal((await h.store.fork(46, id))?.counts, true);
    // A trial key forking again changes nothing.
    await later.fork(caller(41, { is_trial: true, created_at: now }), id);
    assert.equal(h.index.forksOf(id), 3);

    // What other processes see (the KV watch), and what the views and the leaderboard rank.
    const other = new CommunityIndex();
    const following = await h.store.follow(other);
    try {
      assert.equal(other.forksOf(id), 3);
      assert.equal(other.trialForksOf(id), 6);
      const view = communityEntry(other, id);
      assert.deepEqual([view.forks, view.trial_forks], [3, 6]);
      const row = new LeaderboardView(other).query({ metric: 'forks', limit: 200 }).entries.find((r) => r.community_id === id)!;
      assert.deepEqual([row.value, row.forks, row.trial_forks], [3, 3, 6], 'the forks metric ranks counted forks only');
    } finally {
      following.stop();
    }
  });

  it('suggests a valid model name whatever the parent’s name', () => {
    const name = suggestedModelName({ community_id: 12345, model: { model_name: 'x'.repeat(60) } as never });
    assert.ok(name.length <= 60 && ModelName.safeParse(name).success, name);
  });
});
