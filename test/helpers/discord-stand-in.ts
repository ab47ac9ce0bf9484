/**
 * A stand-in for Discord's execute-webhook endpoint on loopback, answering as Discord does:
 * `POST /api/webhooks/<id>/<token>` (optionally /api/v<n>/…) with a JSON body; 404 code 10015
 * for an unknown webhook, 401 code 50027 for a wrong token, 400 code 50035 for a body Discord
 * would refuse (embed limits); 204 (200 with the message under ?wait=true) when it posts. Every
 * answer carries the per-webhook bucket headers (X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/
 * -Bucket); past the bucket, and when the test asks, 429 with JSON `retry_after` (seconds, a
 * float) and a Retry-After header. A request that comes while its webhook is held counts as a
 * violation (Discord bans clients that keep doing that) and is refused with what is left of the hold.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DiscordMessage {
  webhook: string;
  body: any;
  headers: IncomingHttpHeaders;
  /** The signal id from the embed's footer (`signal <id>`). */
  signalId: string | null;
}

export interface DiscordStandIn {
  /** http://127.0.0.1:<port>: the origin to list in DISCORD_WEBHOOK_HOSTS. */
  origin: string;
  /** Registers a webhook; returns its URL. */
  webhook(id: string, token: string): string;
  /** Messages posted, in order. */
  posted: DiscordMessage[];
  /** Every request: webhook id, status answered. */
  attempts: Array<{ webhook: string; status: number }>;
  /** Requests that arrived while their webhook was held by a rate limit (should be none). */
  violations: number;
  /** The next `count` requests to a webhook are answered 429 with this retry_after. */
  rateLimitNext(id: string, retryAfterSeconds: number, count?: number): void;
  /** The next `count` requests to a webhook are answered with this status (5xx). */
  failNext(id: string, status: number, count?: number): void;
  /** Deletes a webhook (later requests: 404 Unknown Webhook). */
  remove(id: string): void;
  stop(): Promise<void>;
}

interface Hook {
  token: string;
  /** Requests accepted in the current window, and when the window resets (ms). */
  used: number;
  resetAt: number;
  /** Held by a 429 until then. */
  heldUntil: number;
  forced: Array<{ status: number; retryAfter?: number }>;
}

export async function startDiscordStandIn(options: { bucketSize?: number; bucketWindowMs?: number } = {}): Promise<DiscordStandIn> {
  const bucketSize = options.bucketSize ?? 5;
  const windowMs = options.bucketWindowMs ?? 2_000;
  const hooks = new Map<string, Hook>();
  const posted: DiscordMessage[] = [];
  const attempts: DiscordStandIn['attempts'] = [];
  let violations = 0;
  let nextMessageId = 1;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

  const invalid = (body: any): string | null => {
    if (!body || typeof body !== 'object') return 'body is not a JSON object';
    const embeds = body.embeds ?? [];
    if (!body.content && embeds.length === 0) return 'Cannot send an empty message';
    if (embeds.length > 10) return 'embeds: at most 10';
    let total = 0;
    for (const e of embeds) {
      if (e.title !== undefined && (typeof e.title !== 'string' || e.title.length > 256)) return 'embed title: at most 256';
      if (e.url !== undefined && !/^https?:\/\//.test(e.url)) return 'embed url: Not a well formed URL';
      if ((e.fields ?? []).length > 25) return 'embed fields: at most 25';
      for (const f of e.fields ?? []) {
        if (typeof f.name !== 'string' || f.name.length === 0 || f.name.length > 256) return 'field name: 1 to 256';
        if (typeof f.value !== 'string' || f.value.length === 0 || f.value.length > 1024) return 'field value: 1 to 1024';
        total += f.name.length + f.value.length;
      }
      total += (e.title ?? '').length + (e.description ?? '').length + (e.footer?.text ?? '').length;
      if (e.timestamp !== undefined && Number.isNaN(Date.parse(e.timestamp))) return 'embed timestamp: not ISO8601';
    }
    if (total > 6000) return 'embeds: at most 6000 characters in all';
    return null;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const match = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([\w-]+)\/?$/.exec(url.pathname);
      if (req.method !== 'POST' || !match) return json(res, 404, { message: '404: Not Found', code: 0 });
      const [, id, token] = match as unknown as [string, string, string];
      const hook = hooks.get(id);
      if (!hook) {
        attempts.push({ webhook: id, status: 404 });
        return json(res, 404, { message: 'Unknown Webhook', code: 10015 });
      }
      if (hook.token !== token) {
        attempts.push({ webhook: id, status: 401 });
        return json(res, 401, { message: 'Invalid Webhook Token', code: 50027 });
      }
      const now = Date.now();
      if (now < hook.heldUntil) violations++;
      if (now >= hook.resetAt) {
        hook.used = 0;
        hook.resetAt = now + windowMs;
      }
      const limitHeaders = () => ({
        'x-ratelimit-limit': String(bucketSize),
        'x-ratelimit-remaining': String(Math.max(0, bucketSize - hook.used)),
        'x-ratelimit-reset': (hook.resetAt / 1000).toFixed(3),
        'x-ratelimit-reset-after': (Math.max(0, hook.resetAt - now) / 1000).toFixed(3),
        'x-ratelimit-bucket': `bucket-${id}`,
      });
      const limited = (retryAfter: number) => {
        hook.heldUntil = Math.max(hook.heldUntil, now + retryAfter * 1000);
        attempts.push({ webhook: id, status: 429 });
        json(
          res,
          429,
          { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
          {
            ...limitHeaders(),
            'x-ratelimit-remaining': '0',
            'retry-after': String(Math.ceil(retryAfter)),
            'x-ratelimit-scope': 'shared',
          },
        );
      };
      // As Discord: a call while held is refused with what is left of the hold.
      if (now < hook.heldUntil) return limited((hook.heldUntil - now) / 1000);
      const forced = hook.forced.shift();
      if (forced?.status === 429) return limited(forced.retryAfter!);
      if (forced) {
        attempts.push({ webhook: id, status: forced.status });
        return json(res, forced.status, { message: 'Internal Server Error', code: 0 });
      }
      if (hook.used >= bucketSize) return limited(Math.max(0.001, (hook.resetAt - now) / 1000));
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        /* refused below */
      }
      const problem = /^application\/json/.test(req.headers['content-type'] ?? '')
        ? invalid(body)
        : 'content-type must be application/json';
      if (problem) {
        attempts.push({ webhook: id, status: 400 });
        return json(res, 400, {
          message: 'Invalid Form Body',
          code: 50035,
          errors: { _errors: [{ code: 'BASE_TYPE_INVALID', message: problem }] },
        });
      }
      hook.used++;
      attempts.push({ webhook: id, status: url.searchParams.get('wait') === 'true' ? 200 : 204 });
      const footer: string = body.embeds?.[0]?.footer?.text ?? '';
      posted.push({ webhook: id, body, headers: req.headers, signalId: /^signal (\S+)/.exec(footer)?.[1] ?? null });
      if (url.searchParams.get('wait') === 'true')
        return json(res, 200, { id: String(nextMessageId++), webhook_id: id, ...body }, limitHeaders());
      res.writeHead(204, limitHeaders());
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hookOf = (id: string) => {
    const hook = hooks.get(id);
    if (!hook) throw new Error(`no webhook ${id}`);
    return hook;
  };
  return {
    origin,
    webhook(id, token) {
      hooks.set(id, { token, used: 0, resetAt: 0, heldUntil: 0, forced: [] });
      return `${origin}/api/webhooks/${id}/${token}`;
    },
    posted,
    attempts,
    get violations() {
      return violations;
    },
    rateLimitNext(id, retryAfter, count = 1) {
      for (let i = 0; i < count; i++) hookOf(id).forced.push({ status: 429, retryAfter });
    },
    failNext(id, status, count = 1) {
      for (let i = 0; i < count; i++) hookOf(id).forced.push({ status });
    },
    remove(id) {
      hooks.delete(id);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
