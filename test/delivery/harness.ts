/**
 * Delivery tests' shared parts: a real nats-server in a temp dir, the real delivery actor on it,
 * deployments written to `sf_deployments` as the deploy API writes them, and SignalEvents
 * published on SIGNALS as model actors publish them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelWorker, DeliveryActor, type ChannelSender, type ChannelWorkerDeps } from '../../actors/delivery/index.ts';
import { connectBus, ensureStream, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { buildDeliveryApi, SignalLog, type DeliveryApi, type HostLookup } from '../../src/delivery/index.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';
import { createLogger } from '../../src/log.ts';
import type { Channel, DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { Buckets, DeliveryBuckets, Streams, Topics } from '../../schemas/messages.ts';

export const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

export interface Harness {
  bus: Bus;
  deployments: JsonKv<typeof Buckets.deployments.schema>;
  config: Config;
  actor: DeliveryActor;
  api: DeliveryApi;
  /** Stops the actor and starts a new one on the same NATS (a restart), with config overrides. */
  restartActor(env?: Record<string, string>): Promise<void>;
  stopActor(): Promise<void>;
  startActor(env?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string>, lookup?: HostLookup): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'sf-delivery-'));
  const nats: EmbeddedNats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats'), log });
  const bus = await connectBus(nats.url, 'delivery-test', log);
  await ensureStream(bus, Streams.signals);
  const deployments = await openBucket(bus, Buckets.deployments);
  let config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback', ...env });
  const startDelivery = async (cfg: Config) => {
    const started = new DeliveryActor({ bus, config: cfg, log, ...(lookup ? { lookup } : {}) });
    await started.start();
    return started;
  };
  let actor: DeliveryActor | null = await startDelivery(config);
  const api = await buildDeliveryApi({ bus, config, log });
  const self: Harness = {
    bus,
    deployments,
    get config() {
      return config;
    },
    get actor() {
      if (!actor) throw new Error('the actor is stopped');
      return actor;
    },
    api,
    async stopActor() {
      await actor?.stop();
      actor = null;
    },
    async startActor(more = {}) {
      config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback', ...env, ...more });
      actor = await startDelivery(config);
    },
    async restartActor(more = {}) {
      await self.stopActor();
      await self.startActor(more);
    },
    async close() {
      await actor?.stop();
      await bus.close();
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

let deployments = 0;

/** A deployment record as POST /deploy writes it, stored under the model's key. */
export async function deploy(
  h: Pick<Harness, 'deployments'>,
  options: {
    userId?: number;
    channels?: Channel[];
    webhookUrl?: string | null;
    secret?: string | null;
    chatId?: string | null;
    modelName?: string;
    /** Other fields of the record (discord_webhook_url, slack_webhook_url, webhook_template). */
    extra?: Partial<DeploymentRecord>;
  },
): Promise<DeploymentRecord> {
  deployments++;
  const userId = options.userId ?? 1000 + deployments;
  const modelName = options.modelName ?? `Model ${deployments}`;
  const record: DeploymentRecord = {
    deployment_id: `dep_${randomBytes(9).toString('base64url')}`,
    user_id: userId,
    username: `user-${userId}`,
    model_name: modelName,
    stem: `${userId}_EURUSD_15min_${modelName}`,
    symbol: 'EURUSD',
    timeframe: '15min',
    channels: options.channels ?? ['webhook'],
    webhook_url: options.webhookUrl ?? null,
    webhook_secret: options.secret === undefined ? (options.webhookUrl ? newSecret() : null) : options.secret,
    messenger_chat_id: options.chatId ?? null,
    created_at: Date.now(),
    ...options.extra,
  };
  await h.deployments.put(`${userId}.${Buffer.from(modelName, 'utf8').toString('hex')}`, record);
  return record;
}

const BAR_MS = 15 * 60_000;
let bars = 0;

/** The n-th signal of a deployment, shaped as a model actor emits it. */
export function signal(deployment: DeploymentRecord, n: number): SignalEvent {
  const barOpen = Date.UTC(2024, 4, 1) + ++bars * BAR_MS;
  return {
    id: `sig_${deployment.deployment_id}_${barOpen}_${n}`,
    deployment_id: deployment.deployment_id,
    model: deployment.stem,
    model_name: deployment.model_name,
    symbol: deployment.symbol,
    timeframe: deployment.timeframe,
    action: n % 2 === 0 ? 'open' : 'close',
    side: 'long',
    price: 1.08 + n / 10_000,
    stop_loss: n % 2 === 0 ? 1.078 : null,
    take_profit: n % 2 === 0 ? 1.084 : null,
    reason: 'signal',
    p_up: 0.6,
    pnl: n % 2 === 0 ? null : 12.5,
    bar_time: new Date(barOpen).toISOString(),
    created_at: new Date().toISOString(),
  };
}

export async function publish(bus: Bus, event: SignalEvent): Promise<number> {
  const ack = await bus.js.publish(Topics.signal.subject(event.deployment_id), JSON.stringify(event), { msgID: event.id });
  return ack.seq;
}

export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A ChannelWorker of one deployment's webhook channel on the harness's NATS, outside any actor,
 * with this sender and a quick retry schedule; `options` replace the rest.
 */
export async function openWebhookWorker(h: Harness, d: DeploymentRecord, sender: ChannelSender, options: Partial<ChannelWorkerDeps> = {}) {
  return ChannelWorker.open({
    channel: 'webhook',
    deploymentId: d.deployment_id,
    userId: d.user_id,
    state: await openBucket(h.bus, DeliveryBuckets.state),
    dead: await openBucket(h.bus, DeliveryBuckets.dead),
    signals: new SignalLog(h.bus),
    deployment: () => d,
    sender,
    limit: concurrencyLimit(1),
    policy: { baseMs: 100, maxMs: 200, windowMs: 800, jitter: 0 },
    log,
    ...options,
  });
}
