import { setMaxListeners } from 'node:events';

/**
 * The signal that cuts off work in flight once a lease may have passed to another host: one
 * signal for every holder of a host (their leases all live by the host's one heartbeat), watched
 * by one timer that renewals move on, and a new signal after it fired (the heartbeat renewed
 * later). A timer and a controller per send or per holder cost a bar of thousands of webhooks
 * a sixth of delivery's CPU in Node's timer lists.
 */
export class LeaseFence {
  private controller: AbortController | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** `leftMs`: how long the lease surely lives on (0: it may have expired). */
  constructor(private readonly leftMs: () => number) {}

  /** Aborted once the lease may have run out; an aborted one when it may have already. */
  signal(): AbortSignal {
    if (this.controller && !this.controller.signal.aborted) return this.controller.signal;
    const controller = (this.controller = new AbortController());
    // Every holder's one listener on it, thousands of them: not a leak.
    setMaxListeners(0, controller.signal);
    this.watch();
    return controller.signal;
  }

  /** Looks again when the time seen last runs out (renewals move the end of the lease on). */
  private readonly watch = (): void => {
    this.timer = null;
    const controller = this.controller;
    if (!controller || controller.signal.aborted) return;
    const ms = this.leftMs();
    if (ms <= 0) controller.abort();
    // Unref'd: what it guards (a send in flight) holds the process itself.
    else this.timer = setTimeout(this.watch, ms).unref();
  };

  /** Ends it: whatever still holds its signal is cut off. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller?.abort();
  }
}
