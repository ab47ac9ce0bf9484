import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { StaleRevisionError, type JsonKv } from '../bus/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import type { Buckets } from '../../schemas/messages.ts';
import type { OneShotRun } from '../../schemas/oneshot.ts';

type RunsKv = JsonKv<typeof Buckets.oneShots.schema>;

/** A run whose owner has not said it is alive for this long is taken over. */
export const STALE_MS = 6_000;
/** How often an owner says its runs are alive. */
export const HEARTBEAT_MS = 2_000;

const TERMINAL = new Set(['deployed', 'refunded', 'not_deployed']);

/** Destinations a run has only when the request named them. */
type OptionalTarget = 'webhook_template' | 'discord_webhook_url' | 'slack_webhook_url';

/**
 * One_shot runs in KV (`sf_one_shots`): every stage change is written before the work of the
 * next stage starts, and the owning process renews `alive_at` while it runs them. A run whose
 * owner went quiet is claimed (compare-and-set) by another process, which finishes it.
 */
export class OneShotRuns {
  /** This process, as the owner of the runs it drives. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  /** `clock`: the runs' times (created, updated, alive), liveClock unless a test sets it. */
  constructor(
    private readonly kv: RunsKv,
    private readonly clock: Clock = liveClock,
  ) {}

  /** A new run id: sortable by time (`now`, epoch ms), unique across processes. */
  static newId(now: number = liveClock.now()): string {
    return `os_${now.toString(36)}${randomBytes(5).toString('hex')}`;
  }

  async create(
    run: Omit<OneShotRun, 'owner' | 'alive_at' | 'created_at' | 'updated_at' | OptionalTarget> & Partial<Pick<OneShotRun, OptionalTarget>>,
  ): Promise<OneShotRun> {
    const now = this.clock.now();
    const full: OneShotRun = {
      webhook_template: null,
      discord_webhook_url: null,
      slack_webhook_url: null,
      ...run,
      owner: this.owner,
      alive_at: now,
      created_at: now,
      updated_at: now,
    };
    await this.kv.put(run.run_id, full);
    return full;
  }

  /** Applies a change to the run (compare-and-set) and returns it. */
  async update(runId: string, patch: Partial<OneShotRun>): Promise<OneShotRun> {
    const { value } = await this.kv.mutate(runId, (current) => {
      if (!current) throw new Error(`one_shot run ${runId} is gone`);
      return { ...current, ...patch, updated_at: this.clock.now() };
    });
    return value;
  }

  /** Says this process still drives these runs. */
  async heartbeat(runIds: Iterable<string>): Promise<void> {
    for (const id of runIds) await this.update(id, { alive_at: this.clock.now(), owner: this.owner }).catch(() => undefined);
  }

  /**
   * Claims every unfinished run whose owner went quiet (ours too, when we dropped it: `driving`
   * says which we still run); resolves with the runs now ours. A run another process claims
   * first is left to it.
   */
  async claimStale(driving: (runId: string) => boolean, now = this.clock.now()): Promise<OneShotRun[]> {
    const claimed: OneShotRun[] = [];
    for (const key of await this.kv.keys()) {
      const found = await this.kv.get(key);
      if (!found || TERMINAL.has(found.value.status)) continue;
      if (driving(key) || now - found.value.alive_at < STALE_MS) continue;
      const mine: OneShotRun = { ...found.value, owner: this.owner, alive_at: now, updated_at: now };
      try {
        await this.kv.update(key, mine, found.revision);
        claimed.push(mine);
      } catch (err) {
        if (!(err instanceof StaleRevisionError)) throw err;
      }
    }
    return claimed;
  }
}
