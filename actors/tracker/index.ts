import { openBlobStore, openBucket, type BlobStore, type Bus, type JsonKv } from '../../src/bus/index.ts';
import { ActorHost, openClaims, type BackoffPolicy } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import { TRACKING_REFUSED } from '../../src/community/index.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';
import type { Logger } from '../../src/log.ts';
import type { BarCache } from '../../src/market/index.ts';
import { FeatureSources, type FeatureRuntime } from '../../src/scoring/index.ts';
import type { CommunityEntryRecord } from '../../schemas/community.ts';
import { Buckets, ObjectStores } from '../../schemas/messages.ts';
import type { TrackerState } from '../../schemas/tracker.ts';
import { Cadence } from './cadence.ts';
import { TrackedEntries, shardLeaseKey, shardOf, type TrackerShardSpec } from './entries.ts';
import { EntryTracker, type LiveTradeStore } from './entry-tracker.ts';
import { TrackerShard, type TrackerMessage } from './tracker-shard.ts';

export { EntryTracker, type LiveTradeStore } from './entry-tracker.ts';
export { TrackerShard, type TrackerMessage } from './tracker-shard.ts';
export { TrackedEntries, shardOf, type TrackerShardSpec } from './entries.ts';
export { Cadence } from './cadence.ts';
export {
  checkWindow,
  firstDifference,
  nextCheckState,
  replayWindow,
  initialCheck,
  type CheckState,
  type CheckVerdict,
} from './divergence.ts';

/** The host of tracker shards: one actor per shard of shared entries, fed with each closed bar. */
export type TrackerHost = ActorHost<TrackerShardSpec, TrackerMessage>;

/**
 * The scope of the tracker's feature sessions: one for every entry, so entries with identical
 * code (forks) share one sandboxed process and one features call per bar, whoever shared them.
 * Different code never shares a process.
 */
const SESSION_SCOPE = 'community';

/**
 * Store reads in flight at once per process while entries open (a start opens every entry: a
 * thousand reads at once would time out together on a busy server).
 */
const OPEN_CONCURRENCY = 8;

/**
 * Divergence checks replaying at once per process: each computes features on a window as long as
 * its entry was fitted on, in a one-shot pool job (up to a few seconds of CPU).
 */
const CHECKS_AT_ONCE = 2;

/**
 * Limits of a replay's features call: a window as long as the fit span (up to ~90,000 one-minute
 * bars), so more than a live bar's call, as a training's features pass has. CPU time, not wall time.
 */
const REPLAY_LIMITS = { timeoutMs: 60_000, memoryMb: 2048 };

/** The frozen files of an entry in the `sf_community` object store. */
const entryFile = (communityId: number, file: 'strategy.py' | 'model.onnx') => `${communityId}/${file}`;

export interface TrackerHostDeps {
  bus: Bus;
  bars: Pick<BarCache, 'get' | 'onBar'>;
  runtime: FeatureRuntime;
  /** The live trades table: stored per bar, read back (P&L) when an entry resumes. */
  trades: LiveTradeStore & { pnls(communityIds: readonly number[]): Promise<Map<number, number[]>> };
  log: Logger;
  replicas: number;
  /** Warm feature sessions (one sandboxed process each) the tracker may hold; the rest use pool jobs. */
  maxWarmSessions: number;
  /** Pool jobs a bar close may start, about (programs without a warm session take turns, see Cadence); 0: no limit. */
  maxPoolJobsPerBar?: number;
  /** Bars tracked per divergence check of an entry (default DIVERGENCE_CHECK_BARS). */
  divergenceCheckBars?: number;
  renewMs?: number;
  backoff?: BackoffPolicy;
  /**
   * Market time: which bars have closed (live, the machine's clock; in replay, the bar being
   * replayed). Leases are renewed on the machine's clock whatever it is: their expiry is real time.
   */
  clock?: Clock;
}

export interface Tracker {
  host: TrackerHost;
  entries: TrackedEntries;
  features: FeatureSources;
  /** The shard actors this process runs now. */
  shards(): TrackerShard[];
  stop(graceful?: boolean): Promise<void>;
}

interface Stores {
  state: JsonKv<typeof Buckets.trackerState.schema>;
  records: JsonKv<typeof Buckets.trackRecords.schema>;
  files: BlobStore;
  /** Shared by every shard of the process. */
  limit: ReturnType<typeof concurrencyLimit>;
  /** Divergence checks replaying at once in the process. */
  checks: ReturnType<typeof concurrencyLimit>;
}

/**
 * The live tracker of this process: it follows every shared entry (`sf_community`), claims shards
 * of them by lease like deployments (two processes never track one entry), and hands each closed
 * bar to the shards it runs. Entries are tracked whether or not their authors deploy them.
 */
export async function buildTrackerHost(deps: TrackerHostDeps): Promise<Tracker> {
  const r = deps.replicas;
  const [claims, state, records, community, files] = await Promise.all([
    openClaims(deps.bus, r),
    openBucket(deps.bus, Buckets.trackerState, r),
    openBucket(deps.bus, Buckets.trackRecords, r),
    openBucket(deps.bus, Buckets.community, r),
    openBlobStore(deps.bus, ObjectStores.community, r),
  ]);
  const clock = deps.clock ?? liveClock;
  const entries = new TrackedEntries(community);
  await entries.start();
  const features = new FeatureSources(deps.runtime, deps.maxWarmSessions, deps.log);
  const limit = concurrencyLimit(OPEN_CONCURRENCY);
  const checks = concurrencyLimit(CHECKS_AT_ONCE);
  const open = (list: CommunityEntryRecord[]) => openTrackers(list, { state, records, files, limit, checks }, features, deps, clock.now());
  const cadence = new Cadence(features, deps.maxPoolJobsPerBar ?? 0);
  const due = (tracker: EntryTracker, barTs: number) => cadence.due(tracker, barTs, tracker.timeframeMs);
  const live = new Set<TrackerShard>();
  const running = () => {
    for (const shard of live) if (shard.isStopped) live.delete(shard);
    return [...live];
  };
  const host: TrackerHost = new ActorHost<TrackerShardSpec, TrackerMessage>({
    names: { actor: 'tracker shard', spec: 'tracker shard', id: 'shard' },
    desired: entries,
    idOf: shardLeaseKey,
    ...claims,
    log: deps.log,
    ...(deps.renewMs ? { renewMs: deps.renewMs } : {}),
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    create: async ({ shard }) => {
      // Wall time (when it was refused), whatever market time `clock` replays.
      const refuse = (id: number) => entries.markFailed(id, TRACKING_REFUSED, liveClock.now());
      const actor = new TrackerShard({ shard, entries: () => entries.inShard(shard), open, due, clock, refuse, log: deps.log });
      running();
      live.add(actor);
      return actor;
    },
  });
  const unsubscribeBars = deps.bars.onBar((bar) =>
    host.dispatch({ kind: 'bar', symbol: bar.symbol, timeframe: bar.timeframe, ts: bar.ts }, () => true),
  );
  const unsubscribeEntries = entries.onEntry((id) => host.dispatch({ kind: 'entries' }, (spec) => spec.shard === shardOf(id)));
  return {
    host,
    entries,
    features,
    shards: running,
    async stop(graceful = true) {
      unsubscribeBars();
      unsubscribeEntries();
      await host.stop(graceful);
      entries.stop();
    },
  };
}

/**
 * Trackers for entries, resumed from their saved state and stored trades (one ClickHouse query
 * for all). Trades stored beyond the saved count come from a chunk whose state was never saved:
 * that chunk is replayed and stores them again. Fewer stored trades than the state counts (the
 * table lost rows) replays the entry from publication: the same bars give the same trades.
 */
async function openTrackers(
  list: CommunityEntryRecord[],
  stores: Stores,
  features: FeatureSources,
  deps: TrackerHostDeps,
  now: number,
): Promise<Array<EntryTracker | Error>> {
  const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));
  let saved: Array<{ value: TrackerState } | null>;
  let stored: Map<number, number[]>;
  try {
    saved = await Promise.all(list.map((e) => stores.limit(() => stores.state.get(String(e.community_id)))));
    stored = await deps.trades.pnls(list.filter((_, i) => (saved[i]?.value.trades ?? 0) > 0).map((e) => e.community_id));
  } catch (err) {
    return list.map(() => asError(err));
  }
  return Promise.all(
    list.map(async (entry, i) => {
      const id = entry.community_id;
      try {
        let resume = saved[i]?.value ?? null;
        let pnls = stored.get(id) ?? [];
        if (resume && pnls.length < resume.trades) {
          deps.log.warn(
            { community_id: id, stored: pnls.length, counted: resume.trades },
            'tracker: stored trades are missing; the entry is tracked again from publication',
          );
          resume = null;
        }
        pnls = pnls.slice(0, resume?.trades ?? 0);
        // Reading the files and loading the model (checked here, loaded in a scoring process) take turns.
        return await stores.limit(async () => {
          const [code, onnx] = await Promise.all([
            stores.files.get(entryFile(id, 'strategy.py')),
            stores.files.get(entryFile(id, 'model.onnx')),
          ]);
          if (!code || !onnx) throw new Error(`entry ${id}: its frozen ${code ? 'model.onnx' : 'strategy.py'} is missing`);
          const text = new TextDecoder().decode(code);
          // The model's own indicator values (an optimised trial's), as when it was trained.
          const indicators = entry.model.config.indicators;
          const source = features.acquire(SESSION_SCOPE, text, entry.user_id, indicators);
          try {
            const checks = {
              limit: stores.checks,
              log: deps.log,
              // One-shot pool jobs under the author's fair share: see EntryChecks.features.
              features: (bars: Parameters<FeatureRuntime['features']>[1]) =>
                deps.runtime.features(text, bars, { ...REPLAY_LIMITS, user: entry.user_id }, indicators),
              ...(deps.divergenceCheckBars ? { everyBars: deps.divergenceCheckBars } : {}),
            };
            return await EntryTracker.open({
              entry,
              onnx,
              features: source,
              bars: deps.bars,
              state: stores.state,
              records: stores.records,
              trades: deps.trades,
              saved: resume,
              pnls,
              now,
              checks,
            });
          } catch (err) {
            await source.release();
            throw err;
          }
        });
      } catch (err) {
        return asError(err);
      }
    }),
  );
}
