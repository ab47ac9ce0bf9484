import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { connectBus, openBucket, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import { UnavailableError } from '../errors.ts';
import { probeReadiness, ShutdownStack, withDeadline, type DependencyCheck } from '../lifecycle/index.ts';
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

/** Starts a role: its shutdown stack, its NATS connection (NATS_URL, a cluster's URLs comma-separated). */
export async function joinNats(config: Config, log: Logger, role: string): Promise<{ bus: Bus; stack: ShutdownStack }> {
  if (!config.NATS_URL) {
    throw new UnavailableError(`the ${role} role joins a running installation: set NATS_URL to its NATS (a cluster: its URLs, comma-separated)`);
  }
  const stack = new ShutdownStack(log, config.SHUTDOWN_STEP_MS);
  try {
    const bus = await connectBus(config.NATS_URL, `signalforge-${role}`, log);
    stack.push(closeBus(bus, config));
    return { bus, stack };
  } catch (err) {
    await stack.unwind();
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

/**
 * The health endpoint of a role without an HTTP edge, on HEALTH_PORT: `GET /_healthz` answers
 * `ok` while the process runs (liveness), `GET /_readyz` 200 or 503 with each dependency's check
 * (what a load balancer or orchestrator probes), `GET /_metrics` the role's counters (Prometheus
 * text) when it has some. While draining, all answer 503.
 */
export async function serveHealth(
  config: Pick<Config, 'HEALTH_PORT' | 'HOST'>,
  checks: Record<string, DependencyCheck>,
  stack: ShutdownStack,
  log: Logger,
  metrics?: () => Record<string, number>,
): Promise<string> {
  let draining = false;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (draining) return send(503, JSON.stringify({ error: 'draining: this process is stopping', code: 503 }));
    if (path === '/_healthz') return send(200, 'ok', 'text/plain');
    if (path === '/_readyz') {
      void probeReadiness(checks).then((r) => send(r.ready ? 200 : 503, JSON.stringify(r)));
      return;
    }
    if (path === '/_metrics' && metrics) {
      const text = Object.entries(metrics()).map(([name, value]) => `${name} ${value}\n`).join('');
      return send(200, text, 'text/plain; version=0.0.4; charset=utf-8');
    }
    send(404, JSON.stringify({ error: `not found: this is a health endpoint (GET /_healthz, GET /_readyz${metrics ? ', GET /_metrics' : ''})`, code: 404 }));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(config.HEALTH_PORT, config.HOST, () => ok());
  });
  // Pushed after the parts it watches, so stopped first: probes see the drain at once.
  stack.push(async function closeHealth() {
    draining = true;
    server.closeIdleConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.HEALTH_PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${port}`;
  log.info({ health: url }, 'health endpoint listening');
  return url;
}

/** Opens the buckets the usage recorder reads and writes and starts it (serve; the ingest role, beside the signal recorder). */
export async function startUsageRecorder(parts: { bus: Bus; clickhouse: ClickHouseClient; log: Logger; replicas?: number }): Promise<UsageRecorder> {
  const [credits, cursor] = await Promise.all([openBucket(parts.bus, Buckets.credits, parts.replicas), openBucket(parts.bus, Buckets.usageCursor, parts.replicas)]);
  const recorder = new UsageRecorder({ credits, cursor, repo: new UsageRepo(parts.clickhouse), log: parts.log });
  await recorder.start();
  return recorder;
}
