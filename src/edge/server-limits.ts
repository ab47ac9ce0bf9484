import type { Config } from '../config.ts';

type Limits = Pick<Config, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS' | 'HTTP_MAX_HEADER_BYTES'>;

/**
 * How often Node looks for requests past their timeouts: a client is cut off at most this long
 * after its deadline. A quarter of the shorter timeout, between 50 ms and 1 s.
 */
export const timeoutCheckIntervalMs = (c: Pick<Limits, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS'>): number =>
  Math.min(1000, Math.max(50, Math.floor(Math.min(c.HTTP_HEADERS_TIMEOUT_MS, c.HTTP_REQUEST_TIMEOUT_MS) / 4)));

/**
 * Fastify/Node server options that bound what a slow client can hold: the headers must arrive
 * within HTTP_HEADERS_TIMEOUT_MS (this also closes a connection that never sends anything) and
 * the whole request within HTTP_REQUEST_TIMEOUT_MS; both answer 408 through the clientError
 * handler. Responses are not bounded here: SSE streams are long-lived by design.
 */
export function serverTimeouts(c: Limits) {
  return {
    requestTimeout: c.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: c.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: c.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: c.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: timeoutCheckIntervalMs(c),
      maxHeaderSize: c.HTTP_MAX_HEADER_BYTES,
    },
  };
}

/** Origins besides the service's own whose pages may send cookie-authenticated state changes. */
export function allowedOrigins(c: Pick<Config, 'SESSION_ALLOWED_ORIGINS' | 'PUBLIC_URL'>): Set<string> {
  const origins = new Set(c.SESSION_ALLOWED_ORIGINS);
  if (c.PUBLIC_URL) origins.add(new URL(c.PUBLIC_URL).origin);
  return origins;
}
