import { createServer, type Server } from 'node:http';
import { ConfigError } from '../config.ts';
import { probeReadiness, startingReadiness, type DependencyCheck } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';

/**
 * A role's health endpoint, listening from the moment the role starts: `GET /_healthz` answers
 * `ok` while the process runs (liveness); `GET /_readyz` 503 with what start-up still waits for
 * (`waiting_for`) until `serve` hands it the role's checks, then 200 or 503 with each
 * dependency's check (what a load balancer or orchestrator probes); `GET /_metrics` the role's
 * counters (Prometheus text) when it has some. Once draining, all answer 503.
 */
export interface Health {
  url: string;
  port: number;
  /** Started: readiness from these checks from now on. */
  serve(checks: Record<string, DependencyCheck>, metrics?: () => Record<string, number>): void;
  /** Stopping: every path answers 503 from now on. */
  drain(): void;
  /** Stops listening (safe to call twice). */
  close(): Promise<void>;
}

export async function serveHealth(address: { port: number; host: string }, waitingFor: () => string[], log: Logger): Promise<Health> {
  const startedMs = performance.now();
  let draining = false;
  let checks: Record<string, DependencyCheck> | null = null;
  let metrics: (() => Record<string, number>) | undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (draining) return send(503, JSON.stringify({ error: 'draining: this process is stopping', code: 503 }));
    if (path === '/_healthz') return send(200, 'ok', 'text/plain');
    if (path === '/_readyz') {
      if (!checks) return send(503, JSON.stringify(startingReadiness(waitingFor(), startedMs)));
      void probeReadiness(checks).then((r) => send(r.ready ? 200 : 503, JSON.stringify(r)));
      return;
    }
    if (path === '/_metrics' && metrics) {
      const text = Object.entries(metrics())
        .map(([name, value]) => `${name} ${value}\n`)
        .join('');
      return send(200, text, 'text/plain; version=0.0.4; charset=utf-8');
    }
    if (!checks)
      return send(
        503,
        JSON.stringify({ error: `starting: waiting for ${waitingFor().join(', ') || 'start-up'}; try again shortly`, code: 503 }),
      );
    send(
      404,
      JSON.stringify({
        error: `not found: this is a health endpoint (GET /_healthz, GET /_readyz${metrics ? ', GET /_metrics' : ''})`,
        code: 404,
      }),
    );
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL'
          ? new ConfigError(
              `cannot listen on ${address.host}:${address.port} (${err.code}): set the role's port (PORT for the edge, HEALTH_PORT for the others; 0 picks a free one) or HOST to one this machine can listen on`,
            )
          : err,
      ),
    );
    server.listen(address.port, address.host, () => ok());
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  const host = address.host === '0.0.0.0' || address.host === '::' ? '127.0.0.1' : address.host;
  const url = `http://${host}:${port}`;
  log.info({ health: url }, 'health endpoint listening');
  let closed: Promise<void> | null = null;
  return {
    url,
    port,
    serve(c, m) {
      checks = c;
      metrics = m;
    },
    drain() {
      draining = true;
    },
    close() {
      return (closed ??= (async () => {
        draining = true;
        server.closeIdleConnections();
        await new Promise<void>((ok) => server.close(() => ok()));
      })());
    },
  };
}
