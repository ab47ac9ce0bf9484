/**
 * docker-compose.yml, the distributed layout written down: every signalforge service runs a real
 * role, every variable it sets is one the config schema knows and parses, NATS is a 3-node
 * cluster with JetStream replicated 3 times, and every role is there at least twice with a health check.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { DISTRIBUTED_ROLES } from '../../src/roles/index.ts';
import { EnvConfig } from '../../schemas/config.ts';

const root = new URL('../..', import.meta.url);
const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { build?: unknown; image?: string; command?: string[]; environment?: Record<string, string>; healthcheck?: { test: string[] } }
  >;
};
const ROLES = new Set(['serve', 'actors', ...Object.keys(DISTRIBUTED_ROLES)]);
const ours = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

describe('docker-compose.yml', () => {
  it('runs a real role in every signalforge service', () => {
    assert.ok(ours.length > 0);
    for (const [name, service] of ours) {
      assert.ok(
        service.command && ROLES.has(service.command[0]!),
        `${name}: command ${JSON.stringify(service.command)} is a role of src/cli.ts`,
      );
    }
  });

  it('sets only variables the config schema knows, with values it accepts', () => {
    const known = new Set(Object.keys(EnvConfig.shape));
    for (const [name, service] of ours) {
      const env = service.environment ?? {};
      for (const key of Object.keys(env)) assert.ok(known.has(key), `${name}: ${key} is not in schemas/config.ts`);
      assert.doesNotThrow(
        () => loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]))),
        `${name}: its environment parses`,
      );
      assert.ok(env.NATS_URL?.split(',').length === 3, `${name}: reaches all three NATS nodes`);
      assert.equal(env.NATS_REPLICAS, '3', `${name}: streams and buckets replicated on the cluster`);
    }
  });

  it('has every role twice, each with a health check, two edges behind the load balancer and a 3-node NATS cluster', () => {
    for (const role of ['edge', 'trainer', 'actors', 'delivery', 'ingest']) {
      const services = ours.filter(([, s]) => s.command?.[0] === role);
      assert.ok(services.length >= 2, `${role}: at least two copies`);
      for (const [name, s] of services) assert.ok(s.healthcheck?.test.join(' ').includes('/_readyz'), `${name}: probes /_readyz`);
    }
    const haproxy = readFileSync(new URL('deploy/haproxy.cfg', root), 'utf8');
    for (const [name] of ours.filter(([, s]) => s.command?.[0] === 'edge'))
      assert.match(haproxy, new RegExp(`server ${name} ${name}:8080 check`));
    const nats = Object.keys(compose.services).filter((n) => compose.services[n]!.image?.startsWith('nats:'));
    assert.equal(nats.length, 3);
    const conf = readFileSync(new URL('deploy/nats-cluster.conf', root), 'utf8');
    for (const n of nats) assert.match(conf, new RegExp(`nats://${n}:6222`), `${n} is routed`);
  });
});
