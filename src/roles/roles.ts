import { join, resolve } from 'node:path';
import { buildIngestHost } from '../../actors/bar-builder/index.ts';
import { buildFeedHost } from '../../actors/feed/index.ts';
import { DeliveryActor } from '../../actors/delivery/index.ts';
import { SignalRecorder } from '../../actors/recorder/index.ts';
import { ensureStream } from '../bus/index.ts';
import type { Config } from '../config.ts';
import { Streams } from '../../schemas/messages.ts';
import { processRuns, type DependencyCheck } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';
import { configureSandbox, type StrategyRuntime } from '../sandbox/index.ts';
import { openMarketData, serveBarPages, TickImporter } from '../market/index.ts';
import { BarsRepo, openClickHouse, SignalsRepo, TicksRepo } from '../store/index.ts';
import { serveStore } from '../store-link/index.ts';
import { startEdge, startFoundation, startTrainer, startWork } from './domain.ts';
import { baseChecks, openRoleStore, startRole, startUsageRecorder, type Joined, type RoleProcess } from './kit.ts';
import type { ShutdownStack } from '../lifecycle/index.ts';

/**
 * Runs `build` on a fresh role (health endpoint up, NATS joined; start-up waits for the cluster,
 * see startRole); a failed start stops what it opened. `build` hands its checks to `health.serve`.
 */
async function role(
  name: string,
  config: Config,
  log: Logger,
  build: (parts: Joined) => Promise<{ healthUrl: string | null; running: Record<string, unknown> }>,
  healthPort = config.HEALTH_PORT,
): Promise<RoleProcess> {
  const { value, close } = await startRole(name, config, log, healthPort, build);
  const { healthUrl, running } = value;
  log.info(
    { role: name, nats: config.NATS_URL, clickhouse: config.CLICKHOUSE_URL ? 'server' : 'over NATS', health: healthUrl, ...running },
    `signalforge ${name} running`,
  );
  return { close, healthUrl };
}

const pythonCheck =
  (runtime: StrategyRuntime): DependencyCheck =>
  () => {
    if (!runtime.live || !runtime.processIds().some(processRuns)) throw new Error('no live strategy runtime process');
  };

/**
 * `signalforge store`: the data owner when there is no ClickHouse server — chdb under DATA_DIR,
 * answering the other roles' store requests, bar pages and tick imports over NATS.
 */
export function startStoreRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('store', config, log, async ({ bus, stack, health }) => {
    const clickhouse = await openClickHouse({ url: config.CLICKHOUSE_URL, path: join(resolve(config.DATA_DIR), 'clickhouse'), log });
    stack.push(() => clickhouse.close());
    const store = await serveStore(bus, clickhouse, log, config.NATS_REPLICAS);
    stack.push(() => store.stop());
    const market = openMarketData(bus, clickhouse, log);
    stack.push(() => market.cache.stop());
    const pages = serveBarPages(bus, market.cache, log);
    stack.push(() => pages.unsubscribe());
    const importer = new TickImporter({ ticks: market.ticks, bars: market.bars, nc: bus.nc, log });
    importer.serve();
    stack.push(() => importer.stop());
    health.serve(baseChecks(bus, clickhouse));
    return { healthUrl: health.url, running: {} };
  });
}

/**
 * `signalforge ingest`: the tick feeds (synthetic market, OANDA: one active copy each by lease;
 * Kafka: a consumer group) publishing to the TICKS stream; bar building from it, one writer per
 * symbol (leases); the signal recorder (signals into ClickHouse, a durable consumer shared by
 * every copy) and the usage recorder (credit changes into ClickHouse). Its /_metrics (HEALTH_PORT) says which feeds publish from here.
 */
export function startIngestRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('ingest', config, log, async ({ bus, stack, health }) => {
    const clickhouse = await openRoleStore(config, bus, log, stack);
    // The recorder may start before any model host made the stream it reads.
    await ensureStream(bus, Streams.signals, config.NATS_REPLICAS);
    const recorder = new SignalRecorder({ bus, repo: new SignalsRepo(clickhouse), log });
    await recorder.start();
    stack.push(() => recorder.stop());
    // …and every credit change into the usage history, from the credits bucket (a second copy only repeats rows, which replace themselves).
    const usageRecorder = await startUsageRecorder({ bus, clickhouse, log, replicas: config.NATS_REPLICAS });
    stack.push(() => usageRecorder.stop());
    const market = { ticks: new TicksRepo(clickhouse), bars: new BarsRepo(clickhouse) };
    const ingest = await buildIngestHost({
      bus,
      market,
      log,
      replicas: config.NATS_REPLICAS,
      graceMs: config.BAR_GRACE_MS,
    });
    stack.push(() => ingest.stop());
    // The tick feeds, one active copy of each (lease), publishing to the stream the bars are built from.
    const feeds = await buildFeedHost({ bus, market, config, log });
    stack.push(() => feeds.stop());
    health.serve(baseChecks(bus, clickhouse), feeds.metrics);
    return {
      healthUrl: health.url,
      running: { host: ingest.host.hostId, symbols: ingest.symbols(), feeds: feeds.configured, feed_host: feeds.host.hostId },
    };
  });
}

/** `signalforge delivery`: webhook and messenger delivery, deployments shared with the other copies by lease. */
export function startDeliveryRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('delivery', config, log, async ({ bus, stack, health }) => {
    const delivery = new DeliveryActor({ bus, config, log });
    await delivery.start();
    stack.push(() => delivery.stop());
    health.serve(baseChecks(bus));
    return { healthUrl: health.url, running: { host: delivery.hostId, deployments: delivery.stats().deployments } };
  });
}

/** The domain on a role: accounts, activity, market data, the runtime, training, deployments. */
async function domainOf(config: Config, log: Logger, bus: Joined['bus'], stack: ShutdownStack) {
  configureSandbox({ python: config.PYTHON, mode: config.SANDBOX });
  const clickhouse = await openRoleStore(config, bus, log, stack);
  const foundation = await startFoundation(config, log, bus, clickhouse, stack);
  const work = await startWork(config, log, bus, foundation, stack);
  return { clickhouse, foundation, work };
}

/** `signalforge trainer`: pulls train jobs from the shared work queue. */
export function startTrainerRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('trainer', config, log, async ({ bus, stack, health }) => {
    const { clickhouse, foundation, work } = await domainOf(config, log, bus, stack);
    await startTrainer(config, log, foundation, work, stack);
    health.serve({ ...baseChecks(bus, clickhouse), python: pythonCheck(work.runtime) });
    return { healthUrl: health.url, running: { concurrency: config.TRAIN_CONCURRENCY } };
  });
}

/**
 * `signalforge edge`: the HTTP API and web app (its health on PORT: /_healthz, /_readyz). While
 * it starts, PORT answers the start-up's health (what it waits for); the app takes the port over.
 */
export function startEdgeRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role(
    'edge',
    config,
    log,
    async ({ bus, stack, health }) => {
      const { clickhouse, foundation, work } = await domainOf(config, log, bus, stack);
      const edge = await startEdge(
        // The port the start-up's health took (PORT=0 picked one): the app listens there.
        { ...config, PORT: health.port },
        log,
        {
          bus,
          clickhouse,
          foundation,
          work,
          metrics: () => ({}),
          checks: { ...baseChecks(bus, clickhouse), python: pythonCheck(work.runtime) },
          beforeListen: () => health.close(),
        },
        stack,
      );
      return { healthUrl: edge.url, running: { url: edge.url } };
    },
    config.PORT,
  );
}
