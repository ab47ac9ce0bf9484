/**
 * Fair shares of one pool of workers (sandbox zygotes, Pine workers, model scorers) among the
 * users who wait for it. The rule, the same for every pool:
 * - at most `slots` pieces of work run at once, and at most `perUser` of one user's;
 * - a free slot goes to the waiting user who used the pool least lately, when the pool measures
 *   that (`usage`: the strategy runtime counts CPU seconds), so a light user's request goes ahead
 *   of a heavy user's waiting ones; otherwise, and between equals, to the user served least
 *   recently (one never served, or back after a pause, before one who just was); one user's
 *   requests keep their order;
 * - a `penalized` user (whose work overran its budget lately) is served only when nobody else
 *   waits, so an abuser gets the time no one wants;
 * - a user with `maxWaitingPerUser` requests already waiting is refused at once (PoolFullError):
 *   overload is shed at the door, not queued until every caller times out.
 * So one user flooding a pool holds `perUser` slots and a bounded queue, and every other user's
 * next request starts at the next free slot.
 */

export type UserKey = string | number;

export interface FairShareOptions {
  /** Work that runs at once, over all users. */
  slots: number;
  /** Work one user runs at once (default 1). */
  perUser?: number;
  /** Requests one user may have waiting before more are refused (default 64). */
  maxWaitingPerUser?: number;
  /** Users served only when nobody else waits (their work overran lately). */
  penalized?: (user: UserKey) => boolean;
  /** How much of the pool the user used lately (any unit, e.g. decaying CPU seconds): the least goes first. */
  usage?: (user: UserKey) => number;
}

/** A user already has as many requests waiting for this pool as it takes. */
export class PoolFullError extends Error {
  override name = 'PoolFullError';
  constructor(
    readonly pool: string,
    readonly waiting: number,
  ) {
    super(`${pool} is busy with ${waiting} of your requests already waiting; wait for them before sending more`);
  }
}

/** Gives the slot back; calling it twice gives it back once. */
export type Release = () => void;

interface Waiter {
  user: UserKey;
  start: (release: Release) => void;
  fail: (err: Error) => void;
}

export class FairShare {
  private readonly waiting = new Map<UserKey, Waiter[]>();
  private readonly running = new Map<UserKey, number>();
  /** User → the serial of their last start; a user with nothing running or waiting is forgotten. */
  private readonly lastStart = new Map<UserKey, number>();
  private serial = 0;
  private active = 0;
  private readonly perUser: number;
  private readonly maxWaiting: number;

  constructor(
    /** The pool's name in refusals ("the strategy runtime", "the Pine workers"). */
    readonly name: string,
    private readonly options: FairShareOptions,
  ) {
    this.perUser = options.perUser ?? 1;
    this.maxWaiting = options.maxWaitingPerUser ?? 64;
  }

  /** Waits for a slot for the user's work; the Release ends it. Throws PoolFullError when the user's queue is full. */
  acquire(user: UserKey): Promise<Release> {
    const queue = this.waiting.get(user) ?? [];
    if (queue.length >= this.maxWaiting) return Promise.reject(new PoolFullError(this.name, queue.length));
    return new Promise<Release>((start, fail) => {
      queue.push({ user, start, fail });
      this.waiting.set(user, queue);
      this.pump();
    });
  }

  /** Runs `work` in a slot of the user's. */
  async run<T>(user: UserKey, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(user);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Fails every waiting request (the pool is stopping); running work keeps its slots. */
  rejectWaiting(err: Error): void {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const w of all) w.fail(err);
  }

  /** Work running now, over all users. */
  get inFlight(): number {
    return this.active;
  }

  /** Requests waiting now, over all users. */
  get queued(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  /** The user's work running now (tests, metrics). */
  runningFor(user: UserKey): number {
    return this.running.get(user) ?? 0;
  }

  /** The user's requests waiting now. */
  waitingFor(user: UserKey): number {
    return this.waiting.get(user)?.length ?? 0;
  }

  private pump(): void {
    while (this.active < this.options.slots) {
      const user = this.pick();
      if (user === null) return;
      const queue = this.waiting.get(user)!;
      const w = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(user);
      this.active++;
      this.running.set(user, (this.running.get(user) ?? 0) + 1);
      this.lastStart.set(user, ++this.serial);
      w.start(this.releaser(user));
    }
  }

  /** The waiting user to serve next, or null when none may start. */
  private pick(): UserKey | null {
    let best: UserKey | null = null;
    let bestLow = false;
    let bestUsage = 0;
    for (const user of this.waiting.keys()) {
      if ((this.running.get(user) ?? 0) >= this.perUser) continue;
      const low = this.options.penalized?.(user) ?? false;
      const usage = this.options.usage?.(user) ?? 0;
      if (best === null || (bestLow && !low)) [best, bestLow, bestUsage] = [user, low, usage];
      else if (
        low === bestLow &&
        (usage < bestUsage || (usage === bestUsage && (this.lastStart.get(user) ?? -1) < (this.lastStart.get(best) ?? -1)))
      ) {
        [best, bestUsage] = [user, usage];
      }
    }
    // A penalized user runs only on an otherwise idle pool.
    if (best !== null && bestLow && this.active > 0) return null;
    return best;
  }

  private releaser(user: UserKey): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      const left = (this.running.get(user) ?? 1) - 1;
      if (left > 0) this.running.set(user, left);
      else {
        this.running.delete(user);
        if (!this.waiting.has(user)) this.lastStart.delete(user);
      }
      this.pump();
    };
  }
}
