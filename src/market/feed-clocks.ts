import type { TickClock } from '../../schemas/market.ts';

/** How often a feed publisher tells its clock for each symbol it publishes. */
export const CLOCK_EVERY_MS = 500;

/**
 * How long a publisher's clock counts after it was last heard. A publisher held up longer, gone
 * or handed its feed over no longer holds bars open: past this, the reader's own clock rules
 * again. Long enough for a JetStream publish to ride out a NATS node failing over, and for a
 * feed's take-over (≤ ~8 s after a SIGKILL) to deliver the ticks of its seconds.
 */
export const CLOCK_SILENT_MS = 15_000;

/**
 * The clocks of a symbol's tick publishers, as one reader of the TICKS stream hears them
 * (`TickClock`): up to when every publisher still running has its ticks stored. A bar may close
 * without a later tick only once that time is past its end (plus the grace time): then no tick
 * of it can still be on its way, however long a publisher was held up before.
 */
export class FeedClocks {
  private readonly heard = new Map<string, { until: number; at: number }>();
  /** When this reader last heard any clock, or started listening. */
  private lastHeard: number;

  constructor(
    startedAt: number,
    private readonly silentMs = CLOCK_SILENT_MS,
  ) {
    this.lastHeard = startedAt;
  }

  /** Takes one clock heard at `now` (this reader's wall clock); a clock never goes back. */
  hear(clock: TickClock, now: number): void {
    const prev = this.heard.get(clock.publisher);
    this.heard.set(clock.publisher, { until: Math.max(prev?.until ?? Number.NEGATIVE_INFINITY, clock.until), at: now });
    this.lastHeard = Math.max(this.lastHeard, now);
  }

  /**
   * The least clock of the publishers heard within the silent time: every tick stamped before it
   * is in the stream. -Infinity while none is heard but one may still speak: a reader that has
   * just started (or whose publishers all fell silent) cannot tell a publisher held up — silent
   * because its clock waits behind its publishes — from none at all. Null once nothing was heard
   * for the silent time: publishers that tell no clock (outside feeds on core NATS), and then the
   * reader's own clock is all there is.
   */
  until(now: number): number | null {
    let least: number | null = null;
    for (const [publisher, { until, at }] of this.heard) {
      if (now - at > this.silentMs) this.heard.delete(publisher);
      else if (least === null || until < least) least = until;
    }
    if (least !== null) return least;
    return now - this.lastHeard > this.silentMs ? null : Number.NEGATIVE_INFINITY;
  }
}
