import { buildAccounts, EmailAddresses, type Accounts } from '../accounts/index.ts';
import { buildActivity, type Activity } from '../community/index.ts';
import { webhookTargetChecker } from '../delivery/index.ts';
import { buildDeployments, type Deployments } from '../deployments/index.ts';
import { buildCustomIndicators, buildGeneration, type Generation } from '../generation/index.ts';
import type { MarketData } from '../market/index.ts';
import type { StrategyRuntime } from '../sandbox/index.ts';
import { checkModelOffThread, ModelRejectedError } from '../scoring/index.ts';
import type { ClickHouseClient } from '../store/index.ts';
import { buildTraining, type TrainingParts } from '../training/index.ts';
import { buildOptimize, type OptimizeJobs } from '../optimize/index.ts';
import { INDICATOR_RULES } from '../indicators/index.ts';
import { stopOffThread } from '../lib/off-thread.ts';
import type { Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { ShutdownStack } from '../lifecycle/index.ts';
import type { Logger } from '../log.ts';

/** What the domain is built on: a process's shared parts (a RoleContext). */
interface DomainInputs {
  config: Config;
  log: Logger;
  bus: Bus;
  stack: ShutdownStack;
  store(): Promise<ClickHouseClient>;
  market(): Promise<MarketData>;
  runtime(): Promise<StrategyRuntime>;
}

/** What every role that serves users or runs their work starts on: accounts, the activity feed, market data. */
export interface Foundation {
  accounts: Accounts;
  activity: Activity;
  market: MarketData;
}

async function startFoundation({ config, log, bus, stack, store, market }: DomainInputs): Promise<Foundation> {
  const accounts = await buildAccounts({ bus, clickhouse: await store(), log, config });
  stack.push(() => accounts.stop());
  const activity = await buildActivity({ bus, log, replicas: config.NATS_REPLICAS });
  stack.push(() => activity.stop());
  return { accounts, activity, market: await market() };
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

async function startWork(ctx: DomainInputs, { accounts, activity, market }: Foundation): Promise<Work> {
  const { config, log, bus, stack } = ctx;
  const runtime = await ctx.runtime();
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

/** What the edge and the trainer work on: the foundation and the working parts, on the process's store and runtime. */
export type Domain = Foundation & Work & { clickhouse: ClickHouseClient };

/** Builds the domain on a process's shared parts (RoleContext.domain makes it once per process). */
export async function buildDomain(ctx: DomainInputs): Promise<Domain> {
  const foundation = await startFoundation(ctx);
  const work = await startWork(ctx, foundation);
  return { clickhouse: await ctx.store(), ...foundation, ...work };
}
