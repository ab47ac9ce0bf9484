/**
 * Roles start in any state of a real 3-node NATS cluster (issue 36): 11 roles started at once on a
 * fresh cluster, and every role started with each node down in turn — none exits, all become
 * ready (each retry of a start-up step is the bus retry's, see test/bus/retry.test.ts). A role
 * started before any node is up waits, its /_readyz saying what for. Only a configuration error
 * ends a start, with a sentence naming it. The time to all-ready is bench startup-cluster's; the
 * timeouts here only catch a hang.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { childEnv } from '../helpers/child-service.ts';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-cluster.ts';
import { until } from '../helpers/nats.ts';
import { startRole } from '../helpers/role-process.ts';
import { clusterSettled, ELEVEN_ROLES, EVERY_ROLE, fleetEnv, startFleet } from '../helpers/startup-fleet.ts';

/** A hang guard on a loaded 2-core machine, not a bound. */
const HANG_MS = 600_000;

describe('role start-up in any cluster state', () => {
  let cluster: NatsCluster;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-startup-'));
    cluster = await startNatsCluster(3);
  });
  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('11 roles started at once on a fresh cluster: none exits, all become ready', { timeout: HANG_MS }, async () => {
    const fleet = startFleet(cluster.url, ELEVEN_ROLES, fleetEnv(dir));
    try {
      await fleet.allReady(HANG_MS - 60_000);
      assert.ok(fleet.members.every((m) => m.readyMs !== null));
    } finally {
      await fleet.stop();
    }
  });

  for (const down of [0, 1, 2]) {
    it(`every role started with node n${down + 1} down: none exits, all become ready`, { timeout: HANG_MS }, async () => {
      await clusterSettled(cluster);
      await cluster.kill(down);
      // The data owner on the store the first test made; the others reach it over NATS.
      const fleet = startFleet(cluster.url, EVERY_ROLE, fleetEnv(dir));
      try {
        await fleet.allReady(HANG_MS - 180_000);
        assert.deepEqual(
          fleet.members.map((m) => m.process.role),
          [...EVERY_ROLE],
        );
      } finally {
        await fleet.stop();
        await cluster.restart(down);
      }
    });
  }

  it(
    'a role started before any node is up waits, /_readyz saying for what, and becomes ready when the cluster comes',
    { timeout: HANG_MS },
    async () => {
      await clusterSettled(cluster);
      for (const i of [0, 1, 2]) await cluster.kill(i);
      const role = startRole('delivery', cluster.url, fleetEnv(dir));
      try {
        let health: string | null = null;
        await until(
          'its health endpoint',
          () => (health = role.lines.map((l) => /"health":"([^"]+)"/.exec(l)?.[1]).find(Boolean) ?? null) !== null,
          120_000,
        );
        await until(
          'a connect retry logged',
          () => role.lines.some((l) => l.includes('"op":"connect"') && l.includes('"level":40')),
          120_000,
        );
        const waiting = await fetch(`${health}/_readyz`);
        assert.equal(waiting.status, 503);
        const body = (await waiting.json()) as { ready: boolean; waiting_for: string[]; checks: Record<string, { ok: boolean }> };
        assert.equal(body.ready, false);
        assert.deepEqual(body.waiting_for, [`nats ${cluster.url}`]);
        assert.equal(body.checks.startup!.ok, false);

        await Promise.all([0, 1, 2].map((i) => cluster.restart(i)));
        await role.running(HANG_MS - 180_000);
        await until('ready', async () => (await fetch(`${health}/_readyz`)).status === 200, 120_000);
      } finally {
        role.child.kill('SIGTERM');
        await role.exited;
      }
    },
  );

  it('exits non-zero only on a configuration error, with a sentence naming it', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'trainer'], {
      env: { ...childEnv({ NATS_REPLICAS: 'three' }), NATS_URL: cluster.url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 1);
    assert.match(stderr, /NATS_REPLICAS/);
    assert.doesNotMatch(stderr, /at .*\.ts:\d+/, 'a sentence, not a stack');
  });
});
