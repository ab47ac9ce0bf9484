/**
 * The per-key rate limit over 2 and 3 real edges behind the real load balancer (haproxy running
 * deploy/haproxy.cfg): the service in this process is edge 1, `signalforge edge` children the
 * others, all on one nats-server. Fresh keys each send far more than their limit at once through
 * the balancer (concurrent waves, spread over every edge): no key is admitted more than its limit,
 * every key gets close to it (blocks an edge holds unspent at the end are the only loss the README
 * allows), the rest are 429 with Retry-After, and an edge logs the key reaching its limit (its id,
 * never the key).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/bus/index.ts';
import { until } from '../helpers/nats.ts';
import { startRole, type RoleProcess } from '../helpers/role-process.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startHaproxy, type Haproxy } from '../helpers/haproxy.ts';

const LIMIT = 240;
/** Requests each key sends: a third more than its limit. */
const OFFERED = 320;
/** Requests of one key in flight at once, and keys at once: a few hundred requests in flight. */
const WAVE = 16;
const KEYS = 6;
/** The README's bound: at most 15 requests per edge held unspent when the key stops. */
const LOST_PER_EDGE = 15;
const LIMITS = { TRUST_PROXY: '1', RATE_LIMIT_PER_MIN: String(LIMIT) };

describe('the per-key rate limit over 2 and 3 edges behind haproxy', () => {
  let sf: TestService;
  let natsUrl: string;
  let dir: string;
  const children: RoleProcess[] = [];
  const balancers: Haproxy[] = [];
  /** Edge 1's log lines (the service in this process). */
  const logged: string[] = [];

  const startEdge = async () => {
    const port = await freePort();
    const process = startRole('edge', natsUrl, {
      ...LIMITS,
      PORT: String(port),
      HOST: '127.0.0.1',
      STRATEGY_WORKERS: '1',
      DATA_DIR: join(dir, `edge-${children.length}`),
    });
    children.push(process);
    return (await process.running()).url as string;
  };

  /** haproxy's own answers (an edge it judged down for a moment on this loaded machine): not the edges' to count. */
  const balancerAnswers: number[] = [];
  /** One request through the balancer, sent again while haproxy answers it itself (an edge never saw it, or it counts as sent). */
  const throughBalancer = async (lb: string, key: string): Promise<Response> => {
    for (let tries = 1; ; tries++) {
      const res = await fetch(`${lb}/api/v1/whoami-key`, { headers: { 'x-api-key': key } });
      if (/json/.test(res.headers.get('content-type') ?? '') || tries >= 5) return res;
      balancerAnswers.push(res.status);
      await res.text();
    }
  };

  /** Every key's requests through the balancer, each key in concurrent waves, all keys at once: each key's statuses and one 429. */
  const hammer = async (lb: string, keys: string[]) =>
    Promise.all(
      keys.map(async (key) => {
        const statuses: number[] = [];
        let refused = null as { retryAfter: string | null; body: any } | null;
        for (let sent = 0; sent < OFFERED; sent += WAVE) {
          await Promise.all(
            Array.from({ length: WAVE }, async () => {
              const res = await throughBalancer(lb, key);
              statuses.push(res.status);
              const body = await res.json();
              if (res.status === 429) refused ??= { retryAfter: res.headers.get('retry-after'), body };
            }),
          );
        }
        return { statuses, refused };
      }),
    );

  /** Every edge's log lines (this process's, edge 0, and the children's), parsed, with the edge that wrote them. */
  const lines = () =>
    [logged, ...children.map((c) => c.lines)].flatMap((edgeLines, edge) =>
      edgeLines.flatMap((l): Record<string, any>[] => {
        try {
          return [{ ...(JSON.parse(l) as Record<string, any>), edge }];
        } catch {
          return [];
        }
      }),
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-rate-edges-'));
    sf = await startTestService({ ...LIMITS, LOG_LEVEL: 'info' }, { logSink: (line) => void logged.push(line) });
    natsUrl = `nats://${sf.service.bus.nc.getServer()}`;
  });
  after(async () => {
    await Promise.all(balancers.map((b) => b.stop()));
    for (const c of children) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await sf?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const n of [2, 3]) {
    it(`${n} edges: ${KEYS} fresh keys each sending ${OFFERED} at once are each admitted at most ${LIMIT}, and close to it`, async (t) => {
      while (children.length < n - 1) await startEdge();
      const urls = [sf.url, ...(await Promise.all(children.map(async (c) => (await c.running()).url as string)))];
      const lb = await startHaproxy(urls);
      balancers.push(lb);
      await until(`all ${n} edges pass the balancer’s health check`, async () =>
        [...(await lb.status()).values()].every((s) => s === 'UP'),
      );

      const minted = [];
      for (let k = 0; k < KEYS; k++) minted.push(await sf.mintKey());
      const results = await hammer(
        lb.url,
        minted.map((m) => m.api_key),
      );

      const admitted = results.map((r) => r.statuses.filter((s) => s === 200).length);
      t.diagnostic(
        `admitted per key over ${n} edges: ${admitted.join(' ')} (limit ${LIMIT}, ${OFFERED} sent each; haproxy answered ${balancerAnswers.length} itself: ${balancerAnswers.join(' ')})`,
      );
      for (const [k, r] of results.entries()) {
        assert.equal(r.statuses.length, OFFERED);
        assert.deepEqual([...new Set(r.statuses)].sort(), [200, 429], `key ${k}: only admitted or refused`);
        assert.ok(admitted[k]! <= LIMIT, `key ${k} admitted ${admitted[k]} over ${n} edges: more than its limit of ${LIMIT}`);
        assert.ok(admitted[k]! >= LIMIT - n * LOST_PER_EDGE, `key ${k} admitted only ${admitted[k]}`);
        assert.match(
          r.refused!.body.error,
          new RegExp(`at most ${LIMIT} requests per minute per key`),
          'refused for its limit, not because KV was away',
        );
        assert.ok(Number(r.refused!.retryAfter) >= 1 && Number(r.refused!.retryAfter) <= 61);
      }

      const parsed = lines();
      for (const { user_id, api_key } of minted) {
        // Spread by the balancer: every edge answered some of each key's requests.
        const served = new Set(parsed.filter((l) => l.msg === 'request' && l.user_id === user_id).map((l) => l.edge));
        assert.equal(served.size, n, `key ${user_id} answered by ${served.size} of ${n} edges`);
        const hits = parsed.filter((l) => /reached its limit/.test(l.msg ?? '') && l.limit_key === String(user_id));
        assert.ok(hits.length >= 1 && hits.length <= n, `key ${user_id}: ${hits.length} limit lines (one per edge at most)`);
        assert.ok(!JSON.stringify(hits).includes(api_key), 'the key itself is never logged');
      }
    });
  }
});
