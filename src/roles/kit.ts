import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { BusRetry, connectBus, openBucket, type Bus } from '../bus/index.ts';
import { ConfigError, type Config } from '../config.ts';
import { UnavailableError } from '../errors.ts';
import { probeReadiness, ShutdownStack, startingReadiness, withDeadline, type DependencyCheck } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';
import { openClickHouse, UsageRepo, type ClickHouseClient } from '../store/index.ts';
import { UsageRecorder } from '../../actors/recorder/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { remoteClickHouse } from '../store-link/index.ts';

/** A drain waits for a server that may be gone: past half a step's deadline, the connection is just closed. */
export const closeBus = (bus: Bus, config: Pick<Config, 'SHUTDOWN_STEP_MS'>) =>
  function closeNats() {
    return withDeadline(bus.close(), config.SHUTDOWN_STEP_MS / 2, 'nats drain').catch(() => bus.nc.close());
  };

/** A role process: what it opened, stopped in reverse order by `close` (safe to call twice). */
export interface RoleProcess {
  close(): Promise<void>;
  /** Where its health endpoint listens (`/_healthz`, `/_readyz`). */
  healthUrl: string | null;
}

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

/** What a role's `build` starts on: its NATS, its shutdown stack, its health endpoint. */
export interface Joined {
  bus: Bus;
  stack: ShutdownStack;
  health: Health;
}

/**
 * Starts a role: its health endpoint first (answering what start-up waits for), then its NATS
 * connection (NATS_URL, a cluster's URLs comma-separated), then `build`. Start-up waits for the
 * cluster rather than dying: each bus step is retried while the cluster cannot answer it (bus
 * retry), and a start that still fails so — a request outside the bus's steps timing out — is
 * unwound and begun again by the same retry. Only a refusal for good (a configuration error) is
 * thrown. `healthPort`: HEALTH_PORT, or the edge's PORT, which its app takes over (`health.close`
 * first).
 */
export async function startRole<T>(
  name: string,
  config: Config,
  log: Logger,
  healthPort: number,
  build: (parts: Joined) => Promise<T>,
): Promise<{ value: T; health: Health; close(): Promise<void> }> {
  if (!config.NATS_URL) {
    throw new UnavailableError(
      `the ${name} role joins a running installation: set NATS_URL to its NATS (a cluster: its URLs, comma-separated)`,
    );
  }
  const natsUrl = config.NATS_URL;
  const retry = new BusRetry(log);
  const health = await serveHealth({ port: healthPort, host: config.HOST }, () => retry.waitingFor(), log);
  try {
    return await retry.run(
      { op: 'start', kind: 'role', name },
      async () => {
        const stack = new ShutdownStack(log, config.SHUTDOWN_STEP_MS);
        try {
          const bus = await connectBus(natsUrl, `signalforge-${name}`, log, retry);
          stack.push(closeBus(bus, config));
          const value = await build({ bus, stack, health });
          // Pushed after the parts it watches, so run first: probes see the drain at once.
          stack.push(async function drainHealth() {
            health.drain();
          });
          let closing: Promise<void> | null = null;
          return { value, health, close: () => (closing ??= stack.unwind().finally(() => health.close())) };
        } catch (err) {
          await stack.unwind();
          throw err;
        }
      },
      { unlisted: true, pastClose: true },
    );
  } catch (err) {
    await health.close();
    throw err;
  }
}

/**
 * The role's ClickHouse: the server at CLICKHOUSE_URL, or else the store of the process that owns
 * chdb (`signalforge store`, or `serve`), over NATS.
 */
export async function openRoleStore(config: Config, bus: Bus, log: Logger, stack: ShutdownStack): Promise<ClickHouseClient> {
  const clickhouse = config.CLICKHOUSE_URL
    ? await openClickHouse({ url: config.CLICKHOUSE_URL, path: join(resolve(config.DATA_DIR), 'clickhouse'), log })
    : await remoteClickHouse(bus, config.NATS_REPLICAS);
  stack.push(() => clickhouse.close());
  return clickhouse;
}

/** The readiness checks every role shares: its NATS connection, and its store when it has one. */
export function baseChecks(bus: Bus, clickhouse?: ClickHouseClient): Record<string, DependencyCheck> {
  return {
    nats: async () => {
      if (bus.nc.isClosed()) throw new Error('the NATS connection is closed');
      await bus.jsm.getAccountInfo();
    },
    ...(clickhouse
      ? {
          clickhouse: async () => {
            await (await clickhouse.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json();
          },
        }
      : {}),
  };
}

/** Opens the buckets the usage recorder reads and writes and starts it (serve; the ingest role, beside the signal recorder). */
export async function startUsageRecorder(parts: {
  bus: Bus;
  clickhouse: ClickHouseClient;
  log: Logger;
  replicas?: number;
}): Promise<UsageRecorder> {
  const [credits, cursor] = await Promise.all([
    openBucket(parts.bus, Buckets.credits, parts.replicas),
    openBucket(parts.bus, Buckets.usageCursor, parts.replicas),
  ]);
  const recorder = new UsageRecorder({ credits, cursor, repo: new UsageRepo(parts.clickhouse), log: parts.log });
  await recorder.start();
  return recorder;
}
