import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { openBucket, StaleRevisionError, type Bus, type JsonKv } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { Buckets, LEASE_TTL_SECONDS } from '../../schemas/messages.ts';
import type { Actor, ActorStats } from './actor.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

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
  /** The id of a spec: its claim key, stable while the spec means the same actor. */
  idOf(spec: S): string;
  /** Claims: actor id → the host running it (no expiry; valid while that host's heartbeat lives). */
  leases: JsonKv<typeof Buckets.leases.schema>;
  /** Heartbeats: host id → alive, expiring after LEASE_TTL_SECONDS unless renewed. */
  hosts: JsonKv<typeof Buckets.hosts.schema>;
  /**
   * Share the actors out: a host runs at most its share (the desired actors over the live hosts,
   * rounded up) and hands its excess over when another host joins. Without it, whoever claims
   * first runs everything (a standby keeps nothing: one writer per symbol, say).
   */
  balance?: boolean;
  /** Actors of one group go to one host when the share allows (a user's models share warm feature sessions there). */
  groupOf?(spec: S): string;
  /** Builds the actor of a spec (not started: the host starts it). */
  create(spec: S): Promise<Actor<M>>;
  /** Drops what was kept for an actor whose spec went away (its saved state). */
  forget?(id: string): Promise<void>;
  log: Logger;
  clock?: Clock;
  /** How often the heartbeat is renewed and actors claimed (must be well under LEASE_TTL_SECONDS). */
  renewMs?: number;
  backoff?: BackoffPolicy;
}

interface Running<S, M> {
  spec: S;
  actor: Actor<M> | null;
  starting: Promise<void> | null;
  /** The latest message that arrived while the actor was starting: handed over once it runs. */
  missed: M | null;
  failures: number;
  retryAt: number;
}

const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };
/**
 * An actor acts on its lease only this long before the lease could expire unrenewed: clocks of
 * the server and the host run at about the same rate, not exactly, and stopping takes a moment.
 */
const LEASE_SAFETY_MS = 1500;
/** Claims written at once in a pass. */
const CLAIM_BATCH = 64;

/** The two buckets every actor host claims through: the claims and the hosts' heartbeats. */
export async function openClaims(bus: Bus, replicas: number): Promise<Pick<ActorHostDeps<unknown, unknown>, 'leases' | 'hosts'>> {
  // A heartbeat read as gone lets another host take the claims over: that read is the leader's (openBucket),
  // never a replica's that is behind (it may have dropped an old heartbeat by TTL before the renewal reached it).
  const [leases, hosts] = await Promise.all([openBucket(bus, Buckets.leases, replicas), openBucket(bus, Buckets.hosts, replicas)]);
  return { leases, hosts };
}

/** Rendezvous hashing: the host a group prefers among the live ones (every host computes the same). */
function preferredHost(group: string, hosts: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const host of hosts) {
    const score = createHash('sha1').update(`${group}|${host}`).digest().readUInt32BE(0);
    if (score > bestScore || (score === bestScore && host < best!)) [best, bestScore] = [host, score];
  }
  return best;
}

/**
 * Runs one actor per desired spec, across any number of hosts. A host keeps ONE heartbeat key
 * alive (KV `hosts`, expiring after LEASE_TTL_SECONDS unless renewed) and claims an actor by
 * creating its claim key (KV `leases`, naming the host); it runs the actor while its heartbeat
 * lives. Renewal costs one write per host whatever the number of actors. A host that dies stops
 * renewing; once its heartbeat has expired, other hosts take its claims over by compare-and-set
 * (one wins) and the new actors resume from their saved state. A host that finds its own
 * heartbeat expired (it could not renew in time: others may have taken over) stops every actor
 * first, and confirms its remaining claims by compare-and-set before it runs them again. An actor
 * acts on its claim only while the heartbeat's last renewal is fresh (`leaseLeftMs`). An actor that
 * faults (its start or a handle throws) is stopped and started again after a backoff; it never
 * silently continues.
 */
export class ActorHost<S, M> {
  readonly hostId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly running = new Map<string, Running<S, M>>();
  /** Actors being stopped (released): their ids are not claimed again until they have stopped. */
  private readonly releasing = new Map<string, Promise<void>>();
  private readonly clock: Clock;
  private desired: { all(): S[]; stop(): void } | null = null;
  /** Every claim by actor id (a watch of the claims bucket): who holds what, without a read per actor. */
  private readonly claims = new Map<string, string>();
  private claimsWatch: { stop(): void } | null = null;
  /** This host's heartbeat: its revision and Date.now() before its last write that succeeded. */
  private beat: { revision: number; writtenAt: number } | null = null;
  private beating: Promise<boolean> | null = null;
  /** Unclaimed actors another host is preferred for, seen at the last pass: taken at the next if still unclaimed. */
  private waitedFor = new Set<string>();
  private stopTimer: (() => void) | null = null;
  private ticking: Promise<void> | null = null;
  /** Kicked while a pass ran: another pass follows it, so no change is missed. */
  private again = false;
  private stopped = false;
  private faults = 0;

  /** The kind of actor, key-safe (`model_actor`): the heartbeat's key prefix. */
  private readonly kind: string;

  constructor(private readonly deps: ActorHostDeps<S, M>) {
    this.clock = deps.clock ?? liveClock;
    this.kind = deps.names.actor.replace(/[^A-Za-z0-9]+/g, '_');
  }

  async start(): Promise<void> {
    const watch = await this.deps.leases.watch((id, claim) => {
      if (claim) this.claims.set(id, claim.host);
      else this.claims.delete(id);
    });
    this.claimsWatch = watch;
    await watch.ready;
    this.desired = await this.deps.desired.follow(() => this.kick());
    // The heartbeat has its own beat: a long pass (thousands of claims) never delays it.
    this.stopTimer = this.clock.every(this.deps.renewMs ?? 2000, () => {
      void this.heartbeat();
      this.kick();
    });
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
    if (!this.running.has(id) || this.stopped) return 0;
    return this.beatLeftMs();
  }

  /** How long the heartbeat surely lives on (0: it may have expired, so no actor here may act). */
  private beatLeftMs(): number {
    return this.beat ? Math.max(0, this.beat.writtenAt + LEASE_TTL_SECONDS * 1000 - LEASE_SAFETY_MS - Date.now()) : 0;
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
   * Releases what is no longer desired, renews the heartbeat, hands over the excess of this host's
   * share, claims what nobody runs (or whose host is gone). Releases run beside the pass: an actor
   * slow to stop (or still starting) never delays the heartbeat.
   */
  private async tick(): Promise<void> {
    const desired = new Map((this.desired?.all() ?? []).map((s) => [this.deps.idOf(s), s]));
    for (const [id, run] of this.running) if (!desired.has(id)) this.releaseBeside(id, run, true);
    if (!(await this.heartbeat())) return;
    let live = await this.liveHosts();
    // A claim another host took over (this host's heartbeat expired unseen): that actor stops here at once.
    for (const [id, run] of this.running) {
      const holder = this.claims.get(id);
      if (holder !== undefined && holder !== this.hostId) this.releaseBeside(id, run, false);
    }
    const shareOf = (hosts: string[]) => (this.deps.balance ? Math.ceil(desired.size / hosts.length) : Infinity);
    if (this.running.size > shareOf(live)) this.handOver(desired, live, this.running.size - shareOf(live));
    const waited = this.waitedFor;
    this.waitedFor = new Set();
    const wanted: Array<[string, S, string | undefined]> = [];
    for (const [id, spec] of desired) {
      if (this.running.has(id) || this.releasing.has(id)) continue;
      const holder = this.claims.get(id);
      if (holder !== undefined && holder !== this.hostId && live.includes(holder)) continue;
      // Unclaimed and another host's group: that host gets one pass to take it first.
      const group = this.deps.groupOf?.(spec);
      if (holder === undefined && group !== undefined && preferredHost(group, live) !== this.hostId && !waited.has(id)) {
        this.waitedFor.add(id);
        continue;
      }
      wanted.push([id, spec, holder]);
    }
    // Claimed a batch at a time; the live hosts are looked at again between batches (hosts starting together share at once).
    for (let i = 0; i < wanted.length; i += CLAIM_BATCH) {
      if (i > 0 && i % (CLAIM_BATCH * 8) === 0) live = await this.liveHosts();
      const room = shareOf(live) - this.running.size;
      if (room <= 0 || this.beatLeftMs() === 0 || this.stopped) break;
      const batch = wanted.slice(i, i + Math.min(CLAIM_BATCH, room));
      const won = await Promise.all(batch.map(([id, , holder]) => this.claim(id, holder).catch(() => false)));
      batch.forEach(([id, spec], k) => {
        if (!won[k] || this.running.has(id)) return;
        this.running.set(id, { spec, actor: null, starting: null, missed: null, failures: 0, retryAt: 0 });
        this.deps.log.info({ [this.deps.names.id]: id, host: this.hostId }, `actor host: claimed a ${this.deps.names.spec}`);
      });
    }
    const now = this.clock.now();
    for (const [id, run] of this.running) {
      if (!run.actor && !run.starting && now >= run.retryAt && this.beatLeftMs() > 0) run.starting = this.launch(id, run);
    }
  }

  /** Renews the heartbeat, or joins the renewal in flight. */
  private heartbeat(): Promise<boolean> {
    return (this.beating ??= this.renewBeat().finally(() => (this.beating = null)));
  }

  /**
   * Renews the heartbeat (creates it at first). False when it had expired: other hosts may have
   * taken this host's actors over, so every actor here stops, and a new heartbeat is created for
   * the next pass (which confirms the claims still this host's before running them again).
   */
  private async renewBeat(): Promise<boolean> {
    const { hosts, log } = this.deps;
    const writtenAt = Date.now();
    const record = { host: this.hostId, renewed_at: this.clock.now() };
    try {
      const revision = this.beat ? await hosts.update(this.beatKey, record, this.beat.revision) : await hosts.create(this.beatKey, record);
      if (revision !== false) {
        this.beat = { revision, writtenAt };
        return true;
      }
    } catch (err) {
      if (!(err instanceof StaleRevisionError)) {
        // Not answered (NATS away): the heartbeat may still live; the actors act until beatLeftMs runs out.
        log.warn({ err }, 'actor host: renewing the heartbeat failed; trying again at the next pass');
        return this.beatLeftMs() > 0;
      }
    }
    log.warn(
      { host: this.hostId, running: this.running.size },
      `actor host: the heartbeat expired; stopping every ${this.deps.names.actor} before claiming again`,
    );
    this.beat = null;
    for (const [id, run] of this.running) this.releaseBeside(id, run, false);
    return false;
  }

  /** Hosts of this kind of actor whose heartbeat lives (this one included). */
  private async liveHosts(): Promise<string[]> {
    const prefix = `${this.kind}.`;
    const keys = await this.deps.hosts.keys(`${prefix}>`);
    const found = await Promise.all(keys.map(async (key) => ((await this.deps.hosts.get(key)) ? key.slice(prefix.length) : null)));
    const live = found.filter((host): host is string => host !== null);
    if (!live.includes(this.hostId)) live.push(this.hostId);
    return live.sort();
  }

  /** The heartbeat's key: hosts of one kind of actor (model, delivery, ingest…) share those out among themselves. */
  private get beatKey(): string {
    return `${this.kind}.${this.hostId}`;
  }

  /**
   * Claims an actor: creates its claim or, when one exists, takes it over by compare-and-set from
   * the revision read now — only from a host whose heartbeat is gone now (read after the claim: a
   * host writes its heartbeat before any claim), or from this host after its heartbeat expired.
   * Whoever writes first wins; the others see a stale revision. The claims watch and the list of
   * live hosts only say where to look.
   */
  private async claim(id: string, holder: string | undefined): Promise<boolean> {
    const { leases } = this.deps;
    const record = { host: this.hostId, renewed_at: this.clock.now() };
    if (holder === undefined && (await leases.create(id, record)) !== false) return true;
    const current = await leases.get(id);
    if (!current) return (await leases.create(id, record)) !== false;
    const other = current.value.host;
    if (other !== this.hostId && (await this.deps.hosts.get(`${this.kind}.${other}`)) !== null) return false;
    return leases.update(id, record, current.revision).then(
      () => true,
      (err: unknown) => {
        if (err instanceof StaleRevisionError) return false;
        throw err;
      },
    );
  }

  /** Hands `count` actors over to the other hosts (those another host is preferred for first): released, their claims deleted. */
  private handOver(desired: Map<string, S>, live: string[], count: number): void {
    if (live.length < 2) return;
    const groupOf = (id: string) => (this.deps.groupOf && desired.has(id) ? this.deps.groupOf(desired.get(id)!) : '');
    // Whole groups go, those preferring another host first.
    const ranked = [...this.running.keys()]
      .map((id) => ({ id, group: groupOf(id) }))
      .map((r) => ({ ...r, mine: r.group !== '' && preferredHost(r.group, live) === this.hostId ? 1 : 0 }))
      .sort((a, b) => a.mine - b.mine || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    for (const { id } of ranked.slice(0, count)) this.releaseBeside(id, this.running.get(id)!, false, true);
  }

  /** Releases an actor without waiting for it; a spec that went away (`gone`) also has its claim deleted and its state forgotten; one handed over, its claim deleted. */
  private releaseBeside(id: string, run: Running<S, M>, gone: boolean, handedOver = false): void {
    const done = this.release(id, run, gone || handedOver)
      .then(() => (gone ? this.deps.forget?.(id) : undefined))
      .catch((err: unknown) =>
        this.deps.log.warn({ err, [this.deps.names.id]: id }, `actor host: releasing a ${this.deps.names.spec} failed`),
      )
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
    this.deps.log.error(
      { err, [this.deps.names.id]: id, failures: run.failures },
      `${this.deps.names.actor} faulted; restarting it after a backoff`,
    );
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
    await Promise.all([...this.running].map(([id, run]) => this.release(id, run, graceful)));
    this.claimsWatch?.stop();
    if (graceful && this.beat) await this.deps.hosts.delete(this.beatKey).catch(() => undefined);
  }
}
