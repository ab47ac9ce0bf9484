/**
 * POST /share's rules on a real nats-server and the real model store: the contract's gate on the
 * recorded test backtest, the default model, the frozen entry, idempotence (also under racing
 * shares and after a share cut short), parent_id, and another user's model.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CatalogueBuilder, communityEntry, DESCENT_THRESHOLD, LeaderboardView, shareKey } from '../../src/community/index.ts';
import { Catalogue, LeaderboardQuery } from '../../schemas/community.ts';
import { summariseRobustness } from '../../schemas/robustness-summary.ts';
import { OVERFIT_REASON, robustnessReport } from '../helpers/robustness-report.ts';
import { openForks } from '../../src/payouts/index.ts';
import { EntryLink } from '../../schemas/payouts.ts';
import { NORMAL_STRATEGY, strategyCode } from '../helpers/strategies.ts';
import { BadRequestError, ModelNotFoundError, ShareGateError } from '../../src/errors.ts';
import { until } from '../helpers/nats.ts';
import { caller, saveModel, startHarness, type Harness } from './harness.ts';

const WINNER = [0.01, -0.004, 0.006, 0.002];

describe('share', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness('share');
  });
  after(() => h.close());

  it('has nothing to share for a user without a model (404, saying how to get one)', async () => {
    await assert.rejects(
      h.share.share(caller(1), { title: 'x' }),
      (err: Error) => err instanceof ModelNotFoundError && /POST \/api\/v1\/train/.test(err.message),
    );
  });

  it('refuses a model without a test trade, naming the condition and the recorded value (422)', async () => {
    await saveModel(h, { user: 1, name: 'idle', test: [] });
    await assert.rejects(h.share.share(caller(1), { model_stem: 'idle', title: 'x' }), (err: Error) => {
      assert.ok(err instanceof ShareGateError);
      assert.equal(err.status, 422);
      assert.match(err.message, /n_trades >= 1 \(the model's test backtest has n_trades = 0\)/);
      assert.match(err.message, /total return > 0 \(the model's test backtest has ret = 0\)/);
      assert.deepEqual(err.details.gate, {
        n_trades: 0,
        ret: 0,
        required: { n_trades_min: 1, ret_above: 0 },
        failed: ['n_trades >= 1', 'total return > 0'],
      });
      return true;
    });
  });

  it('refuses a model whose test trades lose money, naming only that condition', async () => {
    await saveModel(h, { user: 1, name: 'loser', test: [0.01, -0.02] });
    await assert.rejects(h.share.share(caller(1), { model_stem: 'loser', title: 'x' }), (err: Error) => {
      assert.ok(err instanceof ShareGateError);
      assert.doesNotMatch(err.message, /n_trades >= 1/);
      assert.match(err.message, /total return > 0 \(the model's test backtest has ret = -0\.01/);
      assert.deepEqual((err.details.gate as { failed: string[] }).failed, ['total return > 0']);
      return true;
    });
    assert.equal(h.events.length, 0);
  });

  it('shares the most recently trained model by default, frozen with its ranking inputs, and announces it once', async () => {
    const model = await saveModel(h, { user: 1, name: 'winner', test: WINNER, trainedAt: 1_750_000_000_000, post: [0.002, -0.001] });
    const { entry, created } = await h.share.share(caller(1), { title: 'My winner', description: 'line one\nline two' });
    assert.equal(created, true);
    assert.equal(entry.community_id, 1);
    assert.equal(entry.author, 'user1');
    assert.equal(entry.title, 'My winner');
    assert.equal(entry.description, 'line one\nline two');
    assert.equal(entry.parent_id, null);
    assert.equal(entry.created_at, 1_800_000_000_000);
    assert.deepEqual(entry.model, model);
    assert.equal(entry.post_cutoff_stats?.n, 2);
    // The sd of the test trades only (the train trades are left out): mean 0.0035.
    const m = WINNER.reduce((s, r) => s + r, 0) / 4;
    const sd = Math.sqrt(WINNER.reduce((s, r) => s + (r - m) ** 2, 0) / 3);
    assert.ok(Math.abs(entry.test_trade_sd! - sd) < 1e-12);
    assert.ok(Math.abs(entry.test_days! - 10.5) < 1e-12, '2024-01-22 to 2024-02-01 12:00');
    assert.match(await h.store.entryCode(1), /model winner of user 1/);
    assert.equal(h.index.get(1)?.title, 'My winner', 'readable at once in this process');
    assert.deepEqual(h.events, [
      {
        kind: 'SHARED',
        bot: 'user1',
        model: { name: 'winner', stem: model.stem, symbol: 'EURUSD', timeframe: '15min', model_type: 'RandomForestClassifier' },
        metrics: { n: 4, wr: 0.75, ret: model.test_stats.ret, pf: model.test_stats.pf, mdd: model.test_stats.mdd },
        community_id: 1,
      },
    ]);
  });

  it('defaults the title to the strategy’s and the description to empty', async () => {
    await saveModel(h, { user: 5, name: 'plain', test: WINNER });
    const { entry } = await h.share.share(caller(5), {});
    assert.equal(entry.title, 'Crafted strategy');
    assert.equal(entry.description, '');
  });

  it('gives the same entry back when the same trained model is shared again: no duplicate, no event', async () => {
    const before = h.events.length;
    const again = await h.share.share(caller(1), { model_stem: '1_EURUSD_15min_winner', title: 'Another title' });
    assert.equal(again.created, false);
    assert.equal(again.entry.community_id, 1);
    assert.equal(again.entry.title, 'My winner');
    assert.equal(h.events.length, before);
  });

  it('publishes exactly one entry when shares of one model race', async () => {
    await saveModel(h, { user: 2, name: 'racer', test: WINNER });
    const before = h.events.length;
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => h.share.share(caller(2), { model_stem: 'racer', title: `try ${i}` })),
    );
    const ids = new Set(outcomes.map((o) => o.entry.community_id));
    assert.equal(ids.size, 1, `one entry: ${[...ids]}`);
    assert.equal(outcomes.filter((o) => o.created).length, 1);
    assert.equal(h.events.length, before + 1);
    const id = [...ids][0]!;
    const entries = await Promise.all((await h.store.kv.entries.keys()).map((k) => h.store.entry(Number(k))));
    assert.equal(entries.filter((e) => e?.model.stem === '2_EURUSD_15min_racer').length, 1);
    assert.equal((await h.store.entry(id))?.title, outcomes.find((o) => o.created)!.entry.title);
  });

  it('keeps the entry as shared when the author retrains or deletes the model; the retrained model is another entry', async () => {
    const codeBefore = await h.store.entryCode(1);
    await saveModel(h, { user: 1, name: 'winner', test: [0.05], artifact: 'j2', code: 'retrained code' });
    const retrained = await h.share.share(caller(1), { model_stem: 'winner', title: 'Retrained' });
    assert.equal(retrained.created, true);
    assert.notEqual(retrained.entry.community_id, 1);
    assert.equal(await h.store.entryCode(retrained.entry.community_id), 'retrained code');
    const record = (await h.models.resolve(1, 'winner'))!;
    await h.models.delete(record);
    assert.equal(await h.store.entryCode(1), codeBefore);
    assert.equal((await h.store.entry(1))?.model.test_stats.n, 4);
  });

  it('finishes a share cut short after its claim: the next share completes the same id', async () => {
    const model = await saveModel(h, { user: 3, name: 'interrupted', test: WINNER });
    const id = await h.store.nextId();
    await h.store.claimShare(shareKey(3, model.stem, model.artifact), id);
    const { entry, created } = await h.share.share(caller(3), { model_stem: 'interrupted', title: 'Resumed' });
    assert.equal(created, true);
    assert.equal(entry.community_id, id);
  });

  it('treats another user’s model as unknown (404)', async () => {
    await assert.rejects(h.share.share(caller(4), { model_stem: '2_EURUSD_15min_racer', title: 'mine now' }), ModelNotFoundError);
    await assert.rejects(h.share.share(caller(4), { model_stem: 'racer', title: 'mine now' }), ModelNotFoundError);
  });

  it('accepts parent_id only for an entry the caller forked (400 otherwise), and links the child', async () => {
    await saveModel(h, { user: 4, name: 'child', test: WINNER });
    await assert.rejects(h.share.share(caller(4), { model_stem: 'child', title: 'Child', parent_id: 1 }), (err: Error) => {
      assert.ok(err instanceof BadRequestError);
      assert.match(err.message, /parent_id 1: you have not forked community entry 1/);
      return true;
    });
    await assert.rejects(h.share.share(caller(4), { model_stem: 'child', title: 'Child', parent_id: 999 }), BadRequestError);
    await h.fork.fork(caller(4), 1);
    const { entry } = await h.share.share(caller(4), { model_stem: 'child', title: 'Child', parent_id: 1 });
    assert.equal(entry.parent_id, 1);
    assert.deepEqual(h.index.childrenOf(1), [entry.community_id]);
    assert.equal(h.events.at(-1)?.kind, 'SHARED');
    assert.equal(h.events.at(-1)?.parent_id, 1);
    assert.deepEqual(
      entry.descent,
      { parent_id: 1, similarity: 1, threshold: DESCENT_THRESHOLD, holds: true },
      'the copy differs only in a comment',
    );
  });

  it('links a fork only when its code descends from the parent’s: an honest edit holds, a replacement is published as a root', async () => {
    const parentCode = strategyCode({ params: '{"n_estimators": 30, "max_depth": 5}', threshold: 0.55 });
    await saveModel(h, { user: 50, name: 'origin', test: WINNER, code: parentCode });
    const parent = (await h.share.share(caller(50), { model_stem: 'origin', title: 'Origin' })).entry.community_id;
    await h.fork.fork(caller(51), parent);
    await h.fork.fork(caller(52), parent);

    // An honest fork: other parameters, one feature more, a comment.
    const edited = strategyCode({
      params: '{"n_estimators": 200, "max_depth": 3}',
      threshold: 0.6,
      prelude: '# a longer window\n    df["ret_8"] = close.pct_change(8)',
    });
    await saveModel(h, { user: 51, name: 'tuned', test: WINNER, code: edited });
    const tuned = (await h.share.share(caller(51), { model_stem: 'tuned', title: 'Tuned', parent_id: parent })).entry;
    assert.equal(tuned.parent_id, parent);
    assert.equal(tuned.descent?.holds, true);
    assert.ok(tuned.descent!.similarity >= DESCENT_THRESHOLD && tuned.descent!.similarity < 1, `similarity ${tuned.descent!.similarity}`);

    // Unrelated code shared under the parent: published, as a root, and says why.
    await saveModel(h, { user: 52, name: 'other', test: WINNER, code: NORMAL_STRATEGY });
    const { entry: other, created } = await h.share.share(caller(52), { model_stem: 'other', title: 'Other', parent_id: parent });
    assert.equal(created, true);
    assert.equal(other.parent_id, null);
    assert.equal(other.descent?.parent_id, parent);
    assert.equal(other.descent?.holds, false);
    assert.ok(other.descent!.similarity < DESCENT_THRESHOLD);
    assert.equal(h.events.at(-1)?.kind, 'SHARED');
    assert.equal(h.events.at(-1)?.parent_id, undefined, 'announced without a parent');
    assert.deepEqual(h.index.childrenOf(parent), [tuned.community_id], 'only the descending fork is a child in the lineage');
    assert.deepEqual(communityEntry(h.index, other.community_id).descent, other.descent, 'the entry keeps saying why');

    // Payouts follow the link: the replacement's publisher pays the parent's author nothing.
    const links = new Map<number, EntryLink>();
    for (const id of [parent, tuned.community_id, other.community_id]) links.set(id, EntryLink.parse(await h.store.entry(id)));
    const pairs = openForks(links, Math.floor(1_800_000_000_000 / 86_400_000) * 86_400_000);
    assert.deepEqual(
      pairs.map((p) => [p.parentUser, p.childUser]),
      [[50, 51]],
    );
  });

  it('freezes the model’s robustness verdict and deflated Sharpe into the entry, shown by the entry view, the leaderboard row and the catalogue', async () => {
    const report = robustnessReport('overfit', { dsr: 0.31, trials: 7 });
    const model = await saveModel(h, { user: 60, name: 'judged', test: WINNER, record: { robustness: report } });
    const { entry } = await h.share.share(caller(60), { model_stem: 'judged', title: 'Judged' });
    assert.deepEqual(entry.robustness, summariseRobustness(report));
    assert.equal(entry.model.robustness, undefined, 'the full report stays with the model, out of the index');
    assert.equal(entry.model.stem, model.stem);

    const view = communityEntry(h.index, entry.community_id);
    assert.equal(view.verdict, 'overfit');
    assert.deepEqual(view.robustness, {
      verdict: 'overfit',
      reasons: report.reasons,
      dsr: 0.31,
      dsr_p_value: 1 - 0.31,
      trials: 7,
      sharpe_annualised: 1.2,
      random_p_value: 0.31,
      folds_profitable: 2,
      folds: 5,
    });
    assert.ok(view.robustness!.reasons.includes(OVERFIT_REASON));
    const row = new LeaderboardView(h.index)
      .query(LeaderboardQuery.parse({ metric: 'dsr', limit: '200' }))
      .entries.find((r) => r.community_id === entry.community_id)!;
    assert.deepEqual([row.verdict, row.dsr], ['overfit', 0.31]);
    const listed = Catalogue.parse(JSON.parse(new CatalogueBuilder(h.index).current().body().toString('utf8'))).entries.find(
      (e) => e.community_id === entry.community_id,
    )!;
    assert.deepEqual([listed.verdict, listed.dsr], ['overfit', 0.31]);

    // Frozen: the author retraining the model to a better verdict changes nothing here.
    await saveModel(h, {
      user: 60,
      name: 'judged',
      test: WINNER,
      artifact: 'j9',
      record: { robustness: robustnessReport('robust', { dsr: 0.99 }) },
    });
    assert.equal((await h.store.entry(entry.community_id))?.robustness?.verdict, 'overfit');
    assert.equal(communityEntry(h.index, entry.community_id).verdict, 'overfit');
  });

  it('shows a null verdict for an entry shared before the report existed, and for a model trained without one', async () => {
    await saveModel(h, { user: 61, name: 'unjudged', test: WINNER });
    const { entry: before } = await h.share.share(caller(61), { model_stem: 'unjudged' });
    const old = communityEntry(h.index, before.community_id);
    assert.equal((await h.store.entry(before.community_id))?.robustness, null, 'a model without a report freezes null');
    assert.deepEqual([old.verdict, old.robustness], [null, null]);

    // An entry written before the field existed (no `robustness` key at all) reads the same.
    const { robustness: _none, ...legacy } = (await h.store.entry(before.community_id))!;
    const id = await h.store.nextId();
    assert.equal(await h.store.createEntry({ ...legacy, community_id: id }), true);
    await until('the legacy entry indexed', () => h.index.get(id) !== undefined);
    assert.deepEqual([communityEntry(h.index, id).verdict, communityEntry(h.index, id).robustness], [null, null]);
    const row = new LeaderboardView(h.index)
      .query(LeaderboardQuery.parse({ metric: 'dsr', limit: '200' }))
      .entries.find((r) => r.community_id === id)!;
    assert.deepEqual([row.verdict, row.dsr, row.value, row.qualified], [null, null, null, false]);
  });
});
