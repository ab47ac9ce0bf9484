import type { JsonKv } from '../bus/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import type { Logger } from '../log.ts';
import type { Buckets } from '../../schemas/messages.ts';

export type WatchedKv = JsonKv<typeof Buckets.watched.schema>;

/** How long one watch lasts without renewal: an edge that dies stops its watches within this. */
export const WATCH_TTL_MS = 90_000;
/** How often an edge renews the watches it holds (well within the TTL, so a slow renewal loses nothing). */
export const WATCH_RENEW_MS = 30_000;

/**
 * Which deployments someone watches, as the actor hosts see it: a follower of `sf_watched`. A
 * prediction per bar is news for a WebSocket client and nobody else, and building, checking and
 * publishing one for every model on every bar was about 30 % of a host's Node; an actor asks here first.
 */
export class WatchedDeployments {
  private readonly until = new Map<string, number>();
  private following: { stop(): void } | null = null;

  private constructor(private readonly clock: Clock) {}

  /** Follows the bucket; resolves once the watches that existed have been read. */
  static async open(kv: WatchedKv, clock: Clock = liveClock): Promise<WatchedDeployments> {
    const watched = new WatchedDeployments(clock);
    const following = await kv.watch((key, value) => {
      if (value) watched.until.set(key, value.until);
      else watched.until.delete(key);
    });
    watched.following = following;
    await following.ready;
    return watched;
  }

  isWatched(deploymentId: string): boolean {
    const until = this.until.get(deploymentId);
    if (until === undefined) return false;
    if (until > this.clock.now()) return true;
    // Expired (its edge stopped renewing; the bucket's own TTL removes the entry later).
    this.until.delete(deploymentId);
    return false;
  }

  stop(): void {
    this.following?.stop();
  }
}

/**
 * The watches of this edge's WebSocket subscriptions: the first subscriber of a deployment writes
 * its watch (awaited, so the subscription is confirmed only once hosts can see it), and every
 * deployment still subscribed is renewed on a timer. The last subscriber leaving writes nothing:
 * the watch runs out within WATCH_TTL_MS, and another edge watching the same deployment renews its own.
 */
export class DeploymentWatches {
  private readonly counts = new Map<string, number>();
  private readonly clock: Clock;
  private readonly stopTimer: () => void;

  constructor(
    private readonly kv: WatchedKv,
    private readonly log: Logger,
    clock: Clock = liveClock,
  ) {
    this.clock = clock;
    this.stopTimer = clock.every(WATCH_RENEW_MS, () => void this.renew());
  }

  /** Marks the deployment watched; the returned function ends this subscriber's watch. */
  async watch(deploymentId: string): Promise<() => void> {
    this.counts.set(deploymentId, (this.counts.get(deploymentId) ?? 0) + 1);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const n = (this.counts.get(deploymentId) ?? 1) - 1;
      if (n > 0) this.counts.set(deploymentId, n);
      else this.counts.delete(deploymentId);
    };
    try {
      await this.kv.put(deploymentId, { until: this.clock.now() + WATCH_TTL_MS });
    } catch (err) {
      end();
      throw err;
    }
    return end;
  }

  private async renew(): Promise<void> {
    const until = this.clock.now() + WATCH_TTL_MS;
    const results = await Promise.allSettled([...this.counts.keys()].map((id) => this.kv.put(id, { until })));
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed > 0) this.log.warn({ failed }, 'deployment watches: renewals failed; tried again at the next renewal');
  }

  stop(): void {
    this.stopTimer();
  }
}
