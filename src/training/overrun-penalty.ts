import { liveClock, type Clock } from '../lib/clock.ts';

/**
 * Users whose strategy ran past its time budget lately (an endless loop, a runaway feature): for
 * a while the trainer starts their jobs only when it runs nothing else, and those jobs run at the
 * lowest CPU priority (nice 19), so one user submitting endless loops back to back takes only the
 * time nobody else wants and another user's fit keeps its speed. Per trainer process;
 * src/training/README.md documents it.
 */
export const OVERRUN_WINDOW_MS = 10 * 60_000;
export const OVERRUN_NICE = 19;

export class OverrunPenalty {
  private readonly until = new Map<number, number>();

  private readonly clock: Clock;

  constructor(
    private readonly windowMs = OVERRUN_WINDOW_MS,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  /** A job of the user ran past its budget: the penalty runs from now. */
  overran(userId: number): void {
    const now = this.clock.now();
    this.until.set(userId, now + this.windowMs);
    if (this.until.size > 10_000) for (const [user, end] of this.until) if (end <= now) this.until.delete(user);
  }

  /** Whether the user's jobs overran lately (the trainer starts them only when nothing else runs). */
  penalized(userId: number): boolean {
    return this.niceFor(userId) > 0;
  }

  /** The niceness the user's next job runs at: OVERRUN_NICE inside the window, else 0. */
  niceFor(userId: number): number {
    const end = this.until.get(userId);
    if (end === undefined) return 0;
    if (end > this.clock.now()) return OVERRUN_NICE;
    this.until.delete(userId);
    return 0;
  }
}
