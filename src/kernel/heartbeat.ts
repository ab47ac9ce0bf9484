import { performance } from 'node:perf_hooks';
import { StaleRevisionError } from '../bus/index.ts';
import type { Clock } from '../lib/clock.ts';
import { LEASE_TTL_SECONDS } from '../../schemas/messages.ts';
import type { Claims } from './claims.ts';

/**
 * A holder acts on its lease only this long before the lease could expire unrenewed: clocks of
 * the server and the host run at about the same rate, not exactly, and stopping takes a moment.
 */
const LEASE_SAFETY_MS = 1500;

/**
 * One host's heartbeat in `sf_hosts` (`<kind>.<host id>`, expiring after LEASE_TTL_SECONDS unless
 * renewed): what every claim of that host is valid by. Hosts of one kind share their leases out
 * among themselves, so the kind is the key's prefix.
 */
export class Heartbeat {
  /** The revision of the last write that succeeded, and the monotonic time just before it. */
  private beat: { revision: number; writtenAt: number } | null = null;

  constructor(
    private readonly hosts: Claims['hosts'],
    private readonly kind: string,
    private readonly hostId: string,
    private readonly clock: Clock,
  ) {}

  private get key(): string {
    return `${this.kind}.${this.hostId}`;
  }

  /** How long the heartbeat surely lives on (0: it may have expired, so no holder of this host may act). */
  leftMs(): number {
    // Monotonic: the server's TTL runs in real seconds whatever the injected clock (a replay) says.
    return this.beat ? Math.max(0, this.beat.writtenAt + LEASE_TTL_SECONDS * 1000 - LEASE_SAFETY_MS - performance.now()) : 0;
  }

  /**
   * Renews it (creates it at first). `expired`: it had expired (another host may have taken the
   * claims over), and the next renewal creates a new one; `unanswered`: NATS did not answer, it may
   * still live (for `leftMs`).
   */
  async renew(): Promise<'renewed' | 'expired' | 'unanswered'> {
    const writtenAt = performance.now();
    const record = { host: this.hostId, renewed_at: this.clock.now() };
    try {
      const revision = this.beat ? await this.updateFrom(this.beat.revision, record) : await this.hosts.create(this.key, record);
      if (revision !== false) {
        this.beat = { revision, writtenAt };
        return 'renewed';
      }
    } catch (err) {
      if (!(err instanceof StaleRevisionError)) throw err;
    }
    this.beat = null;
    return 'expired';
  }

  /**
   * Renews from `revision`. When the key has moved past it, a renewal of ours whose answer was
   * given up (NATS slow under load) landed after all: each renewal needs the one before it still
   * there, so a later revision of ours proves the heartbeat never lapsed, and it renews from that.
   * Taking that for an expiry stopped every holder of a loaded host, and their restarts loaded it more.
   */
  private async updateFrom(revision: number, record: { host: string; renewed_at: number }): Promise<number> {
    try {
      return await this.hosts.update(this.key, record, revision);
    } catch (err) {
      if (!(err instanceof StaleRevisionError)) throw err;
      const current = await this.hosts.get(this.key);
      if (!current || current.value.host !== this.hostId || current.revision <= revision) throw err;
      return this.hosts.update(this.key, record, current.revision);
    }
  }

  /** Whether `host` (of this kind) has a heartbeat that lives now. */
  async isLive(host: string): Promise<boolean> {
    return (await this.hosts.get(`${this.kind}.${host}`)) !== null;
  }

  /** Hosts of this kind whose heartbeat lives (this one included), sorted. */
  async liveHosts(): Promise<string[]> {
    const prefix = `${this.kind}.`;
    const keys = await this.hosts.keys(`${prefix}>`);
    const found = await Promise.all(keys.map(async (key) => ((await this.hosts.get(key)) ? key.slice(prefix.length) : null)));
    const live = found.filter((host): host is string => host !== null);
    if (!live.includes(this.hostId)) live.push(this.hostId);
    return live.sort();
  }

  /** Deletes it (a graceful stop: other hosts take the claims over at once). */
  async end(): Promise<void> {
    if (this.beat) await this.hosts.delete(this.key);
    this.beat = null;
  }
}
