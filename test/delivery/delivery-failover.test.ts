/**
 * Delivery sharded over processes: two `signalforge delivery` processes on one real nats-server
 * share the deployments by lease. The one holding the deployments is killed (SIGKILL) while
 * signals flow and a receiver answers slowly (so sends are in flight): the other takes every
 * deployment over once the leases expire and delivers every signal, in order per deployment —
 * sending again (same webhook-id) only what the dead one had delivered since its progress journal
 * last wrote its page, and the signal in flight, never from further back than the journal's
 * longest wait — and never are two requests of one deployment in flight at once.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { deploy, publish, signal, waitFor } from './harness.ts';
import { processCluster, twoProcesses } from './process-cluster.ts';

interface Hit {
  path: string;
  id: string;
  /** When it arrived (performance.now()). */
  at: number;
}

/**
 * How far back a successor may resend: the journal's longest wait before writing a page
 * (MAX_FLUSH_MS in actors/delivery/progress-journal.ts, 2 s), and a second for the write itself
 * on a loaded machine.
 */
const RESEND_WINDOW_MS = 3_000;

/** A receiver that answers after `delayMs`, and counts the requests of each path in flight at once. */
async function slowReceiver(delayMs: number) {
  const hits: Hit[] = [];
  const inFlight = new Map<string, number>();
  let overlaps = 0;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    if (now > 1) overlaps++;
    req.resume();
    req.on('end', () => {
      hits.push({ path, id: String(req.headers['webhook-id']), at: performance.now() });
      setTimeout(() => {
        inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
        res.writeHead(200).end('ok');
      }, delayMs);
    });
    // A request cut off by its sender (the lease ran out) is no longer in flight.
    req.on('close', () => {
      if (!res.writableEnded) inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    overlaps: () => overlaps,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('delivery in two processes (sharded by lease)', () => {
  const cluster = processCluster('delivery-failover');

  it('a killed worker’s deployments resume on the other: none missing, in order, no two sends of one deployment at once', async () => {
    const receiver = await slowReceiver(150);
    try {
      const deployed: DeploymentRecord[] = [];
      for (let i = 0; i < 6; i++) deployed.push(await deploy(cluster, { webhookUrl: `${receiver.url}/d${i}` }));
      const env = { WEBHOOK_ALLOW_PRIVATE: 'loopback', WEBHOOK_RETRY_BASE_MS: '200' };
      // Both start at once: the first claims them all as it starts, then the second takes a share.
      const processes = await twoProcesses(cluster, deployed, env, false);

      let survivorHost = '';
      let killedAt = 0;
      const published = new Map<string, string[]>(deployed.map((d) => [`/d${deployed.indexOf(d)}`, []]));
      const rounds = 12;
      for (let n = 0; n < rounds; n++) {
        for (const [i, d] of deployed.entries()) {
          const event = signal(d, n);
          await publish(cluster.bus, event);
          published.get(`/d${i}`)!.push(event.id);
        }
        // The first round delivered and stored well before the kill: sending any of it again would
        // be resuming from further back than the journal (RESEND_WINDOW_MS).
        if (n === 0) {
          await waitFor(() => receiver.hits.length >= deployed.length, 20_000, 'the first round');
          await new Promise((r) => setTimeout(r, RESEND_WINDOW_MS + 1_000));
        }
        // Mid-flow, with sends in flight at the slow receiver: the holder dies without a goodbye.
        if (n === 4) {
          killedAt = performance.now();
          survivorHost = await processes.killBusier();
        }
        await new Promise((r) => setTimeout(r, 100));
      }

      const firstSeen = (path: string) => [...new Set(receiver.hits.filter((h) => h.path === path).map((h) => h.id))];
      await waitFor(
        () => [...published].every(([path, ids]) => firstSeen(path).length === ids.length),
        90_000,
        'every signal delivered after the take-over',
      );
      for (const [path, ids] of published) {
        assert.deepEqual(firstSeen(path), ids, `${path}: every signal, in publication order`);
        // Sent again (same webhook-id) only what was first delivered within the journal's window
        // before the kill: the take-over resumes after what the dead process's journal had stored.
        const first = new Map<string, Hit>();
        for (const h of receiver.hits.filter((x) => x.path === path)) {
          const earlier = first.get(h.id);
          if (!earlier) first.set(h.id, h);
          else
            assert.ok(
              earlier.at >= killedAt - RESEND_WINDOW_MS,
              `${path}: ${h.id} sent again, first delivered ${Math.round(killedAt - earlier.at)} ms before the kill`,
            );
        }
      }
      assert.equal(receiver.overlaps(), 0, 'never two requests of one deployment in flight at once');
      assert.ok(
        (await processes.holders()).every((h) => h === survivorHost),
        'the survivor holds every deployment',
      );
      const duplicates = receiver.hits.length - [...published.values()].reduce((n, ids) => n + ids.length, 0);
      assert.ok(duplicates >= 0, `every signal once at least: ${duplicates}`);
    } finally {
      await receiver.stop();
    }
  });
});
