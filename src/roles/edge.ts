import { openBucket } from '../bus/index.ts';
import type { Community } from '../community/index.ts';
import { buildCommunity } from '../community/index.ts';
import { buildDeliveryApi, SmtpMailer, webhookTargetChecker } from '../delivery/index.ts';
import { DeploymentWatches } from '../deployments/index.ts';
import { buildApp, ClusterStreamSlots, readinessRoutes, type App } from '../edge/index.ts';
import { probeReadiness, type DependencyCheck } from '../lifecycle/index.ts';
import { OneShot, OneShotRuns } from '../oneshot/index.ts';
import { buildPayouts, type Payouts } from '../payouts/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { ownParts, type RoleContext, type RoleParts } from './context.ts';
import { baseChecks, pythonCheck, roleCommand } from './kit.ts';

export interface EdgeParts extends RoleParts {
  app: App;
  /** Where the app listens. */
  url: string;
  community: Community;
  /** Fork revenue share: the daily sweep and the ledger of GET /payouts. */
  payouts: Payouts;
}

export interface EdgeOptions {
  /** `/_metrics`: every role's counters in this process. */
  metrics: () => Record<string, number>;
  /** `/_readyz`: the process's dependencies. */
  checks: Record<string, DependencyCheck>;
  /** Frees PORT for the app (the start-up's health endpoint listened there). */
  beforeListen?: () => Promise<void>;
}

/**
 * The HTTP edge and what only it needs: community, payouts (the daily sweep runs under its lease,
 * so any number of edges may run it), one_shot and its recovery, then the app, listening on PORT.
 */
export function buildEdge(ctx: RoleContext, options: EdgeOptions): Promise<EdgeParts> {
  return ownParts(ctx, async (own) => {
    const { config, log, bus } = ctx;
    const domain = await ctx.domain();
    const { accounts, activity, market, training, deployments, generation, customIndicators, clickhouse } = domain;
    const deliveryApi = await buildDeliveryApi({ bus, config, log });
    // Share, fork, lineage, leaderboard, catalogue: an in-memory index of every entry, kept by KV watches.
    const community = await buildCommunity({ bus, models: training.models, activity: activity.bus, log, replicas: config.NATS_REPLICAS });
    own.push(() => community.stop());

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
    own.push(() => payouts.stop());

    // live_url needs the address, known once listening: the one-shot reads it then.
    const where = { url: config.PUBLIC_URL ?? '' };
    const oneShot = new OneShot({
      generation,
      training: training.training,
      jobs: training.jobs,
      deployments,
      metering: accounts.metering,
      runs: await OneShotRuns.open(bus, config.NATS_REPLICAS),
      checkWebhookTarget: webhookTargetChecker(config),
      ...(domain.email ? { emailAddress: (userId: number) => domain.email!.requireConfirmed(userId) } : {}),
      fee: config.ONE_SHOT_FEE,
      publicUrl: () => where.url,
      log,
    });
    // Runs whose process died (this one, before a restart) are finished: deployed or refunded.
    oneShot.recovery.start();
    own.push(() => oneShot.recovery.stop());
    // A key's streams count over every edge (NATS KV); pushed before the app, so released slots are written before it stops.
    const streamSlots = new ClusterStreamSlots(await openBucket(bus, Buckets.streamSlots, config.NATS_REPLICAS), log);
    own.push(() => streamSlots.stop());
    // Deployments a WebSocket client watches: their actors publish predictions only then.
    const watches = new DeploymentWatches(await openBucket(bus, Buckets.watched, config.NATS_REPLICAS), log);
    own.push(() => watches.stop());
    // Confirmation mails go from the edge; signal mails from the delivery actor.
    const mailer = config.SMTP_URL ? new SmtpMailer(config.SMTP_URL, config.EMAIL_FROM, config.WEBHOOK_TIMEOUT_MS) : null;
    own.push(() => mailer?.close());
    const email = { addresses: domain.email, mailer, dailyCap: config.SIGNAL_EMAILS_PER_DAY, publicUrl: () => where.url, log };
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
      metrics: options.metrics,
      delivery: deliveryApi,
      payouts: payouts.ledger,
      community,
      bus,
      customIndicators: customIndicators.indicators,
      streamSlots,
      watches,
      optimize: domain.optimize,
      email,
    });
    readinessRoutes(app, { readiness: () => probeReadiness(options.checks) });
    own.push(() => app.close());
    await options.beforeListen?.();
    await app.listen({ port: config.PORT, host: config.HOST });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    const url = `http://${host}:${port}`;
    where.url = config.PUBLIC_URL?.replace(/\/$/, '') ?? url;
    return { app, url, community, payouts, stats: () => ({}) };
  });
}

/**
 * `signalforge edge`: the HTTP API and web app (its health on PORT: /_healthz, /_readyz). While
 * it starts, PORT answers the start-up's health (what it waits for); the app takes the port over.
 */
export const startEdgeRole = roleCommand(
  'edge',
  async (ctx, health) => {
    const { runtime, clickhouse } = await ctx.domain();
    const parts = await buildEdge(
      // The port the start-up's health took (PORT=0 picked one): the app listens there.
      { ...ctx, config: { ...ctx.config, PORT: health.port } },
      {
        metrics: () => ({}),
        checks: { ...baseChecks(ctx.bus, clickhouse), python: pythonCheck(runtime) },
        beforeListen: () => health.close(),
      },
    );
    return { parts, healthUrl: parts.url, running: { url: parts.url } };
  },
  { port: 'PORT' },
);
