/**
 * The community over real HTTP with the real service (trainer, sandboxed Python, NATS, chdb):
 * share gate both ways, idempotent share, another user's model, fork → train the fork → share
 * with parent_id, a lineage three deep, the leaderboard against figures computed here from the
 * trade logs, community.json's ETag, 401s and text rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ActivityList } from '../../schemas/activity.ts';
import {
  Catalogue,
  CommunityEntry,
  ForkResponse,
  Leaderboard,
  LEADERBOARD_METRICS,
  Lineage,
  type LeaderboardMetric,
} from '../../schemas/community.ts';
import { Results, type JobView } from '../../schemas/training.ts';
import { FIXED_END_DAY, PROFITABLE_TAKE_PROFIT, SCALPER, startFixedMarketService } from '../helpers/fixed-market.ts';
import type { TestService } from '../helpers/service.ts';
import { strategyCode } from '../helpers/strategies.ts';
import { waitForJob } from '../helpers/training.ts';

/** min_atr at its maximum: no bar ever qualifies, so the model never trades. */
const IDLE = strategyCode().replace('"min_atr": None', '"min_atr": 100');

describe('community over HTTP', () => {
  let sf: TestService;
  const keys: Record<'alice' | 'bob' | 'carol' | 'dave', string> = { alice: '', bob: '', carol: '', dave: '' };
  const endDay = FIXED_END_DAY;
  /** The body alice's shared model was trained with (the forks reuse its settings). */
  let rootBody: Record<string, unknown>;
  let rootStem: string;
  let rootTest: JobView['test_stats'];
  const ids = { a: 0, b: 0, c: 0 };

  const train = async (key: string, body: Record<string, unknown>): Promise<JobView> => {
    const start = await sf.api('POST', '/api/v1/train', { key, body });
    assert.equal(start.status, 200, start.text);
    const job = await waitForJob(sf, key, start.body.job_id);
    assert.equal(job.status, 'done', job.error);
    return job;
  };

  before(async () => {
    sf = await startFixedMarketService();
    for (const name of Object.keys(keys) as (keyof typeof keys)[]) keys[name] = (await sf.mintKey(name)).api_key;
  });
  after(() => sf.stop());

  it('needs a key to share or fork (401); reads are public', async () => {
    assert.equal((await sf.api('POST', '/api/v1/share', { body: { title: 'x' } })).status, 401);
    assert.equal((await sf.api('POST', '/api/v1/fork/1')).status, 401);
    assert.equal((await sf.api('POST', '/api/v1/share', { key: 'sf_' + 'x'.repeat(40), body: {} })).status, 401);
    const board = await sf.api('GET', '/api/v1/leaderboard');
    assert.equal(board.status, 200, board.text);
    assert.deepEqual(Leaderboard.parse(board.body).entries, []);
    assert.equal((await sf.api('GET', '/api/v1/community.json')).status, 200);
    const unknown = await sf.api('GET', '/api/v1/lineage/1');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error_code, 'SF_ENTRY_NOT_FOUND');
  });

  it('refuses to share a model that never traded (422, naming the condition and the recorded values)', async () => {
    const none = await sf.api('POST', '/api/v1/share', { key: keys.alice, body: { title: 'nothing yet' } });
    assert.equal(none.status, 404, none.text);
    assert.match(none.body.error, /no trained model/);

    const job = await train(keys.alice, { code: IDLE, timeframe: '1min', model_name: 'idle', end_date: endDay });
    assert.equal(job.test_stats!.n, 0);
    const res = await sf.api('POST', '/api/v1/share', { key: keys.alice, body: { model_stem: 'idle', title: 'Idle' } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error_code, 'SF_SHARE_GATE');
    assert.equal(res.body.code, 422);
    assert.match(res.body.error, /n_trades >= 1 \(the model's test backtest has n_trades = 0\)/);
    assert.equal(res.body.gate.n_trades, 0);
    assert.equal(res.body.gate.ret, 0);
    assert.ok(res.body.gate.failed.includes('n_trades >= 1'));
  });

  it('shares a profitable model: 201 with the entry, again 200 with the same entry, one SHARED event', async () => {
    rootBody = {
      code: SCALPER,
      timeframe: '1min',
      model_name: 'scalper',
      end_date: endDay,
      stop_loss: null,
      take_profit: PROFITABLE_TAKE_PROFIT,
    };
    const job = await train(keys.alice, rootBody);
    assert.ok(
      job.test_stats!.n >= 1 && job.test_stats!.ret > 0,
      `the scalper ends its test span in profit: ${JSON.stringify(job.test_stats)}`,
    );
    rootStem = job.model_stem;
    rootTest = job.test_stats;

    // No model_stem: the most recently trained model is the one that passed.
    const res = await sf.api('POST', '/api/v1/share', {
      key: keys.alice,
      body: { title: 'Scalper <b>one</b>', description: 'Tiny targets.\nNo stop.' },
    });
    assert.equal(res.status, 201, res.text);
    const entry = CommunityEntry.parse(res.body);
    assert.equal(entry.model.stem, rootStem);
    assert.equal(entry.title, 'Scalper <b>one</b>', 'stored and served as given');
    assert.equal(entry.description, 'Tiny targets.\nNo stop.');
    assert.equal(entry.author, 'alice');
    assert.equal(entry.parent_id, null);
    assert.equal(entry.live, null, 'not tracked yet');
    assert.ok(entry.backtest.post_cutoff, 'the day after end_date is the post-cutoff span');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    ids.a = entry.community_id;

    const again = await sf.api('POST', '/api/v1/share', { key: keys.alice, body: { model_stem: rootStem, title: 'Other title' } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.community_id, ids.a);
    assert.equal(again.body.title, 'Scalper <b>one</b>');

    const feed = ActivityList.parse((await sf.api('GET', '/api/v1/activity?kind=SHARED')).body);
    const shared = feed.events.filter((e) => e.community_id === ids.a);
    assert.equal(shared.length, 1);
    assert.equal(shared[0]!.bot, 'alice');
    assert.ok(!JSON.stringify(shared[0]).includes('feature_engineering'), 'no code in the event');
  });

  it('treats another user’s model as unknown (404)', async () => {
    const res = await sf.api('POST', '/api/v1/share', { key: keys.bob, body: { model_stem: rootStem, title: 'Stolen' } });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error_code, 'SF_MODEL_NOT_FOUND');
  });

  it('refuses control characters in titles and descriptions, and unknown fields (400)', async () => {
    const bad = [
      { title: 'bell\u0007' },
      { title: 'nul\u0000' },
      { title: 'two\nlines' },
      { title: 'spoof\u202etxt.exe' },
      { title: '   ' },
      { title: 'x'.repeat(101) },
      { title: 'ok', description: 'tab\there' },
      { title: 'ok', description: 'esc\u001b[31m' },
      { title: 'ok', description: 'x'.repeat(2001) },
      { title: 'ok', prompt: 'hi' },
      { title: 'ok', parent_id: 'one' },
    ];
    for (const body of bad) {
      const res = await sf.api('POST', '/api/v1/share', { key: keys.alice, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, 400);
    }
  });

  it('forks: bob gets the code and a ready train body; training it and sharing with parent_id links the child', async () => {
    const fork = await sf.api('POST', `/api/v1/fork/${ids.a}`, { key: keys.bob });
    assert.equal(fork.status, 201, fork.text);
    const forked = ForkResponse.parse(fork.body);
    assert.equal(forked.code, SCALPER);
    assert.equal(forked.symbol, 'EURUSD');
    assert.equal(forked.timeframe, '1min');
    assert.equal((await sf.api('POST', `/api/v1/fork/${ids.a}`, { key: keys.bob })).status, 200, 'a second fork is the same copy');

    // carol has not forked A: parent_id is refused.
    const early = await sf.api('POST', '/api/v1/share', { key: keys.carol, body: { title: 'x', parent_id: ids.a } });
    assert.equal(early.status, 400, early.text);

    assert.equal(forked.train_request.end_date, endDay, 'the parent’s span comes with the body');
    const job = await train(keys.bob, forked.train_request);
    assert.deepEqual(job.test_stats, rootTest, 'the same code, settings and bars as the parent: the same test backtest');
    // Two shares at once: one entry.
    const [one, two] = await Promise.all(
      [0, 1].map(() =>
        sf.api('POST', '/api/v1/share', { key: keys.bob, body: { model_stem: job.model_stem, title: 'Bob’s fork', parent_id: ids.a } }),
      ),
    );
    assert.deepEqual([one!.status, two!.status].sort(), [200, 201], `${one!.text} ${two!.text}`);
    assert.equal(one!.body.community_id, two!.body.community_id);
    ids.b = one!.body.community_id;
    assert.equal(one!.body.parent_id, ids.a);

    const carolFork = ForkResponse.parse((await sf.api('POST', `/api/v1/fork/${ids.b}`, { key: keys.carol })).body);
    const carolJob = await train(keys.carol, carolFork.train_request);
    const c = await sf.api('POST', '/api/v1/share', {
      key: keys.carol,
      body: { model_stem: carolJob.model_stem, title: 'Carol’s fork', parent_id: ids.b },
    });
    assert.equal(c.status, 201, c.text);
    ids.c = c.body.community_id;
    assert.deepEqual([ids.a < ids.b, ids.b < ids.c], [true, true], 'sequential ids');

    // The author forks her own entry: allowed, not counted.
    assert.equal((await sf.api('POST', `/api/v1/fork/${ids.a}`, { key: keys.alice })).status, 201);
    const forkedEvents = ActivityList.parse((await sf.api('GET', '/api/v1/activity?kind=FORKED')).body).events;
    assert.equal(forkedEvents.length, 3);
    assert.ok(forkedEvents.every((e) => !JSON.stringify(e).includes('feature_engineering')));
  });

  it('shows a lineage three deep: ancestors to the root in order, and direct children', async () => {
    const of = async (id: number) => {
      const res = await sf.api('GET', `/api/v1/lineage/${id}`);
      assert.equal(res.status, 200, res.text);
      return Lineage.parse(res.body);
    };
    const c = await of(ids.c);
    assert.deepEqual(
      c.ancestors.map((n) => n.community_id),
      [ids.b, ids.a],
    );
    assert.deepEqual(
      c.ancestors.map((n) => n.author),
      ['bob', 'alice'],
    );
    assert.deepEqual(c.children, []);
    const b = await of(ids.b);
    assert.deepEqual(
      b.ancestors.map((n) => n.community_id),
      [ids.a],
    );
    assert.deepEqual(
      b.children.map((n) => [n.community_id, n.title, n.author]),
      [[ids.c, 'Carol’s fork', 'carol']],
    );
    const a = await of(ids.a);
    assert.deepEqual(a.ancestors, []);
    assert.deepEqual(
      a.children.map((n) => n.community_id),
      [ids.b],
    );
    // bob forked on a fresh trial key: shown apart, not counted; alice's own fork is neither.
    assert.deepEqual([a.entry.forks, a.entry.trial_forks], [0, 1]);
    assert.ok(a.entry.test.n_trades >= 1 && a.entry.created_at);
    assert.equal((await sf.api('GET', '/api/v1/lineage/abc')).status, 400);
    assert.equal((await sf.api('GET', `/api/v1/lineage/${ids.c + 100}`)).status, 404);
  });

  it('ranks by every metric as the figures computed here from the trade logs say', async () => {
    // Each author reads their own model's results: per-trade returns of the test span.
    const owners: Array<[number, string, string]> = [
      [ids.a, keys.alice, ''],
      [ids.b, keys.bob, ''],
      [ids.c, keys.carol, ''],
    ];
    const figures = new Map<number, Record<string, number>>();
    for (const [id, key] of owners) {
      const entry = CommunityEntry.parse((await sf.api('GET', `/api/v1/community/${id}`)).body);
      const results = Results.parse((await sf.api('GET', `/api/v1/results/${encodeURIComponent(entry.model.stem)}`, { key })).body);
      const rs = results.trade_log.filter((t) => t.period === 'test').map((t) => t.pnl / results.settings.capital);
      const mean = rs.reduce((s, r) => s + r, 0) / rs.length;
      const sd = Math.sqrt(rs.reduce((s, r) => s + (r - mean) ** 2, 0) / (rs.length - 1));
      const sharpe = rs.length < 2 || sd < 1e-12 ? 0 : mean / sd;
      const t = results.metrics.test;
      figures.set(id, {
        wr: t.wr,
        pf: t.pf,
        ret: t.ret,
        n_trades: rs.length,
        sharpe,
        composite: (sharpe * Math.sqrt(Math.min(rs.length, 100))) / (1 + 10 * Math.abs(t.mdd)),
        dsr: results.robustness!.sharpe.dsr, // frozen at share from the model's robustness report
        forks: 0, // every fork here is by a trial key: none counts
        qualified: rs.length >= 10 ? 1 : 0,
      });
    }
    const ratio = new Set(['wr', 'pf', 'sharpe', 'composite', 'dsr']);
    for (const metric of LEADERBOARD_METRICS.filter((m) => !m.startsWith('live_')) as LeaderboardMetric[]) {
      const res = await sf.api('GET', `/api/v1/leaderboard?metric=${metric}`);
      assert.equal(res.status, 200, res.text);
      const board = Leaderboard.parse(res.body);
      const want = [ids.a, ids.b, ids.c].sort((x, y) => {
        const fx = figures.get(x)!;
        const fy = figures.get(y)!;
        if (ratio.has(metric) && fx.qualified !== fy.qualified) return fy.qualified! - fx.qualified!;
        const d = fy[metric]! - fx[metric]!;
        return Math.abs(d) > 1e-9 ? d : x - y;
      });
      assert.deepEqual(
        board.entries.map((r) => r.community_id),
        want,
        metric,
      );
      for (const row of board.entries)
        assert.ok(Math.abs(row.value! - figures.get(row.community_id)![metric]!) < 1e-9, `${metric} #${row.community_id}`);
    }
    // sort alone, and metric over sort.
    const bySort = Leaderboard.parse((await sf.api('GET', '/api/v1/leaderboard?sort=wr')).body);
    assert.equal(bySort.ranked_by, 'wr');
    assert.equal(Leaderboard.parse((await sf.api('GET', '/api/v1/leaderboard?sort=wr&metric=forks')).body).ranked_by, 'forks');
    assert.equal(Leaderboard.parse((await sf.api('GET', '/api/v1/leaderboard')).body).ranked_by, 'pf');
    // Filters and limit.
    assert.equal(Leaderboard.parse((await sf.api('GET', '/api/v1/leaderboard?symbol=GBPUSD')).body).total, 0);
    const oneMin = Leaderboard.parse((await sf.api('GET', '/api/v1/leaderboard?timeframe=1min&symbol=EURUSD&limit=2')).body);
    assert.deepEqual([oneMin.total, oneMin.count], [3, 2]);
    assert.equal((await sf.api('GET', '/api/v1/leaderboard?limit=201')).status, 400);
    assert.equal((await sf.api('GET', '/api/v1/leaderboard?metric=luck')).status, 400);
  });

  it('serves community.json with an ETag: 304 while unchanged, a new ETag after a change, never code', async () => {
    const first = await sf.api('GET', '/api/v1/community.json');
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.match(first.headers.get('cache-control') ?? '', /max-age=\d+/);
    const doc = Catalogue.parse(first.body);
    assert.deepEqual(
      doc.entries.map((e) => e.community_id),
      [ids.a, ids.b, ids.c],
    );
    assert.deepEqual(
      doc.entries.map((e) => [e.parent_id, e.root_id, e.children]),
      [
        [null, ids.a, [ids.b]],
        [ids.a, ids.a, [ids.c]],
        [ids.b, ids.a, []],
      ],
    );
    for (const word of ['feature_engineering', 'strategy_config', 'take_profit', 'model_params'])
      assert.ok(!first.text.includes(word), word);

    const cached = await sf.api('GET', '/api/v1/community.json', { headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
    assert.equal(cached.headers.get('etag'), etag);

    // fetch asks for gzip: that representation has its own ETag; without gzip the same JSON, plain.
    assert.equal(first.headers.get('content-encoding'), 'gzip');
    const plain = await fetch(`${sf.url}/api/v1/community.json`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(plain.headers.get('vary'), 'Accept-Encoding');
    const plainEtag = plain.headers.get('etag')!;
    assert.notEqual(plainEtag, etag);
    assert.deepEqual(await plain.json(), first.body);
    const plainCached = await fetch(`${sf.url}/api/v1/community.json`, {
      headers: { 'accept-encoding': 'identity', 'if-none-match': plainEtag },
    });
    assert.equal(plainCached.status, 304);

    // dave forks C: the catalogue changes, the old ETag no longer matches.
    assert.equal((await sf.api('POST', `/api/v1/fork/${ids.c}`, { key: keys.dave })).status, 201);
    const changed = await sf.api('GET', '/api/v1/community.json', { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    const c = Catalogue.parse(changed.body).entries[2]!;
    assert.deepEqual([c.forks, c.trial_forks], [0, 1], 'dave’s trial key: shown apart');
  });

  it('keeps every entry, fork and link across a restart; sharing again still finds the entry', async () => {
    const before = await sf.api('GET', '/api/v1/community.json', { headers: { 'accept-encoding': 'identity' } });
    await sf.restart();
    const after = await sf.api('GET', '/api/v1/community.json', { headers: { 'accept-encoding': 'identity' } });
    assert.equal(after.headers.get('etag'), before.headers.get('etag'), 'the same content, the same ETag');
    assert.deepEqual(
      Lineage.parse((await sf.api('GET', `/api/v1/lineage/${ids.c}`)).body).ancestors.map((n) => n.community_id),
      [ids.b, ids.a],
    );
    const again = await sf.api('POST', '/api/v1/share', { key: keys.alice, body: { model_stem: rootStem, title: 'After restart' } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.community_id, ids.a);
    assert.equal((await sf.api('POST', `/api/v1/fork/${ids.a}`, { key: keys.bob })).status, 200, 'bob’s fork is still his');
  });
});
