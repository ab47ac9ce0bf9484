import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  clientBlock,
  limitRefusal,
  type AccountDirectory,
  type ClusterRateLimiter,
  type SessionInfo,
  type TokenBuckets,
} from '../../accounts/index.ts';
import { RateLimitedError, UnauthorizedError } from '../../errors.ts';
import type { UserRecord } from '../../../schemas/account-records.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { readCookie, refuseForeignOrigin, SESSION_COOKIE } from './session.ts';

export { readCookie, SESSION_COOKIE } from './session.ts';

/**
 * How a route identifies its caller:
 * - `key`: the X-API-Key header is required (401 without a valid one) and the request counts
 *   against the key's rate limit;
 * - `key-or-session`: the same, but the web app's session cookie also identifies the caller;
 * - `none`: public; a valid key, if sent, still identifies the caller;
 * - `key-if-sent`: public, but a key that is sent must be valid (401 otherwise) and is rate
 *   limited: for routes that add the caller's own part to a public answer.
 * A request without a valid key counts against its address's anonymous rate limit instead.
 */
export type AuthMode = 'key' | 'key-or-session' | 'key-if-sent' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    user: UserRecord | null;
    /** How `user` was identified: its API key, or the browser session cookie. */
    authVia: 'key' | 'session' | null;
    /** The browser session that identified `user` (authVia 'session'). */
    browserSession: SessionInfo | null;
  }
}

/** Returns the authenticated user of a route that requires one. */
export function requireUser(request: FastifyRequest): UserRecord {
  if (!request.user) throw new UnauthorizedError();
  return request.user;
}

export interface AuthDeps {
  directory: AccountDirectory;
  limiter: Pick<ClusterRateLimiter, 'take' | 'max'>;
  /** Per-address token buckets for requests without a valid key. */
  anonymous: TokenBuckets;
  /** Origins besides the service's own allowed to send cookie-authenticated state changes. */
  allowedOrigins: ReadonlySet<string>;
}

/** Operator endpoints (/_healthz, /_readyz, /_metrics): polled by machines, never limited. */
const isOperatorPath = (url: string) => url.startsWith('/_');

/**
 * Declares, on every route as it is added, the security and error responses its auth mode
 * implies (so /openapi.json always agrees with what is enforced), then enforces them.
 */
export function registerAuth(app: FastifyInstance, { directory, limiter, anonymous, allowedOrigins }: AuthDeps): void {
  app.decorateRequest('user', null);
  app.decorateRequest('authVia', null);
  app.decorateRequest('browserSession', null);

  app.addHook('onRoute', (route) => {
    const mode = route.config?.auth ?? 'none';
    const schema = (route.schema ??= {});
    const errors = { 400: ErrorBody, 429: ErrorBody, ...(mode === 'none' ? {} : { 401: ErrorBody }) };
    // Any state change sent with the session cookie may be refused as cross-site (see the onRequest hook).
    const session = !['GET', 'HEAD'].includes(String(route.method)) ? { 403: ErrorBody } : {};
    schema.response = { ...errors, ...session, ...(schema.response as object | undefined) };
    if (mode === 'key') schema.security = [{ ApiKey: [] }];
    else if (mode === 'key-if-sent') schema.security = [{}, { ApiKey: [] }];
    else if (mode === 'key-or-session') schema.security = [{ ApiKey: [] }, { SessionCookie: [] }];
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    // CSRF: a browser sends the cookie along with any request another site's page makes (a form
    // post, a fetch). Whatever the route and however it authenticates, a state change carrying the
    // cookie from a foreign page is refused before its body is read: it cannot rotate, log out,
    // or swap the victim's session for the attacker's (POST /key/trial sets the cookie).
    const token = readCookie(request, SESSION_COOKIE);
    if (token) refuseForeignOrigin(request, allowedOrigins);
    const header = request.headers['x-api-key'];
    const key = typeof header === 'string' ? header : undefined;
    let user = key ? directory.authenticate(key) : null;
    if (user) request.authVia = 'key';
    else if (mode === 'key-or-session' && token) {
      const resolved = await directory.resolveSession(token);
      if (resolved) {
        user = resolved.user;
        request.authVia = 'session';
        request.browserSession = resolved.session;
      }
    }
    if (!user) {
      takeAnonymous(request, anonymous);
      if (mode === 'key-if-sent' && key === undefined) return;
      if (mode !== 'none') throw new UnauthorizedError();
      return;
    }
    request.user = user;
    if (mode === 'none') return;
    const decision = await limiter.take(String(user.user_id));
    if (!decision.ok) {
      throw new RateLimitedError(limitRefusal(decision, limiter.max, 'retry after the Retry-After seconds'), decision.retryAfterMs / 1000);
    }
  });
}

/** The anonymous rate limit: per client address (IPv6 per /64), in memory, no I/O. */
function takeAnonymous(request: FastifyRequest, buckets: TokenBuckets): void {
  if (!buckets.enabled || isOperatorPath(request.url)) return;
  const decision = buckets.take(clientBlock(request.ip));
  if (decision.ok) return;
  throw new RateLimitedError(
    `rate limit: at most ${buckets.burst} requests at once and ${Math.round(buckets.perSecond * 60)} per minute per address without an API key; ` +
      'retry after the Retry-After seconds, or send your X-API-Key',
    decision.retryAfterMs / 1000,
  );
}
