import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkWebhookTarget, webhookBody, webhookHeaders, type HostLookup, type PrivateTargetPolicy, type ResolvedAddress } from '../../src/delivery/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { liveClock, type Clock } from '../../src/kernel/index.ts';
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
/** How much of a failing answer's body is kept as the error text. */
const ERROR_BODY_CHARS = 200;

/** A lookup that answers with the address already checked, whatever the socket asks. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * Webhook POSTs, signed per Standard Webhooks. Every attempt checks the target again (its host
 * is resolved and every address must pass the SSRF policy) and connects to a checked address,
 * so a DNS answer that changes between the check and the connection cannot redirect it.
 */
export class WebhookSender implements ChannelSender {
  readonly channel = 'webhook' as const;
  // Every socket a burst opened stays open for the next (a bar's signals come together: with fewer
  // kept, each bar paid new connections, and TLS handshakes, for most of them).
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  private readonly resolved = new Map<string, { at: number; addresses: ResolvedAddress[] }>();

  private readonly clock: Clock;

  constructor(private readonly options: WebhookSenderOptions) {
    this.clock = options.clock ?? liveClock;
  }

  /** The checked addresses of a host, from a short cache (only addresses that passed are cached). */
  private async target(rawUrl: string) {
    const url = new URL(rawUrl);
    const cacheMs = this.options.dnsCacheMs ?? 5_000;
    const cached = this.resolved.get(url.hostname);
    const now = this.clock.now();
    const lookup: HostLookup | undefined = cached && now - cached.at < cacheMs ? async () => cached.addresses : this.options.lookup;
    const checked = await checkWebhookTarget(rawUrl, { allowPrivate: this.options.allowPrivate, ...(lookup ? { lookup } : {}) });
    if (!cached || now - cached.at >= cacheMs) this.resolved.set(url.hostname, { at: now, addresses: checked.addresses });
    if (this.resolved.size > 10_000) this.resolved.clear();
    return checked;
  }

  async send(event: SignalEvent, deployment: DeploymentRecord, abort?: AbortSignal): Promise<SendOutcome> {
    if (!deployment.webhook_url || !deployment.webhook_secret) {
      return { ok: false, status: null, error: 'the deployment has no webhook_url or secret' };
    }
    let checked;
    try {
      checked = await this.target(deployment.webhook_url);
    } catch (err) {
      return { ok: false, status: null, error: (err as Error).message };
    }
    const body = webhookBody(event);
    const headers = {
      ...webhookHeaders(deployment.webhook_secret, event.id, Math.floor(this.clock.now() / 1000), body),
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': USER_AGENT,
    };
    return this.post(checked.url, checked.host, checked.addresses[0]!, headers, body, abort);
  }

  private post(url: URL, host: string, address: ResolvedAddress, headers: Record<string, string>, body: string, abort?: AbortSignal): Promise<SendOutcome> {
    const secure = url.protocol === 'https:';
    const timeoutMs = this.options.timeoutMs;
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const request = (secure ? https : http).request({
        method: 'POST',
        protocol: url.protocol,
        host,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: pinnedLookup(address),
        ...(url.username ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` } : {}),
        ...(abort ? { signal: abort } : {}),
      });
      const timer = setTimeout(() => {
        request.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      request.on('error', (err: NodeJS.ErrnoException) => {
        finish({ ok: false, status: null, error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < ERROR_BODY_CHARS) text += chunk;
        });
        response.on('error', () => undefined);
        response.on('end', () => {
          if (status >= 200 && status < 300) return finish({ ok: true, status });
          const snippet = text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
          const message = `HTTP ${status}${snippet ? `: ${snippet}` : ''}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
          finish({ ok: false, status, error: message, ...(status === 410 ? { gone: true } : {}) });
        });
      });
      request.on('close', () => finish({ ok: false, status: null, error: 'connection closed before an answer' }));
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
