/**
 * A stand-in for Slack's incoming webhooks on loopback, answering as Slack does: `POST
 * /services/<team>/<bot>/<secret>` with a JSON body; `200 ok` (text/plain) when it posts,
 * `404 no_service` for an unknown webhook, `400 invalid_payload` / `invalid_blocks` for a body
 * Slack would refuse (Block Kit limits), `410 channel_is_archived` for a webhook whose channel
 * went, and `429` with a `Retry-After` header (whole seconds) when the webhook sends faster than
 * Slack allows (here: a burst of `burst`, then one per `intervalMs`) or when the test asks. A
 * request that comes while its webhook is held counts as a violation and is refused again.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackMessage {
  webhook: string;
  body: any;
  headers: IncomingHttpHeaders;
  /** The signal id from the context block (signal `<id>`). */
  signalId: string | null;
}

export interface SlackStandIn {
  /** http://127.0.0.1:<port>: the origin to list in SLACK_WEBHOOK_HOSTS. */
  origin: string;
  /** Registers a webhook (`T…/B…/secret`); returns its URL. */
  webhook(path: string): string;
  posted: SlackMessage[];
  attempts: Array<{ webhook: string; status: number }>;
  violations: number;
  /** The next `count` requests to a webhook are answered 429 with this Retry-After (seconds). */
  rateLimitNext(path: string, retryAfterSeconds: number, count?: number): void;
  failNext(path: string, status: number, count?: number): void;
  /** The webhook's channel was archived (later requests: 410 channel_is_archived). */
  archive(path: string): void;
  stop(): Promise<void>;
}

interface Hook {
  /** Tokens left in the burst bucket, refilled one per interval. */
  tokens: number;
  refilledAt: number;
  heldUntil: number;
  archived: boolean;
  forced: Array<{ status: number; retryAfter?: number }>;
}

export async function startSlackStandIn(options: { burst?: number; intervalMs?: number } = {}): Promise<SlackStandIn> {
  const burst = options.burst ?? 5;
  const intervalMs = options.intervalMs ?? 1_000;
  const hooks = new Map<string, Hook>();
  const posted: SlackMessage[] = [];
  const attempts: SlackStandIn['attempts'] = [];
  let violations = 0;

  const text = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };

  const invalid = (body: any): string | null => {
    if (!body || typeof body !== 'object') return 'invalid_payload';
    if (typeof body.text !== 'string' && !Array.isArray(body.blocks)) return 'no_text';
    const blocks: any[] = body.blocks ?? [];
    if (blocks.length > 50) return 'invalid_blocks';
    for (const b of blocks) {
      if (!['section', 'context', 'header', 'divider', 'actions'].includes(b.type)) return 'invalid_blocks';
      if (b.type === 'section') {
        if (!b.text && !b.fields) return 'invalid_blocks';
        if (b.text && (typeof b.text.text !== 'string' || b.text.text.length === 0 || b.text.text.length > 3000)) return 'invalid_blocks';
        if (
          b.fields &&
          (b.fields.length > 10 || b.fields.some((f: any) => typeof f.text !== 'string' || f.text.length === 0 || f.text.length > 2000))
        )
          return 'invalid_blocks';
      }
      if (b.type === 'context' && (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10))
        return 'invalid_blocks';
    }
    return null;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const match = /^\/services\/([\w-]+\/[\w-]+\/[\w-]+)\/?$/.exec(new URL(req.url ?? '/', 'http://stand-in').pathname);
      const path = match?.[1] ?? '';
      const hook = hooks.get(path);
      if (req.method !== 'POST' || !hook) {
        attempts.push({ webhook: path, status: 404 });
        return text(res, 404, 'no_service');
      }
      if (hook.archived) {
        attempts.push({ webhook: path, status: 410 });
        return text(res, 410, 'channel_is_archived');
      }
      const now = Date.now();
      if (now < hook.heldUntil) violations++;
      const refill = Math.floor((now - hook.refilledAt) / intervalMs);
      if (refill > 0) {
        hook.tokens = Math.min(burst, hook.tokens + refill);
        hook.refilledAt += refill * intervalMs;
      }
      const limited = (retryAfter: number) => {
        hook.heldUntil = Math.max(hook.heldUntil, now + retryAfter * 1000);
        attempts.push({ webhook: path, status: 429 });
        text(res, 429, 'rate_limited', { 'retry-after': String(retryAfter) });
      };
      if (now < hook.heldUntil) return limited(Math.max(1, Math.ceil((hook.heldUntil - now) / 1000)));
      const forced = hook.forced.shift();
      if (forced?.status === 429) return limited(forced.retryAfter!);
      if (forced) {
        attempts.push({ webhook: path, status: forced.status });
        return text(res, forced.status, 'internal_error');
      }
      if (hook.tokens <= 0) return limited(Math.max(1, Math.ceil((hook.refilledAt + intervalMs - now) / 1000)));
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        /* refused below */
      }
      const problem = invalid(body);
      if (problem) {
        attempts.push({ webhook: path, status: 400 });
        return text(res, 400, problem);
      }
      hook.tokens--;
      attempts.push({ webhook: path, status: 200 });
      const context: string = body.blocks?.find((b: any) => b.type === 'context')?.elements?.[0]?.text ?? '';
      posted.push({ webhook: path, body, headers: req.headers, signalId: /signal `([^`]+)`/.exec(context)?.[1] ?? null });
      text(res, 200, 'ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hookOf = (path: string) => {
    const hook = hooks.get(path);
    if (!hook) throw new Error(`no webhook ${path}`);
    return hook;
  };
  return {
    origin,
    webhook(path) {
      hooks.set(path, { tokens: burst, refilledAt: Date.now(), heldUntil: 0, archived: false, forced: [] });
      return `${origin}/services/${path}`;
    },
    posted,
    attempts,
    get violations() {
      return violations;
    },
    rateLimitNext(path, retryAfter, count = 1) {
      for (let i = 0; i < count; i++) hookOf(path).forced.push({ status: 429, retryAfter });
    },
    failNext(path, status, count = 1) {
      for (let i = 0; i < count; i++) hookOf(path).forced.push({ status });
    },
    archive(path) {
      hookOf(path).archived = true;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
