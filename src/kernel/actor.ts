import type { ActorStats, LeaseHolder } from './lease-holder.ts';

export type { ActorStats };

/**
 * A fed actor (the model actor, the tracker shard): a lease holder its host hands messages to.
 * `start` loads what it needs and resumes where a previous run stopped; `handle` takes one
 * message (a bar's open time, a change of entries); `stop` lets what is in flight finish. A
 * `handle` or `start` that throws faults the actor: its host stops it and starts a new one after a
 * backoff — it never silently continues. What pulls its own input is a plain LeaseHolder.
 */
export interface Actor<M> extends LeaseHolder {
  start(): Promise<void>;
  handle(message: M): Promise<void>;
  stop(): Promise<void>;
  stats(): ActorStats;
}
