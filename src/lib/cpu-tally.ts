/**
 * Each user's recent use of a pool's CPU, in CPU seconds: charged as each piece of work ends,
 * decaying by half every `halfLifeMs`, so what a user ran a minute ago counts half as much as what
 * they ran just now, and an idle user's tally fades away. Work still running counts too, at one
 * core for its wall time so far, until its end replaces that with what it measured. The strategy
 * runtime orders its fair queue by it (fair-share.ts `usage`): the lightest user goes first.
 */
import type { UserKey } from './fair-share.ts';

/** Half-life of a charge: about the length of a long train job, so a train of them adds up. */
export const CPU_HALF_LIFE_MS = 60_000;
/** Users whose tally decayed below this (CPU seconds) are forgotten when the map grows. */
const FORGET_BELOW_S = 0.001;
const PRUNE_ABOVE = 1024;

export class CpuTally {
  private readonly charged = new Map<UserKey, { seconds: number; at: number }>();
  private readonly running = new Map<UserKey, Set<{ since: number }>>();

  constructor(
    private readonly halfLifeMs = CPU_HALF_LIFE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The user's work starts. End it with the CPU seconds it used; `null` (not measured: the
   * process running it died) charges its wall time instead. Ending it twice charges once.
   */
  begin(user: UserKey): (cpuSeconds: number | null) => void {
    const job = { since: this.now() };
    const jobs = this.running.get(user) ?? new Set();
    jobs.add(job);
    this.running.set(user, jobs);
    let ended = false;
    return (cpuSeconds) => {
      if (ended) return;
      ended = true;
      jobs.delete(job);
      if (jobs.size === 0 && this.running.get(user) === jobs) this.running.delete(user);
      this.charge(user, cpuSeconds ?? (this.now() - job.since) / 1000);
    };
  }

  /** Adds CPU seconds to the user's tally. */
  charge(user: UserKey, seconds: number): void {
    if (!(seconds > 0)) return;
    const t = this.now();
    this.charged.set(user, { seconds: this.decayed(user, t) + seconds, at: t });
    if (this.charged.size > PRUNE_ABOVE) {
      for (const key of this.charged.keys()) if (this.decayed(key, t) < FORGET_BELOW_S) this.charged.delete(key);
    }
  }

  /** CPU seconds the user used lately (decayed), their running work counted at one core so far. */
  usage(user: UserKey): number {
    const t = this.now();
    let seconds = this.decayed(user, t);
    for (const job of this.running.get(user) ?? []) seconds += (t - job.since) / 1000;
    return seconds;
  }

  private decayed(user: UserKey, t: number): number {
    const c = this.charged.get(user);
    return c ? c.seconds * 2 ** (-(t - c.at) / this.halfLifeMs) : 0;
  }
}
