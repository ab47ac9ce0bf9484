import { openBucket, type Bus } from '../bus/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { DeliveryBuckets } from '../../schemas/messages.ts';
import { openDeployments } from '../deployments/index.ts';
import { DeliveryApi, telegramWebhookSecret } from './api.ts';
import { MessengerPairing } from './pairing.ts';
import { SignalLog } from './signal-log.ts';
import { checkChatHook, type ChatHookChannel } from './chat-hooks.ts';
import { checkWebhookTarget } from './ssrf.ts';
import { botUsernameSource } from './telegram-api.ts';
import { emailAvailability } from './email-availability.ts';

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
export { discordPayload, slackPayload, modelPageUrl } from './chat-payloads.ts';
export { checkChatHook, hostAllowed, type ChatHookChannel } from './chat-hooks.ts';
export { chatHookTarget } from '../lib/chat-hook-target.ts';
export { templateProblem, renderTemplate, templateValues } from '../lib/bridge-template.ts';
export { stateKey, deadKey, deadPrefix } from './keys.ts';
export {
  PROGRESS_PAGES,
  furthest,
  progressOf,
  progressPage,
  progressPageKey,
  readProgressPage,
  storedProgress,
  withProgress,
  type ProgressKv,
} from './progress.ts';
export { signalMail, confirmationMail, type ComposedMail } from './email-message.ts';
export { SmtpMailer, smtpTarget, type SmtpOutcome, type OutgoingMail } from './email-smtp.ts';
export { EMAIL_OFF, emailAvailability } from './email-availability.ts';
export { botUsernameSource, redactToken, type TelegramSettings } from './telegram-api.ts';

type DeliveryConfig = Pick<
  Config,
  'WEBHOOK_ALLOW_PRIVATE' | 'WEBHOOK_RETRY_WINDOW_MS' | 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_API_ROOT' | 'TELEGRAM_MODE' | 'NATS_REPLICAS'
> &
  Partial<Pick<Config, 'SMTP_URL'>>;

/** Checks a channel's target URL, resolving with its normal form (see webhookTargetChecker). */
export type TargetChecker = (url: string, channel?: 'webhook' | ChatHookChannel) => Promise<string>;

/**
 * The deploy API's URL and SSRF check bound to the configured policy: resolves with the URL's
 * normal form when the service may call it, throws a 400 (WebhookTargetError) saying why not.
 * Discord and Slack URLs must also name one of their configured hosts and webhook paths.
 */
export function webhookTargetChecker(
  config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE'> & Partial<Pick<Config, 'DISCORD_WEBHOOK_HOSTS' | 'SLACK_WEBHOOK_HOSTS'>>,
): TargetChecker {
  return async (url, channel = 'webhook') => {
    const options = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
    if (channel === 'webhook') return (await checkWebhookTarget(url, options)).normalized;
    const hosts = (channel === 'discord' ? config.DISCORD_WEBHOOK_HOSTS : config.SLACK_WEBHOOK_HOSTS) ?? [];
    return (await checkChatHook(channel, url, hosts, options)).normalized;
  };
}

/** Messenger pairing over its KV buckets; null without a bot token. */
export async function buildPairing(bus: Bus, config: DeliveryConfig): Promise<MessengerPairing | null> {
  if (!config.TELEGRAM_BOT_TOKEN) return null;
  const r = config.NATS_REPLICAS;
  const [codes, links] = await Promise.all([
    openBucket(bus, DeliveryBuckets.pairingCodes, r),
    openBucket(bus, DeliveryBuckets.messengerLinks, r),
  ]);
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
  const [deployments, state, dead, progress, pairing] = await Promise.all([
    openDeployments(bus, r),
    openBucket(bus, DeliveryBuckets.state, r),
    openBucket(bus, DeliveryBuckets.dead, r),
    openBucket(bus, DeliveryBuckets.progress, r),
    buildPairing(bus, config),
  ]);
  return new DeliveryApi({
    bus,
    deployments,
    state,
    dead,
    progress,
    signals: new SignalLog(bus),
    pairing,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    telegramWebhookSecret:
      config.TELEGRAM_BOT_TOKEN && config.TELEGRAM_MODE === 'webhook' ? telegramWebhookSecret(config.TELEGRAM_BOT_TOKEN) : null,
    emailOff: emailAvailability(config).reason,
    log,
  });
}
