import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDirectory, SlidingWindowLimiter } from '../../accounts/index.ts';
import { RateLimitedError, UnauthorizedError } from '../../errors.ts';
import type { UserRecord } from '../../../schemas/messages.ts';
import { ErrorBody } from '../../../schemas/common.ts';

/**
 * How a route identifies its caller:
 * - `key`: the X-API-Key header is required (401 without a valid one) and the request counts
 *   against the key's rate limit;
 * - `key-or-session`: the same, but the web app's session cookie also identifies the caller;
 * - `none`: public; a valid key, if sent, still identifies the caller.
 */
export type AuthMode = 'key' | 'key-or-session' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    user: UserRecord | null;
  }
}

export const SESSION_COOKIE = 'sf_session';

export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/** Returns the authenticated user of a route that requires one. */
export function requireUser(request: FastifyRequest): UserRecord {
  if (!request.user) throw new UnauthorizedError();
  return request.user;
}

export interface AuthDeps {
  directory: AccountDirectory;
  limiter: SlidingWindowLimiter;
}

/**
 * Declares, on every route as it is added, the security and error responses its auth mode
 * implies (so /openapi.json always agrees with what is enforced), then enforces them.
 */
export function registerAuth(app: FastifyInstance, { directory, limiter }: AuthDeps): void {
  app.decorateRequest('user', null);

  app.addHook('onRoute', (route) => {
    const mode = route.config?.auth ?? 'none';
    const schema = (route.schema ??= {});
    const errors = { 400: ErrorBody, 429: ErrorBody, ...(mode === 'none' ? {} : { 401: ErrorBody }) };
    schema.response = { ...errors, ...(schema.response as object | undefined) };
    if (mode === 'key') schema.security = [{ ApiKey: [] }];
    else if (mode === 'key-or-session') schema.security = [{ ApiKey: [] }, { SessionCookie: [] }];
  });

  app.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    const header = request.headers['x-api-key'];
    const key = typeof header === 'string' ? header : undefined;
    let user = key ? directory.authenticate(key) : null;
    if (!user && mode === 'key-or-session') {
      const token = readCookie(request, SESSION_COOKIE);
      if (token) user = await directory.authenticateSession(token);
    }
    if (!user) {
      if (mode !== 'none') throw new UnauthorizedError();
      return;
    }
    request.user = user;
    if (mode === 'none') return;
    const decision = limiter.take(String(user.user_id));
    if (!decision.ok) {
      throw new RateLimitedError(
        `rate limit: at most ${limiter.max} requests per minute per key; retry after the Retry-After seconds`,
        decision.retryAfterMs / 1000,
      );
    }
  });
}
