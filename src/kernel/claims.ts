import { createHash } from 'node:crypto';
import { openBucket, type Bus, type JsonKv } from '../bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';

/** The two buckets every lease host claims through: the claims and the hosts' heartbeats. */
export interface Claims {
  /** Claims: lease id → the host holding it (no expiry; valid while that host's heartbeat lives). */
  leases: JsonKv<typeof Buckets.leases.schema>;
  /** Heartbeats: `<kind>.<host id>` → alive, expiring after LEASE_TTL_SECONDS unless renewed. */
  hosts: JsonKv<typeof Buckets.hosts.schema>;
}

/** Opens the claims and the heartbeats (`sf_claims`, `sf_hosts`; the heartbeats on the bus's priority connection). */
export async function openClaims(bus: Bus, replicas: number): Promise<Claims> {
  // A heartbeat read as gone lets another host take the claims over: that read is the leader's (openBucket),
  // never a replica's that is behind (it may have dropped an old heartbeat by TTL before the renewal reached it).
  const [leases, hosts] = await Promise.all([
    openBucket(bus, Buckets.leases, replicas),
    bus.priority().then((beats) => openBucket(beats, Buckets.hosts, replicas)),
  ]);
  return { leases, hosts };
}

/** Rendezvous hashing: the host a group prefers among the live ones (every host computes the same). */
export function preferredHost(group: string, hosts: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const host of hosts) {
    const score = createHash('sha1').update(`${group}|${host}`).digest().readUInt32BE(0);
    if (score > bestScore || (score === bestScore && host < best!)) [best, bestScore] = [host, score];
  }
  return best;
}
