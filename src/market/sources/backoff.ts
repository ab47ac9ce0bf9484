/** Reconnect delays for a long-lived stream. */
export interface BackoffOptions {
  /** First delay (default 1 s). */
  initialMs: number;
  /** Ceiling (default 60 s). */
  maxMs: number;
  /** A connection that stayed up this long resets the delay to `initialMs` (default 30 s). */
  healthyAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 60_000, healthyAfterMs: 30_000 };

/**
 * Exponential backoff with "equal jitter": attempt n waits between half and all of
 * min(max, initial·2ⁿ). The jitter spreads out clients that lost the server at the same moment;
 * the half floor keeps a failing server from being hit again almost at once.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly options: BackoffOptions = DEFAULT_BACKOFF,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt; each call doubles the next one, up to the ceiling. */
  next(): number {
    const cap = Math.min(this.options.maxMs, this.options.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(cap / 2 + (this.random() * cap) / 2);
  }

  /** Called when a connection ends: forget past failures if it had been healthy long enough. */
  connectionEnded(upForMs: number): void {
    if (upForMs >= this.options.healthyAfterMs) this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
