import { join, resolve } from 'node:path';
import { BusRetry, connectBus, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import { UnavailableError } from '../errors.ts';
import { processRuns, ShutdownStack, withDeadline, type DependencyCheck } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';
import { BarCache, NatsBarLoader, openMarketData } from '../market/index.ts';
import { configureSandbox, StrategyRuntime } from '../sandbox/index.ts';
import { useScorers } from '../scoring/index.ts';
import { openClickHouse, type ClickHouseClient } from '../store/index.ts';
import { remoteClickHouse } from '../store-link/index.ts';
import { once, type RoleContext, type RoleParts } from './context.ts';
import { buildDomain } from './domain.ts';
import { serveHealth, type Health } from './health.ts';

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
 * The shared parts of a process, each made on first use: `serve` (the store is chdb here) and
 * every role process (its store at CLICKHOUSE_URL, else the store owner's over NATS) alike.
 */
export function processContext(
  base: Pick<RoleContext, 'config' | 'log' | 'bus' | 'stack'>,
  store: { open(): Promise<ClickHouseClient>; local: boolean; barsFromMarket: boolean },
): RoleContext {
  const { config, log, bus, stack } = base;
  configureSandbox({ python: config.PYTHON, mode: config.SANDBOX });
  const ctx: RoleContext = {
    ...base,
    storeIsLocal: store.local,
    store: once(async () => {
      const clickhouse = await store.open();
      stack.push(() => clickhouse.close());
      return clickhouse;
    }),
    market: once(async () => {
      const market = openMarketData(bus, await ctx.store(), log);
      stack.push(() => market.cache.stop());
      return market;
    }),
    bars: once(async () => {
      if (store.barsFromMarket) return (await ctx.market()).cache;
      // No store of its own: recent bars come from the store owner's cache (bar pages), not a query each.
      const cache = new BarCache(new NatsBarLoader(bus), bus, log);
      cache.start();
      stack.push(() => cache.stop());
      return cache;
    }),
    runtime: once(async () => {
      // Trained models are scored in processes of their own (src/scoring/model-host), stopped after every part that scores.
      stack.push(useScorers(config, log));
      const runtime = await StrategyRuntime.start({ log, ...(config.STRATEGY_WORKERS ? { size: config.STRATEGY_WORKERS } : {}) });
      stack.push(() => runtime.stop());
      return runtime;
    }),
    domain: once(() => buildDomain(ctx)),
  };
  return ctx;
}

/** The store as the process that owns the data opens it: chdb under DATA_DIR, or the server at CLICKHOUSE_URL. */
export const ownStore = (config: Config, log: Logger) => () =>
  openClickHouse({ url: config.CLICKHOUSE_URL, path: join(resolve(config.DATA_DIR), 'clickhouse'), log });

/** What one role's build hands its process: its parts, its readiness checks (none: it serves its own), what its "running" line says. */
export interface BuiltRole {
  parts: RoleParts;
  checks?: Record<string, DependencyCheck>;
  /** Where its health answers, when not the start-up's endpoint (the edge's app took the port over). */
  healthUrl?: string;
  running: Record<string, unknown>;
}

/**
 * A role command (`signalforge <name>`): the health endpoint first (answering what start-up waits
 * for), then its NATS connection (NATS_URL, a cluster's URLs comma-separated), then `build` on the
 * process's context. Start-up waits for the cluster rather than dying: each bus step is retried
 * while the cluster cannot answer it (bus retry), and a start that still fails so — a request
 * outside the bus's steps timing out — is unwound and begun again by the same retry. Only a
 * refusal for good (a configuration error) is thrown. Its health listens on HEALTH_PORT, or on
 * PORT for the edge, whose app takes the port over.
 */
export function roleCommand(
  name: string,
  build: (ctx: RoleContext, health: Health) => Promise<BuiltRole>,
  options: { port?: 'PORT' | 'HEALTH_PORT'; store?: 'own' | 'joined' } = {},
): (config: Config, log: Logger) => Promise<RoleProcess> {
  return async (config, log) => {
    if (!config.NATS_URL) {
      throw new UnavailableError(
        `the ${name} role joins a running installation: set NATS_URL to its NATS (a cluster: its URLs, comma-separated)`,
      );
    }
    const natsUrl = config.NATS_URL;
    const retry = new BusRetry(log);
    const health = await serveHealth({ port: config[options.port ?? 'HEALTH_PORT'], host: config.HOST }, () => retry.waitingFor(), log);
    try {
      return await retry.run(
        { op: 'start', kind: 'role', name },
        async () => {
          const stack = new ShutdownStack(log, config.SHUTDOWN_STEP_MS);
          try {
            const bus = await connectBus(natsUrl, `signalforge-${name}`, log, retry);
            stack.push(closeBus(bus, config));
            const ctx = processContext(
              { config, log, bus, stack },
              options.store === 'own'
                ? { open: ownStore(config, log), local: true, barsFromMarket: true }
                : { open: () => joinedStore(config, bus, log), local: Boolean(config.CLICKHOUSE_URL), barsFromMarket: false },
            );
            const built = await build(ctx, health);
            stack.push(() => built.parts.stop());
            if (built.checks) health.serve(built.checks, () => built.parts.stats());
            // Pushed after the parts it watches, so run first: probes see the drain at once.
            stack.push(async function drainHealth() {
              health.drain();
            });
            const healthUrl = built.healthUrl ?? health.url;
            log.info(
              {
                role: name,
                nats: config.NATS_URL,
                clickhouse: config.CLICKHOUSE_URL ? 'server' : 'over NATS',
                health: healthUrl,
                ...built.running,
              },
              `signalforge ${name} running`,
            );
            let closing: Promise<void> | null = null;
            return { healthUrl, close: () => (closing ??= stack.unwind().finally(() => health.close())) };
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
  };
}

/** A joining role's ClickHouse: the server at CLICKHOUSE_URL, or else the data owner's (`signalforge store`, or `serve`) over NATS. */
function joinedStore(config: Config, bus: Bus, log: Logger): Promise<ClickHouseClient> {
  return config.CLICKHOUSE_URL ? ownStore(config, log)() : remoteClickHouse(bus, config.NATS_REPLICAS);
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

/** The strategy runtime's check: a live zygote (`live` knows a stopped one at once; /proc also catches one killed from outside). */
export const pythonCheck =
  (runtime: StrategyRuntime): DependencyCheck =>
  () => {
    if (!runtime.live || !runtime.processIds().some(processRuns)) throw new Error('no live strategy runtime process');
  };
