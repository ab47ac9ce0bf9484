import {
  consume,
  ensureConsumer,
  ensureStream,
  openBucket,
  subscribe,
  type Bus,
  type Delivered,
  type DeliveredStream,
  type JsonKv,
  type TopicSubscription,
} from '../../src/bus/index.ts';
import { openDeployments, type DeploymentIndex, type DeploymentsView } from '../../src/deployments/index.ts';
import type { Config } from '../../src/config.ts';
import {
  buildPairing,
  parseSignal,
  SignalLog,
  telegramWebhookSecret,
  DEFAULT_JITTER,
  type HostLookup,
  type RetryPolicy,
} from '../../src/delivery/index.ts';
import type { Logger } from '../../src/log.ts';
import { liveClock, type Actor, type Clock } from '../../src/kernel/index.ts';
import { DELIVERY_CHANNELS, type DeliveryChannel } from '../../schemas/delivery.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { Consumers, DeliveryBuckets, Streams, Topics } from '../../schemas/messages.ts';
import { ChannelWorker } from './channel-worker.ts';
import { ChatPacer } from './chat-pacer.ts';
import { TelegramBot, TelegramSender } from './telegram.ts';
import { Semaphore, type ChannelSender } from './types.ts';
import { WebhookSender } from './webhook-sender.ts';

export type DeliveryConfig = Pick<
  Config,
  | 'NATS_REPLICAS'
  | 'WEBHOOK_ALLOW_PRIVATE'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_BASE_MS'
  | 'WEBHOOK_RETRY_MAX_MS'
  | 'WEBHOOK_RETRY_WINDOW_MS'
  | 'DELIVERY_CONCURRENCY'
  | 'TELEGRAM_BOT_TOKEN'
  | 'TELEGRAM_API_ROOT'
  | 'TELEGRAM_MODE'
  | 'TELEGRAM_WEBHOOK_URL'
  | 'TELEGRAM_CHAT_INTERVAL_MS'
  | 'TELEGRAM_GLOBAL_PER_SEC'
>;

export interface DeliveryActorDeps {
  bus: Bus;
  config: DeliveryConfig;
  log: Logger;
  /** Host name resolver for webhook targets (the system's by default). */
  lookup?: HostLookup;
  /** Retry schedule, pacing and signature timestamps (the machine's clock by default). */
  clock?: Clock;
}

export interface DeliveryStats {
  delivered: Record<DeliveryChannel, number>;
  workers: number;
  messenger: boolean;
}

/** A deployment unknown when its signal arrives is looked up again this often, this many times. */
const UNKNOWN_RETRY_MS = 500;
const UNKNOWN_MAX_DELIVERIES = 10;

/**
 * The delivery actor: follows SIGNALS through a durable consumer and hands each signal to one
 * ordered worker per (channel, deployment); the workers push to webhooks and Telegram with
 * retries, dead letters and replay. Deployments come from a watch of `sf_deployments`.
 */
export class DeliveryActor implements Actor<Delivered> {
  private readonly workers = new Map<string, Promise<ChannelWorker>>();
  private readonly senders = new Map<DeliveryChannel, ChannelSender>();
  private readonly delivered: Record<DeliveryChannel, number> = { webhook: 0, messenger: 0 };
  private readonly listeners = new Set<(event: SignalEvent, channel: DeliveryChannel) => void>();
  private deployments: DeploymentIndex | null = null;
  private messages: DeliveredStream | null = null;
  private kicks: TopicSubscription | null = null;
  private bot: TelegramBot | null = null;
  private consuming: Promise<void> = Promise.resolve();
  private stopped = false;

  private kv: {
    deployments: DeploymentsView;
    state: JsonKv<typeof DeliveryBuckets.state.schema>;
    dead: JsonKv<typeof DeliveryBuckets.dead.schema>;
  } | null = null;
  private readonly policy: RetryPolicy;
  private readonly limit: Semaphore;
  private readonly signals: SignalLog;

  /** The machine's clock unless the deps give another (retries, pacing, signature timestamps). */
  private readonly clock: Clock;

  constructor(private readonly deps: DeliveryActorDeps) {
    this.clock = deps.clock ?? liveClock;
    const { config } = deps;
    this.policy = {
      baseMs: config.WEBHOOK_RETRY_BASE_MS,
      maxMs: config.WEBHOOK_RETRY_MAX_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      jitter: DEFAULT_JITTER,
    };
    this.limit = new Semaphore(config.DELIVERY_CONCURRENCY);
    this.signals = new SignalLog(deps.bus);
  }

  /** Opens its buckets, resumes the channels that had work, then follows the signals; a failed start stops what it opened. */
  async start(): Promise<void> {
    const { bus, config } = this.deps;
    const r = config.NATS_REPLICAS;
    await ensureStream(bus, Streams.signals, r);
    const [deployments, state, dead] = await Promise.all([
      openDeployments(bus, r),
      openBucket(bus, DeliveryBuckets.state, r),
      openBucket(bus, DeliveryBuckets.dead, r),
    ]);
    this.kv = { deployments, state, dead };
    try {
      await this.run();
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  private async run(): Promise<void> {
    const { bus, config, log } = this.deps;
    const kv = this.kv!;
    const clock = this.clock;
    this.senders.set('webhook', new WebhookSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, timeoutMs: config.WEBHOOK_TIMEOUT_MS, clock, ...(this.deps.lookup ? { lookup: this.deps.lookup } : {}) }));
    const pairing = await buildPairing(bus, config);
    if (pairing && config.TELEGRAM_BOT_TOKEN) {
      if (config.TELEGRAM_MODE === 'webhook' && !config.TELEGRAM_WEBHOOK_URL) {
        throw new Error('TELEGRAM_MODE=webhook needs TELEGRAM_WEBHOOK_URL (the public URL of /api/v1/messenger/telegram-webhook)');
      }
      this.bot = new TelegramBot({
        token: config.TELEGRAM_BOT_TOKEN,
        apiRoot: config.TELEGRAM_API_ROOT,
        mode: config.TELEGRAM_MODE,
        ...(config.TELEGRAM_WEBHOOK_URL ? { webhookUrl: config.TELEGRAM_WEBHOOK_URL } : {}),
        webhookSecret: telegramWebhookSecret(config.TELEGRAM_BOT_TOKEN),
        pairing,
        bus,
        log,
      });
      this.bot.start();
      const pacer = new ChatPacer({ chatIntervalMs: config.TELEGRAM_CHAT_INTERVAL_MS, globalPerSecond: config.TELEGRAM_GLOBAL_PER_SEC, clock });
      this.senders.set('messenger', new TelegramSender({ api: this.bot.api, pairing, pacer, token: config.TELEGRAM_BOT_TOKEN, log }));
    }

    // Deployments by id, kept by the deployments view; a replaced or removed one retires its workers.
    this.deployments = await kv.deployments.follow(({ previous, current }) => {
      if (previous && previous.deployment_id !== current?.deployment_id) void this.retire(previous.deployment_id);
    });

    // Where delivery stood before a restart: resume every channel that still has a deployment.
    for (const key of await kv.state.keys()) {
      const dot = key.indexOf('.');
      const channel = key.slice(0, dot) as DeliveryChannel;
      const deploymentId = key.slice(dot + 1);
      const deployment = this.byId(deploymentId);
      if (!deployment) {
        await kv.state.delete(key).catch(() => undefined);
      } else if (DELIVERY_CHANNELS.includes(channel) && deployment.channels.includes(channel) && this.senders.has(channel)) {
        await this.worker(channel, deployment);
      }
    }

    this.kicks = subscribe(bus, Topics.deliveryKick, Topics.deliveryKick.all, (kick) => {
      const deployment = this.byId(kick.deployment_id);
      if (!deployment || !this.senders.has(kick.channel)) return;
      void this.worker(kick.channel, deployment).then((w) => w.kick());
    });

    await ensureConsumer(bus, Consumers.delivery);
    const messages = (this.messages = await consume(bus, Consumers.delivery, 1_000));
    this.consuming = (async () => {
      for await (const msg of messages) void this.handle(msg);
    })().catch((err: unknown) => {
      if (!this.stopped) log.error({ error: (err as Error).message }, 'delivery consumer stopped');
    });
    log.info({ messenger: this.senders.has('messenger'), resumed: this.workers.size }, 'delivery actor running');
  }

  /** Queues one signal to the workers of its deployment's channels; acknowledged once queued. */
  async handle(msg: Delivered): Promise<void> {
    const deploymentId = msg.subject.slice(msg.subject.indexOf('.') + 1);
    const deployment = this.byId(deploymentId);
    if (!deployment) {
      // A deployment written just before its first signal may not have reached the watch yet.
      if (msg.deliveryCount < UNKNOWN_MAX_DELIVERIES) msg.nak(UNKNOWN_RETRY_MS);
      else msg.term();
      return;
    }
    const channels = DELIVERY_CHANNELS.filter((c) => deployment.channels.includes(c) && this.senders.has(c));
    if (channels.length === 0) return void msg.ack();
    const event = parseSignal(msg.data);
    await Promise.all(channels.map((c) => this.worker(c, deployment).then((w) => w.push(msg.seq, event)))).then(
      () => msg.ack(),
      (err: unknown) => {
        this.deps.log.warn({ deployment_id: deploymentId, error: (err as Error).message }, 'could not queue a signal; it comes again');
        msg.nak(1_000);
      },
    );
  }

  private byId(deploymentId: string): DeploymentRecord | null {
    return this.deployments?.get(deploymentId) ?? null;
  }

  /** The worker of a channel of a deployment, opened on first use. */
  private worker(channel: DeliveryChannel, deployment: DeploymentRecord): Promise<ChannelWorker> {
    const key = `${channel}.${deployment.deployment_id}`;
    let worker = this.workers.get(key);
    if (!worker) {
      const deploymentId = deployment.deployment_id;
      worker = ChannelWorker.open(
        {
          channel,
          deploymentId,
          userId: deployment.user_id,
          state: this.kv!.state,
          dead: this.kv!.dead,
          signals: this.signals,
          deployment: () => this.byId(deploymentId) ?? null,
          sender: this.senders.get(channel)!,
          limit: this.limit,
          policy: this.policy,
          log: this.deps.log,
          now: () => this.clock.now(),
          onDelivered: (event, ch) => {
            this.delivered[ch]++;
            for (const listener of this.listeners) listener(event, ch);
          },
        },
      );
      this.workers.set(key, worker);
      worker.catch(() => {
        if (this.workers.get(key) === worker) this.workers.delete(key);
      });
    }
    return worker;
  }

  /** A deployment went away: its workers stop and its delivery state is forgotten. */
  private async retire(deploymentId: string): Promise<void> {
    for (const channel of DELIVERY_CHANNELS) {
      const key = `${channel}.${deploymentId}`;
      const worker = this.workers.get(key);
      if (!worker) continue;
      this.workers.delete(key);
      await (await worker.catch(() => null))?.stop();
      await this.kv?.state.delete(key).catch(() => undefined);
    }
  }

  /** Calls `listener` after each delivery (benchmarks, metrics). Returns the unsubscribe. */
  onDelivered(listener: (event: SignalEvent, channel: DeliveryChannel) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stats(): DeliveryStats {
    return { delivered: { ...this.delivered }, workers: this.workers.size, messenger: this.senders.has('messenger') };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.kicks?.unsubscribe();
    await this.messages?.close().catch(() => undefined);
    await this.consuming;
    this.deployments?.stop();
    const workers = await Promise.all([...this.workers.values()].map((w) => w.catch(() => null)));
    this.workers.clear();
    await Promise.all(workers.map((w) => w?.stop()));
    await this.bot?.stop();
    for (const sender of this.senders.values()) await sender.close?.();
  }
}
