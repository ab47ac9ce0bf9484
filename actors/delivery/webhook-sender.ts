import {
  checkWebhookTarget,
  renderTemplate,
  templateValues,
  webhookBody,
  webhookHeaders,
  type CheckedTarget,
  type HostLookup,
  type PrivateTargetPolicy,
  type ResolvedAddress,
} from '../../src/delivery/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import { answerError, PinnedPoster } from './http-post.ts';
import type { ChannelSender, SendOutcome } from './types.ts';

export interface WebhookSenderOptions {
  allowPrivate: PrivateTargetPolicy;
  timeoutMs: number;
  /** Resolver for host names (the system's by default; tests pass their own). */
  lookup?: HostLookup;
  /** How long a host's checked addresses are reused before it is resolved again. */
  dnsCacheMs?: number;
  /** The signature's timestamp and the DNS cache's age (the machine's clock by default). */
  clock?: Clock;
}

const USER_AGENT = 'signalforge-webhooks/1.0 (+Standard Webhooks)';
/**
 * Webhook POSTs, signed per Standard Webhooks. Every attempt checks the target again (its host
 * is resolved and every address must pass the SSRF policy) and connects to a checked address,
 * so a DNS answer that changes between the check and the connection cannot redirect it.
 */
export class WebhookSender implements ChannelSender {
  readonly channel = 'webhook' as const;
  private readonly poster: PinnedPoster;
  private readonly resolved = new Map<string, { at: number; addresses: ResolvedAddress[] }>();
  /** Whole targets already checked, by their URL as stored: a deployment's every signal posts to the same one. */
  private readonly checked = new Map<string, { at: number; target: CheckedTarget }>();

  private readonly clock: Clock;

  constructor(private readonly options: WebhookSenderOptions) {
    this.clock = options.clock ?? liveClock;
    this.poster = new PinnedPoster(options.timeoutMs);
  }

  /** The URL's checked target while it is fresh (at most `dnsCacheMs` old), at hand without a promise. */
  private known(rawUrl: string): CheckedTarget | null {
    const known = this.checked.get(rawUrl);
    return known && this.clock.now() - known.at < (this.options.dnsCacheMs ?? 5_000) ? known.target : null;
  }

  /**
   * The URL's target checked again: its host resolved (or its addresses from a short cache: only
   * addresses that passed are cached, each at most `dnsCacheMs`) and every address checked.
   */
  private async target(rawUrl: string): Promise<CheckedTarget> {
    const cacheMs = this.options.dnsCacheMs ?? 5_000;
    const now = this.clock.now();
    const url = new URL(rawUrl);
    const cached = this.resolved.get(url.hostname);
    const lookup: HostLookup | undefined = cached && now - cached.at < cacheMs ? async () => cached.addresses : this.options.lookup;
    const checked = await checkWebhookTarget(rawUrl, { allowPrivate: this.options.allowPrivate, ...(lookup ? { lookup } : {}) });
    if (!cached || now - cached.at >= cacheMs) this.resolved.set(url.hostname, { at: now, addresses: checked.addresses });
    if (this.resolved.size > 10_000) this.resolved.clear();
    if (this.checked.size >= 10_000) this.checked.clear();
    this.checked.set(rawUrl, { at: now, target: checked });
    return checked;
  }

  async send(event: SignalEvent, deployment: DeploymentRecord, abort?: AbortSignal): Promise<SendOutcome> {
    if (!deployment.webhook_url || !deployment.webhook_secret) {
      return { ok: false, status: null, error: 'the deployment has no webhook_url or secret' };
    }
    let checked;
    try {
      checked = this.known(deployment.webhook_url) ?? (await this.target(deployment.webhook_url));
    } catch (err) {
      return { ok: false, status: null, error: (err as Error).message };
    }
    // A bridge template replaces the body; the signature covers whatever body is sent.
    const body = deployment.webhook_template ? renderTemplate(deployment.webhook_template, templateValues(event)) : webhookBody(event);
    const headers = webhookHeaders(deployment.webhook_secret, event.id, Math.floor(this.clock.now() / 1000), body, USER_AGENT);
    const answer = await this.poster.post(checked.url, checked.addresses[0]!, headers, body, abort);
    if (!answer.answered) return { ok: false, status: null, error: answer.error };
    if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
    return {
      ok: false,
      status: answer.status,
      error: answerError(answer.status, answer.text),
      ...(answer.status === 410 ? { gone: true } : {}),
    };
  }

  close(): void {
    this.poster.close();
  }
}
