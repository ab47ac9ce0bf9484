/**
 * How actors run: the one actor contract, the host that runs one actor per desired spec across
 * processes (leases, restarts with backoff, faulting). The clock is src/lib/clock.ts.
 */
export type { Actor, ActorStats } from './actor.ts';
export { ActorHost, openClaims, type ActorHostDeps, type BackoffPolicy, type DesiredActors } from './actor-host.ts';
export { LEASE_TTL_SECONDS } from '../../schemas/messages.ts';
