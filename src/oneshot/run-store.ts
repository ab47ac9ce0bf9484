import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { openBucket, type Bus, type JsonKv } from '../bus/index.ts';
import { openClaims, type Claims } from '../kernel/index.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { OneShotRun } from '../../schemas/oneshot.ts';

type RunsKv = JsonKv<typeof Buckets.oneShots.schema>;

const TERMINAL = new Set(['deployed', 'refunded', 'not_deployed']);

/** Whether the run has its outcome (deployed, refunded, not deployed): nothing is left to do for it. */
export function isFinished(run: Pick<OneShotRun, 'status'>): boolean {
  return TERMINAL.has(run.status);
}

/** Destinations a run has only when the request named them. */
type OptionalTarget = 'webhook_template' | 'discord_webhook_url' | 'slack_webhook_url';

/**
 * One_shot runs in KV (`sf_one_shots`): every stage change is written before the work of the
 * next stage starts. Who drives a run is the kernel's lease `oneshot.<run_id>` in `sf_claims`
 * (see OneShotRecovery); `owner` and `alive_at` are still written at creation (the creator, and
 * when it created the run), for records and readers that expect them.
 */
export class OneShotRuns {
  /** This process, as the creator of the runs it starts. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  /** `claims`: the kernel's, where the runs' leases are; `clock`: the runs' times (created, updated), liveClock unless a test sets it. */
  constructor(
    private readonly kv: RunsKv,
    readonly claims: Claims,
    readonly clock: Clock = liveClock,
  ) {}

  /** Opens the runs' bucket (`sf_one_shots`) and the kernel's claims. */
  static async open(bus: Bus, replicas: number, clock?: Clock): Promise<OneShotRuns> {
    const [kv, claims] = await Promise.all([openBucket(bus, Buckets.oneShots, replicas), openClaims(bus, replicas)]);
    return new OneShotRuns(kv, claims, clock);
  }

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

  /** The run as it stands, or null when there is none. */
  async get(runId: string): Promise<OneShotRun | null> {
    return (await this.kv.get(runId))?.value ?? null;
  }

  /** Applies a change to the run (compare-and-set) and returns it. */
  async update(runId: string, patch: Partial<OneShotRun>): Promise<OneShotRun> {
    const { value } = await this.kv.mutate(runId, (current) => {
      if (!current) throw new Error(`one_shot run ${runId} is gone`);
      return { ...current, ...patch, updated_at: this.clock.now() };
    });
    return value;
  }

  /** Every run as it stands (null: gone), then each change; `ready` once the runs there at the start are all told. */
  watch(onChange: (runId: string, run: OneShotRun | null) => void): Promise<{ stop(): void; ready: Promise<void> }> {
    return this.kv.watch(onChange);
  }
}
