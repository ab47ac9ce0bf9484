import { openBucket, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { DeliveryBuckets } from '../../schemas/messages.ts';
import { openDeployments } from '../deployments/index.ts';
import { DeliveryApi, telegramWebhookSecret } from './api.ts';
import { MessengerPairing } from './pairing.ts';
import { SignalLog } from './signal-log.ts';
import { checkWebhookTarget } from './ssrf.ts';
import { botUsernameSource } from './telegram-api.ts';

export { DeliveryApi, telegramWebhookSecret } from './api.ts';
export { MessengerPairing, newPairingCode, CODE_TTL_MS, type ChatChoice, type RedeemResult } from './pairing.ts';
export { SignalLog, parseSignal, type StoredSignal } from './signal-log.ts';
export {
  checkWebhookTarget,
  parseWebhookUrl,
  classifyAddress,
  addressRefusal,
  systemLookup,
  type CheckedTarget,
  type HostLookup,
  type PrivateTargetPolicy,
  type ResolvedAddress,
} from './ssrf.ts';
export { signWebhook, secretKey, webhookHeaders, SECRET_PREFIX } from './signing.ts';
export { retryDelayMs, nextAttemptAt, nominalSchedule, DEFAULT_JITTER, type RetryPolicy } from './backoff.ts';
export { webhookBody, telegramMessage, priceDigits, probabilityText } from './format.ts';
export { stateKey, deadKey, deadPrefix } from './keys.ts';
export { botUsernameSource, redactToken, type TelegramSettings } from './telegram-api.ts';

type DeliveryConfig = Pick<
  Config,
  'WEBHOOK_ALLOW_PRIVATE' | 'WEBHOOK_RETRY_WINDOW_MS' | 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_API_ROOT' | 'TELEGRAM_MODE' | 'NATS_REPLICAS'
>;

/**
 * The deploy API's URL and SSRF check bound to the configured policy: resolves with the URL's
 * normal form when the service may call it, throws a 400 (WebhookTargetError) saying why not.
 */
export function webhookTargetChecker(config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE'>): (url: string) => Promise<string> {
  return async (url) => (await checkWebhookTarget(url, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE })).normalized;
}

/** Messenger pairing over its KV buckets; null without a bot token. */
export async function buildPairing(bus: Bus, config: DeliveryConfig): Promise<MessengerPairing | null> {
  if (!config.TELEGRAM_BOT_TOKEN) return null;
  const r = config.NATS_REPLICAS;
  const [codes, links] = await Promise.all([openBucket(bus, DeliveryBuckets.pairingCodes, r), openBucket(bus, DeliveryBuckets.messengerLinks, r)]);
  return new MessengerPairing({
    codes,
    links,
    botUsername: botUsernameSource({ token: config.TELEGRAM_BOT_TOKEN, apiRoot: config.TELEGRAM_API_ROOT }),
  });
}

/** The edge's side of delivery: status, dead letters, replay, messenger pairing. */
export async function buildDeliveryApi(deps: { bus: Bus; config: DeliveryConfig; log: Logger }): Promise<DeliveryApi> {
  const { bus, config, log } = deps;
  const r = config.NATS_REPLICAS;
  const [deployments, state, dead, pairing] = await Promise.all([
    openDeployments(bus, r),
    openBucket(bus, DeliveryBuckets.state, r),
    openBucket(bus, DeliveryBuckets.dead, r),
    buildPairing(bus, config),
  ]);
  return new DeliveryApi({
    bus,
    deployments,
    state,
    dead,
    signals: new SignalLog(bus),
    pairing,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    telegramWebhookSecret: config.TELEGRAM_BOT_TOKEN && config.TELEGRAM_MODE === 'webhook' ? telegramWebhookSecret(config.TELEGRAM_BOT_TOKEN) : null,
    log,
  });
}
