/**
 * The verified live track record: shared entries followed on live bars by the tracker host, on a
 * replay clock over real HistData EURUSD bars in chdb, a real nats-server and real sandboxed
 * Python. The entry's stored live trades equal the train pipeline's post-cutoff backtest (and, for
 * an entry shared later, a backtest run of the engine over the same bars); a restart, a crash
 * between storing trades and saving the state, and a second host lose or double nothing; the
 * LiveRecord's stats are TradeStats of the stored trades; identical code shares one session.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { buildTrackerHost, type Tracker, type TrackerHostDeps } from '../../../actors/tracker/index.ts';
import { runBacktest, tradeStats, type ClosedTrade } from '../../../src/backtest/index.ts';
import { openBlobStore, openBucket, type BlobStore, type JsonKv } from '../../../src/bus/index.ts';
import { ReplayClock } from '../../../src/lib/clock.ts';
import { TIMEFRAME_MS } from '../../../src/lib/timeframes.ts';
import { engineOptions, intrabarResolver, loadModel, scoreWindow, sliceBars } from '../../../src/scoring/index.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { LiveTradesRepo, selectRows } from '../../../src/store/index.ts';
import { trainPipeline, type TrainOutcome } from '../../../src/training/index.ts';
import type { CommunityEntryRecord } from '../../../schemas/community.ts';
import type { BarMessage } from '../../../schemas/market.ts';
import { Buckets, ObjectStores, TRACKER_SHARDS } from '../../../schemas/messages.ts';
import type { LiveTrade } from '../../../schemas/tracker.ts';
import { until } from '../../helpers/nats.ts';
import { log, openRealMarket, trainJob, type RealMarket } from '../../helpers/real-market.ts';
import { strategyCode } from '../../helpers/strategies.ts';

const QUARTER = TIMEFRAME_MS['15min'];
const CODE = strategyCode();
/** Another program (a different text, so another session) computing the same features. */
const OTHER_CODE = strategyCode({ prelude: 'unused = 0' });

/** A trade as both sides can show it: side, entry and exit bar, prices, reason, net P&L. */
const shape = (t: Pick<ClosedTrade, 'side' | 'entryTs' | 'exitTs' | 'entryPrice' | 'exitPrice' | 'reason' | 'pnl'>) => [
  t.side,
  t.entryTs,
  t.exitTs,
  t.entryPrice,
  t.exitPrice,
  t.reason,
  t.pnl,
];

describe('the live tracker of shared entries', () => {
  let market: RealMarket;
  let runtime: StrategyRuntime;
  let outcome: TrainOutcome;
  // Where entries are written (KV, frozen files) and their records, states and trades are read.
  let community: JsonKv<typeof Buckets.community.schema>, files: BlobStore;
  let records: JsonKv<typeof Buckets.trackRecords.schema>, states: JsonKv<typeof Buckets.trackerState.schema>, repo: LiveTradesRepo;
  /** The 15-min bars' open times, and the post-cutoff span [from, to) of the trained model. */
  let ts: Float64Array, from: number, to: number;
  const barAt = new Map<number, BarMessage>();

  before(async () => {
    market = await openRealMarket(50_000);
    runtime = await StrategyRuntime.start({ log, size: 2 });
    // Trained up to 2017-02-10; the week after is the post-cutoff span, scored by the backtest.
    const job = trainJob({ code: CODE, timeframe: '15min', start_date: '2017-01-02', end_date: '2017-02-10' });
    outcome = await trainPipeline({ runtime, bars: market.cache })(job, async () => undefined);
    community = await openBucket(market.bus, Buckets.community);
    records = await openBucket(market.bus, Buckets.trackRecords);
    states = await openBucket(market.bus, Buckets.trackerState);
    files = await openBlobStore(market.bus, ObjectStores.community);
    repo = new LiveTradesRepo(market.clickhouse);
    ts = (await market.cache.get('EURUSD', '15min')).columns().ts;
    const post = outcome.results.spans.post_cutoff!;
    assert.ok(post, 'a post-cutoff span');
    const series = await market.cache.get('EURUSD', '15min');
    from = series.lowerBound(Date.parse(post.from));
    to = series.lowerBound(Date.parse(post.to) + 1);
    for (const bar of market.stored['15min']) barAt.set(bar.ts, bar);
  });
  /** Trackers a test started: whatever it left running (a failed assertion) is stopped after it. */
  const started = new Set<Tracker>();
  afterEach(async () => {
    for (const tracker of started) await tracker.stop();
    started.clear();
  });
  after(async () => {
    runtime?.stop();
    await market?.close();
  });

  /** Shares the trained model as entry `id` of `author`, with its code frozen, published at `createdAt`. */
  async function share(id: number, author: number, code: string, createdAt: number): Promise<CommunityEntryRecord> {
    const entry: CommunityEntryRecord = {
      community_id: id,
      user_id: author,
      author: `author${author}`,
      title: `Entry ${id}`,
      description: 'shared for the tracker test',
      parent_id: null,
      created_at: createdAt,
      model: { ...outcome.record, user_id: author, username: `author${author}` },
      post_cutoff_stats: outcome.results.pred_stats,
    };
    await files.put(`${id}/strategy.py`, new TextEncoder().encode(code));
    await files.put(`${id}/model.onnx`, outcome.onnx);
    await community.put(String(id), entry);
    return entry;
  }

  /** The engine run independently over bars [first, end) of the series: the backtest's trades, those closed before the end. */
  async function engineTrades(code: string, first: number, end: number): Promise<ClosedTrade[]> {
    const { record, onnx } = outcome;
    const cols = (await market.cache.get('EURUSD', '15min')).columns();
    const lead = Math.min(first, record.warmup);
    const window = sliceBars(cols, first - lead, end);
    const scorer = await loadModel(onnx);
    const { signals, mask } = await scoreWindow((bars) => runtime.features(code, bars), scorer, record, window, lead);
    await scorer.close();
    const options = engineOptions(record, await intrabarResolver(market.cache, 'EURUSD', '15min'));
    return runBacktest(options, window, signals, { from: lead, to: window.ts.length }, mask).trades.filter((t) => t.reason !== 'end');
  }

  async function startTracker(
    deps: Pick<TrackerHostDeps, 'bars' | 'trades' | 'clock' | 'renewMs'> & Partial<TrackerHostDeps>,
  ): Promise<Tracker> {
    const tracker = await buildTrackerHost({ bus: market.bus, runtime, log, replicas: 1, maxWarmSessions: 4, ...deps });
    started.add(tracker);
    await tracker.host.start();
    return tracker;
  }

  const tracked = (tracker: Tracker) => tracker.shards().flatMap((s) => s.running());
  const idle = (tracker: Tracker) => Promise.all(tracker.shards().map((s) => s.idle()));

  /** A bar source the test drives: the real bar cache, and each bar's close announced when told. */
  function barFeed() {
    const listeners = new Set<(bar: BarMessage) => void>();
    return {
      bars: {
        get: market.cache.get.bind(market.cache),
        onBar: (l: (bar: BarMessage) => void) => (listeners.add(l), () => listeners.delete(l)),
      },
      close: (i: number) => listeners.forEach((l) => l(barAt.get(ts[i]!)!)),
    };
  }

  async function storedCount(id: number): Promise<number> {
    const [row] = await selectRows<{ n: number }>(
      market.clickhouse,
      'SELECT count() AS n FROM community_live_trades FINAL WHERE community_id = {id:UInt64}',
      { id },
    );
    return row!.n;
  }

  it('tracks entries from publication with the backtest’s trades, across a restart and a crash after storing trades', async () => {
    const clock = new ReplayClock(ts[from]! + QUARTER + 1000);
    const feed = barFeed();
    let crashAfterInsert = false;
    let crashes = 0;
    // The real table; once armed, the process "dies" right after the trades are stored (before the state is saved).
    const trades: TrackerHostDeps['trades'] = {
      insert: async (rows) => {
        await repo.insert(rows);
        if (crashAfterInsert && rows.length) {
          crashAfterInsert = false;
          crashes++;
          throw new Error('the tracker died after storing trades (test)');
        }
      },
      pnls: (ids) => repo.pnls(ids),
    };
    const start = () => startTracker({ bars: feed.bars, trades, renewMs: 200, clock });

    // Published just after bar `from` closed: author 7's entry and author 8's fork of it (the same code).
    await share(1, 7, CODE, ts[from]! + QUARTER + 500);
    await share(2, 8, CODE, ts[from]! + QUARTER + 800);
    let tracker = await start();
    await until('both entries tracked', () => tracked(tracker).length === 2);
    await idle(tracker);
    assert.equal(tracker.features.warm, 1, 'identical code shares one warm session');
    assert.equal(runtime.openSessions, 1, 'one sandboxed feature session in the runtime');

    const expected = outcome.results.pred_trade_log.filter((t) => t.exit_reason !== 'end');
    assert.ok(expected.length >= 3, `enough trades to compare (${expected.length})`);
    const half = from + Math.floor((to - from) / 2);
    const crashBar = series(expected[1]!.exit_time);
    assert.ok(crashBar > from + 11 && crashBar < to - 2 && crashBar !== half, 'the crash falls on a bar of its own');
    const later = from + 10;
    for (let i = from + 1; i < to; i++) {
      clock.advanceTo(ts[i]! + QUARTER);
      if (i === half) {
        // A restart in the middle: the next host resumes every entry from its saved state.
        await tracker.stop();
        tracker = await start();
        await until('the entries resumed', () => tracked(tracker).length === 3);
      }
      if (i === crashBar) crashAfterInsert = true;
      feed.close(i);
      await idle(tracker);
      if (process.env.DEBUG_TRACKER)
        console.error(
          'bar',
          i - from,
          'of',
          to - from,
          tracked(tracker).map((t) => t.status()),
        );
      if (i === later) {
        // Entry 3 (other code, author 9) is shared while the tracker runs, a second after bar `later` closed.
        clock.advanceTo(ts[later]! + QUARTER + 1000);
        await share(3, 9, OTHER_CODE, clock.now());
        await until('the new entry tracked', () => tracked(tracker).some((t) => t.communityId === 3));
        await idle(tracker);
        assert.equal(tracker.features.warm, 2, 'the other code has a session of its own');
        assert.equal(runtime.openSessions, 2);
      }
    }
    assert.equal(crashes, 1, 'the crash happened');
    await until(
      'every entry at the last bar',
      () => tracked(tracker).length === 3 && tracked(tracker).every((t) => t.status().last_bar_ts === ts[to - 1]),
    );
    await tracker.stop();

    const byPipeline = expected.map((t) => [
      t.side === 'long' ? 1 : -1,
      Date.parse(t.entry_time),
      Date.parse(t.exit_time),
      t.entry_price,
      t.exit_price,
      t.exit_reason,
      t.pnl,
    ]);
    const byEngine = (await engineTrades(OTHER_CODE, later, to)).map(shape);
    assert.ok(byEngine.length >= 2, `entry 3 traded (${byEngine.length})`);
    for (const [id, want, first] of [
      [1, byPipeline, from],
      [2, byPipeline, from],
      [3, byEngine, later],
    ] as const) {
      const stored = await repo.ofEntry(id);
      assert.deepEqual(stored.map(shape), want, `entry ${id}: the live trades are the backtest's`);
      assert.deepEqual(
        stored.map((t) => t.seq),
        stored.map((_, k) => k),
        `entry ${id}: trades numbered 0…n-1`,
      );
      assert.equal(await storedCount(id), stored.length, `entry ${id}: nothing doubled`);
      const record = (await records.get(String(id)))!.value;
      assert.deepEqual(record, {
        since: ts[first]! + QUARTER,
        last_bar_ts: ts[to - 1]!,
        bars: to - first,
        stats: tradeStats(stored, outcome.record.settings.capital),
      });
      assert.equal((await states.get(String(id)))!.value.trades, stored.length);
    }
    assert.equal(runtime.openSessions, 0, 'the stopped tracker closed its sessions');

    function series(iso: string): number {
      return ts.indexOf(Date.parse(iso));
    }
  });

  it('programs without a warm session take turns: their entries catch up later, with the same trades', async () => {
    const clock = new ReplayClock(ts[from]! + QUARTER + 1000);
    const feed = barFeed();
    const trades = { insert: (rows: readonly LiveTrade[]) => repo.insert(rows), pnls: (ids: readonly number[]) => repo.pnls(ids) };
    // No warm session and one pool job per bar: the programs (these two, and those of the entries
    // shared before, tracked too) take turns, each advancing every K-th bar.
    await share(201, 30, strategyCode({ prelude: 'unused = 2' }), ts[from]! + QUARTER + 500);
    await share(202, 31, strategyCode({ prelude: 'unused = 3' }), ts[from]! + QUARTER + 500);
    const tracker = await startTracker({ bars: feed.bars, trades, clock, renewMs: 200, maxWarmSessions: 0, maxPoolJobsPerBar: 1 });
    const mine = () => tracked(tracker).filter((t) => t.communityId > 200);
    await until('both entries tracked', () => mine().length === 2);
    await idle(tracker);
    const end = from + 80;
    const lags = new Set<number>();
    for (let i = from + 1; i < end; i++) {
      clock.advanceTo(ts[i]! + QUARTER);
      feed.close(i);
      await idle(tracker);
      for (const t of mine()) lags.add((ts[i]! - t.status().last_bar_ts) / QUARTER);
    }
    const every = tracker.features.coldPrograms;
    assert.ok(every >= 2);
    assert.deepEqual(
      [...lags].sort(),
      Array.from({ length: every }, (_, k) => k),
      'each is at most K − 1 bars behind, and catches up',
    );
    for (const [id, prelude] of [
      [201, 'unused = 2'],
      [202, 'unused = 3'],
    ] as const) {
      const record = (await records.get(String(id)))!.value;
      const last = ts.indexOf(record.last_bar_ts);
      const stored = await repo.ofEntry(id);
      assert.deepEqual(stored.map(shape), (await engineTrades(strategyCode({ prelude }), from, last + 1)).map(shape));
      assert.deepEqual(record.stats, tradeStats(stored, outcome.record.settings.capital));
      assert.equal(record.bars, last - from + 1);
    }
  });

  it('two hosts: each entry is tracked by exactly one, and the survivor takes over a host that dies', async () => {
    const clock = new ReplayClock(ts[from]! + QUARTER + 1000);
    const feed = barFeed();
    const trades = { insert: (rows: readonly LiveTrade[]) => repo.insert(rows), pnls: (ids: readonly number[]) => repo.pnls(ids) };
    // Four entries on four shards, besides those of the test before (all are tracked).
    for (let k = 0; k < 4; k++) await share(101 + k, 20 + k, CODE, ts[from]! + QUARTER + 500);
    // Both start at once and race for the shards' leases.
    const hosts = await Promise.all([0, 1].map(() => startTracker({ bars: feed.bars, trades, renewMs: 100, clock })));
    const all = hosts[0]!.entries.size;
    assert.ok(all >= 7);
    const ids = (t: Tracker) => tracked(t).map((e) => e.communityId);
    await until('every entry tracked', () => ids(hosts[0]!).length + ids(hosts[1]!).length === all);
    const [a, b] = hosts.map((h) => new Set(ids(h)));
    assert.equal([...a!].filter((id) => b!.has(id)).length, 0, 'no entry is tracked twice');
    const shards = hosts.map((h) => h.host.runningIds());
    assert.equal(shards[0]!.filter((id) => shards[1]!.includes(id)).length, 0, 'no shard runs twice');
    assert.ok(shards[0]!.length + shards[1]!.length <= TRACKER_SHARDS);

    // The host holding entry 101 dies (its leases expire rather than being released); the other takes its shards over.
    const dead = a!.has(101) ? 0 : 1;
    const survivor = hosts[1 - dead]!;
    await hosts[dead]!.stop(false);
    await until('the survivor tracks every entry', () => ids(survivor).length === all, 30_000);
    await idle(survivor);
    clock.advanceTo(ts[from + 1]! + QUARTER);
    feed.close(from + 1);
    await idle(survivor);
    for (let k = 0; k < 4; k++) {
      const record = (await records.get(String(101 + k)))!.value;
      assert.equal(record.last_bar_ts, ts[from + 1]);
      assert.equal(record.bars, 2);
    }
    await survivor.stop();
  });
});
