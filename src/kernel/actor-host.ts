import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { JsonKv } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import type { BarCache } from '../market/index.ts';
import { BarMessage } from '../../schemas/market.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { Subjects, type Buckets } from '../../schemas/messages.ts';
import { LEASE_TTL_SECONDS } from '../../schemas/messages.ts';

/** What the host runs per deployment: an actor fed with bar times, stopped when it loses the deployment. */
export interface HostedActor {
  onBar(barTs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ActorHostDeps {
  nc: Pick<NatsConnection, 'subscribe'>;
  deployments: JsonKv<typeof Buckets.deployments.schema>;
  leases: JsonKv<typeof Buckets.leases.schema>;
  bars: Pick<BarCache, 'get'>;
  /** Builds (and catches up) the actor of a deployment. */
  startActor(deployment: DeploymentRecord): Promise<HostedActor>;
  /** Drops what the host kept for an undeployed deployment (its saved actor state). */
  forget?(deploymentId: string): Promise<void>;
  log: Logger;
  /** How often leases are claimed and renewed (must be well under the lease TTL). */
  renewMs?: number;
}

interface Running {
  deployment: DeploymentRecord;
  actor: HostedActor | null;
  starting: Promise<void> | null;
  leaseRevision: number;
  failures: number;
  retryAt: number;
}

/**
 * Runs one actor per deployment, across any number of hosts: a host claims a deployment by
 * creating its lease key (KV, expiring after LEASE_TTL_SECONDS unless renewed) and runs it while it
 * keeps renewing. A host that dies stops renewing; its leases expire and other hosts claim them,
 * and the new actor resumes from the saved state. An actor that faults is stopped and restarted
 * with a backoff; it never silently continues.
 */
export class ActorHost {
  readonly hostId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  /** Deployments by their KV key (one per model); a redeploy replaces the record, hence the id. */
  private readonly deployments = new Map<string, DeploymentRecord>();
  private readonly running = new Map<string, Running>();
  private readonly barSubs = new Map<string, Subscription>();
  private stopWatch: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: ActorHostDeps) {}

  async start(): Promise<void> {
    const watch = await this.deps.deployments.watch((key, value) => {
      if (value) this.deployments.set(key, value);
      else this.deployments.delete(key);
      this.kick();
    });
    this.stopWatch = () => watch.stop();
    await watch.ready;
    this.timer = setInterval(() => this.kick(), this.deps.renewMs ?? 2000);
    this.kick();
    await this.ticking;
  }

  /** Deployments this host runs now (tests, metrics). */
  runningIds(): string[] {
    return [...this.running.entries()].filter(([, r]) => r.actor !== null).map(([id]) => id);
  }

  private kick(): void {
    if (this.stopped || this.ticking) return;
    this.ticking = this.tick()
      .catch((err: unknown) => this.deps.log.error({ err }, 'actor host: reconcile failed'))
      .finally(() => (this.ticking = null));
  }

  /** Reconciles: release what is no longer desired, renew what runs, claim what nobody runs. */
  private async tick(): Promise<void> {
    const desired = new Map([...this.deployments.values()].map((d) => [d.deployment_id, d]));
    for (const [id, run] of this.running) {
      if (!desired.has(id)) {
        await this.release(id, run, true);
        await this.deps.forget?.(id);
        continue;
      }
      const renewed = await this.deps.leases
        .update(id, { host: this.hostId, renewed_at: Date.now() }, run.leaseRevision)
        .catch(() => null);
      if (renewed === null) {
        this.deps.log.warn({ deployment_id: id }, 'actor host: lost the lease; stopping the actor');
        await this.release(id, run, false);
      } else run.leaseRevision = renewed;
    }
    for (const [id, deployment] of desired) {
      if (this.running.has(id) || this.stopped) continue;
      const revision = await this.deps.leases.create(id, { host: this.hostId, renewed_at: Date.now() });
      if (revision === false) continue;
      const run: Running = { deployment, actor: null, starting: null, leaseRevision: revision, failures: 0, retryAt: 0 };
      this.running.set(id, run);
      this.deps.log.info({ deployment_id: id, model: deployment.stem, host: this.hostId }, 'actor host: claimed a deployment');
    }
    const now = Date.now();
    for (const [id, run] of this.running) {
      if (!run.actor && !run.starting && now >= run.retryAt) run.starting = this.launch(id, run);
    }
    this.syncBarSubscriptions();
  }

  private async launch(id: string, run: Running): Promise<void> {
    try {
      const actor = await this.deps.startActor(run.deployment);
      if (this.running.get(id) !== run || this.stopped) {
        await actor.stop();
        return;
      }
      run.actor = actor;
      // Catch up on what was missed while nobody ran it.
      const series = await this.deps.bars.get(run.deployment.symbol, run.deployment.timeframe);
      const ts = series.columns().ts;
      if (ts.length) await this.feed(id, run, ts[ts.length - 1]!);
    } catch (err) {
      this.fault(id, run, err);
    } finally {
      run.starting = null;
    }
  }

  private async feed(id: string, run: Running, barTs: number): Promise<void> {
    try {
      await run.actor?.onBar(barTs);
      run.failures = 0;
    } catch (err) {
      this.fault(id, run, err);
    }
  }

  /** An actor that threw is stopped; the next tick restarts it after a backoff (state reloaded). */
  private fault(id: string, run: Running, err: unknown): void {
    run.failures++;
    run.retryAt = Date.now() + Math.min(60_000, 1000 * 2 ** Math.min(6, run.failures - 1));
    this.deps.log.error({ err, deployment_id: id, failures: run.failures }, 'model actor faulted; restarting it after a backoff');
    const actor = run.actor;
    run.actor = null;
    void actor?.stop().catch(() => undefined);
  }

  private async release(id: string, run: Running, deleteLease: boolean): Promise<void> {
    this.running.delete(id);
    await run.starting;
    await run.actor?.stop().catch((err: unknown) => this.deps.log.warn({ err }, 'actor stop failed'));
    if (deleteLease) await this.deps.leases.delete(id).catch(() => undefined);
    this.deps.log.info({ deployment_id: id }, 'actor host: released a deployment');
  }

  /** One bars subscription per symbol/timeframe that a running actor trades. */
  private syncBarSubscriptions(): void {
    const wanted = new Set([...this.running.values()].map((r) => `${r.deployment.symbol}.${r.deployment.timeframe}`));
    for (const [key, sub] of this.barSubs) {
      if (!wanted.has(key)) {
        sub.unsubscribe();
        this.barSubs.delete(key);
      }
    }
    for (const key of wanted) {
      if (this.barSubs.has(key)) continue;
      const [symbol, timeframe] = key.split('.') as [DeploymentRecord['symbol'], DeploymentRecord['timeframe']];
      this.barSubs.set(
        key,
        this.deps.nc.subscribe(Subjects.bars(symbol, timeframe), {
          callback: (err, msg) => {
            if (err) return;
            const bar = BarMessage.safeParse(msg.json());
            if (bar.success) void this.onBar(bar.data);
          },
        }),
      );
    }
  }

  private async onBar(bar: BarMessage): Promise<void> {
    // The cache may not have applied this bar yet (its own subscription): upsert is idempotent.
    (await this.deps.bars.get(bar.symbol, bar.timeframe)).upsert(bar);
    for (const [id, run] of this.running) {
      if (run.actor && run.deployment.symbol === bar.symbol && run.deployment.timeframe === bar.timeframe) void this.feed(id, run, bar.ts);
    }
  }

  /**
   * Stops every actor. `graceful` releases the leases so another host takes over at once;
   * otherwise they expire (as after a crash).
   */
  async stop(graceful = true): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.stopWatch?.();
    for (const sub of this.barSubs.values()) sub.unsubscribe();
    this.barSubs.clear();
    await this.ticking;
    for (const [id, run] of [...this.running]) await this.release(id, run, graceful);
  }
}

export { LEASE_TTL_SECONDS };
