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
import { baseChecks, joinNats, openRoleStore, serveHealth, startUsageRecorder, type RoleProcess } from './kit.ts';
import type { ShutdownStack } from '../lifecycle/index.ts';

/** Runs `build` on a fresh role (NATS joined); a failed start stops what it opened. */
async function role(
  name: string,
  config: Config,
  log: Logger,
  build: (parts: Awaited<ReturnType<typeof joinNats>>) => Promise<{ healthUrl: string | null; running: Record<string, unknown> }>,
): Promise<RoleProcess> {
  const parts = await joinNats(config, log, name);
  const close = () => parts.stack.unwind();
  try {
    const { healthUrl, running } = await build(parts);
    log.info({ role: name, nats: config.NATS_URL, clickhouse: config.CLICKHOUSE_URL ? 'server' : 'over NATS', health: healthUrl, ...running }, `signalforge ${name} running`);
    return { close, healthUrl };
  } catch (err) {
    await close();
    throw err;
  }
}

const pythonCheck = (runtime: StrategyRuntime): DependencyCheck => () => {
  if (!runtime.live || !runtime.processIds().some(processRuns)) throw new Error('no live strategy runtime process');
};

/**
 * `signalforge store`: the data owner when there is no ClickHouse server — chdb under DATA_DIR,
 * answering the other roles' store requests, bar pages and tick imports over NATS.
 */
export function startStoreRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('store', config, log, async ({ bus, stack }) => {
    const clickhouse = await openClickHouse({ url: config.CLICKHOUSE_URL, path: join(resolve(config.DATA_DIR), 'clickhouse'), log });
    stack.push(() => clickhouse.close());
    const store = await serveStore(bus, clickhouse, log, config.NATS_REPLICAS);
    stack.push(() => store.stop());
    const market = openMarketData(bus, clickhouse, log);
    stack.push(() => market.cache.stop());
    const pages = serveBarPages(bus.nc, market.cache, log);
    stack.push(() => pages.unsubscribe());
    const importer = new TickImporter({ ticks: market.ticks, bars: market.bars, nc: bus.nc, log });
    importer.serve();
    stack.push(() => importer.stop());
    const healthUrl = await serveHealth(config, baseChecks(bus, clickhouse), stack, log);
    return { healthUrl, running: {} };
  });
}

/**
 * `signalforge ingest`: the tick feeds (synthetic market, OANDA: one active copy each by lease;
 * Kafka: a consumer group) publishing to the TICKS stream; bar building from it, one writer per
 * symbol (leases); the signal recorder (signals into ClickHouse, a durable consumer shared by
 * every copy) and the usage recorder (credit changes into ClickHouse). Its /_metrics (HEALTH_PORT) says which feeds publish from here.
 */
export function startIngestRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('ingest', config, log, async ({ bus, stack }) => {
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
    const healthUrl = await serveHealth(config, baseChecks(bus, clickhouse), stack, log, feeds.metrics);
    return { healthUrl, running: { host: ingest.host.hostId, symbols: ingest.symbols(), feeds: feeds.configured, feed_host: feeds.host.hostId } };
  });
}

/** `signalforge delivery`: webhook and messenger delivery, deployments shared with the other copies by lease. */
export function startDeliveryRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('delivery', config, log, async ({ bus, stack }) => {
    const delivery = new DeliveryActor({ bus, config, log });
    await delivery.start();
    stack.push(() => delivery.stop());
    const healthUrl = await serveHealth(config, baseChecks(bus), stack, log);
    return { healthUrl, running: { host: delivery.hostId, deployments: delivery.stats().deployments } };
  });
}

/** The domain on a role: accounts, activity, market data, the runtime, training, deployments. */
async function domainOf(config: Config, log: Logger, bus: Awaited<ReturnType<typeof joinNats>>['bus'], stack: ShutdownStack) {
  configureSandbox({ python: config.PYTHON, mode: config.SANDBOX });
  const clickhouse = await openRoleStore(config, bus, log, stack);
  const foundation = await startFoundation(config, log, bus, clickhouse, stack);
  const work = await startWork(config, log, bus, foundation, stack);
  return { clickhouse, foundation, work };
}

/** `signalforge trainer`: pulls train jobs from the shared work queue. */
export function startTrainerRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('trainer', config, log, async ({ bus, stack }) => {
    const { clickhouse, foundation, work } = await domainOf(config, log, bus, stack);
    await startTrainer(config, log, foundation, work, stack);
    const healthUrl = await serveHealth(config, { ...baseChecks(bus, clickhouse), python: pythonCheck(work.runtime) }, stack, log);
    return { healthUrl, running: { concurrency: config.TRAIN_CONCURRENCY } };
  });
}

/** `signalforge edge`: the HTTP API and web app (its health on PORT: /_healthz, /_readyz). */
export function startEdgeRole(config: Config, log: Logger): Promise<RoleProcess> {
  return role('edge', config, log, async ({ bus, stack }) => {
    const { clickhouse, foundation, work } = await domainOf(config, log, bus, stack);
    const edge = await startEdge(
      config,
      log,
      { bus, clickhouse, foundation, work, metrics: () => ({}), checks: { ...baseChecks(bus, clickhouse), python: pythonCheck(work.runtime) } },
      stack,
    );
    return { healthUrl: edge.url, running: { url: edge.url } };
  });
}
