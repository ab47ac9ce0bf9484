/**
 * Time as actors see it. Live, it is the machine's clock; in replay, a test or a backtest moves it
 * by hand, so the same actor code runs over history and gives the same results — live and
 * replay differ only here.
 */
export interface Clock {
  /** Epoch ms. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  /** Resolves `ms` from now. */
  sleep(ms: number): Promise<void>;
}

/** The machine's clock. Its timers do not keep the process alive. */
export const liveClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * A clock that reads its time from `now` (a test's settable time) and keeps the machine's timers:
 * for modules that only read the time, where a test wants to say what time it is.
 */
export const clockAt = (now: () => number): Clock => ({ ...liveClock, now });

interface Timer {
  due: number;
  /** 0 for a one-off (sleep). */
  period: number;
  fn: () => void;
}

/**
 * A clock that moves only when told (`advanceTo`, `advanceBy`); the timers that fall due on the
 * way fire in time order, each seeing `now()` at its own due time.
 */
export class ReplayClock implements Clock {
  private readonly timers = new Set<Timer>();

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  every(ms: number, fn: () => void): () => void {
    const timer: Timer = { due: this.current + ms, period: Math.max(1, ms), fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timers.add({ due: this.current + Math.max(0, ms), period: 0, fn: resolve });
    });
  }

  /** Moves to `ts` (never back), firing what falls due on the way. */
  advanceTo(ts: number): void {
    for (;;) {
      let next: Timer | null = null;
      for (const t of this.timers) if (t.due <= ts && (!next || t.due < next.due)) next = t;
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      if (next.period > 0) next.due += next.period;
      else this.timers.delete(next);
      next.fn();
    }
    this.current = Math.max(this.current, ts);
  }

  advanceBy(ms: number): void {
    this.advanceTo(this.current + ms);
  }
}
