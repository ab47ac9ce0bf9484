/** A job pulled from the queue and not started yet. */
export interface WaitingJob<M> {
  msg: M;
  jobId: number;
  userId: number;
  /** Its place in the queue (stream sequence): first come, first served among equals. */
  seq: number;
}

/**
 * The trainer's jobs pulled but not started, and the rule for which starts next: a user runs
 * at most `perUser` jobs at once, and among the users under that limit the one served least
 * recently goes first (a user never served, or back after a pause, goes before one who just
 * was); one user's jobs keep their queue order. So a user with a full queue gets one slot, and
 * every other user with a job waiting gets the next free one. A `penalized` user (whose jobs
 * overran lately) is served only when nothing else runs and nobody else waits.
 */
export class WaitingRoom<M> {
  private readonly held: WaitingJob<M>[] = [];
  private readonly running = new Map<number, number>();
  /** Users with a job held or running → when their last job started (a serial, not a time). */
  private readonly lastStart = new Map<number, number>();
  private serial = 0;

  constructor(
    private readonly perUser: number,
    private readonly penalized: (userId: number) => boolean = () => false,
  ) {}

  get size(): number {
    return this.held.length;
  }

  /** Whether a job is held here (a second delivery of it is not held twice). */
  holds(jobId: number): boolean {
    return this.held.some((w) => w.jobId === jobId);
  }

  add(job: WaitingJob<M>): void {
    this.held.push(job);
  }

  /** The job to start now, taken out of the room and counted as its user's running job; null when none may start. */
  next(): WaitingJob<M> | null {
    let best: WaitingJob<M> | null = null;
    let bestLow = false;
    const busy = this.running.size > 0;
    for (const w of this.held) {
      if ((this.running.get(w.userId) ?? 0) >= this.perUser) continue;
      const low = this.penalized(w.userId);
      if (low && busy) continue;
      if (!best || (bestLow && !low)) [best, bestLow] = [w, low];
      else if (low === bestLow) {
        const a = this.lastStart.get(w.userId) ?? -1;
        const b = this.lastStart.get(best.userId) ?? -1;
        if (a < b || (a === b && w.seq < best.seq)) best = w;
      }
    }
    if (!best) return null;
    this.held.splice(this.held.indexOf(best), 1);
    this.running.set(best.userId, (this.running.get(best.userId) ?? 0) + 1);
    this.lastStart.set(best.userId, ++this.serial);
    return best;
  }

  /** A job `next` handed out has ended (done, failed or put back). */
  finished(userId: number): void {
    const left = (this.running.get(userId) ?? 1) - 1;
    if (left > 0) this.running.set(userId, left);
    else this.running.delete(userId);
    // A user with nothing here is forgotten: the map stays as small as the room.
    if (left <= 0 && !this.held.some((w) => w.userId === userId)) this.lastStart.delete(userId);
  }

  /** The held messages (heartbeats). */
  messages(): M[] {
    return this.held.map((w) => w.msg);
  }

  /** Empties the room, returning what it held (to put back on the queue). */
  drain(): M[] {
    return this.held.splice(0).map((w) => w.msg);
  }
}
