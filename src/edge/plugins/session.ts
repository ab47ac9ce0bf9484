import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { deviceLabel, SESSION_MAX_AGE_MS, type AccountDirectory } from '../../accounts/index.ts';
import { ForeignOriginError } from '../../errors.ts';

/** The browser session cookie: binds a browser to an account (see POST /key/trial, /logout). */
export const SESSION_COOKIE = 'sf_session';

/** A cookie's value, or null when absent or not decodable (a malformed cookie is no cookie). */
export function readCookie(request: { headers: IncomingHttpHeaders }, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * Sets (or with `null`, clears) the session cookie. `Secure` whenever the request came over TLS
 * — directly, or per X-Forwarded-Proto behind a trusted proxy (TRUST_PROXY) — so the browser
 * never sends it back in clear.
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string | null): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${token === null ? 0 : SESSION_MAX_AGE_MS / 1000}`];
  if (request.protocol === 'https') attributes.push('Secure');
  reply.header('set-cookie', `${SESSION_COOKIE}=${token ?? ''}; ${attributes.join('; ')}`);
}

/**
 * Signs this browser in as the user: a new session (its device named from the User-Agent) in the
 * cookie. A session the browser held before (another account's, or an older one) is ended.
 */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  directory: Pick<AccountDirectory, 'createSession' | 'endSession'>,
  userId: number,
): Promise<void> {
  const previous = readCookie(request, SESSION_COOKIE);
  if (previous) await directory.endSession(previous);
  setSessionCookie(request, reply, await directory.createSession(userId, deviceLabel(request.headers['user-agent'])));
}

/**
 * Gives a browser identified by its session a new one after its sessions were ended (a rotation,
 * a password change, "revoke all"): same device, same sign-in time — a renewal is not a sign-in.
 * A caller identified by its key has no session to renew.
 */
export async function renewSession(
  request: FastifyRequest,
  reply: FastifyReply,
  directory: Pick<AccountDirectory, 'createSession' | 'endSession'>,
): Promise<void> {
  const current = request.browserSession;
  if (request.authVia !== 'session' || !current || !request.user) return;
  const previous = readCookie(request, SESSION_COOKIE);
  if (previous) await directory.endSession(previous);
  setSessionCookie(request, reply, await directory.createSession(request.user.user_id, current.device, current.signed_in_at));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses (403) a state-changing request authenticated by the session cookie when a browser
 * says it was sent by another site's page: an `Origin` other than this service's own (or one of
 * `allowed`), or, without `Origin`, `Sec-Fetch-Site: cross-site | same-site`. A request with
 * neither header is not from a browser page (curl, a server) and is let through: cross-site
 * request forgery needs a browser.
 */
export function refuseForeignOrigin(request: FastifyRequest, allowed: ReadonlySet<string>): void {
  if (SAFE_METHODS.has(request.method)) return;
  const foreign = foreignSite(request.headers, `${request.protocol}://${request.host}`, allowed);
  if (foreign) {
    throw new ForeignOriginError(
      `refused: a state-changing request authenticated by the ${SESSION_COOKIE} cookie came from another site ` +
        `(${foreign}); send your X-API-Key instead`,
    );
  }
}

/**
 * Which other site a browser says sent a request (`Origin …` or `Sec-Fetch-Site …`), or null when
 * it came from `ownOrigin`, an allowed origin, or not from a browser page. Also used for WebSocket
 * upgrades: they are GETs, yet a cookie-authenticated socket acts for the user.
 */
export function foreignSite(headers: IncomingHttpHeaders, ownOrigin: string, allowed: ReadonlySet<string>): string | null {
  const origin = headers.origin;
  const fetchSite = headers['sec-fetch-site'];
  if (typeof origin === 'string') return origin !== ownOrigin && !allowed.has(origin) ? `Origin ${origin}` : null;
  return fetchSite === 'cross-site' || fetchSite === 'same-site' ? `Sec-Fetch-Site ${fetchSite}` : null;
}
