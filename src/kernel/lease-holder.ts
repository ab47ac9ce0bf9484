/** What a hosted thing reports of itself: counters and gauges, JSON as they are (for /_metrics, benchmarks and tests). */
export type ActorStats = object;

/**
 * Something that runs while its host holds its lease and pulls its own input (a symbol's ticks
 * from the stream, a feed's connection, a deployment's signals): the host starts it once the
 * lease is claimed and stops it when the lease goes. It has no `handle`: a fault it finds on its
 * own (a store write that failed, a stream that broke) it reports through `LeaseContext.fault`,
 * and the host stops it and starts a new one after a backoff, as for a `start` that throws.
 */
export interface LeaseHolder {
  start(): Promise<void>;
  stop(): Promise<void>;
  stats?(): ActorStats;
}

/** What the host gives a holder it creates: its lease and the way to report a fault. */
export interface LeaseContext {
  /** The lease id (its claim key in `sf_claims`). */
  readonly id: string;
  /** How long (ms) the holder may still act on its lease; 0 once it may have passed to another host. */
  leaseLeftMs(): number;
  /**
   * Aborted once the lease may have passed to another host (this host's heartbeat ran out): work in
   * flight on it is cut off. Shared by the host's holders; a holder released while its host lives
   * cuts its own work off before its stop ends (the claim is released only after).
   */
  fence(): AbortSignal;
  /** Faults the holder: the host stops it and starts a new one after a backoff. Calls after that are ignored. */
  fault(err: unknown): void;
}
