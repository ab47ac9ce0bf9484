import { Trainer } from '../../actors/trainer/index.ts';
import { buildAccounts, EmailAddresses, type Accounts } from '../accounts/index.ts';
import { openBucket, type Bus } from '../bus/index.ts';
import { buildActivity, buildCommunity, type Activity, type Community } from '../community/index.ts';
import type { Config } from '../config.ts';
import { buildDeliveryApi, SmtpMailer, webhookTargetChecker } from '../delivery/index.ts';
import { buildDeployments, type Deployments } from '../deployments/index.ts';
import { buildApp, ClusterStreamSlots, readinessRoutes, type App } from '../edge/index.ts';
import { buildCustomIndicators, buildGeneration, type Generation } from '../generation/index.ts';
import { probeReadiness, type DependencyCheck, type ShutdownStack } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';
import { openMarketData, type MarketData } from '../market/index.ts';
import { OneShot, OneShotRuns } from '../oneshot/index.ts';
import { buildPayouts, type Payouts } from '../payouts/index.ts';
import { StrategyRuntime } from '../sandbox/index.ts';
import { checkModelOffThread, ModelRejectedError, useScorers } from '../scoring/index.ts';
import type { ClickHouseClient } from '../store/index.ts';
import { buildTraining, type TrainingParts } from '../training/index.ts';
import { buildOptimize, type OptimizeJobs } from '../optimize/index.ts';
import { INDICATOR_RULES } from '../indicators/index.ts';
import { stopOffThread } from '../lib/off-thread.ts';
import { Buckets } from '../../schemas/messages.ts';

/** What every role that serves users or runs their work starts on: accounts, the activity feed, market data. */
export interface Foundation {
  accounts: Accounts;
  activity: Activity;
  market: MarketData;
}

export async function startFoundation(
  config: Config,
  log: Logger,
  bus: Bus,
  clickhouse: ClickHouseClient,
  stack: ShutdownStack,
): Promise<Foundation> {
  const accounts = await buildAccounts({ bus, clickhouse, log, config });
  stack.push(() => accounts.stop());
  const activity = await buildActivity({ bus, log, replicas: config.NATS_REPLICAS });
  stack.push(() => activity.stop());
  const market = openMarketData(bus, clickhouse, log);
  stack.push(() => market.cache.stop());
  return { accounts, activity, market };
}

/** The domain's working parts: the strategy runtime, generation, custom indicators, training, deployments. */
export interface Work {
  runtime: StrategyRuntime;
  generation: Generation;
  customIndicators: ReturnType<typeof buildCustomIndicators>;
  training: TrainingParts;
  deployments: Deployments;
  optimize: OptimizeJobs;
  /** Accounts' signal e-mail addresses; null without SMTP_URL (the email channel is unavailable). */
  email: EmailAddresses | null;
}

export async function startWork(
  config: Config,
  log: Logger,
  bus: Bus,
  { accounts, activity, market }: Foundation,
  stack: ShutdownStack,
): Promise<Work> {
  // Trained models are scored in processes of their own (src/scoring/model-host), stopped after every part that scores.
  stack.push(useScorers(config, log));
  const runtime = await StrategyRuntime.start({ log, ...(config.STRATEGY_WORKERS ? { size: config.STRATEGY_WORKERS } : {}) });
  stack.push(() => runtime.stop());
  // The worker threads of the robustness report and CSCV (src/lib/off-thread.ts): ended after the trainer and optimiser stop.
  stack.push(() => stopOffThread());
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
  const email = config.SMTP_URL ? await EmailAddresses.open(bus, config.NATS_REPLICAS) : null;
  deployments = await buildDeployments({
    bus,
    ...(email ? { emailAddress: (userId: number) => email.requireConfirmed(userId) } : {}),
    models: training.models,
    activity: activity.bus,
    log,
    replicas: config.NATS_REPLICAS,
    checkWebhookTarget: webhookTargetChecker(config),
    limits: { free: config.DEPLOY_LIMIT_FREE, pro: config.DEPLOY_LIMIT_PRO },
    // POST /deploy refuses (422) a stored model that fails the safety check; the reason is for the log.
    checkModel: async (record) =>
      checkModelOffThread(await training.models.onnx(record)).then(
        () => null,
        (err: unknown) => (err instanceof ModelRejectedError ? err.reason : Promise.reject(err)),
      ),
  });
  // Optimisation jobs: the edge records them, trainers run them (startTrainer).
  const optimize = await buildOptimize({
    bus,
    replicas: config.NATS_REPLICAS,
    runtime,
    bars: market.cache,
    metering: accounts.metering,
    training,
    deployments,
    indicators: INDICATOR_RULES,
    log,
  });
  stack.push(() => optimize.stop());
  return { runtime, generation, customIndicators, training, deployments, optimize, email };
}

/** A trainer pulling train jobs from the shared work queue (any number of them, in any process). */
export async function startTrainer(
  config: Config,
  log: Logger,
  { accounts, activity }: Foundation,
  work: Work,
  stack: ShutdownStack,
): Promise<Trainer> {
  const { training } = work;
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
  // Optimisation jobs run where train jobs run: claimed from their bucket, resumed when a runner dies.
  await work.optimize.startRunner();
  return trainer;
}

export interface Edge {
  app: App;
  url: string;
  community: Community;
  payouts: Payouts;
}

/**
 * The HTTP edge and what only it needs: community, payouts (the daily sweep runs under its lease,
 * so any number of edges may run it), one_shot and its recovery, then the app, listening.
 */
export async function startEdge(
  config: Config,
  log: Logger,
  deps: {
    bus: Bus;
    clickhouse: ClickHouseClient;
    foundation: Foundation;
    work: Work;
    metrics: () => Record<string, number>;
    checks: Record<string, DependencyCheck>;
    /** Frees PORT for the app (the start-up's health endpoint listened there). */
    beforeListen?: () => Promise<void>;
  },
  stack: ShutdownStack,
): Promise<Edge> {
  const { bus, clickhouse, work } = deps;
  const { accounts, activity, market } = deps.foundation;
  const { training, deployments, generation, customIndicators } = work;
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
    usage: accounts.usage,
    log,
    replicas: config.NATS_REPLICAS,
  });
  payouts.sweeper.start();
  stack.push(() => payouts.stop());

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
    ...(work.email ? { emailAddress: (userId: number) => work.email!.requireConfirmed(userId) } : {}),
    fee: config.ONE_SHOT_FEE,
    publicUrl: () => where.url,
    log,
  });
  // Runs whose process died (this one, before a restart) are finished: deployed or refunded.
  oneShot.recovery.start();
  stack.push(() => oneShot.recovery.stop());
  // A key's streams count over every edge (NATS KV); pushed before the app, so released slots are written before it stops.
  const streamSlots = new ClusterStreamSlots(await openBucket(bus, Buckets.streamSlots, config.NATS_REPLICAS), log);
  stack.push(() => streamSlots.stop());
  // Confirmation mails go from the edge; signal mails from the delivery actor.
  const mailer = config.SMTP_URL ? new SmtpMailer(config.SMTP_URL, config.EMAIL_FROM, config.WEBHOOK_TIMEOUT_MS) : null;
  stack.push(() => mailer?.close());
  const email = { addresses: work.email, mailer, dailyCap: config.SIGNAL_EMAILS_PER_DAY, publicUrl: () => where.url, log };
  const app = await buildApp({
    config,
    log,
    accounts,
    activity,
    market,
    training: training.training,
    generation,
    oneShot,
    deployments,
    nc: bus.nc,
    metrics: deps.metrics,
    delivery: deliveryApi,
    payouts: payouts.ledger,
    community,
    bus,
    customIndicators: customIndicators.indicators,
    streamSlots,
    optimize: work.optimize,
    email,
  });
  readinessRoutes(app, { readiness: () => probeReadiness(deps.checks) });
  stack.push(() => app.close());
  await deps.beforeListen?.();
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${port}`;
  where.url = config.PUBLIC_URL?.replace(/\/$/, '') ?? url;
  return { app, url, community, payouts };
}
