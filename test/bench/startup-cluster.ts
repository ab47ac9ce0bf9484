/**
 * startup-cluster: how long roles take to be ready (/_readyz 200) when started in any state of a
 * real 3-node NATS cluster (issue 36). The functional test (test/roles/startup-any-cluster-state.test.ts)
 * checks that none exits and all become ready; the figures are here:
 *   eleven-at-once   the store and two of every other role spawned together on a fresh cluster
 *   all-nodes-up     one of every role (the store on the state the first run made) spawned
 *                    together on the healthy cluster: the baseline of the next three
 *   node-down-nN     the same with node nN SIGKILLed, for each node in turn
 * Each figure: spawn → the last role ready (ms), each role's time, the start-up retries they
 * logged (and of those, whole starts begun again), and every step their /_readyz named as under
 * way meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster } from '../helpers/nats-cluster.ts';
import { clusterSettled, ELEVEN_ROLES, EVERY_ROLE, fleetEnv, startFleet, type Fleet } from '../helpers/startup-fleet.ts';
import type { BenchResult, Benchmark } from './lib/types.ts';

const READY_TIMEOUT_MS = 600_000;

function figure(name: string, allReadyMs: number, fleet: Fleet): BenchResult {
  const retries = fleet.retries();
  return {
    name,
    roles: fleet.members.length,
    all_ready_ms: allReadyMs,
    ready_ms: Object.fromEntries(fleet.members.map((m, i) => [`${m.process.role}#${i}`, m.readyMs])),
    retries_total: retries.reduce((a, b) => a + b, 0),
    retries_max: Math.max(...retries),
    // A role's whole start begun again: a request outside the bus's steps that timed out.
    role_restarts: fleet.restarts().reduce((a, b) => a + b, 0),
    readyz_waiting_for_seen: [...new Set(fleet.members.flatMap((m) => [...m.waitedFor]))].sort(),
  };
}

export const benchmark: Benchmark = {
  name: 'startup-cluster',
  description:
    'time to all-ready of roles started on a real 3-node NATS cluster: 11 at once on a fresh cluster, then one of each with each node down in turn',
  async run(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'sf-bench-startup-'));
    ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
    const cluster = await startNatsCluster(3);
    ctx.defer(() => cluster.stop());
    const results: BenchResult[] = [];
    const run = async (name: string, roles: readonly string[]) => {
      const fleet = startFleet(cluster.url, roles, fleetEnv(dir));
      ctx.defer(() => fleet.stop(5_000));
      try {
        const ms = await fleet.allReady(READY_TIMEOUT_MS);
        results.push(figure(name, ms, fleet));
        ctx.log(`startup-cluster: ${name}: ${roles.length} roles ready in ${ms} ms`);
      } finally {
        await fleet.stop();
      }
    };
    await run('eleven-at-once', ELEVEN_ROLES);
    await clusterSettled(cluster);
    await run('all-nodes-up', EVERY_ROLE);
    for (const down of [0, 1, 2]) {
      await clusterSettled(cluster);
      await cluster.kill(down);
      try {
        await run(`node-down-n${down + 1}`, EVERY_ROLE);
      } finally {
        await cluster.restart(down);
      }
    }
    return results;
  },
};
