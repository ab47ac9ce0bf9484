/**
 * GET /leaderboard's ordering over crafted entries on a real nats-server: for every sort and
 * metric, with filters and ties, the order equals the one computed here by hand from the
 * entries' trades (the documented formulas, written out again).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CommunityIndex, CommunityStore, LeaderboardView } from '../../src/community/index.ts';
import { LEADERBOARD_METRICS, Leaderboard, LeaderboardQuery, type LeaderboardMetric } from '../../schemas/community.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';
import { summariseRobustness } from '../../schemas/robustness-summary.ts';
import type { Verdict } from '../../schemas/robustness.ts';
import { robustnessReport } from '../helpers/robustness-report.ts';
import { entryRecord, liveRecord, type CraftedEntry } from './fixtures.ts';

/** A robustness summary frozen at share with this verdict and deflated Sharpe. */
const verdict = (v: Verdict, dsr: number) => summariseRobustness(robustnessReport(v, { dsr }));

const steady = (n: number, win: number, loss: number, every: number) =>
  Array.from({ length: n }, (_, i) => (i % every === every - 1 ? loss : win));

/** The crafted community: ties, lucky single trades, no-loss entries on both sides of the minimum, filters. */
const ENTRIES: CraftedEntry[] = [
  { id: 1, user: 101, returns: steady(12, 0.01, -0.015, 3), robustness: verdict('inconclusive', 0.7) },
  // A tie with 1 on every backtest metric, and on dsr.
  { id: 2, user: 102, returns: steady(12, 0.01, -0.015, 3), robustness: verdict('inconclusive', 0.7) },
  { id: 3, user: 103, returns: [0.5], robustness: verdict('inconclusive', 0.99) }, // one lucky trade: the best dsr, unqualified
  { id: 4, user: 104, returns: steady(20, 0.004, -0.002, 5), robustness: verdict('robust', 0.97) },
  { id: 5, user: 105, returns: Array(9).fill(0.003) }, // no loss, below the minimum
  { id: 6, user: 106, returns: Array(10).fill(0.002), robustness: verdict('overfit', 0.2) }, // no loss, at the minimum
  { id: 7, user: 107, returns: steady(15, 0.006, -0.004, 4), symbol: 'GBPUSD', timeframe: '1h' },
  { id: 8, user: 108, returns: steady(11, 0.002, -0.01, 2), symbol: 'GBPUSD', timeframe: '15min', robustness: verdict('overfit', 0.05) },
  {
    id: 9,
    user: 109,
    returns: steady(30, 0.003, -0.003, 2).map((r, i) => r + i * 1e-5),
    timeframe: '1h',
    robustness: verdict('inconclusive', 0.5),
  },
  { id: 10, user: 110, returns: [0.02, -0.01] },
  { id: 11, user: 111, returns: steady(120, 0.002, -0.001, 3), robustness: null }, // a model trained without a report
];

const LIVE: Record<number, number[] | 'untracked'> = {
  1: 'untracked', // a record with no bar scored yet
  4: [0.01, 0.02, -0.005, 0.01, 0.004, -0.002],
  7: [0.03, 0.01, -0.01], // under 5 live trades
  9: [], // tracked, no trade yet
  11: [0.001, 0.002, 0.001, -0.003, 0.002],
};

/** forker user ids per entry (101 is the author of 1: not counted). */
const FORKS: Record<number, number[]> = { 1: [500, 501, 101], 4: [500], 2: [102], 9: [502, 503, 504] };

// ---- the expected figures, by hand -----------------------------------------------------------

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
function handSharpe(rs: number[]): number {
  if (rs.length < 2) return 0;
  const m = mean(rs);
  const sd = Math.sqrt(rs.reduce((s, r) => s + (r - m) ** 2, 0) / (rs.length - 1));
  return sd < 1e-12 ? 0 : m / sd;
}
function handMdd(rs: number[]): number {
  let equity = 1;
  let peak = 1;
  let worst = 0;
  for (const r of rs) {
    equity += r;
    peak = Math.max(peak, equity);
    worst = Math.min(worst, equity - peak);
  }
  return worst;
}
const handPf = (rs: number[]) => {
  const won = rs.filter((r) => r > 0).reduce((s, r) => s + r, 0);
  const lost = -rs.filter((r) => r < 0).reduce((s, r) => s + r, 0);
  return lost > 0 ? won / lost : won > 0 ? 999 : 0;
};
const handWr = (rs: number[]) => (rs.length ? rs.filter((r) => r > 0).length / rs.length : 0);
const handRet = (rs: number[]) => rs.reduce((s, r) => s + r, 0);

function expected(metric: LeaderboardMetric, e: CraftedEntry): { value: number | null; qualified: boolean } {
  const rs = [...e.returns];
  const enough = rs.length >= 10;
  const live = LIVE[e.id];
  const tracked = Array.isArray(live) ? live : null;
  switch (metric) {
    case 'wr':
      return { value: handWr(rs), qualified: enough };
    case 'pf':
      return { value: handPf(rs), qualified: enough };
    case 'ret':
      return { value: handRet(rs), qualified: true };
    case 'n_trades':
      return { value: rs.length, qualified: true };
    case 'sharpe':
      return { value: handSharpe(rs), qualified: enough };
    case 'composite':
      return { value: (handSharpe(rs) * Math.sqrt(Math.min(rs.length, 100))) / (1 + 10 * Math.abs(handMdd(rs))), qualified: enough };
    case 'dsr':
      return e.robustness ? { value: e.robustness.dsr, qualified: enough } : { value: null, qualified: false };
    case 'forks':
      return { value: (FORKS[e.id] ?? []).filter((u) => u !== e.user).length, qualified: true };
    case 'live_ret':
      return tracked ? { value: handRet(tracked), qualified: true } : { value: null, qualified: false };
    case 'live_wr':
      return tracked ? { value: handWr(tracked), qualified: tracked.length >= 5 } : { value: null, qualified: false };
    case 'live_pf':
      return tracked ? { value: handPf(tracked), qualified: tracked.length >= 5 } : { value: null, qualified: false };
  }
}

/** Float sums in another order may differ in the last bit: values this close count as a tie. */
const EPS = 1e-9;
function expectedOrder(metric: LeaderboardMetric, filter: (e: CraftedEntry) => boolean = () => true): number[] {
  return ENTRIES.filter(filter)
    .map((e) => ({ id: e.id, ...expected(metric, e) }))
    .sort((a, b) => {
      if (a.qualified !== b.qualified) return a.qualified ? -1 : 1;
      const av = a.value ?? -Infinity;
      const bv = b.value ?? -Infinity;
      if (Math.abs(av - bv) > EPS && av !== bv) return bv - av;
      return a.id - b.id;
    })
    .map((r) => r.id);
}

describe('leaderboard order', () => {
  let nats: TestNats;
  let board: LeaderboardView;
  let index: CommunityIndex;
  let live: CommunityStore['kv']['live'];
  let following: { stop(): void };
  const query = (q: Record<string, string>) => Leaderboard.parse(board.query(LeaderboardQuery.parse(q)));

  before(async () => {
    nats = await startNats('leaderboard');
    const store = await CommunityStore.open(nats.bus);
    for (const e of ENTRIES) await store.createEntry(entryRecord(e));
    for (const [id, live] of Object.entries(LIVE)) await store.kv.live.put(id, live === 'untracked' ? liveRecord([], 0) : liveRecord(live));
    for (const [id, users] of Object.entries(FORKS)) {
      for (const user of users) await store.createFork({ user_id: user, community_id: Number(id), model_name: 'f', created_at: 1 }, 'code');
    }
    // A fork by a fresh trial account: shown apart, never ranked (the forks metric's figures above leave it out).
    await store.createFork({ user_id: 600, community_id: 4, model_name: 'f', created_at: 1, counts: false }, 'code');
    index = new CommunityIndex();
    following = await store.follow(index);
    live = store.kv.live;
    board = new LeaderboardView(index);
    await until(
      'every entry, live record and fork indexed',
      () => index.size === ENTRIES.length && index.forksOf(9) === 3 && index.liveOf(11) !== undefined && index.trialForksOf(4) === 1,
    );
  });
  after(async () => {
    following.stop();
    await nats.close();
  });

  it('leaves an entry flagged for a live divergence off every ranking, counted in hidden, until the flag clears', async () => {
    const record = liveRecord(LIVE[4] as number[]);
    const divergence = { since: record.since, flagged_at: record.last_bar_ts, checks: 3, what: 'trade 1 differs', agreeing: 0 };
    await live.put('4', { ...record, divergence });
    await until('the flag indexed', () => index.liveOf(4)?.divergence !== undefined);
    for (const metric of LEADERBOARD_METRICS) {
      const answer = query({ metric, limit: '200' });
      assert.deepEqual(
        answer.entries.map((r) => r.community_id),
        expectedOrder(metric).filter((id) => id !== 4),
        metric,
      );
      assert.deepEqual([answer.total, answer.hidden], [ENTRIES.length - 1, 1], metric);
    }
    assert.deepEqual(query({ metric: 'ret', timeframe: '1h' }).hidden, 0, 'hidden counts only entries the filters match');
    await live.put('4', record);
    await until('the flag cleared', () => index.liveOf(4) !== undefined && index.liveOf(4)!.divergence === undefined);
    assert.deepEqual(
      query({ metric: 'pf', limit: '200' }).entries.map((r) => r.community_id),
      expectedOrder('pf'),
    );
    assert.equal(query({ metric: 'pf' }).hidden, 0);
  });

  it('has the ties and edges it is meant to test', () => {
    assert.deepEqual(expected('pf', ENTRIES[0]!), expected('pf', ENTRIES[1]!), 'entries 1 and 2 tie');
    assert.equal(expected('pf', ENTRIES[4]!).value, 999);
    assert.equal(expected('pf', ENTRIES[4]!).qualified, false, '9 trades, no loss: unqualified');
    assert.equal(expected('pf', ENTRIES[5]!).qualified, true, '10 trades, no loss: qualified');
    assert.equal(expectedOrder('ret')[0], 3, 'one lucky trade leads on total return');
    assert.deepEqual(expectedOrder('dsr').slice(0, 3), [4, 1, 2], 'dsr: the robust entry first, then the tie by community_id');
  });

  it('metric=dsr ranks by the deflated Sharpe frozen at share: a lucky single trade after every qualified entry, entries without one last', () => {
    const ids = query({ metric: 'dsr', limit: '200' }).entries.map((r) => r.community_id);
    assert.deepEqual(ids, [4, 1, 2, 9, 6, 8, 3, 5, 7, 10, 11]);
  });

  it('each row shows its verdict and deflated Sharpe, null for entries shared before the report existed', () => {
    const rows = new Map(query({ metric: 'pf', limit: '200' }).entries.map((r) => [r.community_id, r]));
    assert.deepEqual([rows.get(4)!.verdict, rows.get(4)!.dsr], ['robust', 0.97]);
    assert.deepEqual([rows.get(6)!.verdict, rows.get(6)!.dsr], ['overfit', 0.2]);
    assert.deepEqual([rows.get(5)!.verdict, rows.get(5)!.dsr], [null, null], 'shared before the report existed');
    assert.deepEqual([rows.get(11)!.verdict, rows.get(11)!.dsr], [null, null], 'a model trained without a report');
  });

  for (const metric of LEADERBOARD_METRICS) {
    it(`metric=${metric}: every entry in the hand-computed order, with its value and qualification`, () => {
      const answer = query({ metric, limit: '200' });
      assert.equal(answer.ranked_by, metric);
      assert.equal(answer.total, ENTRIES.length);
      assert.deepEqual(
        answer.entries.map((r) => r.community_id),
        expectedOrder(metric),
      );
      answer.entries.forEach((row, i) => {
        const want = expected(
          metric,
          ENTRIES.find((e) => e.id === row.community_id)!,
        );
        assert.equal(row.rank, i + 1);
        assert.equal(row.qualified, want.qualified, `${metric} #${row.community_id} qualified`);
        if (want.value === null) assert.equal(row.value, null);
        else assert.ok(Math.abs(row.value! - want.value) < 1e-9, `${metric} #${row.community_id}: ${row.value} vs ${want.value}`);
      });
    });
  }

  for (const sort of ['wr', 'pf', 'ret'] as const) {
    it(`sort=${sort} ranks by it, and metric wins when both are given`, () => {
      assert.deepEqual(
        query({ sort }).entries.map((r) => r.community_id),
        expectedOrder(sort),
      );
      const both = query({ sort, metric: 'n_trades' });
      assert.equal(both.ranked_by, 'n_trades');
      assert.deepEqual(
        both.entries.map((r) => r.community_id),
        expectedOrder('n_trades'),
      );
    });
  }

  it('ranks by pf with neither sort nor metric', () => {
    const answer = query({});
    assert.equal(answer.ranked_by, 'pf');
    assert.deepEqual(
      answer.entries.map((r) => r.community_id),
      expectedOrder('pf'),
    );
  });

  it('one lucky trade cannot lead a ratio metric: unqualified entries follow every qualified one', () => {
    for (const metric of ['wr', 'pf', 'sharpe', 'composite'] as const) {
      const ids = query({ metric }).entries.map((r) => r.community_id);
      const firstUnqualified = ids.findIndex((id) => ENTRIES.find((e) => e.id === id)!.returns.length < 10);
      assert.ok(
        ids.slice(firstUnqualified).every((id) => ENTRIES.find((e) => e.id === id)!.returns.length < 10),
        `${metric}: ${ids}`,
      );
    }
  });

  it('filters by symbol, timeframe and both; total counts the matches', () => {
    const gbp = query({ metric: 'ret', symbol: 'GBPUSD' });
    assert.deepEqual(
      gbp.entries.map((r) => r.community_id),
      expectedOrder('ret', (e) => e.symbol === 'GBPUSD'),
    );
    assert.equal(gbp.total, 2);
    assert.equal(gbp.symbol, 'GBPUSD');
    const hourly = query({ metric: 'composite', timeframe: '1h' });
    assert.deepEqual(
      hourly.entries.map((r) => r.community_id),
      expectedOrder('composite', (e) => e.timeframe === '1h'),
    );
    const both = query({ metric: 'wr', symbol: 'EURUSD', timeframe: '15min' });
    assert.deepEqual(
      both.entries.map((r) => r.community_id),
      expectedOrder('wr', (e) => (e.symbol ?? 'EURUSD') === 'EURUSD' && (e.timeframe ?? '15min') === '15min'),
    );
    const none = query({ symbol: 'USDJPY' });
    assert.deepEqual([none.total, none.count, none.entries], [0, 0, []]);
  });

  it('limit cuts the answer, not the total', () => {
    const top = query({ metric: 'sharpe', limit: '3' });
    assert.equal(top.count, 3);
    assert.equal(top.total, ENTRIES.length);
    assert.deepEqual(
      top.entries.map((r) => r.community_id),
      expectedOrder('sharpe').slice(0, 3),
    );
    assert.equal(LeaderboardQuery.parse({}).limit, 50);
    assert.equal(LeaderboardQuery.safeParse({ limit: '201' }).success, false);
    assert.equal(LeaderboardQuery.safeParse({ limit: '0' }).success, false);
    assert.equal(LeaderboardQuery.safeParse({ metric: 'luck' }).success, false);
  });

  it('shows both the test backtest and the live record on each row', () => {
    const rows = query({ metric: 'live_ret', limit: '200' }).entries;
    const row4 = rows.find((r) => r.community_id === 4)!;
    assert.equal(row4.test.n_trades, 20);
    assert.equal(row4.live?.n_trades, 6);
    assert.equal(row4.live?.bars, 96);
    assert.ok(Math.abs(row4.live!.days_tracked - 1) < 1e-9, '96 bars of 15 minutes');
    assert.equal(rows.find((r) => r.community_id === 1)!.live, null, 'no bar scored yet');
    assert.equal(rows.find((r) => r.community_id === 9)!.live?.n_trades, 0);
  });

  it('follows changes: a new fork moves the forks order', async () => {
    const before = query({ metric: 'forks' }).entries.map((r) => r.community_id);
    assert.equal(before[0], 9);
    const store = await CommunityStore.open(nats.bus);
    for (const user of [600, 601, 602]) await store.createFork({ user_id: user, community_id: 1, model_name: 'f', created_at: 1 }, 'code');
    await until('entry 1 leads by forks', () => query({ metric: 'forks' }).entries[0]!.community_id === 1);
    assert.equal(query({ metric: 'forks' }).entries[0]!.value, 5);
  });
});
