/**
 * The role commands as processes: each refuses to start without NATS_URL (saying what to set);
 * a started role answers its health endpoint (/_healthz, /_readyz with its checks), and SIGTERM
 * drains it — exit 0, its leases released at once rather than left to expire.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { DISTRIBUTED_ROLES } from '../../src/roles/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { childEnv } from '../helpers/child-service.ts';
import { startNats, until, type TestNats } from '../helpers/nats.ts';
import { startRole } from '../helpers/role-process.ts';
import { deploy } from '../delivery/harness.ts';

describe('signalforge roles', () => {
  let nats: TestNats;

  before(async () => {
    nats = await startNats('roles');
  });
  after(async () => {
    await nats?.close();
  });

  it('each refuses to start without NATS_URL, saying what to set', async () => {
    await Promise.all(
      Object.keys(DISTRIBUTED_ROLES).map(async (role) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', role], {
          env: childEnv({}),
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        const code = await new Promise((r) => child.once('exit', r));
        assert.equal(code, 1, role);
        assert.match(stderr, new RegExp(`the ${role} role joins a running installation: set NATS_URL`), role);
      }),
    );
  });

  it('answers its health endpoint, and drains on SIGTERM: exit 0, leases released at once', async () => {
    const deployments = await openBucket(nats.bus, Buckets.deployments);
    const record = await deploy({ deployments }, { webhookUrl: 'http://127.0.0.1:9/hook' });
    const role = startRole('delivery', `nats://${nats.bus.nc.getServer()}`, { WEBHOOK_ALLOW_PRIVATE: 'loopback' });
    try {
      const running = await role.running();
      const health = running.health as string;
      const live = await fetch(`${health}/_healthz`);
      assert.equal(live.status, 200);
      assert.equal(await live.text(), 'ok');
      const ready = await fetch(`${health}/_readyz`);
      assert.equal(ready.status, 200);
      assert.equal((await ready.json()).checks.nats.ok, true);
      const leases = await openBucket(nats.bus, Buckets.leases);
      await until(
        'the deployment claimed',
        async () => (await leases.get(`delivery.${record.deployment_id}`))?.value.host === running.host,
      );
      role.child.kill('SIGTERM');
      assert.equal(await role.exited, 0, 'a clean drain');
      assert.equal(await leases.get(`delivery.${record.deployment_id}`), null, 'the lease released, not left to expire');
    } finally {
      role.child.kill('SIGKILL');
    }
  });
});
