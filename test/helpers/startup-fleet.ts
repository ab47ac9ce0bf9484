/**
 * Role processes started together on a NATS cluster, for the start-up test and bench: each one's
 * health endpoint found from its log, all polled until `/_readyz` answers 200 (what they said while
 * waiting kept), any exit before that reported with the process's last lines.
 */
import { join } from 'node:path';
import { connectBus, type Bus } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import type { NatsCluster } from './nats-cluster.ts';
import { startRole, type RoleProcess } from './role-process.ts';

/** One of every role of the distributed layout. */
export const EVERY_ROLE = ['store', 'edge', 'trainer', 'actors', 'delivery', 'ingest'] as const;
/** The 11: the data owner and two of every other role. */
export const ELEVEN_ROLES = ['store', ...EVERY_ROLE.slice(1).flatMap((r) => [r, r])];

/** What every role of the fleet shares: a 3-node layout, light on a shared machine. */
export function fleetEnv(dataDir: string): Record<string, string> {
  return {
    NATS_REPLICAS: '3',
    HOST: '127.0.0.1',
    PORT: '0',
    HEALTH_PORT: '0',
    STRATEGY_WORKERS: '1',
    TRAIN_CONCURRENCY: '1',
    SCORER_PROCESSES: '1',
    // The feed is not under test here: no seeded synthetic history to build at start.
    MARKET_FEED: 'none',
    DATA_DIR: join(dataDir, 'store'),
    ...(process.env.SANDBOX ? { SANDBOX: process.env.SANDBOX } : {}),
  };
}

export interface FleetMember {
  process: RoleProcess;
  /** From its first 'health endpoint listening' line. */
  health: string | null;
  /** Since its spawn, when /_readyz first answered 200. */
  readyMs: number | null;
  /** Every distinct `waiting_for` its /_readyz answered while starting. */
  waitedFor: Set<string>;
}

export interface Fleet {
  members: FleetMember[];
  /** Polls every member's /_readyz until all answer 200; the time from spawn to the last one (ms). Throws when one exits first. */
  allReady(timeoutMs: number): Promise<number>;
  /** Start-up retries the members logged (warn lines naming a step), by member. */
  retries(): number[];
  /** Of those, the role's whole start begun again (a failure outside the bus's steps), by member. */
  restarts(): number[];
  /** SIGTERM to all, each exit awaited (SIGKILL past `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function healthOf(p: RoleProcess): string | null {
  for (const line of p.lines) {
    if (!line.includes('health endpoint listening')) continue;
    try {
      return (JSON.parse(line) as { health?: string }).health ?? null;
    } catch {
      // a partial line: the next poll reads it whole
    }
  }
  return null;
}

/** Spawns every role of `roles` at once on `natsUrl` with `env`. */
export function startFleet(natsUrl: string, roles: readonly string[], env: Record<string, string>): Fleet {
  const spawned = performance.now();
  const members: FleetMember[] = roles.map((role) => ({
    process: startRole(role, natsUrl, env),
    health: null,
    readyMs: null,
    waitedFor: new Set(),
  }));
  const code: Array<number | null | undefined> = members.map(() => undefined);
  members.forEach((m, i) => void m.process.exited.then((c) => (code[i] = c)));
  return {
    members,
    async allReady(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        await Promise.all(
          members.map(async (m, i) => {
            if (m.readyMs !== null) return;
            if (code[i] !== undefined) {
              throw new Error(
                `signalforge ${m.process.role} exited (${code[i]}) before it was ready:\n${m.process.lines.slice(-15).join('\n')}`,
              );
            }
            m.health ??= healthOf(m.process);
            if (!m.health) return;
            try {
              const res = await fetch(`${m.health}/_readyz`, { signal: AbortSignal.timeout(5_000) });
              const body = (await res.json()) as { waiting_for?: string[] };
              if (res.status === 200) m.readyMs = Math.round(performance.now() - spawned);
              else for (const w of body.waiting_for ?? []) m.waitedFor.add(w);
            } catch {
              // the edge hands its port from the start-up's endpoint to the app: a moment unanswered
            }
          }),
        );
        if (members.every((m) => m.readyMs !== null)) return Math.max(...members.map((m) => m.readyMs!));
        if (performance.now() > deadline) {
          const late = members
            .filter((m) => m.readyMs === null)
            .map((m) => `${m.process.role} (waiting for ${[...m.waitedFor].join(', ') || '?'})`);
          throw new Error(`not ready within ${timeoutMs} ms: ${late.join('; ')}`);
        }
        await sleep(250);
      }
    },
    retries: () => members.map((m) => m.process.lines.filter((l) => l.includes('"level":40') && l.includes('"retry_in_ms"')).length),
    restarts: () =>
      members.map(
        (m) => m.process.lines.filter((l) => l.includes('"level":40') && l.includes('"retry_in_ms"') && l.includes('"role":')).length,
      ),
    async stop(graceMs = 30_000) {
      await Promise.all(
        members.map(async (m, i) => {
          if (code[i] !== undefined) return;
          m.process.child.kill('SIGTERM');
          const timer = setTimeout(() => m.process.child.kill('SIGKILL'), graceMs);
          await m.process.exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}

/**
 * Waits until every stream of the cluster has a leader and every replica is current: a node just
 * restarted has caught up, so taking another one down leaves every stream its quorum.
 */
export async function clusterSettled(cluster: NatsCluster, timeoutMs = 120_000): Promise<void> {
  const bus: Bus = await connectBus(cluster.url, 'settle', createLogger('silent'));
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const unsettled: string[] = [];
        for await (const s of bus.jsm.streams.list()) {
          const replicas = s.cluster?.replicas ?? [];
          if (!s.cluster?.leader || replicas.some((r) => !r.current || r.offline)) unsettled.push(s.config.name);
        }
        if (unsettled.length === 0) return;
        if (Date.now() > deadline) throw new Error(`streams not settled within ${timeoutMs} ms: ${unsettled.join(', ')}`);
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      await sleep(500);
    }
  } finally {
    await bus.nc.close();
  }
}
