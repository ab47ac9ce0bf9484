import { buildModelHost, type ModelHost } from '../../actors/model/index.ts';
import { buildTrackerHost, type Tracker } from '../../actors/tracker/index.ts';
import { openBucket, StreamBatcher } from '../bus/index.ts';
import { ActivityBus } from '../community/index.ts';
import { scorerStats } from '../scoring/index.ts';
import { openDeployments } from '../deployments/index.ts';
import { LiveTradesRepo } from '../store/index.ts';
import { ModelStore } from '../training/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { ownParts, type RoleContext, type RoleParts } from './context.ts';
import { baseChecks, roleCommand } from './kit.ts';

export interface ActorsParts extends RoleParts {
  /** The model actors: one per deployment this process holds the lease of. */
  host: ModelHost;
  /** The live tracker of shared community entries; null where trades cannot be written to the store directly. */
  tracker: Tracker | null;
}

/**
 * The deployed models and the community tracker: their deployments and entries shared with every
 * other process running them through leases, recent bars from the context (the market cache, or
 * the store owner's bar pages), signals on the SIGNALS stream. The tracker keeps its trades in
 * ClickHouse: it runs only where the store is local (`serve`) or a server (CLICKHOUSE_URL).
 */
export function buildActors(ctx: RoleContext): Promise<ActorsParts> {
  return ownParts(ctx, async (own) => {
    const { config, log, bus } = ctx;
    const r = config.NATS_REPLICAS;
    const [bars, runtime] = await Promise.all([ctx.bars(), ctx.runtime()]);
    // The host's signals, saved states and SIGNAL_FIRED events of a bar go out as batches.
    const batcher = new StreamBatcher(bus);
    own.push(async () => batcher.close());
    const models = await ModelStore.open(bus, await openBucket(bus, Buckets.models, r), await openBucket(bus, Buckets.signals, r), r);
    const modelHost = await buildModelHost({
      bus,
      deployments: await openDeployments(bus, r),
      models,
      bars,
      runtime,
      activity: new ActivityBus(bus, batcher),
      log,
      replicas: r,
      maxWarmSessions: config.ACTOR_WARM_SESSIONS,
      batcher,
    });
    await modelHost.host.start();
    own.push(() => modelHost.stop());
    let tracker: Tracker | null = null;
    if (ctx.storeIsLocal) {
      const started = await buildTrackerHost({
        bus,
        bars,
        runtime,
        trades: new LiveTradesRepo(await ctx.store()),
        log,
        replicas: r,
        maxWarmSessions: config.TRACKER_WARM_SESSIONS,
        maxPoolJobsPerBar: config.TRACKER_POOL_JOBS_PER_BAR,
      });
      await started.host.start();
      own.push(() => started.stop());
      tracker = started;
    }
    return {
      host: modelHost.host,
      tracker,
      stats: () => ({
        signalforge_model_actors_running: modelHost.host.runningIds().length,
        // Identical live calls (clones of a model on the same bar) share one inference: runs vs shared.
        signalforge_scorer_runs_total: scorerStats().runs,
        signalforge_scorer_shared_runs_total: scorerStats().shared,
        ...(tracker
          ? {
              signalforge_tracker_entries_tracked: tracker.shards().reduce((n, shard) => n + shard.running().length, 0),
              signalforge_tracker_warm_sessions: tracker.features.warm,
            }
          : {}),
      }),
    };
  });
}

/**
 * `signalforge actors`: another process running deployed models beside `serve` (or on another
 * machine). It shares the deployments through their leases, reads bars from the data owner over
 * NATS (no database of its own) and publishes signals on the same stream.
 */
export const startActorsRole = roleCommand('actors', async (ctx) => {
  const parts = await buildActors(ctx);
  return { parts, checks: baseChecks(ctx.bus), running: { host: parts.host.hostId, tracker: parts.tracker !== null } };
});
