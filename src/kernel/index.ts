/**
 * How hosted things run: one lease mechanism (claims in `sf_claims` kept by one heartbeat per host
 * in `sf_hosts`) under two kinds of hosted things. A LeaseHost runs lease holders that pull their
 * own input and report their faults; an ActorHost (a LeaseHost) runs fed actors and dispatches
 * messages to them. Both restart what faults after a backoff. The clock is src/lib/clock.ts.
 */
export type { Actor, ActorStats } from './actor.ts';
export type { LeaseContext, LeaseHolder } from './lease-holder.ts';
export { openClaims, type Claims } from './claims.ts';
export { LeaseFence } from './lease-fence.ts';
export { LeaseHost, type BackoffPolicy, type DesiredActors, type LeaseHostDeps } from './lease-host.ts';
export { ActorHost, type ActorHostDeps } from './actor-host.ts';
export { LEASE_TTL_SECONDS } from '../../schemas/messages.ts';
