import { join, resolve } from 'node:path';
import { buildAccounts, type Accounts } from './accounts/index.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus } from './bus/index.ts';
import { ActivityBus, buildActivity, buildCommunity, type Activity, type Community } from './community/index.ts';
import {
  BarCache,
  NatsBarLoader,
  openMarketData,
  serveBarPages,
  startLiveSources,
  startSyntheticMarket,
  TickImporter,
  type LiveSources,
  type MarketData,
} from './market/index.ts';
import { Buckets } from '../schemas/messages.ts';
import { UnavailableError } from './errors.ts';
import { writeRunFile } from './run-file.ts';
import { BarBuilder } from '../actors/bar-builder/index.ts';
import { Trainer } from '../actors/trainer/index.ts';
import { configureSandbox, StrategyRuntime } from './sandbox/index.ts';
import { buildTraining, ModelStore, type TrainingParts } from './training/index.ts';
import { buildCustomIndicators, buildGeneration } from './generation/index.ts';
import { OneShot, OneShotRuns } from './oneshot/index.ts';
import { buildDeployments, openDeployments, type Deployments } from './deployments/index.ts';
import { SignalRecorder } from '../actors/recorder/index.ts';
import { buildModelHost, type ModelHost } from '../actors/model/index.ts';
import { buildTrackerHost, type Tracker } from '../actors/tracker/index.ts';
import { DeliveryActor } from '../actors/delivery/index.ts';
import { buildDeliveryApi, webhookTargetChecker } from './delivery/index.ts';
import type { Config } from './config.ts';
import { buildApp, readinessRoutes, type App } from './edge/index.ts';
import { ShutdownStack, probeReadiness, processRuns, withDeadline } from './lifecycle/index.ts';
import { createLogger, type Logger } from './log.ts';
import { LiveTradesRepo, openClickHouse, SignalsRepo, type ClickHouseClient } from './store/index.ts';
import { buildPayouts, type Payouts } from './payouts/index.ts';

export interface Service {
  /** Base URL the edge listens on. */
  url: string;
  app: App;
  bus: Bus;
  clickhouse: ClickHouseClient;
  accounts: Accounts;
  activity: Activity;
  market: MarketData;
  barBuilder: BarBuilder;
  liveSources: LiveSources;
  runtime: StrategyRuntime;
  training: TrainingParts;
  trainer: Trainer;
  deployments: Deployments;
  actorHost: ModelHost;
  /** The live tracker of shared community entries (their verified track records). */
  tracker: Tracker;
  delivery: DeliveryActor;
  /** Fork revenue share: the daily sweep and the ledger of GET /payouts. */
  payouts: Payouts;
  community: Community;
  log: Logger;
  /** Settles (rejects) only if a dependency died for good (the embedded NATS did not come back): the role must exit non-zero. */
  failed: Promise<never>;
  /** Drains requests, then stops every part in reverse order of start, each step under a deadline. Safe to call twice. */
  close(): Promise<void>;
}

/** A drain waits for a server that may be gone: past half a step's deadline, the connection is just closed. */
const closeBus = (bus: Bus, config: Pick<Config, 'SHUTDOWN_STEP_MS'>) =>
  function closeNats() {
    return withDeadline(bus.close(), config.SHUTDOWN_STEP_MS / 2, 'nats drain').catch(() => bus.nc.close());
  };

/**
 * The composition root of `serve`: infrastructure (embedded unless NATS_URL / CLICKHOUSE_URL
 * point elsewhere), then the domain parts, then the HTTP edge.
 */
export async function startService(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<Service> {
  configureSandbox({ python: config.PYTHON, mode: config.SANDBOX });
  const dataDir = resolve(config.DATA_DIR);
  const stack = new ShutdownStack(log, config.SHUTDOWN_STEP_MS);
  const unwind = () => stack.unwind();
  let fail!: (err: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  try {
    let natsUrl = config.NATS_URL;
    let natsRunning = () => true;
    if (!natsUrl) {
      // Pushed first, so stopped last: every other part still talks to NATS while it stops.
      const nats = await startEmbeddedNats({
        bin: config.NATS_SERVER_BIN,
        storeDir: join(dataDir, 'nats'),
        log,
        restartBoundMs: config.NATS_RESTART_BOUND_MS,
        onFatal: fail,
      });
      stack.push(() => nats.stop());
      natsUrl = nats.url;
      natsRunning = () => nats.running();
    }
    // Lets other commands on this machine (import-ticks) find the running service's NATS.
    stack.push(writeRunFile(dataDir, { pid: process.pid, natsUrl }));
    const bus = await connectBus(natsUrl, 'signalforge', log);
    stack.push(closeBus(bus, config));

    const clickhouse = await openClickHouse({ url: config.CLICKHOUSE_URL, path: join(dataDir, 'clickhouse'), log });
    stack.push(() => clickhouse.close());

    const accounts = await buildAccounts({ bus, clickhouse, log, config });
    stack.push(() => accounts.stop());
    const activity = await buildActivity({ bus, log, replicas: config.NATS_REPLICAS });
    stack.push(() => activity.stop());

    const market = openMarketData(bus, clickhouse, log);
    stack.push(() => market.cache.stop());
    const barBuilder = new BarBuilder({ ticks: market.ticks, bars: market.bars, bus, log, graceMs: config.BAR_GRACE_MS });
    await barBuilder.start();
    stack.push(() => barBuilder.stop());
    const importer = new TickImporter({ ticks: market.ticks, bars: market.bars, nc: bus.nc, log });
    importer.serve();
    // Other roles (signalforge actors) read recent bars from here, over NATS.
    const barPages = serveBarPages(bus.nc, market.cache, log);
    stack.push(() => barPages.unsubscribe());
    stack.push(() => importer.stop());
    const liveSources = await startLiveSources(bus, barBuilder.sink('live'), config, log);
    stack.push(() => liveSources.stop());
    if (config.MARKET_FEED === 'synthetic') {
      const synthetic = await startSyntheticMarket({ bus, data: market, sink: barBuilder.sink('synthetic'), log, config });
      stack.push(() => synthetic.stop());
    }

    const runtime = await StrategyRuntime.start({ log, ...(config.STRATEGY_WORKERS ? { size: config.STRATEGY_WORKERS } : {}) });
    stack.push(() => runtime.stop());
    // Strategy generation: Claude when ANTHROPIC_API_KEY is set, the offline generator always.
    const generation = buildGeneration({ metering: accounts.metering, runtime, config, log });
    // Custom indicators: Pine scripts run in their own worker threads.
    const customIndicators = buildCustomIndicators({ metering: accounts.metering, config, log });
    stack.push(() => customIndicators.close());
    // Training deletes a model's deployment with it; deployments need the models: bound late.
    let deployments: Deployments | null = null;
    const training = await buildTraining({
      bus,
      metering: accounts.metering,
      bars: market.cache,
      runtime,
      log,
      replicas: config.NATS_REPLICAS,
      ackWaitMs: config.TRAIN_ACK_WAIT_MS,
      undeploy: (record) => deployments?.undeployModel(record) ?? Promise.resolve(false),
    });
    deployments = await buildDeployments({
      bus,
      models: training.models,
      activity: activity.bus,
      log,
      replicas: config.NATS_REPLICAS,
      checkWebhookTarget: webhookTargetChecker(config),
      limits: { free: config.DEPLOY_LIMIT_FREE, pro: config.DEPLOY_LIMIT_PRO },
    });
    // Every signal also goes to ClickHouse (the stream keeps 30 days).
    const signalRecorder = new SignalRecorder({ bus, repo: new SignalsRepo(clickhouse), log });
    await signalRecorder.start();
    stack.push(() => signalRecorder.stop());
    const modelHost = await buildModelHost({
      bus,
      deployments: deployments.view,
      models: training.models,
      bars: market.cache,
      runtime,
      activity: activity.bus,
      log,
      replicas: config.NATS_REPLICAS,
      maxWarmSessions: config.ACTOR_WARM_SESSIONS,
    });
    await modelHost.host.start();
    stack.push(() => modelHost.stop());
    const tracker = await startTracker(config, { bus, bars: market.cache, runtime, clickhouse, log });
    stack.push(() => tracker.stop());
    const trainer = new Trainer({
      queue: training.queue,
      jobs: training.jobs,
      models: training.models,
      pipeline: training.pipeline,
      penalty: training.penalty,
      activity: activity.bus,
      metering: accounts.metering,
      log,
      concurrency: config.TRAIN_CONCURRENCY,
    });
    await trainer.start();
    stack.push(() => trainer.stop());

    // Signal delivery (webhook, messenger): the actor that pushes signals, and the API's side of it.
    const delivery = new DeliveryActor({ bus, config, log });
    await delivery.start();
    stack.push(() => delivery.stop());
    const deliveryApi = await buildDeliveryApi({ bus, config, log });
    // Share, fork, lineage, leaderboard, catalogue: an in-memory index of every entry, kept by KV watches.
    const community = await buildCommunity({ bus, models: training.models, activity: activity.bus, log, replicas: config.NATS_REPLICAS });
    stack.push(() => community.stop());

    // Fork revenue share: the daily sweep credits parent authors (once per day, whichever process runs it).
    const payouts = await buildPayouts({
      bus,
      clickhouse,
      metering: accounts.metering,
      directory: accounts.directory,
      log,
      replicas: config.NATS_REPLICAS,
    });
    payouts.sweeper.start();
    stack.push(() => payouts.stop());

    const metrics = () => {
      const ingest = barBuilder.stats();
      const out: Record<string, number> = {
        signalforge_ticks_resampled_total: ingest.ticks,
        signalforge_ticks_late_total: ingest.late,
        signalforge_ticks_future_total: ingest.future,
        signalforge_ticks_stored_total: ingest.storedTicks,
        signalforge_ticks_store_failed_total: ingest.failedTicks,
        signalforge_bars_closed_total: ingest.bars,
        signalforge_bars_stored_total: ingest.storedBars,
        signalforge_bars_cached: market.cache.size(),
        signalforge_tracker_entries_tracked: tracker.shards().reduce((n, shard) => n + shard.running().length, 0),
        signalforge_tracker_warm_sessions: tracker.features.warm,
      };
      Object.assign(out, liveSources.metrics());
      const sent = delivery.stats();
      out.signalforge_delivery_webhook_delivered_total = sent.delivered.webhook;
      out.signalforge_delivery_messenger_delivered_total = sent.delivered.messenger;
      return out;
    };
    // live_url needs the address, known once listening: the one-shot reads it then.
    const where = { url: config.PUBLIC_URL ?? '' };
    const oneShot = new OneShot({
      generation,
      training: training.training,
      jobs: training.jobs,
      deployments,
      metering: accounts.metering,
      runs: new OneShotRuns(await openBucket(bus, Buckets.oneShots, config.NATS_REPLICAS)),
      checkWebhookTarget: webhookTargetChecker(config),
      fee: config.ONE_SHOT_FEE,
      publicUrl: () => where.url,
      log,
    });
    // Runs whose process died (this one, before a restart) are finished: deployed or refunded.
    oneShot.recovery.start();
    stack.push(() => oneShot.recovery.stop());
    const app = await buildApp({ config, log, accounts, activity, market, training: training.training, generation, oneShot, deployments, nc: bus.nc, metrics, delivery: deliveryApi, payouts: payouts.ledger, community, bus, customIndicators: customIndicators.indicators });
    readinessRoutes(app, {
      readiness: () =>
        probeReadiness({
          nats: async () => {
            if (!natsRunning()) throw new Error('the embedded nats-server is down (being restarted)');
            if (bus.nc.isClosed()) throw new Error('the NATS connection is closed');
            await bus.jsm.getAccountInfo();
          },
          clickhouse: async () => {
            await (await clickhouse.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json();
          },
          python: () => {
            // `live` knows a stopped or exited zygote at once; /proc also catches one killed from outside.
            if (!runtime.live || !runtime.processIds().some(processRuns)) throw new Error('no live strategy runtime process');
          },
        }),
    });
    stack.push(() => app.close());
    await app.listen({ port: config.PORT, host: config.HOST });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    const url = `http://${host}:${port}`;
    where.url = config.PUBLIC_URL?.replace(/\/$/, '') ?? url;
    log.info({ url, dataDir, nats: config.NATS_URL ? 'external' : 'embedded', clickhouse: config.CLICKHOUSE_URL ? 'server' : 'chdb' }, 'signalforge serving');

    let closing: Promise<void> | null = null;
    return {
      url,
      app,
      bus,
      clickhouse,
      accounts,
      activity,
      market,
      barBuilder,
      liveSources,
      runtime,
      training,
      trainer,
      deployments,
      actorHost: modelHost.host,
      tracker,
      delivery,
      payouts,
      community,
      log,
      failed,
      close: () => (closing ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}

/**
 * The live tracker of shared community entries: every entry followed on live bars from its
 * publication, its trades in ClickHouse, its LiveRecord in KV (shards claimed by lease, so any
 * number of processes may run it).
 */
async function startTracker(
  config: Config,
  deps: { bus: Bus; bars: BarCache; runtime: StrategyRuntime; clickhouse: ClickHouseClient; log: Logger },
): Promise<Tracker> {
  const tracker = await buildTrackerHost({
    bus: deps.bus,
    bars: deps.bars,
    runtime: deps.runtime,
    trades: new LiveTradesRepo(deps.clickhouse),
    log: deps.log,
    replicas: config.NATS_REPLICAS,
    maxWarmSessions: config.TRACKER_WARM_SESSIONS,
    maxPoolJobsPerBar: config.TRACKER_POOL_JOBS_PER_BAR,
  });
  await tracker.host.start();
  return tracker;
}

/** What `signalforge actors` runs: an actor host joining a running service's NATS. */
export interface ActorsRole {
  host: ModelHost;
  /** The community tracker, run here too when CLICKHOUSE_URL names the store its trades go to. */
  tracker: Tracker | null;
  close(): Promise<void>;
}

/**
 * The `actors` role: another process running deployed models beside `serve` (or on another
 * machine). It shares the deployments through their leases, reads bars from the serving process
 * over NATS (no database of its own) and publishes signals on the same stream.
 */
export async function startActors(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<ActorsRole> {
  configureSandbox({ python: config.PYTHON, mode: config.SANDBOX });
  if (!config.NATS_URL) {
    throw new UnavailableError('the actors role joins a running service: set NATS_URL to its NATS (DATA_DIR/run.json of `serve` names it)');
  }
  const stack = new ShutdownStack(log, config.SHUTDOWN_STEP_MS);
  const close = () => stack.unwind();
  try {
    const bus = await connectBus(config.NATS_URL, 'signalforge-actors', log);
    stack.push(closeBus(bus, config));
    const cache = new BarCache(new NatsBarLoader(bus.nc), bus.nc, log);
    cache.start();
    stack.push(() => cache.stop());
    const runtime = await StrategyRuntime.start({ log, size: config.STRATEGY_WORKERS ?? 1 });
    stack.push(() => runtime.stop());
    const r = config.NATS_REPLICAS;
    const models = await ModelStore.open(bus, await openBucket(bus, Buckets.models, r), await openBucket(bus, Buckets.signals, r), r);
    const modelHost = await buildModelHost({
      bus,
      deployments: await openDeployments(bus, r),
      models,
      bars: cache,
      runtime,
      activity: new ActivityBus(bus),
      log,
      replicas: r,
      maxWarmSessions: config.ACTOR_WARM_SESSIONS,
    });
    const { host } = modelHost;
    await host.start();
    stack.push(() => modelHost.stop());
    // The tracker stores trades: it joins only where the role reaches a ClickHouse server.
    let tracker: Tracker | null = null;
    if (config.CLICKHOUSE_URL) {
      const clickhouse = await openClickHouse({ url: config.CLICKHOUSE_URL, path: join(resolve(config.DATA_DIR), 'clickhouse'), log });
      stack.push(() => clickhouse.close());
      const started = await startTracker(config, { bus, bars: cache, runtime, clickhouse, log });
      stack.push(() => started.stop());
      tracker = started;
    }
    log.info({ host: host.hostId, nats: config.NATS_URL, tracker: tracker !== null }, 'signalforge actors running');
    return { host, tracker, close };
  } catch (err) {
    await close();
    throw err;
  }
}
