/**
 * The failover tests' ground: a real nats-server with the SIGNALS stream and the deployments
 * bucket, and `signalforge delivery` processes started on it as children (killed and cleaned up
 * after the suite). `twoProcesses` starts two that share the given deployments by lease and
 * knows which one holds what, so a test can kill the busier one and check the survivor took all.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { connectBus, ensureStream, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { Buckets, Streams } from '../../schemas/messages.ts';
import { startRole, type RoleProcess } from '../helpers/role-process.ts';
import { log, waitFor } from './harness.ts';

export interface ProcessCluster {
  readonly nats: EmbeddedNats;
  readonly bus: Bus;
  readonly deployments: JsonKv<typeof Buckets.deployments.schema>;
  /** Starts a delivery process on the cluster (killed after the suite). */
  start(env: Record<string, string>): RoleProcess;
}

/** Registers the suite's before/after; the fields are set once `before` has run. */
export function processCluster(name: string): ProcessCluster {
  let dir: string;
  const children: ChildProcess[] = [];
  const cluster = {
    start(env: Record<string, string>) {
      const role = startRole('delivery', cluster.nats.url, env);
      children.push(role.child);
      return role;
    },
  } as ProcessCluster & { nats: EmbeddedNats; bus: Bus; deployments: ProcessCluster['deployments'] };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), `sf-${name}-`));
    cluster.nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats'), log });
    cluster.bus = await connectBus(cluster.nats.url, `${name}-test`, log);
    await ensureStream(cluster.bus, Streams.signals);
    cluster.deployments = await openBucket(cluster.bus, Buckets.deployments);
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await cluster.bus?.close();
    await cluster.nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return cluster;
}

export interface TwoProcesses {
  /** The host holding each deployment's lease now (null: none). */
  holders(): Promise<Array<string | null>>;
  /** Kills (SIGKILL, no goodbye) the process holding the most deployments; resolves with the survivor's host. */
  killBusier(): Promise<string>;
}

/**
 * Two delivery processes sharing `deployed`. With `firstClaimsAll`, the second starts only once the
 * first holds every deployment (so the one killed has work in hand); else both start at once and
 * this waits until every deployment is held by one of them.
 */
export async function twoProcesses(
  cluster: ProcessCluster,
  deployed: readonly DeploymentRecord[],
  env: Record<string, string>,
  firstClaimsAll: boolean,
): Promise<TwoProcesses> {
  const leases = await openBucket(cluster.bus, Buckets.leases);
  const holders = async () => Promise.all(deployed.map(async (d) => (await leases.get(`delivery.${d.deployment_id}`))?.value.host ?? null));
  const first = cluster.start(env);
  const firstHost = (await first.running()).host as string;
  if (firstClaimsAll)
    await waitFor(async () => (await holders()).every((h) => h === firstHost), 20_000, 'every deployment claimed by the first process');
  const second = cluster.start(env);
  const secondHost = (await second.running()).host as string;
  await waitFor(async () => (await holders()).every((h) => h !== null), 20_000, 'every deployment claimed');
  return {
    holders,
    async killBusier() {
      const now = await holders();
      const firstIsBusier = now.filter((h) => h === firstHost).length >= now.filter((h) => h === secondHost).length;
      const doomed = firstIsBusier ? first : second;
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      return firstIsBusier ? secondHost : firstHost;
    },
  };
}
