import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JsonKv } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { LEASE_TTL_SECONDS, type Buckets } from '../../schemas/messages.ts';
import type { Actor, ActorStats } from './actor.ts';
import { liveClock, type Clock } from './clock.ts';

/** The desired state a host follows: the specs of the actors that should run somewhere. */
export interface DesiredActors<S> {
  /** Resolves once the current specs are known; `onChange` is told of every change after. */
  follow(onChange: () => void): Promise<{ all(): S[]; stop(): void }>;
}

export interface BackoffPolicy {
  /** Delay before the first restart; doubled per further fault in a row. */
  baseMs: number;
  maxMs: number;
}

export interface ActorHostDeps<S, M> {
  /** What logs call the actors, their specs and the spec id ("model actor", "deployment", "deployment_id"). */
  names: { actor: string; spec: string; id: string };
  desired: DesiredActors<S>;
  /** The id of a spec: its lease key, stable while the spec means the same actor. */
  idOf(spec: S): string;
  leases: JsonKv<typeof Buckets.leases.schema>;
  /** Builds the actor of a spec (not started: the host starts it). */
  create(spec: S): Promise<Actor<M>>;
  /** Drops what was kept for an actor whose spec went away (its saved state). */
  forget?(id: string): Promise<void>;
  log: Logger;
  clock?: Clock;
  /** How often leases are claimed and renewed (must be well under the lease TTL). */
  renewMs?: number;
  backoff?: BackoffPolicy;
}

interface Running<S, M> {
  spec: S;
  actor: Actor<M> | null;
  starting: Promise<void> | null;
  /** The latest message that arrived while the actor was starting: handed over once it runs. */
  missed: M | null;
  leaseRevision: number;
  /** Date.now() before the last claim or renewal that succeeded: the lease lives at least LEASE_TTL_SECONDS from then. */
  leaseWrittenAt: number;
  failures: number;
  retryAt: number;
}

const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };
/**
 * An actor acts on its lease only this long before the lease could expire unrenewed: clocks of
 * the server and the host run at about the same rate, not exactly, and stopping takes a moment.
 */
const LEASE_SAFETY_MS = 1500;

/**
 * Runs one actor per desired spec, across any number of hosts: a host claims a spec by creating
 * its lease key (KV, expiring after LEASE_TTL_SECONDS unless renewed) and runs it while it keeps
 * renewing. A host that dies stops renewing; its leases expire and other hosts claim them, and
 * the new actor resumes from its saved state. An actor that faults (its start or a handle throws)
 * is stopped and started again after a backoff; it never silently continues.
 */
export class ActorHost<S, M> {
  readonly hostId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly running = new Map<string, Running<S, M>>();
  /** Actors being stopped (released): their ids are not claimed again until they have stopped. */
  private readonly releasing = new Map<string, Promise<void>>();
  private readonly clock: Clock;
  private desired: { all(): S[]; stop(): void } | null = null;
  private stopTimer: (() => void) | null = null;
  private ticking: Promise<void> | null = null;
  /** Kicked while a pass ran: another pass follows it, so no change is missed. */
  private again = false;
  private stopped = false;
  private faults = 0;

  constructor(private readonly deps: ActorHostDeps<S, M>) {
    this.clock = deps.clock ?? liveClock;
  }

  async start(): Promise<void> {
    this.desired = await this.deps.desired.follow(() => this.kick());
    this.stopTimer = this.clock.every(this.deps.renewMs ?? 2000, () => this.kick());
    await this.reconcile();
  }

  /** Ids of the actors this host runs now. */
  runningIds(): string[] {
    return [...this.running.entries()].filter(([, r]) => r.actor !== null).map(([id]) => id);
  }

  /** Reconciles now (rather than at the next renewal); resolves when that pass, and the releases it began, are done. */
  async reconcile(): Promise<void> {
    while (this.ticking) await this.ticking;
    this.kick();
    while (this.ticking) await this.ticking;
    await Promise.all(this.releasing.values());
  }

  /**
   * How long (ms) the actor of `id` may still act on its lease (0 when this host does not hold it):
   * the lease was last written at least that long before it can expire, so no other host can hold
   * it meanwhile. Work that must never run on two hosts at once (a webhook send) stops at 0.
   */
  leaseLeftMs(id: string): number {
    const run = this.running.get(id);
    if (!run || this.stopped) return 0;
    return Math.max(0, run.leaseWrittenAt + LEASE_TTL_SECONDS * 1000 - LEASE_SAFETY_MS - Date.now());
  }

  /** Hands a message to the running actor of `id`, if this host runs it. */
  dispatchTo(id: string, message: M): void {
    const run = this.running.get(id);
    if (run?.actor) void this.feed(id, run, message);
    else if (run?.starting) run.missed = message;
  }

  /** Hands a message to every running actor whose spec `to` accepts. */
  dispatch(message: M, to: (spec: S) => boolean): void {
    for (const [id, run] of this.running) {
      if (!to(run.spec)) continue;
      if (run.actor) void this.feed(id, run, message);
      else if (run.starting) run.missed = message;
    }
  }

  stats(): ActorStats {
    return { running: this.runningIds().length, claimed: this.running.size, faults: this.faults };
  }

  private kick(): void {
    // Before the desired state is known (its first values arrive while follow() fills) there is nothing to reconcile.
    if (this.stopped || !this.desired) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick()
      .catch((err: unknown) => this.deps.log.error({ err }, 'actor host: reconcile failed'))
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Releases what is no longer desired, renews what runs, claims what nobody runs. Renewals go out
   * at once (one round trip per pass however many actors run), and releases run beside the pass:
   * an actor slow to stop (or still starting) never delays the renewal of the others' leases.
   */
  private async tick(): Promise<void> {
    const { leases, log } = this.deps;
    const desired = new Map((this.desired?.all() ?? []).map((s) => [this.deps.idOf(s), s]));
    for (const [id, run] of this.running) if (!desired.has(id)) this.releaseBeside(id, run, true);
    await Promise.all(
      [...this.running].map(async ([id, run]) => {
        const writtenAt = Date.now();
        const renewed = await leases.update(id, { host: this.hostId, renewed_at: this.clock.now() }, run.leaseRevision).catch(() => null);
        if (this.running.get(id) !== run) return;
        if (renewed === null) {
          log.warn({ [this.deps.names.id]: id }, `actor host: lost the lease; stopping the ${this.deps.names.actor}`);
          this.releaseBeside(id, run, false);
        } else {
          run.leaseRevision = renewed;
          run.leaseWrittenAt = writtenAt;
        }
      }),
    );
    for (const [id, spec] of desired) {
      if (this.running.has(id) || this.releasing.has(id) || this.stopped) continue;
      const writtenAt = Date.now();
      const revision = await leases.create(id, { host: this.hostId, renewed_at: this.clock.now() });
      if (revision === false) continue;
      this.running.set(id, { spec, actor: null, starting: null, missed: null, leaseRevision: revision, leaseWrittenAt: writtenAt, failures: 0, retryAt: 0 });
      log.info({ [this.deps.names.id]: id, host: this.hostId }, `actor host: claimed a ${this.deps.names.spec}`);
    }
    const now = this.clock.now();
    for (const [id, run] of this.running) {
      if (!run.actor && !run.starting && now >= run.retryAt) run.starting = this.launch(id, run);
    }
  }

  /** Releases an actor without waiting for it; a spec that went away (`gone`) also has its lease deleted and its state forgotten. */
  private releaseBeside(id: string, run: Running<S, M>, gone: boolean): void {
    const done = this.release(id, run, gone)
      .then(() => (gone ? this.deps.forget?.(id) : undefined))
      .catch((err: unknown) => this.deps.log.warn({ err, [this.deps.names.id]: id }, `actor host: releasing a ${this.deps.names.spec} failed`))
      .finally(() => this.releasing.delete(id));
    this.releasing.set(id, done);
  }

  private async launch(id: string, run: Running<S, M>): Promise<void> {
    let actor: Actor<M> | null = null;
    try {
      actor = await this.deps.create(run.spec);
      await actor.start();
      if (this.running.get(id) !== run || this.stopped) {
        await actor.stop();
        return;
      }
      run.actor = actor;
      const missed = run.missed;
      run.missed = null;
      if (missed !== null) void this.feed(id, run, missed);
    } catch (err) {
      await actor?.stop().catch(() => undefined);
      this.fault(id, run, err);
    } finally {
      run.starting = null;
    }
  }

  private async feed(id: string, run: Running<S, M>, message: M): Promise<void> {
    const actor = run.actor;
    try {
      await actor?.handle(message);
      if (run.actor === actor) run.failures = 0;
    } catch (err) {
      if (run.actor === actor) this.fault(id, run, err);
    }
  }

  /** A faulted actor is stopped; a later tick starts a new one after the backoff. */
  private fault(id: string, run: Running<S, M>, err: unknown): void {
    const { baseMs, maxMs } = this.deps.backoff ?? DEFAULT_BACKOFF;
    run.failures++;
    this.faults++;
    run.retryAt = this.clock.now() + Math.min(maxMs, baseMs * 2 ** Math.min(16, run.failures - 1));
    this.deps.log.error({ err, [this.deps.names.id]: id, failures: run.failures }, `${this.deps.names.actor} faulted; restarting it after a backoff`);
    const actor = run.actor;
    run.actor = null;
    void actor?.stop().catch(() => undefined);
  }

  private async release(id: string, run: Running<S, M>, deleteLease: boolean): Promise<void> {
    this.running.delete(id);
    await run.starting;
    await run.actor?.stop().catch((err: unknown) => this.deps.log.warn({ err }, `${this.deps.names.actor} stop failed`));
    if (deleteLease) await this.deps.leases.delete(id).catch(() => undefined);
    this.deps.log.info({ [this.deps.names.id]: id }, `actor host: released a ${this.deps.names.spec}`);
  }

  /**
   * Stops every actor. `graceful` releases the leases so another host takes over at once;
   * otherwise they expire (as after a crash).
   */
  async stop(graceful = true): Promise<void> {
    this.stopped = true;
    this.stopTimer?.();
    this.desired?.stop();
    while (this.ticking) await this.ticking;
    await Promise.all(this.releasing.values());
    for (const [id, run] of [...this.running]) await this.release(id, run, graceful);
  }
}
