import { Worker } from 'node:worker_threads';
import { RateLimitedError } from '../../errors.ts';
import { FairShare, type UserKey } from '../../lib/fair-share.ts';
import type { PineJob, PineJobResult } from '../job/job.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

export interface PinePoolOptions {
  /** The time of the penalties (liveClock unless a test sets it). */
  clock?: Clock;
  /** Worker threads (scripts run in parallel up to this many). */
  size: number;
  /** Wall-clock budget of one run; the worker is killed at twice this, plus a second. */
  wallMs: number;
  /** Jobs waiting beyond the running ones; past it a request gets 429. */
  maxQueue: number;
  /** Heap per worker, in MB: a script allocating past it kills only its worker. */
  heapMb: number;
  /** Nice value of the worker threads (0-19; 0 keeps the process's): scripts yield a core to the event loop. */
  nice: number;
  /** Runs of one user at once (default 1). */
  perUser?: number;
  /** Runs one user may have waiting; past it PoolFullError, answered 429 (default 4). */
  maxWaitingPerUser?: number;
  /** How long a user whose run used up its budget (steps, time, memory) is served only by an otherwise idle pool (default 10 min). */
  penaltyMs?: number;
  /**
   * Share of one worker's time a penalized user may use (default 0.02): a bucket of one full run
   * (`wallMs`) refilled at this rate; past it their calls are refused (429) until it refills.
   */
  penalizedShare?: number;
}

/** Runs that name no user share this key. */
export const PINE_SYSTEM_USER = 'system';
const PENALTY_MS = 10 * 60_000;
const PENALIZED_SHARE = 0.02;

interface Pending {
  job: PineJob;
  resolve(r: PineJobResult): void;
  stamps: PineRunStamps | undefined;
  /** When a worker took it (performance.now()). */
  startedAt?: number;
}

/** When a job left the queue for a worker (performance.now()), for the caller's stage timings. */
export interface PineRunStamps {
  dispatchedAt?: number;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  timer: NodeJS.Timeout | null;
}

const WORKER_URL = new URL('./worker-boot.mjs', import.meta.url);

/**
 * Worker threads that run Pine scripts, so a long or hostile script never blocks the event loop:
 * each run has a wall-clock limit inside the worker, and a worker that does not answer in time
 * (or dies) is terminated and replaced, its job answered as a script problem.
 *
 * The workers are shared fairly (lib/fair-share.ts): at most `perUser` runs of one user at once,
 * a free worker to the user served least recently, at most `maxWaitingPerUser` waiting per user
 * (then PoolFullError). A user whose run used up its budget (`exhausted`: steps, time, memory) is
 * served for `penaltyMs` only when no other run is in flight, so with two workers or more one
 * always stays free for everyone else, and meanwhile may use `penalizedShare` of one worker's
 * time (a bucket of one full run): past it, calls are refused with 429 until it refills. An endless
 * script back to back so takes a core for one run every ~2.5 min, not all the time.
 */
export class PinePool {
  private readonly slots: Slot[] = [];
  private readonly share: FairShare;
  /** Users whose run used up its budget → until when they are served last. */
  private readonly penalizedUntil = new Map<UserKey, number>();
  /** Worker ms a penalized user may still use (negative: overdrawn), as of `at`. */
  private readonly allowance = new Map<UserKey, { ms: number; at: number }>();
  private nextId = 1;
  private closed = false;

  private readonly clock: Clock;

  constructor(private readonly options: PinePoolOptions) {
    this.clock = options.clock ?? liveClock;
    this.share = new FairShare('the Pine workers', {
      slots: options.size,
      perUser: options.perUser ?? 1,
      maxWaitingPerUser: options.maxWaitingPerUser ?? 4,
      penalized: (user) => this.penalized(user),
    });
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn());
  }

  /**
   * Runs a script in a worker of the user's fair share. Throws PoolFullError when the user has
   * `maxWaitingPerUser` runs waiting, RateLimitedError when `maxQueue` wait over all users.
   */
  async run(job: Omit<PineJob, 'id' | 'wallMs'>, stamps?: PineRunStamps, user: UserKey = PINE_SYSTEM_USER): Promise<PineJobResult> {
    if (this.closed) return { id: 0, ok: false, failure: 'the Pine pool is closed' };
    if (this.share.queued >= this.options.maxQueue) {
      throw new RateLimitedError('too many custom indicators are running; retry in a few seconds', 2);
    }
    if (this.penalized(user)) {
      const left = this.allowanceOf(user);
      if (left.ms < 0) {
        const seconds = Math.ceil(-left.ms / this.penalizedShare() / 1000);
        throw new RateLimitedError(
          `your scripts used up their step or time budget lately, so for 10 minutes they get ${this.penalizedShare() * 100} % of a worker's time, which they have used: retry in ${seconds} s, with a lighter script`,
          seconds,
        );
      }
    }
    let release: () => void;
    try {
      release = await this.share.acquire(user);
    } catch (err) {
      if (this.closed) return { id: 0, ok: false, failure: 'the service is shutting down' };
      throw err;
    }
    if (this.closed) {
      release();
      return { id: 0, ok: false, failure: 'the service is shutting down' };
    }
    return new Promise((resolve) => {
      const pending: Pending = {
        job: { ...job, id: this.nextId++, wallMs: this.options.wallMs },
        stamps,
        resolve: (r) => {
          if (!r.ok && 'problem' in r && r.problem.exhausted) this.penalize(user);
          // A penalized user's worker time is drawn from their allowance.
          if (pending.startedAt !== undefined && this.penalized(user)) this.allowanceOf(user).ms -= performance.now() - pending.startedAt;
          release();
          resolve(r);
        },
      };
      // One slot per worker and each holds one run: a free worker is there.
      this.dispatch(
        this.slots.find((s) => !s.busy)!,
        pending,
      );
    });
  }

  /** Whether the user's runs wait for an idle pool (a run of theirs used up its budget lately). */
  penalized(user: UserKey): boolean {
    const until = this.penalizedUntil.get(user);
    if (until === undefined) return false;
    if (until > this.clock.now()) return true;
    this.penalizedUntil.delete(user);
    this.allowance.delete(user);
    return false;
  }

  private penalizedShare(): number {
    return this.options.penalizedShare ?? PENALIZED_SHARE;
  }

  /** The user's allowance, refilled up to one full run since it was last read. */
  private allowanceOf(user: UserKey): { ms: number; at: number } {
    const now = performance.now();
    let a = this.allowance.get(user);
    if (!a) this.allowance.set(user, (a = { ms: this.options.wallMs, at: now }));
    a.ms = Math.min(this.options.wallMs, a.ms + (now - a.at) * this.penalizedShare());
    a.at = now;
    return a;
  }

  private penalize(user: UserKey): void {
    const now = this.clock.now();
    this.penalizedUntil.set(user, now + (this.options.penaltyMs ?? PENALTY_MS));
    if (this.penalizedUntil.size > 10_000)
      for (const [u, until] of this.penalizedUntil) if (until <= now) (this.penalizedUntil.delete(u), this.allowance.delete(u));
  }

  /** Runs in flight and waiting, over all users (metrics, tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.share.inFlight, waiting: this.share.queued };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.share.rejectWaiting(new Error('the service is shutting down'));
    for (const slot of this.slots) slot.busy?.resolve({ id: slot.busy.job.id, ok: false, failure: 'the service is shutting down' });
    await Promise.all(this.slots.map((s) => this.retire(s, 'the service is shutting down')));
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, {
      workerData: { nice: this.options.nice },
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    worker.unref();
    const slot: Slot = { worker, busy: null, timer: null };
    worker.on('message', (r: PineJobResult) => this.settle(slot, r));
    // Out of memory is the script's doing (a huge array); any other crash is ours.
    worker.on('error', (err: Error & { code?: string }) =>
      err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? this.replace(slot, 'the script ran out of memory and was stopped; use smaller arrays', true, true)
        : this.replace(slot, `the Pine worker failed: ${err.message}`, false),
    );
    worker.on('exit', () => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, 'the Pine worker exited', false);
    });
    return slot;
  }

  private dispatch(slot: Slot, p: Pending): void {
    slot.busy = p;
    // Not counted as used up (`exhausted`): the interpreter stops itself at its limit, so this is
    // rarely the script alone (a worker booting on an overloaded host counts here too).
    slot.timer = setTimeout(
      () => this.replace(slot, 'the script ran past its time limit and was stopped; simplify it or shorten loops', true),
      this.options.wallMs * 2 + 1000,
    );
    p.startedAt = performance.now();
    if (p.stamps) p.stamps.dispatchedAt = p.startedAt;
    slot.worker.postMessage(p.job);
  }

  private settle(slot: Slot, r: PineJobResult): void {
    const p = slot.busy;
    if (!p || p.job.id !== r.id) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.busy = null;
    slot.timer = null;
    p.resolve(r);
  }

  /**
   * Kills a worker and starts another; its job (if any) is answered with `why` (a script problem
   * when `scriptsFault`, one that used up its budget when `exhausted`).
   */
  private replace(slot: Slot, why: string, scriptsFault: boolean, exhausted = false): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    const p = slot.busy;
    slot.busy = null;
    this.slots.splice(i, 1);
    void this.retire(slot, why);
    // The replacement first: the slot given back below may start a waiting run at once.
    if (!this.closed) this.slots.push(this.spawn());
    const problem = { message: why, line: 1, col: 1, construct: null, ...(exhausted ? { exhausted } : {}) };
    if (p) p.resolve(scriptsFault ? { id: p.job.id, ok: false, problem } : { id: p.job.id, ok: false, failure: why });
  }

  private async retire(slot: Slot, _why: string): Promise<void> {
    if (slot.timer) clearTimeout(slot.timer);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => {});
    await slot.worker.terminate().catch(() => {});
  }
}
