import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Accounts } from '../accounts/index.ts';
import { SSE_PER_KEY } from '../accounts/index.ts';
import type { Activity, Community } from '../community/index.ts';
import type { MarketData } from '../market/index.ts';
import type { Training } from '../training/index.ts';
import type { Generation } from '../generation/index.ts';
import type { OneShot } from '../oneshot/index.ts';
import { oneShotRoutes } from './routes/one-shot.ts';
import type { Deployments, DeploymentWatches } from '../deployments/index.ts';
import type { Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { registerOpenApi } from './openapi.ts';
import { registerAuth } from './plugins/auth.ts';
import { frameworkErrors, registerErrorHandling } from './plugins/errors.ts';
import { capConnections, clientErrorHandler } from './plugins/client-errors.ts';
import { allowedOrigins, serverTimeouts } from './server-limits.ts';
import { TokenBuckets } from '../accounts/index.ts';
import { registerJsonParser } from './plugins/json-body.ts';
import { registerSse, SseSlots } from './plugins/sse.ts';
import type { ClusterStreamSlots } from './plugins/stream-slots.ts';
import { registerResponseSerializer } from './plugins/serializer.ts';
import { activityRoutes } from './routes/activity.ts';
import { healthRoutes } from './routes/health.ts';
import { registerMcp } from '../mcp/index.ts';
import { indicatorRoutes } from './routes/indicators.ts';
import { customIndicatorRoutes } from './routes/custom-indicators.ts';
import type { CustomIndicators } from '../generation/index.ts';
import { marketRoutes } from './routes/market.ts';
import { modelRoutes } from './routes/models.ts';
import { trainRoutes } from './routes/train.ts';
import { optimizeRoutes } from './routes/optimize.ts';
import type { OptimizeJobs } from '../optimize/index.ts';
import { generateRoutes } from './routes/generate.ts';
import { catalogueRoutes } from './routes/catalogue.ts';
import { communityRoutes } from './routes/community.ts';
import { deployRoutes } from './routes/deploy.ts';
import { deliveryRoutes } from './routes/delivery.ts';
import { emailRoutes, type EmailRoutesDeps } from './routes/email.ts';
import type { DeliveryApi } from '../delivery/index.ts';
import { metricsRoutes, type MetricsSource } from './routes/metrics.ts';
import { indicatorSchemaRoutes } from './routes/indicator-schema.ts';
import { keyRoutes } from './routes/keys.ts';
import { signInRoutes } from './routes/sign-in.ts';
import { credentialRoutes } from './routes/credentials.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { usageRoutes } from './routes/usage.ts';
import { payoutsRoutes } from './routes/payouts.ts';
import { predictStreamRoutes } from './routes/predict-stream.ts';
import { Fanout } from './ws/fanout.ts';
import type { PayoutsLedger } from '../payouts/index.ts';
import type { App } from './types.ts';
// The web app: discovery documents, /pulse, the pages and their assets (issue 16).
import { discoveryRoutes } from './routes/discovery.ts';
import { webRoutes } from './routes/web.ts';
import { ensureBundle } from './web/bundle.ts';

export interface EdgeDeps {
  config: Config;
  log: Logger;
  accounts: Accounts;
  activity: Activity;
  market: MarketData;
  training: Training;
  /** Strategy generation (Claude or offline), credits and caps included. */
  generation: Generation;
  /** POST /one_shot: generate → train → deploy. */
  oneShot: OneShot;
  deployments: Deployments;
  /** Counters for /_metrics, gathered by the composition root. */
  metrics?: MetricsSource;
  /** Delivery status, dead-letter replay and messenger pairing (routes left out when absent). */
  delivery?: DeliveryApi;
  /** GET /payouts: the fork revenue share ledger (route left out when absent). */
  payouts?: PayoutsLedger;
  /** Share, fork, lineage, leaderboard, community.json. */
  community: Community;
  /** Live streams: a deployment's signals (SSE), and the WebSocket stream GET /api/v1/predict (its resume reads JetStream). */
  bus: Pick<Bus, 'nc' | 'js' | 'jsm'>;
  /** POST /indicators/custom (route left out when absent). */
  customIndicators?: CustomIndicators;
  /** A key's open SSE streams and WebSocket connections, counted over every edge. */
  streamSlots: ClusterStreamSlots;
  /** The deployments this edge's WebSocket clients watch (their actors publish predictions only then). */
  watches: Pick<DeploymentWatches, 'watch'>;
  /** POST /optimize and its job routes (left out when absent). */
  optimize?: OptimizeJobs;
  /** The email channel's address routes (without them, or without SMTP_URL, they say the channel is unavailable). */
  email?: EmailRoutesDeps;
}

/** Longest path parameter (model stems are at most ~90 characters); longer ones get 414. */
const MAX_PARAM_LENGTH = 500;

/**
 * The HTTP edge: plugins first (errors, auth, SSE, OpenAPI), then the routes, in one explicit
 * order. Returns the app without listening.
 */
export async function buildApp({
  config,
  log,
  accounts,
  activity,
  market,
  training,
  generation,
  oneShot,
  deployments,
  metrics,
  delivery,
  payouts,
  community,
  bus,
  customIndicators,
  streamSlots,
  watches,
  optimize,
  email,
}: EdgeDeps): Promise<App> {
  const origins = allowedOrigins(config);
  const errorLimits = { bodyLimitBytes: config.BODY_LIMIT_BYTES, maxParamLength: MAX_PARAM_LENGTH };
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Our own onResponse hook writes one compact access line instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    return503OnClosing: true,
    ...serverTimeouts(config),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(errorLimits),
    clientErrorHandler: clientErrorHandler({
      headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
      maxHeaderBytes: config.HTTP_MAX_HEADER_BYTES,
    }),
  }).withTypeProvider<ZodTypeProvider>();
  capConnections(app.server, config.HTTP_MAX_CONNECTIONS, app.log);
  app.setValidatorCompiler(validatorCompiler);
  registerResponseSerializer(app);

  registerErrorHandling(app, errorLimits);
  registerJsonParser(app);
  registerAuth(app, {
    directory: accounts.directory,
    limiter: accounts.requestLimiter,
    anonymous: new TokenBuckets(config.ANON_RATE_PER_MIN / 60, config.ANON_RATE_BURST),
    allowedOrigins: origins,
  });
  registerSse(app);
  await registerOpenApi(app, config);
  // One access-log line per request, written once the response is out.
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      // Link tokens (e-mail confirmation, unsubscribe) never reach the log.
      {
        method: request.method,
        url: request.url.replace(/([?&]token=)[^&]*/g, '$1…'),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        user_id: request.user?.user_id,
      },
      'request',
    );
  });

  healthRoutes(app);
  // The hosted MCP server at /mcp ({mcp_url} = this service's base URL): its tools call this REST API over HTTP.
  registerMcp(app, { accounts, config });
  metricsRoutes(app, { metrics: metrics ?? (() => ({ signalforge_bars_cached: market.cache.size() })) });
  keyRoutes(app, { accounts, config });
  // Sign-in, claim and sessions (issue 21).
  signInRoutes(app, { accounts, config, allowedOrigins: origins });
  credentialRoutes(app, { accounts, config });
  sessionRoutes(app, { accounts });
  usageRoutes(app, { metering: accounts.metering, config });
  // One set of SSE slots for every stream: the contract's 1 concurrent SSE per key spans them all (and every edge).
  const sseSlots = new SseSlots(streamSlots);
  activityRoutes(app, {
    feed: activity.feed,
    slots: sseSlots,
    heartbeatMs: config.SSE_HEARTBEAT_MS,
    perKey: SSE_PER_KEY,
    perAnonymousAddress: config.SSE_PER_ANONYMOUS_ADDRESS,
    anonymousTotal: config.SSE_ANONYMOUS_TOTAL,
  });
  marketRoutes(app, { market });
  indicatorRoutes(app, { market });
  if (customIndicators) customIndicatorRoutes(app, { market, custom: customIndicators });
  indicatorSchemaRoutes(app);
  generateRoutes(app, { generation, slots: sseSlots, perKey: SSE_PER_KEY, heartbeatMs: config.SSE_HEARTBEAT_MS });
  oneShotRoutes(app, { oneShot, slots: sseSlots, perKey: SSE_PER_KEY, heartbeatMs: config.SSE_HEARTBEAT_MS, fee: config.ONE_SHOT_FEE });
  catalogueRoutes(app);
  trainRoutes(app, { training });
  if (optimize) optimizeRoutes(app, { optimize, slots: sseSlots, perKey: SSE_PER_KEY, heartbeatMs: config.SSE_HEARTBEAT_MS });
  modelRoutes(app, { training });
  deployRoutes(app, {
    deployments,
    bus,
    slots: sseSlots,
    perKey: SSE_PER_KEY,
    heartbeatMs: config.SSE_HEARTBEAT_MS,
    limits: { free: config.DEPLOY_LIMIT_FREE, pro: config.DEPLOY_LIMIT_PRO },
  });
  if (delivery) deliveryRoutes(app, { delivery });
  emailRoutes(
    app,
    email ?? { addresses: null, mailer: null, dailyCap: config.SIGNAL_EMAILS_PER_DAY, publicUrl: () => config.PUBLIC_URL ?? '', log },
  );
  if (payouts) payoutsRoutes(app, { ledger: payouts });
  communityRoutes(app, { community });
  // The WebSocket stream (issue 18): bars, ticks, a deployed model's predictions, on-demand predict.
  predictStreamRoutes(app, {
    config,
    directory: accounts.directory,
    limiter: accounts.requestLimiter,
    allowedOrigins: origins,
    streamSlots,
    training,
    channels: { fanout: new Fanout(bus), bus, bars: market.cache, deployments, watches, ticksPerSecond: config.WS_TICKS_PER_SECOND },
    log,
  });
  // The web app (issue 16).
  const pages = await webRoutes(app, { feed: activity.feed, assets: await ensureBundle() });
  discoveryRoutes(app, { config, pages });
  return app;
}
