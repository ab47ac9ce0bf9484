import { createHash } from 'node:crypto';
import { publish, type Bus, type JsonKv } from '../bus/index.ts';
import { DeploymentNotFoundError, ForbiddenError, NotFoundError, UnavailableError } from '../errors.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { Logger } from '../log.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import {
  DELIVERY_CHANNELS,
  type ChannelDeliveryStatus,
  type DeadLetter,
  type DeadLetterRecord,
  type DeliveriesResponse,
  type DeliveryChannel,
  type DeliveryState,
  type MessengerCodeResponse,
  type ReplayRequest,
  type ReplayResponse,
} from '../../schemas/delivery.ts';
import { Topics, type DeliveryBuckets } from '../../schemas/messages.ts';
import type { DeploymentsView } from '../deployments/index.ts';
import type { MessengerPairing } from './pairing.ts';
import type { SignalLog } from './signal-log.ts';
import { deadKey, deadPrefix, stateKey } from './keys.ts';
import { storedProgress, withProgress, type ProgressKv } from './progress.ts';
import { chatHookTarget } from '../lib/chat-hook-target.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface DeliveryApiDeps {
  bus: Pick<Bus, 'nc'>;
  deployments: Pick<DeploymentsView, 'find'>;
  state: JsonKv<typeof DeliveryBuckets.state.schema>;
  dead: JsonKv<typeof DeliveryBuckets.dead.schema>;
  /** Webhook deliveries the delivery processes hold in their journals, ahead of `state`. */
  progress: ProgressKv;
  signals: Pick<SignalLog, 'countAfter'>;
  /** null when the server has no Telegram bot token. */
  pairing: MessengerPairing | null;
  retryWindowMs: number;
  /** Telegram webhook mode: the secret Telegram sends in X-Telegram-Bot-Api-Secret-Token; null otherwise. */
  telegramWebhookSecret: string | null;
  /** Why the email channel cannot send on this server (no SMTP_URL); null when it can. */
  emailOff?: string | null;
  log: Logger;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

const MESSENGER_OFF = 'messenger is not enabled on this server (no Telegram bot is configured: TELEGRAM_BOT_TOKEN)';

/** The secret Telegram echoes on every webhook call, derived from the bot token (never the token itself). */
export function telegramWebhookSecret(token: string): string {
  return createHash('sha256').update(`signalforge-telegram-webhook:${token}`).digest('hex').slice(0, 48);
}

const origin = (url: string | null): string | null => {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * The delivery API: per-channel delivery status and dead letters of a caller's deployment,
 * replay of dead letters, and messenger pairing. Reads what the delivery actor keeps in KV.
 */
export class DeliveryApi {
  private readonly clock: Clock;

  constructor(private readonly deps: DeliveryApiDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  get messengerEnabled(): boolean {
    return this.deps.pairing !== null;
  }

  /** The caller's deployment of a model (display name or stem); 404 otherwise. */
  async deployment(userId: number, name: string): Promise<DeploymentRecord> {
    const found = await this.deps.deployments.find(userId, name);
    if (found) return found;
    throw new DeploymentNotFoundError(`model "${name}" is not deployed by this key: GET /api/v1/deployed lists yours`);
  }

  private async deadLetters(channel: DeliveryChannel, deploymentId: string): Promise<DeadLetterRecord[]> {
    const keys = await this.deps.dead.keys(`${deadPrefix(channel, deploymentId)}.>`);
    const records = await Promise.all(keys.map((k) => this.deps.dead.get(k)));
    return records.flatMap((r) => (r ? [r.value] : [])).sort((a, b) => a.seq - b.seq);
  }

  async status(userId: number, model: string, deadLimit: number): Promise<DeliveriesResponse> {
    const deployment = await this.deployment(userId, model);
    const channels = DELIVERY_CHANNELS.filter((c) => deployment.channels.includes(c));
    return {
      model: deployment.stem,
      deployment_id: deployment.deployment_id,
      retry_window_s: this.deps.retryWindowMs / 1000,
      channels: await Promise.all(channels.map((c) => this.channelStatus(c, deployment, deadLimit))),
    };
  }

  private async channelStatus(channel: DeliveryChannel, deployment: DeploymentRecord, deadLimit: number): Promise<ChannelDeliveryStatus> {
    const id = deployment.deployment_id;
    const key = stateKey(channel, id);
    const [state, dead, progress] = await Promise.all([
      this.deps.state.get(key),
      this.deadLetters(channel, id),
      channel === 'webhook' ? storedProgress(this.deps.progress, key) : null,
    ]);
    const s: DeliveryState | null = state ? withProgress(state.value, progress) : null;
    const unseen = await this.deps.signals.countAfter(id, s?.cursor ?? 0);
    const emailOff = channel === 'email' ? (this.deps.emailOff ?? null) : null;
    const off = (channel === 'messenger' && !this.deps.pairing) || emailOff !== null;
    let target: string | null =
      channel === 'webhook'
        ? origin(deployment.webhook_url)
        : channel === 'messenger'
          ? deployment.messenger_chat_id
          : channel === 'email'
            ? (deployment.email_to ?? null)
            : chatHookTarget(channel, channel === 'discord' ? deployment.discord_webhook_url : deployment.slack_webhook_url);
    if (channel === 'messenger' && !target && this.deps.pairing) {
      const choice = await this.deps.pairing.chatFor(deployment.user_id, null);
      target = choice.ok ? choice.chatId : null;
    }
    const current = s?.current ?? null;
    return {
      channel,
      enabled: !off && !s?.disabled,
      disabled_reason: off ? (emailOff ?? MESSENGER_OFF) : (s?.disabled?.reason ?? null),
      target,
      delivered: s?.delivered ?? 0,
      pending: unseen + (s?.replay.length ?? 0),
      last_delivered_at: s?.last_delivered_at ? isoFromMs(s.last_delivered_at) : null,
      last_delivered_id: s?.last_delivered_id ?? null,
      current: current && {
        signal_id: current.signal_id,
        replay: current.replay,
        attempts: current.attempts,
        first_attempt_at: isoFromMs(current.first_attempt_at),
        last_attempt_at: isoFromMs(current.last_attempt_at),
        next_attempt_at: isoFromMs(current.next_attempt_at),
        last_error: current.last_error,
        last_status: current.last_status,
      },
      dead_letters: dead.length,
      dead: dead.slice(0, deadLimit).map(deadView),
    };
  }

  /** Puts dead letters back in their channel's queue (ahead of newer signals, oldest first). */
  async replay(userId: number, model: string, request: ReplayRequest): Promise<ReplayResponse> {
    const deployment = await this.deployment(userId, model);
    const wanted = request.signal_ids ? new Set(request.signal_ids) : null;
    const channels = DELIVERY_CHANNELS.filter((c) => deployment.channels.includes(c) && (!request.channel || request.channel === c));
    const out: ReplayResponse['channels'] = [];
    for (const channel of channels) {
      const id = deployment.deployment_id;
      const key = stateKey(channel, id);
      const state = (await this.deps.state.get(key))?.value;
      const inQueue = new Set(state?.replay ?? []);
      const chosen = (await this.deadLetters(channel, id)).filter(
        (d) => (!wanted || wanted.has(d.signal.id)) && (d.status === 'dead' || !inQueue.has(d.seq)),
      );
      for (const letter of chosen) {
        await this.deps.dead.mutate(deadKey(channel, id, letter.seq), (cur) => ({ ...(cur ?? letter), status: 'queued' }));
      }
      const reEnabled = Boolean(state?.disabled);
      if (state && (chosen.length > 0 || reEnabled)) {
        const seqs = chosen.map((d) => d.seq);
        await this.deps.state.mutate(key, (cur) => {
          const base = cur ?? state;
          return {
            ...base,
            replay: [...new Set([...base.replay, ...seqs])].sort((a, b) => a - b),
            disabled: null,
            updated_at: this.clock.now(),
          };
        });
        await publish(this.deps.bus, Topics.deliveryKick, [channel, id], { channel, deployment_id: id });
      }
      out.push({ channel, replayed: state ? chosen.length : 0, re_enabled: reEnabled });
    }
    this.deps.log.info({ user_id: userId, deployment_id: deployment.deployment_id, replayed: out }, 'dead letters replayed');
    return {
      model: deployment.stem,
      deployment_id: deployment.deployment_id,
      replayed: out.reduce((n, c) => n + c.replayed, 0),
      channels: out,
    };
  }

  async messengerCode(userId: number, renew: boolean): Promise<MessengerCodeResponse> {
    if (!this.deps.pairing)
      return { enabled: false, status: 'disabled', message: `${MESSENGER_OFF}; webhook and sse delivery work without it` };
    try {
      return await this.deps.pairing.code(userId, { renew });
    } catch (err) {
      if (err instanceof UnavailableError) throw err;
      this.deps.log.warn({ error: (err as Error).message }, 'messenger code failed');
      throw new UnavailableError('the Telegram Bot API is not reachable right now: try again shortly');
    }
  }

  /** Telegram webhook mode: hands an update to the bot (in the delivery actor) over NATS. */
  telegramUpdate(secretHeader: string | undefined, update: unknown): void {
    if (!this.deps.telegramWebhookSecret) throw new NotFoundError('the Telegram bot is not in webhook mode on this server');
    if (secretHeader !== this.deps.telegramWebhookSecret) throw new ForbiddenError('bad X-Telegram-Bot-Api-Secret-Token');
    publish(this.deps.bus, Topics.telegramUpdate, [], update as Record<string, unknown>).catch((err: unknown) =>
      this.deps.log.warn({ error: (err as Error).message }, 'a Telegram update could not be relayed'),
    );
  }
}

function deadView(d: DeadLetterRecord): DeadLetter {
  return {
    channel: d.channel,
    signal_id: d.signal.id,
    seq: d.seq,
    status: d.status,
    attempts: d.attempts,
    first_attempt_at: d.first_attempt_at === null ? null : isoFromMs(d.first_attempt_at),
    died_at: isoFromMs(d.died_at),
    last_error: d.last_error,
    last_status: d.last_status,
    ...(d.capped ? { capped: true as const } : {}),
    signal: d.signal,
  };
}
