/**
 * How actors run: the one actor contract, the host that runs one actor per desired spec across
 * processes (leases, restarts with backoff, faulting), and the clock (live or replay).
 */
export type { Actor, ActorStats } from './actor.ts';
export { ActorHost, openClaims, type ActorHostDeps, type BackoffPolicy, type DesiredActors } from './actor-host.ts';
export { liveClock, ReplayClock, type Clock } from './clock.ts';
export { LEASE_TTL_SECONDS } from '../../schemas/messages.ts';
