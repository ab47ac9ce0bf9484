import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { StaleRevisionError } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { preferredHost, type Claims } from './claims.ts';
import { Heartbeat } from './heartbeat.ts';
import type { ActorStats, LeaseContext, LeaseHolder } from './lease-holder.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import { LeaseFence } from './lease-fence.ts';

/** The desired state a host follows: the specs of what should run somewhere. */
export interface DesiredActors<S> {
  /** Resolves once the current specs are known; `onChange` is told of every change after. */
  follow(onChange: () => void): Promise<{ all(): S[]; stop(): void }>;
}

export interface BackoffPolicy {
  /** Delay before the first restart; doubled per further fault in a row. */
  baseMs: number;
  maxMs: number;
}

export interface LeaseHostDeps<S, H extends LeaseHolder> extends Claims {
  /** What logs call the holders, their specs and the spec id ("model actor", "deployment", "deployment_id"). */
  names: { actor: string; spec: string; id: string };
  desired: DesiredActors<S>;
  /** The id of a spec: its claim key, stable while the spec means the same holder. */
  idOf(spec: S): string;
  /**
   * Share the leases out: a host holds at most its share (the desired ones over the live hosts,
   * rounded up) and hands its excess over when another host joins. Without it, whoever claims
   * first holds everything (a standby keeps nothing: one writer per symbol, say).
   */
  balance?: boolean;
  /** Leases of one group go to one host when the share allows (a user's models share warm feature sessions there). */
  groupOf?(spec: S): string;
  /** Builds the holder of a spec (not started: the host starts it); `lease` is its lease and its way to fault. */
  create(spec: S, lease: LeaseContext): Promise<H>;
  /** Drops what was kept for a lease whose spec went away (its saved state). */
  forget?(id: string): Promise<void>;
  log: Logger;
  /** Backoff and the records' times (default liveClock); the heartbeat's freshness is measured on the machine's monotonic time. */
  clock?: Clock;
  /** How often the heartbeat is renewed and leases claimed (must be well under LEASE_TTL_SECONDS). */
  renewMs?: number;
  backoff?: BackoffPolicy;
  /** Holders starting at once on this host (default START_AT_ONCE), and when a slow start frees its place (default START_SLOT_MS). */
  startsAtOnce?: number;
  startSlotMs?: number;
  /** How long a release waits for a holder's start to return, then for its stop (default STOP_WAIT_MS each). */
  stopWaitMs?: number;
}

/** One claimed lease on this host. */
export interface Running<S, H> {
  spec: S;
  /** Created (from then on found by `holder`), null after a fault until the restart. */
  holder: H | null;
  /** Its start has returned: it runs. */
  started: boolean;
  starting: Promise<void> | null;
  /** A fault reported while the holder was still starting: it is stopped once the start returns. */
  pendingFault: unknown;
  failures: number;
  retryAt: number;
  startedAt: number;
}

const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };
/** Claims written at once in a pass. */
const CLAIM_BATCH = 64;
/**
 * Holders starting at once. A host that claims thousands of leases and starts every holder
 * together floods NATS and the event loop with their first reads (a model actor loads its model,
 * state and bars, and scores its last bar): heartbeats then lapse, every holder stops, and the
 * restarts flood again. Started a few at a time, the first ones run within a second.
 */
const START_AT_ONCE = 32;
/**
 * A start that has not returned after this long frees its place: one slow (or hung) start must not
 * hold the rest back. It still runs; it is only no longer counted.
 */
const START_SLOT_MS = 10_000;
/**
 * A release (and so the host's stop) waits this long for a start in progress, then as long for the
 * holder's stop: a hung holder must not hang shutdown. A start that returns later finds its lease
 * released and stops its holder itself.
 */
const STOP_WAIT_MS = 10_000;

/** Whether `work` settled within `ms` (machine time); it runs on either way. */
function settledWithin(work: Promise<unknown> | null, ms: number): Promise<boolean> {
  if (!work) return Promise.resolve(true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  const done = work.then(
    () => true,
    () => true,
  );
  return Promise.race([done, late]).finally(() => clearTimeout(timer));
}

/**
 * Runs one lease holder per desired spec, across any number of hosts. A host keeps ONE heartbeat
 * key alive (KV `hosts`, expiring after LEASE_TTL_SECONDS unless renewed) and claims a lease by
 * creating its claim key (KV `leases`, naming the host); it holds the lease while its heartbeat
 * lives. Renewal costs one write per host whatever the number of leases. A host that dies stops
 * renewing; once its heartbeat has expired, other hosts take its claims over by compare-and-set
 * (one wins) and their new holders resume from their saved state. A host that finds its own
 * heartbeat expired (it could not renew in time: others may have taken over) stops every holder
 * first, and confirms its remaining claims by compare-and-set before it runs them again. A holder
 * acts on its claim only while the heartbeat's last renewal is fresh (`leaseLeftMs`). A holder
 * that faults (its start throws, or it reports a fault) is stopped and started again after a
 * backoff; it never silently continues. ActorHost adds dispatch for fed actors on top.
 */
export class LeaseHost<S, H extends LeaseHolder> {
  readonly hostId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  protected readonly running = new Map<string, Running<S, H>>();
  /** Holders being stopped (released): their ids are not claimed again until they have stopped. */
  private readonly releasing = new Map<string, Promise<void>>();
  protected readonly clock: Clock;
  private desired: { all(): S[]; stop(): void } | null = null;
  /** Every claim by lease id (a watch of the claims bucket): who holds what, without a read per lease. */
  private readonly claims = new Map<string, string>();
  private claimsWatch: { stop(): void } | null = null;
  /** This host's heartbeat, which all its claims are valid by. */
  private readonly beat: Heartbeat;
  /** Cuts off its holders' work in flight once the heartbeat may have run out. */
  private readonly fence = new LeaseFence(() => (this.stopped ? 0 : this.beatLeftMs()));
  private beating: Promise<boolean> | null = null;
  /** Unclaimed leases another host is preferred for, seen at the last pass: taken at the next if still unclaimed. */
  private waitedFor = new Set<string>();
  private stopTimer: (() => void) | null = null;
  private ticking: Promise<void> | null = null;
  /** Kicked while a pass ran: another pass follows it, so no change is missed. */
  private again = false;
  /** Passes begun and finished: `reconcile` waits for the first pass begun after its call, not for a quiet moment. */
  private passesBegun = 0;
  private passesDone = 0;
  protected stopped = false;
  private faults = 0;
  /** Starts holding a place among the `startsAtOnce` (see START_AT_ONCE). */
  private startsInFlight = 0;
  /** Claimed leases whose holder is to start (new, or faulted and waiting out its backoff): what launchDue looks at. */
  private readonly toStart = new Set<string>();
  private launchQueued = false;

  constructor(protected readonly deps: LeaseHostDeps<S, H>) {
    this.clock = deps.clock ?? liveClock;
    // The kind of holder, key-safe (`model_actor`): the heartbeat's key prefix.
    this.beat = new Heartbeat(deps.hosts, deps.names.actor.replace(/[^A-Za-z0-9]+/g, '_'), this.hostId, this.clock);
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

  /** Ids of the leases whose holder runs on this host now. */
  runningIds(): string[] {
    return [...this.running.entries()].filter(([, r]) => r.started).map(([id]) => id);
  }

  /** The holder of lease `id` on this host, from its creation (it may still be starting) until it stops or faults. */
  holder(id: string): H | null {
    return this.running.get(id)?.holder ?? null;
  }

  /** The host the claims seen here name for lease `id` (this one included), or null while unclaimed. */
  claimedBy(id: string): string | null {
    return this.claims.get(id) ?? null;
  }

  /** Every holder on this host (those starting included). */
  holders(): H[] {
    return [...this.running.values()].flatMap((r) => (r.holder ? [r.holder] : []));
  }

  /** Reconciles now (rather than at the next renewal); resolves when that pass, and the releases it began, are done. */
  async reconcile(): Promise<void> {
    // The pass in flight may have read the desired state before the call: the next one begun counts.
    const wanted = this.passesBegun + 1;
    this.kick();
    // Under load passes run back to back (each renewal kicks another); waiting for a gap between them could wait forever.
    while (this.passesDone < wanted && this.ticking) await this.ticking.catch(() => undefined);
    await Promise.all(this.releasing.values());
  }

  /**
   * How long (ms) the holder of `id` may still act on its lease (0 when this host does not hold it):
   * the lease was last written at least that long before it can expire, so no other host can hold
   * it meanwhile. Work that must never run on two hosts at once (a webhook send) stops at 0.
   */
  leaseLeftMs(id: string): number {
    if (!this.running.has(id) || this.stopped) return 0;
    return this.beatLeftMs();
  }

  private beatLeftMs(): number {
    return this.beat.leftMs();
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
    this.passesBegun++;
    this.ticking = this.tick()
      .catch((err: unknown) => this.deps.log.error({ err }, 'lease host: reconcile failed'))
      .finally(() => {
        this.passesDone++;
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Releases what is no longer desired, renews the heartbeat, hands over the excess of this host's
   * share, claims what nobody holds (or whose host is gone). Releases run beside the pass: a holder
   * slow to stop (or still starting) never delays the heartbeat.
   */
  private async tick(): Promise<void> {
    const desired = new Map((this.desired?.all() ?? []).map((s) => [this.deps.idOf(s), s]));
    for (const [id, run] of this.running) if (!desired.has(id)) this.releaseBeside(id, run, true);
    if (!(await this.heartbeat())) return;
    let live = await this.beat.liveHosts();
    // A claim another host took over (this host's heartbeat expired unseen): that holder stops here at once.
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
    // Whole groups in turn, this host's own first: a host that reaches its share stops within one
    // group, rather than partway through every group (each then on two hosts: a program's warm
    // session, and its features, twice).
    if (this.deps.groupOf) {
      const rank = new Map<string, number>();
      const rankOf = (spec: S) => {
        const group = this.deps.groupOf!(spec);
        let r = rank.get(group);
        if (r === undefined) rank.set(group, (r = preferredHost(group, live) === this.hostId ? 0 : 1));
        return `${r}|${group}`;
      };
      const keyed = wanted.map((w) => ({ w, key: rankOf(w[1]) }));
      keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      keyed.forEach((k, i) => (wanted[i] = k.w));
    }
    // Claimed a batch at a time; the live hosts are looked at again between batches (hosts starting together share at once).
    for (let i = 0; i < wanted.length; i += CLAIM_BATCH) {
      if (i > 0 && i % (CLAIM_BATCH * 8) === 0) live = await this.beat.liveHosts();
      const room = shareOf(live) - this.running.size;
      if (room <= 0 || this.beatLeftMs() === 0 || this.stopped) break;
      const batch = wanted.slice(i, i + Math.min(CLAIM_BATCH, room));
      const won = await Promise.all(batch.map(([id, , holder]) => this.claim(id, holder).catch(() => false)));
      batch.forEach(([id, spec], k) => {
        if (!won[k] || this.running.has(id)) return;
        const run = { spec, holder: null, started: false, starting: null, pendingFault: null, failures: 0, retryAt: 0, startedAt: 0 };
        this.running.set(id, run);
        this.toStart.add(id);
        this.deps.log.info({ [this.deps.names.id]: id, host: this.hostId }, `lease host: claimed a ${this.deps.names.spec}`);
      });
    }
    this.launchDue();
  }

  /** Starts the claimed holders due to start (new, or past their backoff), as many as there are places. */
  private launchDue(): void {
    const now = this.clock.now();
    const places = this.deps.startsAtOnce ?? START_AT_ONCE;
    for (const id of this.toStart) {
      if (this.startsInFlight >= places || this.stopped || this.beatLeftMs() === 0) return;
      const run = this.running.get(id);
      if (run && !run.holder && !run.starting && now < run.retryAt) continue;
      this.toStart.delete(id);
      if (run && !run.holder && !run.starting) run.starting = this.launch(id, run);
    }
  }

  /** Holds a place among the starts; the returned function frees it (once), and the next due holder starts. */
  private takeStartPlace(): () => void {
    this.startsInFlight++;
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      clearTimeout(slow);
      this.startsInFlight--;
      // Coalesced: a burst of starts returning together starts the next ones in one scan.
      if (this.launchQueued) return;
      this.launchQueued = true;
      setImmediate(() => {
        this.launchQueued = false;
        this.launchDue();
      });
    };
    // Machine time, not the injected clock: this is about how loaded this machine is.
    const slow = setTimeout(free, this.deps.startSlotMs ?? START_SLOT_MS);
    slow.unref();
    return free;
  }

  /** Renews the heartbeat, or joins the renewal in flight. */
  private heartbeat(): Promise<boolean> {
    return (this.beating ??= this.renewBeat().finally(() => (this.beating = null)));
  }

  /**
   * Renews the heartbeat (creates it at first). False when it had expired: other hosts may have
   * taken this host's leases over, so every holder here stops, and a new heartbeat is created for
   * the next pass (which confirms the claims still this host's before running them again).
   */
  private async renewBeat(): Promise<boolean> {
    const renewed = await this.beat.renew().catch((err: unknown) => {
      this.deps.log.warn({ err }, 'lease host: renewing the heartbeat failed; trying again at the next pass');
      return 'unanswered' as const;
    });
    // Not answered (NATS away): the heartbeat may still live; the holders act until its time runs out.
    if (renewed !== 'expired') return renewed === 'renewed' || this.beatLeftMs() > 0;
    this.deps.log.warn(
      { host: this.hostId, running: this.running.size },
      `lease host: the heartbeat expired; stopping every ${this.deps.names.actor} before claiming again`,
    );
    for (const [id, run] of this.running) this.releaseBeside(id, run, false);
    return false;
  }

  /**
   * Claims a lease: creates its claim or, when one exists, takes it over by compare-and-set from
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
    if (other !== this.hostId && (await this.beat.isLive(other))) return false;
    return leases.update(id, record, current.revision).then(
      () => true,
      (err: unknown) => {
        if (err instanceof StaleRevisionError) return false;
        throw err;
      },
    );
  }

  /** Hands `count` leases over to the other hosts (those another host is preferred for first): released, their claims deleted. */
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

  /** Releases a lease without waiting for its holder; a spec that went away (`gone`) also has its claim deleted and its state forgotten; one handed over, its claim deleted. */
  private releaseBeside(id: string, run: Running<S, H>, gone: boolean, handedOver = false): void {
    const done = this.release(id, run, gone || handedOver)
      .then(() => (gone ? this.deps.forget?.(id) : undefined))
      .catch((err: unknown) =>
        this.deps.log.warn({ err, [this.deps.names.id]: id }, `lease host: releasing a ${this.deps.names.spec} failed`),
      )
      .finally(() => this.releasing.delete(id));
    this.releasing.set(id, done);
  }

  private async launch(id: string, run: Running<S, H>): Promise<void> {
    const freePlace = this.takeStartPlace();
    let holder: H | null = null;
    run.pendingFault = null;
    const lease: LeaseContext = {
      id,
      leaseLeftMs: () => this.leaseLeftMs(id),
      fence: () => this.fence.signal(),
      fault: (err) => {
        // A holder already stopped (faulted, released, replaced) reports into the void.
        if (holder === null || this.running.get(id) !== run || run.holder !== holder) return;
        if (run.started) this.fault(id, run, err);
        else run.pendingFault ??= err;
      },
    };
    try {
      holder = await this.deps.create(run.spec, lease);
      run.holder = holder;
      await holder.start();
      if (run.pendingFault !== null) throw run.pendingFault;
      if (this.running.get(id) !== run || this.stopped) {
        run.holder = null;
        await holder.stop();
        return;
      }
      run.started = true;
      run.startedAt = this.clock.now();
      this.onStarted(id, run);
    } catch (err) {
      run.holder = null;
      await holder?.stop().catch(() => undefined);
      if (this.running.get(id) === run) this.fault(id, run, err);
    } finally {
      run.starting = null;
      freePlace();
    }
  }

  /** Called once a holder's start has returned (ActorHost hands over the message that arrived meanwhile). */
  protected onStarted(_id: string, _run: Running<S, H>): void {}

  /** A faulted holder is stopped; a later pass starts a new one after the backoff. */
  protected fault(id: string, run: Running<S, H>, err: unknown): void {
    const { baseMs, maxMs } = this.deps.backoff ?? DEFAULT_BACKOFF;
    const now = this.clock.now();
    // A holder that ran well for the longest backoff before this fault starts over from the shortest.
    if (run.started && now - run.startedAt >= maxMs) run.failures = 0;
    run.failures++;
    this.faults++;
    run.retryAt = now + Math.min(maxMs, baseMs * 2 ** Math.min(16, run.failures - 1));
    this.deps.log.error(
      { err, [this.deps.names.id]: id, failures: run.failures },
      `${this.deps.names.actor} faulted; restarting it after a backoff`,
    );
    const holder = run.holder;
    run.holder = null;
    run.started = false;
    this.toStart.add(id);
    void holder?.stop().catch(() => undefined);
  }

  private async release(id: string, run: Running<S, H>, deleteLease: boolean): Promise<void> {
    this.running.delete(id);
    const waitMs = this.deps.stopWaitMs ?? STOP_WAIT_MS;
    const names = this.deps.names;
    if (!(await settledWithin(run.starting, waitMs))) {
      // launch() stops the holder once its start returns: the lease is no longer its own.
      this.deps.log.warn(
        { [names.id]: id, waited_ms: waitMs },
        `${names.actor} still starting; released without it, it stops when its start returns`,
      );
    } else {
      const holder = run.holder;
      run.holder = null;
      run.started = false;
      const stopping = holder?.stop().catch((err: unknown) => this.deps.log.warn({ err }, `${names.actor} stop failed`));
      if (!(await settledWithin(stopping ?? null, waitMs)))
        this.deps.log.warn({ [names.id]: id, waited_ms: waitMs }, `${names.actor} did not stop in time; released without waiting for it`);
    }
    if (deleteLease) await this.deleteClaim(id).catch(() => undefined);
    this.deps.log.info({ [names.id]: id }, `lease host: released a ${names.spec}`);
  }

  /** Deletes the claim of `id` if it is still this host's (after an unseen expiry another host may hold it now). */
  private async deleteClaim(id: string): Promise<void> {
    const current = await this.deps.leases.get(id);
    if (current?.value.host === this.hostId) await this.deps.leases.delete(id);
  }

  /**
   * Stops every holder. `graceful` releases the leases so another host takes over at once;
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
    this.fence.stop();
    if (graceful) await this.beat.end().catch(() => undefined);
  }
}
