import { StaleRevisionError, type JsonKv } from '../../src/bus/index.ts';
import type { DesiredActors } from '../../src/kernel/index.ts';
import type { CommunityEntryRecord } from '../../schemas/community.ts';
import { TRACKER_SHARDS, type Buckets } from '../../schemas/messages.ts';

/** A shard of community entries: what one tracker actor runs, under one lease. */
export interface TrackerShardSpec {
  shard: number;
}

export const shardOf = (communityId: number): number => communityId % TRACKER_SHARDS;

/** The lease key of a shard (in `sf_claims`, beside the deployments' ids). */
export const shardLeaseKey = (spec: TrackerShardSpec): string => `tracker_${spec.shard}`;

/**
 * Every shared entry, kept by a watch of `sf_community`, and the shards that hold at least one:
 * the desired state a tracker host follows. Entries are frozen, so only an entry appearing (or
 * going away) matters to the shard holding it; a changed fork counter does not.
 */
export class TrackedEntries implements DesiredActors<TrackerShardSpec> {
  private readonly byId = new Map<number, CommunityEntryRecord>();
  private readonly listeners = new Set<(communityId: number) => void>();
  private watch: { stop(): void } | null = null;

  constructor(private readonly kv: JsonKv<typeof Buckets.community.schema>) {}

  /** Resolves once the entries shared so far are known. */
  async start(): Promise<void> {
    const watch = await this.kv.watch((_key, value) => {
      if (!value) return; // entries are not deleted; a purge leaves the tracker as it is
      const known = this.byId.has(value.community_id);
      this.byId.set(value.community_id, value);
      if (!known) for (const listener of this.listeners) listener(value.community_id);
    });
    this.watch = watch;
    await watch.ready;
  }

  /** Tells `listener` of each entry that appears from now on. */
  onEntry(listener: (communityId: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The entries of a shard to track, by community_id: those the tracker stopped following for good are left out, here or after a restart. */
  inShard(shard: number): CommunityEntryRecord[] {
    return [...this.byId.values()].filter((e) => shardOf(e.community_id) === shard && !e.tracking_failure);
  }

  /**
   * Records on the entry that the tracker stopped following it for good (its `tracking_failure`,
   * shown with the entry), by compare-and-set: the entry is otherwise frozen. Nothing is written
   * when it is already set, or the entry is gone.
   */
  async markFailed(communityId: number, reason: string, at: number): Promise<void> {
    const key = String(communityId);
    for (;;) {
      const current = await this.kv.get(key);
      if (!current || current.value.tracking_failure) return;
      const failed = { ...current.value, tracking_failure: { reason, at } };
      try {
        await this.kv.update(key, failed, current.revision);
        this.byId.set(communityId, failed);
        return;
      } catch (err) {
        if (!(err instanceof StaleRevisionError)) throw err;
      }
    }
  }

  get size(): number {
    return this.byId.size;
  }

  async follow(onChange: () => void): Promise<{ all(): TrackerShardSpec[]; stop(): void }> {
    const stop = this.onEntry(onChange);
    return {
      all: () => [...new Set([...this.byId.keys()].map(shardOf))].sort((a, b) => a - b).map((shard) => ({ shard })),
      stop,
    };
  }

  stop(): void {
    this.watch?.stop();
    this.listeners.clear();
  }
}
