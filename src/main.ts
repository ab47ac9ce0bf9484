import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Accounts } from './accounts/index.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus } from './bus/index.ts';
import { ActivityBus, type Activity, type Community } from './community/index.ts';
import {
  BarCache,
  NatsBarLoader,
  echoTicks,
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
import type { Trainer } from '../actors/trainer/index.ts';
import { configureSandbox, StrategyRuntime } from './sandbox/index.ts';
import { ModelStore, type TrainingParts } from './training/index.ts';
import { useScorers } from './scoring/index.ts';
import { openDeployments, type Deployments } from './deployments/index.ts';
import { SignalRecorder } from '../actors/recorder/index.ts';
import { buildModelHost, type ModelHost } from '../actors/model/index.ts';
import { buildTrackerHost, type Tracker } from '../actors/tracker/index.ts';
import { DeliveryActor } from '../actors/delivery/index.ts';
import type { Config } from './config.ts';
import type { App } from './edge/index.ts';
import { ShutdownStack, processRuns } from './lifecycle/index.ts';
import { createLogger, type Logger } from './log.ts';
import { LiveTradesRepo, openClickHouse, SignalsRepo, type ClickHouseClient } from './store/index.ts';
import type { Payouts } from './payouts/index.ts';
import { baseChecks, closeBus, startEdge, startFoundation, startRole, startTrainer, startUsageRecorder, startWork } from './roles/index.ts';
import { serveStore } from './store-link/index.ts';

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

/**
 * The composition root of `serve`: infrastructure (embedded unless NATS_URL / CLICKHOUSE_URL
 * point elsewhere), then the domain parts, then the HTTP edge.
 */
export async function startService(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<Service> {
  configureSandbox({ python: config.PYTHON, mode: config.SANDBOX });
  const dataDir = resolve(config.DATA_DIR);
  if (dataDir !== resolve('data') && existsSync(resolve('data', 'nats'))) {
    // Earlier versions kept state in ./data; it is not read from there any more (issue 33).
    log.warn(
      { dataDir, found: resolve('data') },
      'state of an earlier version found in ./data: move it to DATA_DIR (or set DATA_DIR=./data knowingly) to keep it',
    );
  }
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

    const foundation = await startFoundation(config, log, bus, clickhouse, stack);
    const { accounts, activity, market } = foundation;
    const barBuilder = new BarBuilder({ ticks: market.ticks, bars: market.bars, bus, log, graceMs: config.BAR_GRACE_MS });
    await barBuilder.start();
    stack.push(() => barBuilder.stop());
    const importer = new TickImporter({ ticks: market.ticks, bars: market.bars, nc: bus.nc, log });
    importer.serve();
    // Other roles (signalforge actors) read recent bars from here, over NATS.
    const barPages = serveBarPages(bus, market.cache, log);
    stack.push(() => barPages.unsubscribe());
    // …and, without a ClickHouse server, the store itself (roles started without CLICKHOUSE_URL).
    if (!config.CLICKHOUSE_URL) {
      const store = await serveStore(bus, clickhouse, log, config.NATS_REPLICAS);
      stack.push(() => store.stop());
    }
    stack.push(() => importer.stop());
    const liveSources = await startLiveSources(bus, barBuilder.sink('live'), config, log);
    stack.push(() => liveSources.stop());
    if (config.MARKET_FEED === 'synthetic') {
      // Echoed for the WebSocket `ticks` channel: this feed does not publish on `ticks.<SYMBOL>` in `serve`.
      const synthetic = await startSyntheticMarket({ bus, data: market, sink: echoTicks(bus, barBuilder.sink('synthetic')), log, config });
      stack.push(() => synthetic.stop());
    }

    const work = await startWork(config, log, bus, foundation, stack);
    const { runtime, training, deployments } = work;
    // Every signal also goes to ClickHouse (the stream keeps 30 days).
    const signalRecorder = new SignalRecorder({ bus, repo: new SignalsRepo(clickhouse), log });
    await signalRecorder.start();
    stack.push(() => signalRecorder.stop());
    // Every credit change goes into the usage history from the credits bucket, in batches (not one INSERT per charge).
    const usageRecorder = await startUsageRecorder({ bus, clickhouse, log, replicas: config.NATS_REPLICAS });
    stack.push(() => usageRecorder.stop());
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
    const trainer = await startTrainer(config, log, foundation, work, stack);

    // Signal delivery (webhook, messenger): the actor that pushes signals, and the API's side of it.
    const delivery = new DeliveryActor({ bus, config, log });
    await delivery.start();
    stack.push(() => delivery.stop());
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
    const { app, url, community, payouts } = await startEdge(
      config,
      log,
      {
        bus,
        clickhouse,
        foundation,
        work,
        metrics,
        checks: {
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
        },
      },
      stack,
    );
    log.info(
      { url, dataDir, nats: config.NATS_URL ? 'external' : 'embedded', clickhouse: config.CLICKHOUSE_URL ? 'server' : 'chdb' },
      'signalforge serving',
    );

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
  // Start-up waits for the cluster (a node down, leaders being elected) instead of dying: startRole.
  const { value, close } = await startRole('actors', config, log, config.HEALTH_PORT, async ({ bus, stack, health }) => {
    const cache = new BarCache(new NatsBarLoader(bus), bus.nc, log);
    cache.start();
    stack.push(() => cache.stop());
    const runtime = await StrategyRuntime.start({ log, size: config.STRATEGY_WORKERS ?? 1 });
    stack.push(() => runtime.stop());
    stack.push(useScorers(config, log));
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
    health.serve(baseChecks(bus));
    return { host, tracker, health: health.url };
  });
  log.info(
    { host: value.host.hostId, nats: config.NATS_URL, tracker: value.tracker !== null, health: value.health },
    'signalforge actors running',
  );
  return { host: value.host, tracker: value.tracker, close };
}
