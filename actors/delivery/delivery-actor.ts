import {
  ensureStream,
  followStreamEach,
  openBucket,
  StreamBatcher,
  subscribe,
  type Bus,
  type FollowedEach,
  type JsonKv,
  type TopicSubscription,
} from '../../src/bus/index.ts';
import { openDeployments, type DeploymentIndex, type DeploymentsView } from '../../src/deployments/index.ts';
import type { Config } from '../../src/config.ts';
import {
  buildPairing,
  parseSignal,
  SignalLog,
  stateKey,
  telegramWebhookSecret,
  DEFAULT_JITTER,
  type HostLookup,
  type RetryPolicy,
} from '../../src/delivery/index.ts';
import type { Logger } from '../../src/log.ts';
import { LeaseHost, openClaims, type Claims, type LeaseContext, type LeaseHolder } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import { DELIVERY_CHANNELS, type DeliveryChannel } from '../../schemas/delivery.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { DeliveryBuckets, Streams, Topics } from '../../schemas/messages.ts';
import { ChannelWorker } from './channel-worker.ts';
import { ChatPacer } from './chat-pacer.ts';
import { TelegramBot, TelegramSender } from './telegram.ts';
import { CatchUpReader } from './catch-up-reader.ts';
import { ProgressJournal } from './progress-journal.ts';
import type { ChannelSender } from './types.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';
import { WebhookSender } from './webhook-sender.ts';
import { ChatHookSender } from './chat-hook-sender.ts';
import { EmailSender } from './email-sender.ts';
import { EmailAddresses } from '../../src/accounts/index.ts';
import { SmtpMailer } from '../../src/delivery/index.ts';

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
  | 'DISCORD_WEBHOOK_HOSTS'
  | 'SLACK_WEBHOOK_HOSTS'
  | 'PUBLIC_URL'
  | 'SMTP_URL'
  | 'EMAIL_FROM'
  | 'SIGNAL_EMAILS_PER_DAY'
>;

export interface DeliveryActorDeps {
  bus: Bus;
  config: DeliveryConfig;
  log: Logger;
  /** Host name resolver for webhook, Discord and Slack targets (the system's by default). */
  lookup?: HostLookup;
  /** Retry schedule, pacing and signature timestamps (the machine's clock by default). */
  clock?: Clock;
  /** How often deployment leases are claimed and renewed (default: the actor host's). */
  renewMs?: number;
}

export interface DeliveryStats {
  delivered: Record<DeliveryChannel, number>;
  workers: number;
  /** Deployments whose delivery this process holds the lease of. */
  deployments: number;
  messenger: boolean;
}

/** A signal as it arrives for a deployment: its SIGNALS sequence and the event (null when unreadable). */
interface Arrived {
  seq: number;
  event: SignalEvent | null;
}

/** Delivery state of an unknown deployment, untouched this long, is forgotten at start. */
const ORPHAN_AFTER_MS = 10 * 60_000;

/** A deployment's delivery lease key in `sf_claims` (model actors use the bare deployment id). */
const leaseKey = (deploymentId: string): string => `delivery.${deploymentId}`;
const deploymentOf = (key: string): string => key.slice('delivery.'.length);

/**
 * The delivery of one deployment while this process holds its lease: one ordered worker per
 * channel it can send on. The workers' state (cursor, failing attempt, replays) is in KV, so the
 * next holder of the lease goes on where this one stopped. Live signals are pushed to it (found
 * through its host by lease id) from the moment it is created.
 */
class DeploymentDelivery implements LeaseHolder {
  private workers: ChannelWorker[] = [];
  /** Signals that arrived while the workers were opening: each worker gets them once open. */
  private early: Arrived[] | null = [];

  constructor(
    private readonly channels: readonly DeliveryChannel[],
    private readonly open: (channel: DeliveryChannel) => Promise<ChannelWorker>,
  ) {}

  async start(): Promise<void> {
    try {
      for (const channel of this.channels) {
        const worker = await this.open(channel);
        this.workers.push(worker);
        for (const { seq, event } of this.early ?? []) worker.push(seq, event);
      }
      this.early = null;
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  push(arrived: Arrived): void {
    this.early?.push(arrived);
    const { seq, event } = arrived;
    for (const worker of this.workers) worker.push(seq, event);
  }

  kick(channel: DeliveryChannel): void {
    for (const worker of this.workers) if (worker.snapshot.channel === channel) worker.kick();
  }

  async stop(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.stop()));
  }

  stats() {
    return { workers: this.workers.length };
  }
}

/**
 * The delivery actor: pushes each signal to webhooks, Telegram, Discord and Slack, one ordered worker per
 * (channel, deployment), with retries, dead letters and replay. Any number of delivery processes
 * share the deployments by lease (`delivery.<deployment_id>` in `sf_claims`, as actor hosts share
 * models): one process sends for a deployment at a time, and when it dies its deployments move to
 * another once its heartbeat expires, each resuming from its cursor in KV and its webhook progress
 * journal — the signal that was in flight, and the webhooks of the journal's last flush, are sent
 * again with the same webhook-id (at least once; receivers de-duplicate).
 * New signals reach the holder through an ordered consumer of SIGNALS (nothing durable per process).
 */
export class DeliveryActor {
  private readonly senders = new Map<DeliveryChannel, ChannelSender>();
  private readonly delivered: Record<DeliveryChannel, number> = { webhook: 0, messenger: 0, discord: 0, slack: 0, email: 0 };
  private readonly listeners = new Set<(event: SignalEvent, channel: DeliveryChannel) => void>();
  private deployments: DeploymentIndex | null = null;
  private readonly batcher: StreamBatcher;
  private host: LeaseHost<DeploymentRecord, DeploymentDelivery> | null = null;
  private messages: FollowedEach | null = null;
  private kicks: TopicSubscription | null = null;
  private bot: TelegramBot | null = null;
  private consuming: Promise<void> = Promise.resolve();
  private stopped = false;

  private kv: {
    deployments: DeploymentsView;
    state: JsonKv<typeof DeliveryBuckets.state.schema>;
    dead: JsonKv<typeof DeliveryBuckets.dead.schema>;
    progress: JsonKv<typeof DeliveryBuckets.progress.schema>;
    claims: Claims;
  } | null = null;
  /** Webhook deliveries of this process not yet in their state (one journal per process). */
  private journal: ProgressJournal | null = null;
  private readonly policy: RetryPolicy;
  /** Sends in flight at once over all deployments (DELIVERY_CONCURRENCY); waiters go in arrival order. */
  private readonly limit: ReturnType<typeof concurrencyLimit>;
  private readonly signals: SignalLog;
  private readonly catchUp: CatchUpReader;

  /** The machine's clock unless the deps give another (retries, pacing, signature timestamps). */
  private readonly clock: Clock;

  constructor(private readonly deps: DeliveryActorDeps) {
    this.clock = deps.clock ?? liveClock;
    this.batcher = new StreamBatcher(deps.bus);
    const { config } = deps;
    this.policy = {
      baseMs: config.WEBHOOK_RETRY_BASE_MS,
      maxMs: config.WEBHOOK_RETRY_MAX_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      jitter: DEFAULT_JITTER,
    };
    this.limit = concurrencyLimit(config.DELIVERY_CONCURRENCY);
    this.signals = new SignalLog(deps.bus);
    this.catchUp = new CatchUpReader({ bus: deps.bus, signals: this.signals, log: deps.log });
  }

  /** This process's id in the leases it holds. */
  get hostId(): string | null {
    return this.host?.hostId ?? null;
  }

  /** Opens its buckets, claims the deployments nobody delivers, then follows the signals; a failed start stops what it opened. */
  async start(): Promise<void> {
    const { bus, config } = this.deps;
    const r = config.NATS_REPLICAS;
    await ensureStream(bus, Streams.signals, r);
    const [deployments, state, dead, progress, claims] = await Promise.all([
      openDeployments(bus, r),
      // Where each delivery stands moves on after every send: a bar's thousands of cursor writes go out in batches.
      openBucket(bus, DeliveryBuckets.state, r, { batcher: this.batcher }),
      openBucket(bus, DeliveryBuckets.dead, r),
      openBucket(bus, DeliveryBuckets.progress, r),
      openClaims(bus, r),
    ]);
    this.kv = { deployments, state, dead, progress, claims };
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
    this.senders.set(
      'webhook',
      new WebhookSender({
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        clock,
        ...(this.deps.lookup ? { lookup: this.deps.lookup } : {}),
      }),
    );
    for (const channel of ['discord', 'slack'] as const) {
      this.senders.set(
        channel,
        new ChatHookSender({
          channel,
          hosts: channel === 'discord' ? config.DISCORD_WEBHOOK_HOSTS : config.SLACK_WEBHOOK_HOSTS,
          allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          publicUrl: config.PUBLIC_URL ?? null,
          log,
          clock,
          ...(this.deps.lookup ? { lookup: this.deps.lookup } : {}),
        }),
      );
    }
    // E-mail only with an SMTP server: without one the channel is unavailable (the deploy API says so).
    if (config.SMTP_URL) {
      this.senders.set(
        'email',
        new EmailSender({
          mailer: new SmtpMailer(config.SMTP_URL, config.EMAIL_FROM, config.WEBHOOK_TIMEOUT_MS),
          addresses: await EmailAddresses.open(bus, config.NATS_REPLICAS),
          dailyCap: config.SIGNAL_EMAILS_PER_DAY,
          publicUrl: config.PUBLIC_URL ?? null,
          log,
          clock,
        }),
      );
    }
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
      const pacer = new ChatPacer({
        chatIntervalMs: config.TELEGRAM_CHAT_INTERVAL_MS,
        globalPerSecond: config.TELEGRAM_GLOBAL_PER_SEC,
        clock,
      });
      this.senders.set('messenger', new TelegramSender({ api: this.bot.api, pairing, pacer, token: config.TELEGRAM_BOT_TOKEN, log }));
    }

    // New signals first (from now on, in stream order), each to its deployment's delivery from the
    // moment that delivery is created: its workers then catch up on what was stored before (the
    // catch-up reader), so nothing between the two is missed.
    const messages = (this.messages = await followStreamEach(bus, Streams.signals, 'signals.>', 'new', (msg) => {
      const subject = msg.subject;
      this.host?.holder(leaseKey(subject.slice(subject.indexOf('.') + 1)))?.push({ seq: msg.seq, event: parseSignal(msg.data) });
    }));
    this.consuming = messages.closed.then((err) => {
      if (err && !this.stopped) log.error({ error: err.message }, 'delivery: following the signals stopped');
    });

    const host = (this.host = new LeaseHost<DeploymentRecord, DeploymentDelivery>({
      names: { actor: 'deployment delivery', spec: 'deployment to deliver', id: 'delivery_lease' },
      desired: {
        // Deployments by id, kept by the deployments view: only those with a channel this process sends on.
        follow: async (onChange) => {
          const index = (this.deployments = await kv.deployments.follow(() => onChange()));
          return { all: () => index.all().filter((d) => this.channelsOf(d).length > 0), stop: () => index.stop() };
        },
      },
      idOf: (d) => leaseKey(d.deployment_id),
      ...kv.claims,
      balance: true,
      create: async (d, lease) => this.delivery(d, lease),
      // A deployment that went away: its delivery state is forgotten (its dead letters expire).
      forget: async (key) => {
        for (const channel of DELIVERY_CHANNELS) await kv.state.delete(stateKey(channel, deploymentOf(key))).catch(() => undefined);
      },
      log,
      clock,
      ...(this.deps.renewMs ? { renewMs: this.deps.renewMs } : {}),
    }));
    this.journal = new ProgressJournal({ kv: kv.progress, hostId: host.hostId, log, clock });
    await host.start();
    // Delivery state of deployments gone while no delivery process held them: forgotten now.
    void this.forgetOrphans().catch((err: unknown) => log.warn({ err }, 'delivery: cleaning up old delivery state failed'));

    this.kicks = subscribe(bus, Topics.deliveryKick, Topics.deliveryKick.all, (kick) => {
      this.host?.holder(leaseKey(kick.deployment_id))?.kick(kick.channel);
    });
    log.info(
      { messenger: this.senders.has('messenger'), host: host.hostId, deployments: host.runningIds().length },
      'delivery actor running',
    );
  }

  private async forgetOrphans(): Promise<void> {
    const state = this.kv!.state;
    for (const key of await state.keys()) {
      const deploymentId = key.slice(key.indexOf('.') + 1);
      if (this.byId(deploymentId)) continue;
      // Untouched for a while too: a deployment this process has not heard of YET is not gone.
      const found = await state.get(key);
      if (found && this.clock.now() - found.value.updated_at > ORPHAN_AFTER_MS) await state.delete(key).catch(() => undefined);
    }
  }

  private channelsOf(deployment: DeploymentRecord): DeliveryChannel[] {
    return DELIVERY_CHANNELS.filter((c) => deployment.channels.includes(c) && this.senders.has(c));
  }

  private byId(deploymentId: string): DeploymentRecord | null {
    return this.deployments?.get(deploymentId) ?? null;
  }

  /** The delivery of a deployment whose lease this process just claimed. */
  private delivery(deployment: DeploymentRecord, lease: LeaseContext): DeploymentDelivery {
    const deploymentId = deployment.deployment_id;
    return new DeploymentDelivery(this.channelsOf(deployment), (channel) =>
      ChannelWorker.open({
        channel,
        deploymentId,
        userId: deployment.user_id,
        state: this.kv!.state,
        dead: this.kv!.dead,
        signals: this.signals,
        catchUp: this.catchUp,
        deployment: () => this.byId(deploymentId),
        sender: this.senders.get(channel)!,
        limit: this.limit,
        policy: this.policy,
        log: this.deps.log,
        lease,
        clock: this.clock,
        // Webhook receivers de-duplicate on webhook-id: their deliveries are journaled. Chat and
        // e-mail ones are written one by one, so a killed process never posts them twice.
        ...(channel === 'webhook' && this.journal ? { journal: this.journal } : {}),
        onDelivered: (event, ch) => {
          this.delivered[ch]++;
          for (const listener of this.listeners) listener(event, ch);
        },
      }),
    );
  }

  /** Calls `listener` after each delivery (benchmarks, metrics). Returns the unsubscribe. */
  onDelivered(listener: (event: SignalEvent, channel: DeliveryChannel) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stats(): DeliveryStats {
    const held = this.host?.holders() ?? [];
    const workers = held.reduce((n, d) => n + d.stats().workers, 0);
    return { delivered: { ...this.delivered }, workers, deployments: held.length, messenger: this.senders.has('messenger') };
  }

  /**
   * Stops sending. `graceful` (the default) releases the leases, so another delivery process takes
   * the deployments over at once; otherwise they expire as after a crash.
   */
  async stop(graceful = true): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.kicks?.unsubscribe();
    await this.messages?.close().catch(() => undefined);
    await this.consuming;
    await this.host?.stop(graceful);
    await this.journal?.close();
    await this.catchUp.close();
    this.deployments?.stop();
    await this.bot?.stop();
    for (const sender of this.senders.values()) await sender.close?.();
    this.batcher.close();
  }
}
