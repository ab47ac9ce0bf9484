/** What an actor reports of itself: counters and gauges, JSON as they are (for /_metrics, benchmarks and tests). */
export type ActorStats = object;

/**
 * The one shape every actor has (bar builder, trainer, model, delivery, recorder). `start`
 * subscribes or loads what it needs and resumes where a previous run stopped; `handle` takes one
 * message of what it subscribes to (a bar, a job, a signal, a batch of ticks); `stop` lets what is
 * in flight finish or hands it back. A `handle` or `start` that throws faults the actor: its host
 * stops it and starts a new one after a backoff — it never silently continues.
 */
export interface Actor<M> {
  start(): Promise<void>;
  handle(message: M): Promise<void>;
  stop(): Promise<void>;
  stats(): ActorStats;
}
