/**
 * The tracker's divergence check (DIVERGENCE_RULE): the rule's counting, its words, and two shared
 * entries of one trained model followed on real HistData EURUSD bars with real sandboxed Python —
 * the honest code, which never diverges, and code that looks 3 bars ahead only when it is given
 * more than 1,000 rows (its backtest does; live, on a short warm window, it does not), which is
 * flagged, kept off the leaderboard and shown why in the catalogue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildTrackerHost,
  checkWindow,
  firstDifference,
  initialCheck,
  nextCheckState,
  type CheckState,
  type Tracker,
} from '../../../actors/tracker/index.ts';
import { PositionEngine, type ClosedTrade } from '../../../src/backtest/index.ts';
import { openBlobStore, openBucket, type BlobStore, type JsonKv } from '../../../src/bus/index.ts';
import {
  CatalogueBuilder,
  CommunityIndex,
  CommunityStore,
  communityEntry,
  DIVERGENCE_CLEAR_CHECKS,
  DIVERGENCE_FLAG_CHECKS,
  DIVERGENCE_WINDOW_CHECKS,
  entryView,
  LeaderboardView,
} from '../../../src/community/index.ts';
import { ReplayClock } from '../../../src/lib/clock.ts';
import { TIMEFRAME_MS } from '../../../src/lib/timeframes.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { StrategyJobError } from '../../../src/sandbox/sandbox-process.ts';
import { engineOptions, loadModel } from '../../../src/scoring/index.ts';
import { LiveTradesRepo } from '../../../src/store/index.ts';
import { trainPipeline, type TrainOutcome } from '../../../src/training/index.ts';
import { Catalogue, type CommunityEntryRecord } from '../../../schemas/community.ts';
import type { BarMessage } from '../../../schemas/market.ts';
import { Buckets, ObjectStores } from '../../../schemas/messages.ts';
import type { LiveTrade } from '../../../schemas/tracker.ts';
import { log, openRealMarket, trainJob, type RealMarket } from '../../helpers/real-market.ts';
import { strategyCode } from '../../helpers/strategies.ts';
import { until } from '../../helpers/nats.ts';

const QUARTER = TIMEFRAME_MS['15min'];
const HONEST = strategyCode();
/** The same features, but ret_4 is the return 3 bars ahead whenever the window is longer than 1,000 rows. */
const lookingAheadWhen = (condition: string) =>
  HONEST.replace(
    '    df = df.bfill().ffill()\n',
    `    if ${condition}:\n        v = close.values\n        ahead = np.append(v[3:], [v[-1]] * 3)\n        df["ret_4"] = ahead / v - 1\n    df = df.bfill().ffill()\n`,
  );
const LENGTH_GAMED = lookingAheadWhen('len(df) > 1000');

const trade = (side: 1 | -1, entryTs: number, exitTs: number, entryPrice = 1.1, exitPrice = 1.101): ClosedTrade => ({
  side,
  entryTs,
  exitTs,
  entryPrice,
  exitPrice,
  lots: 1,
  units: 100_000,
  reason: 'TP',
  pips: 10,
  grossPnl: 100,
  commission: 0,
  swap: 0,
  pnl: 100,
  barsHeld: 2,
  nights: 0,
  notional: 110_000,
  stopLoss: null,
  takeProfit: null,
});

describe('divergence: the rule', () => {
  const window = (k: number) => ({ fromTs: k * 8 * QUARTER, toTs: (k + 1) * 8 * QUARTER - QUARTER, timeframeMs: QUARTER });
  const diverged = { agrees: false as const, what: 'trade 1 differs' };
  const agreed = { agrees: true as const, traded: true };
  const quiet = { agrees: true as const, traded: false };

  it(`flags when ${DIVERGENCE_FLAG_CHECKS} of the last ${DIVERGENCE_WINDOW_CHECKS} checks that compared something diverge; quiet checks count for nothing`, () => {
    let s: CheckState = initialCheck();
    let k = 0;
    // One divergence in five, for longer than the window: never three among the last ten.
    for (let round = 0; round < 4; round++) {
      s = nextCheckState(s, diverged, window(k++));
      for (let n = 0; n < 4; n++) {
        s = nextCheckState(s, agreed, window(k++));
        s = nextCheckState(s, quiet, window(k++));
      }
    }
    assert.equal(s.flag, null, 'scattered single divergences flag nothing');
    assert.equal(s.recent.length, DIVERGENCE_WINDOW_CHECKS, 'quiet checks are not in the window');
    for (let n = 0; n < 6; n++) s = nextCheckState(s, agreed, window(k++));
    assert.equal(s.recent.filter((c) => c.divergent).length, 0, 'the old ones have left the window');
    const first = k;
    s = nextCheckState(s, { agrees: false, what: 'first' }, window(k++));
    s = nextCheckState(s, quiet, window(k++));
    s = nextCheckState(s, { agrees: false, what: 'second' }, window(k++));
    assert.equal(s.flag, null, 'two among the last ten');
    s = nextCheckState(s, agreed, window(k++));
    s = nextCheckState(s, { agrees: false, what: 'third' }, window(k++));
    assert.ok(s.recent.filter((c) => c.divergent).length >= DIVERGENCE_FLAG_CHECKS);
    assert.deepEqual(s.flag, {
      since: s.recent.find((c) => c.divergent)!.from,
      flagged_at: window(k - 1).toTs + QUARTER,
      checks: s.recent.filter((c) => c.divergent).length,
      what: 'third',
      agreeing: 0,
    });
    assert.equal(s.flag!.since, window(first).fromTs + QUARTER, 'since the first of the three');
    assert.equal(s.checks, k);
  });

  it(`clears after ${DIVERGENCE_CLEAR_CHECKS} agreeing checks in a row with something traded; a divergent one in between starts that count again`, () => {
    let s: CheckState = initialCheck();
    for (let k = 0; k < DIVERGENCE_FLAG_CHECKS; k++) s = nextCheckState(s, diverged, window(k));
    const flaggedAt = s.flag!.flagged_at;
    let k = 10;
    for (let n = 1; n < DIVERGENCE_CLEAR_CHECKS; n++) {
      s = nextCheckState(s, agreed, window(k++));
      s = nextCheckState(s, quiet, window(k++));
      assert.equal(s.flag?.agreeing, n, 'still flagged, counting');
    }
    s = nextCheckState(s, diverged, window(k++));
    assert.deepEqual([s.flag?.agreeing, s.flag?.flagged_at], [0, flaggedAt], 'flagged still, since the first time');
    for (let n = 0; n < DIVERGENCE_CLEAR_CHECKS; n++) s = nextCheckState(s, agreed, window(k++));
    assert.equal(s.flag, null, 'cleared');
  });

  it('names the first difference: a trade of another side or time, a missing trade, a position held on one side only', () => {
    const t0 = Date.UTC(2017, 1, 13, 10);
    const a = trade(1, t0, t0 + 2 * QUARTER);
    assert.equal(firstDifference([a], [{ ...a, exitPrice: a.exitPrice * (1 + 1e-12) }], [], []), null, 'prices within float tolerance');
    assert.match(
      firstDifference([a], [trade(-1, t0, t0 + 2 * QUARTER)], [], [])!,
      /live closed 1 trade, the backtest path 1; trade 1: live long 2017-02-13T10:00:00.000Z at 1.1 → .*, backtest short/,
    );
    assert.match(firstDifference([], [a], [], [])!, /trade 1: live none, backtest long/);
    assert.match(firstDifference([a], [{ ...a, exitPrice: 1.1011 }], [], [])!, /at 1.101 .*at 1.1011/);
    assert.match(
      firstDifference([a], [a], [{ side: 1, entryTs: t0, entryPrice: 1.1 }], [])!,
      /live holds long open since 2017-02-13T10:00:00.000Z at 1.1 and the backtest path nothing/,
    );
  });
});

describe('divergence: shared entries on live bars', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let outcome: TrainOutcome;
  let community: JsonKv<typeof Buckets.community.schema>, files: BlobStore;
  let records: JsonKv<typeof Buckets.trackRecords.schema>;
  let ts: Float64Array, from: number, to: number;
  const barAt = new Map<number, BarMessage>();

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    // The model is trained on the honest code; both entries freeze it, each with its own code.
    // Fitted from mid-January, so the series holds more bars before the fit span than the
    // post-cutoff span has: a replay late in it still finds the train job's full row count.
    const job = trainJob({ code: HONEST, timeframe: '15min', start_date: '2017-01-16', end_date: '2017-02-10' });
    outcome = await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined);
    community = await openBucket(market.bus, Buckets.community);
    records = await openBucket(market.bus, Buckets.trackRecords);
    files = await openBlobStore(market.bus, ObjectStores.community);
    const series = await market.cache.get('EURUSD', '15min');
    ts = series.columns().ts;
    const post = outcome.results.spans.post_cutoff!;
    from = series.lowerBound(Date.parse(post.from));
    to = series.lowerBound(Date.parse(post.to) + 1);
    for (const bar of market.stored['15min']) barAt.set(bar.ts, bar);
  });
  after(async () => {
    runtime?.stop();
    await market?.close();
  });

  async function share(id: number, author: number, code: string, createdAt: number): Promise<CommunityEntryRecord> {
    const entry: CommunityEntryRecord = {
      community_id: id,
      user_id: author,
      author: `author${author}`,
      title: `Entry ${id}`,
      description: 'shared for the divergence test',
      parent_id: null,
      created_at: createdAt,
      model: { ...outcome.record, user_id: author, username: `author${author}` },
      post_cutoff_stats: outcome.results.pred_stats,
      post_cutoff_bars: outcome.results.spans.post_cutoff!.bars,
    };
    await files.put(`${id}/strategy.py`, new TextEncoder().encode(code));
    await files.put(`${id}/model.onnx`, outcome.onnx);
    await community.put(String(id), entry);
    return entry;
  }

  it('counts a replay whose features fail as divergent, naming only the kind of failure (the flag is public)', async () => {
    const scorer = await loadModel(outcome.onnx, { owner: 7 });
    try {
      const engine = new PositionEngine(engineOptions(outcome.record, null)).snapshot();
      const window = { fromTs: ts[from]!, engine, toTs: ts[from + 8]!, endEngine: engine, trades: [] };
      const failing = async () => {
        throw new StrategyJobError('timeout', 'strategy timeout: the secret_feature loop of author 7 ran past 60 s');
      };
      const { verdict, error } = await checkWindow({ spec: outcome.record, scorer, features: failing, bars: market.cache }, window);
      assert.ok(error instanceof StrategyJobError);
      assert.deepEqual(verdict, { agrees: false, what: 'the backtest path could not compute the features of these bars (timeout)' });
    } finally {
      await scorer.close();
    }
  });

  it('flags the entry whose backtest path trades otherwise than its live run, never the honest one; the flag takes it off the leaderboard and says why', async () => {
    assert.notEqual(LENGTH_GAMED, HONEST, 'the gamed code differs');
    const repo = new LiveTradesRepo(market.clickhouse);
    const clock = new ReplayClock(ts[from]! + QUARTER + 1000);
    const listeners = new Set<(bar: BarMessage) => void>();
    const bars = {
      get: market.cache.get.bind(market.cache),
      onBar: (l: (bar: BarMessage) => void) => (listeners.add(l), () => listeners.delete(l)),
    };
    await share(1, 7, HONEST, ts[from]! + QUARTER + 500);
    await share(2, 8, LENGTH_GAMED, ts[from]! + QUARTER + 500);
    // Looking ahead only at exactly the row count its train job had (the fit span and the post-cutoff bars).
    const series = await market.cache.get('EURUSD', '15min');
    const fit = outcome.record.fit_span!;
    const trainRows = series.lowerBound(fit.to + 1) - series.lowerBound(fit.from) + outcome.results.spans.post_cutoff!.bars;
    await share(3, 9, lookingAheadWhen(`len(df) == ${trainRows}`), ts[from]! + QUARTER + 500);
    const tracker: Tracker = await buildTrackerHost({
      bus: market.bus,
      runtime,
      log,
      replicas: 1,
      maxWarmSessions: 4,
      bars,
      clock,
      renewMs: 200,
      divergenceCheckBars: 8,
      trades: { insert: (rows: readonly LiveTrade[]) => repo.insert(rows), pnls: (ids: readonly number[]) => repo.pnls(ids) },
    });
    try {
      await tracker.host.start();
      const tracked = () => tracker.shards().flatMap((s) => s.running());
      const entry = (id: number) => tracked().find((t) => t.communityId === id)!;
      await until('the entries tracked', () => tracked().length === 3);
      const settled = async () => {
        await Promise.all(tracker.shards().map((s) => s.idle()));
        await Promise.all(tracked().map((t) => t.settled()));
      };
      await settled();

      let honestDivergent = 0;
      const firstFlag = new Map<number, number>();
      let i = from + 1;
      // The whole post-cutoff week: the honest entry is checked all along.
      for (; i < to; i++) {
        clock.advanceTo(ts[i]! + QUARTER);
        for (const l of listeners) l(barAt.get(ts[i]!)!);
        await settled();
        honestDivergent += entry(1)
          .status()
          .check.recent.filter((c) => c.divergent).length;
        for (const id of [2, 3]) if (entry(id).status().check.flag && !firstFlag.has(id)) firstFlag.set(id, i - from);
      }
      if (process.env.DEBUG_TRACKER)
        console.error(
          'flagged after',
          [...firstFlag],
          'bars of',
          to - from,
          JSON.stringify([1, 2, 3].map((id) => entry(id).status().check)),
        );
      const honest = entry(1).status().check;
      const gamed = entry(2).status().check;
      assert.ok(gamed.flag, `the gamed entry is flagged (after ${i - from} bars, ${gamed.checks} checks)`);
      assert.ok(entry(3).status().check.flag, 'so is the one gamed at exactly its train job’s row count');
      assert.ok(honest.checks >= DIVERGENCE_FLAG_CHECKS, `the honest entry was checked as often (${honest.checks})`);
      assert.equal(honestDivergent, 0, 'the honest entry never diverged once');
      assert.equal(honest.flag, null);
      assert.match(gamed.flag!.what, /trade|holds/);
      assert.ok(gamed.flag!.checks >= DIVERGENCE_FLAG_CHECKS);
      assert.ok(gamed.flag!.since < gamed.flag!.flagged_at && gamed.flag!.flagged_at <= ts[i - 1]! + QUARTER);

      // The public record carries the flag; the honest one has none.
      const gamedRecord = (await records.get('2'))!.value;
      assert.deepEqual(gamedRecord.divergence, gamed.flag);
      assert.equal((await records.get('1'))!.value.divergence, undefined);
      // Live, both computed the same honest features on short windows: the same trades.
      assert.deepEqual(
        (await repo.ofEntry(2)).map((t) => [t.side, t.entryTs, t.exitTs]),
        (await repo.ofEntry(1)).map((t) => [t.side, t.entryTs, t.exitTs]),
      );

      // What the edge serves, from the KV as any process sees it.
      const store = await CommunityStore.open(market.bus);
      const index = new CommunityIndex();
      const following = await store.follow(index);
      try {
        await until(
          'the live records indexed',
          () => index.liveOf(1) !== undefined && index.liveOf(2)?.divergence !== undefined && index.liveOf(3)?.divergence !== undefined,
        );
        const board = new LeaderboardView(index).query({ metric: 'ret', limit: 50 });
        assert.deepEqual(
          board.entries.map((r) => r.community_id),
          [1],
          'the flagged entries are off the ranking',
        );
        assert.equal(board.hidden, 2);
        const view = communityEntry(index, 2);
        assert.equal(view.divergence?.what, gamed.flag!.what);
        assert.equal(view.divergence?.flagged_at, new Date(gamed.flag!.flagged_at).toISOString());
        assert.equal(entryView(index, index.get(1)!).divergence, null);
        const catalogue = Catalogue.parse(JSON.parse(new CatalogueBuilder(index).current().body().toString('utf8')));
        assert.deepEqual(
          catalogue.entries.map((e) => [e.community_id, e.divergence?.what ?? null]).slice(0, 2),
          [
            [1, null],
            [2, gamed.flag!.what],
          ],
          'still in the catalogue, with why',
        );
        assert.equal(catalogue.entries.length, 3);
      } finally {
        following.stop();
      }

      // A restart keeps the flag and the counts (saved with the resume point).
      await tracker.stop();
      const again = await buildTrackerHost({
        bus: market.bus,
        runtime,
        log,
        replicas: 1,
        maxWarmSessions: 4,
        bars,
        clock,
        renewMs: 200,
        divergenceCheckBars: 8,
        trades: { insert: (rows: readonly LiveTrade[]) => repo.insert(rows), pnls: (ids: readonly number[]) => repo.pnls(ids) },
      });
      try {
        await again.host.start();
        await until('resumed', () => again.shards().flatMap((s) => s.running()).length === 3);
        const resumed = again
          .shards()
          .flatMap((s) => s.running())
          .find((t) => t.communityId === 2)!;
        assert.deepEqual(resumed.status().check, gamed);
      } finally {
        await again.stop();
      }
    } finally {
      await tracker.stop();
    }
  });
});
