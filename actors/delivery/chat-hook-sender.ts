import {
  addressRefusal,
  chatHookTarget,
  checkChatHook,
  discordPayload,
  modelPageUrl,
  slackPayload,
  systemLookup,
  type ChatHookChannel,
  type HostLookup,
  type PrivateTargetPolicy,
  type ResolvedAddress,
} from '../../src/delivery/index.ts';
import type { Logger } from '../../src/log.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { answerError, PinnedPoster, type PostResult } from './http-post.ts';
import type { ChannelSender, SendOutcome } from './types.ts';

export interface ChatHookSenderOptions {
  channel: ChatHookChannel;
  /** Hosts (or exact origins) the channel's URLs may name (DISCORD_WEBHOOK_HOSTS / SLACK_WEBHOOK_HOSTS). */
  hosts: readonly string[];
  allowPrivate: PrivateTargetPolicy;
  timeoutMs: number;
  /** Base of the model page link; null = no link. */
  publicUrl: string | null;
  log: Logger;
  lookup?: HostLookup;
  clock?: Clock;
  /**
   * Longest a rate-limit answer holds one attempt: a webhook limited for longer fails the attempt
   * (the worker's retry schedule takes over; the hold still applies to its next try).
   */
  maxHoldMs?: number;
  /** Rate-limit answers honoured within one attempt before it counts as failed. */
  maxRateLimitedTries?: number;
}

const USER_AGENT = 'signalforge-delivery/1.0';
/** How long a host's checked addresses are reused (as the webhook sender's). */
const DNS_CACHE_MS = 5_000;

/** Seconds in a header or JSON field as ms; null when absent or not a number. */
const secondsMs = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n * 1000) : null;
};

const header = (answer: Extract<PostResult, { answered: true }>, name: string): string | undefined => {
  const v = answer.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const jsonOf = (text: string): Record<string, unknown> | null => {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/**
 * Discord and Slack delivery: each signal becomes the service's own webhook payload (a Discord
 * embed, a Slack Block Kit message), POSTed to the deployment's webhook URL after the same checks
 * as any webhook (host list, path, SSRF; the socket connects to the checked address). Rate limits
 * are honoured per webhook: sends to one webhook go one at a time, a 429 holds the webhook for its
 * `retry_after` (Discord's JSON, seconds) or `Retry-After` (Slack's header) and sends the same
 * message again, and Discord's `X-RateLimit-Remaining: 0` holds it for `X-RateLimit-Reset-After`.
 */
export class ChatHookSender implements ChannelSender {
  readonly channel: ChatHookChannel;
  private readonly poster: PinnedPoster;
  private readonly clock: Clock;
  /** Per webhook: when it may be called again, and the tail of its sends. */
  private readonly hooks = new Map<string, { resumeAt: number; tail: Promise<unknown> }>();
  /** Cuts every rate-limit hold short at close: a stopped process must not post after the next holder took over. */
  private readonly closing = new AbortController();

  /** Checked addresses per host for a few seconds (only addresses that passed the check are kept). */
  private readonly resolved = new Map<string, { at: number; addresses: ResolvedAddress[] }>();

  /** The resolver (the system's unless the options give one), its answers reused for DNS_CACHE_MS. */
  private readonly lookup: HostLookup = async (host) => {
    const now = this.clock.now();
    const cached = this.resolved.get(host);
    if (cached && now - cached.at < DNS_CACHE_MS) return cached.addresses;
    const addresses = await (this.options.lookup ?? systemLookup)(host);
    if (addresses.every((a) => addressRefusal(a.address, this.options.allowPrivate) === null)) {
      if (this.resolved.size > 10_000) this.resolved.clear();
      this.resolved.set(host, { at: now, addresses });
    }
    return addresses;
  };

  constructor(private readonly options: ChatHookSenderOptions) {
    this.channel = options.channel;
    this.poster = new PinnedPoster(options.timeoutMs);
    this.clock = options.clock ?? liveClock;
  }

  private urlOf(deployment: DeploymentRecord): string | null | undefined {
    return this.channel === 'discord' ? deployment.discord_webhook_url : deployment.slack_webhook_url;
  }

  async send(event: SignalEvent, deployment: DeploymentRecord, abort?: AbortSignal, stopping?: AbortSignal): Promise<SendOutcome> {
    const raw = this.urlOf(deployment);
    if (!raw) return { ok: false, status: null, error: `the deployment has no ${this.channel}_webhook_url` };
    let checked;
    try {
      checked = await checkChatHook(this.channel, raw, this.options.hosts, {
        allowPrivate: this.options.allowPrivate,
        lookup: this.lookup,
      });
    } catch (err) {
      return { ok: false, status: null, error: (err as Error).message };
    }
    const page = modelPageUrl(this.options.publicUrl, event);
    const body = JSON.stringify(this.channel === 'discord' ? discordPayload(event, page) : slackPayload(event, page));
    // One webhook, one key (its query, e.g. Discord's thread_id, and a trailing slash aside).
    const key = `${checked.url.origin}${checked.url.pathname.replace(/\/+$/, '')}`;
    const hook = this.hooks.get(key) ?? { resumeAt: 0, tail: Promise.resolve() };
    this.hooks.set(key, hook);
    const run = () => this.attempt(hook, key, checked, body, abort, stopping);
    const result = hook.tail.then(run, run);
    const tail = (hook.tail = result.catch(() => undefined));
    // Forgotten once idle and not held (a hold must outlive the send that learnt it).
    void tail.then(() => {
      if (this.hooks.get(key) === hook && hook.tail === tail && hook.resumeAt <= this.clock.now()) this.hooks.delete(key);
    });
    return result;
  }

  private async attempt(
    hook: { resumeAt: number },
    key: string,
    checked: Awaited<ReturnType<typeof checkChatHook>>,
    body: string,
    abort?: AbortSignal,
    stopping?: AbortSignal,
  ): Promise<SendOutcome> {
    const maxHold = this.options.maxHoldMs ?? 60_000;
    const maxTries = this.options.maxRateLimitedTries ?? 10;
    const headers = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
    for (let limited = 0; ;) {
      const wait = hook.resumeAt - this.clock.now();
      if (wait > maxHold) {
        return {
          ok: false,
          status: 429,
          error: `${this.channel} rate limit: the webhook is held until ${new Date(hook.resumeAt).toISOString()}`,
        };
      }
      if (wait > 0 && !(await this.sleep(wait, abort, stopping)))
        return { ok: false, status: null, error: 'cut off while waiting for the rate limit' };
      // Whoever holds the deployment next sends it (a send queued behind another webhook's turn stops here too).
      if (this.closing.signal.aborted || stopping?.aborted)
        return { ok: false, status: null, error: 'the delivery of this deployment is stopping' };
      const answer = await this.poster.post(checked.url, checked.addresses[0]!, headers, body, abort);
      if (!answer.answered) return { ok: false, status: null, error: answer.error };
      const now = this.clock.now();
      // Discord says when its bucket is empty before a 429 would.
      const resetAfter = secondsMs(header(answer, 'x-ratelimit-reset-after'));
      if (header(answer, 'x-ratelimit-remaining') === '0' && resetAfter !== null) hook.resumeAt = Math.max(hook.resumeAt, now + resetAfter);
      if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
      if (answer.status === 429) {
        const retryMs = secondsMs(jsonOf(answer.text)?.retry_after) ?? secondsMs(header(answer, 'retry-after')) ?? 1_000;
        hook.resumeAt = Math.max(hook.resumeAt, now + retryMs);
        this.options.log.info(
          { channel: this.channel, webhook: chatHookTarget(this.channel, key), retry_after_ms: retryMs },
          'rate limited: holding the webhook',
        );
        if (++limited < maxTries) continue;
        return { ok: false, status: 429, error: `${this.channel} rate limit: ${limited} answers 429 in a row (retry after ${retryMs} ms)` };
      }
      const error = `${this.channel === 'discord' ? 'Discord' : 'Slack'} ${answerError(answer.status, answer.text)}`;
      return { ok: false, status: answer.status, error, ...(this.gone(answer.status, answer.text) ? { gone: true } : {}) };
    }
  }

  /** The webhook was deleted (or its token revoked): retrying cannot help, only a new URL can. */
  private gone(status: number, text: string): boolean {
    if (this.channel === 'discord') {
      const code = jsonOf(text)?.code;
      return (status === 404 && code === 10015) || (status === 401 && code === 50027);
    }
    return (status === 404 && /no_service|no_team/.test(text)) || (status === 410 && /channel_is_archived/.test(text));
  }

  /** Waits `ms`; false when cut off by one of the signals or by close(). */
  private sleep(ms: number, ...cut: Array<AbortSignal | undefined>): Promise<boolean> {
    const signals = [this.closing.signal, ...cut.filter((s): s is AbortSignal => s !== undefined)];
    if (signals.some((s) => s.aborted)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        resolve(ok);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(true), ms);
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): void {
    this.closing.abort();
    this.poster.close();
  }
}
