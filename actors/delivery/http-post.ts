import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Pool } from 'undici';
import type { ResolvedAddress } from '../../src/delivery/index.ts';

/** What a POST came to: the answer (status, headers, the start of its body), or why there was none. */
export type PostResult =
  { answered: true; status: number; headers: IncomingHttpHeaders; text: string } | { answered: false; error: string };

/** How much of an answer's body is kept (error texts, Discord's rate-limit JSON). */
const BODY_CHARS = 2_000;

/**
 * Connections kept per destination (origin and checked address): a bar's signals come together,
 * and every socket the burst opened stays for the next bar (fewer kept, each bar paid new
 * connections, and TLS handshakes, for most of them).
 */
const CONNECTIONS = 256;

/** A destination's connections are closed after this long without a POST. */
const IDLE_POOL_MS = 5 * 60_000;

/** A lookup that answers with the address already checked, whatever the socket asks. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const message = e?.message ?? String(err);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/**
 * Keep-alive connection pools and one POST to an SSRF-checked address: the socket connects to
 * `address` (checked before), never to what a second DNS answer would say. A pool is one origin at
 * one checked address, so an address that changes after a new check never reuses a connection made
 * to the old one. undici's client: a third less CPU per POST than node:http's (measured).
 */
export class PinnedPoster {
  private readonly pools = new Map<string, { pool: Pool; used: number }>();
  private swept = Date.now();

  constructor(private readonly timeoutMs: number) {}

  private pool(url: URL, address: ResolvedAddress): Pool {
    const key = `${url.origin}|${address.address}`;
    const now = Date.now();
    let entry = this.pools.get(key);
    if (!entry) {
      const pool = new Pool(url.origin, {
        connections: CONNECTIONS,
        connect: { lookup: pinnedLookup(address) },
        // Kept between bars (a minute apart), unless the receiver's Keep-Alive says it closes sooner.
        keepAliveTimeout: 60_000,
        keepAliveMaxTimeout: 10 * 60_000,
        // The whole POST is bounded by timeoutMs below.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(key, (entry = { pool, used: now }));
    }
    entry.used = now;
    if (now - this.swept > 60_000) this.sweep(now);
    return entry.pool;
  }

  private sweep(now: number): void {
    this.swept = now;
    for (const [key, entry] of this.pools) {
      if (now - entry.used < IDLE_POOL_MS) continue;
      this.pools.delete(key);
      entry.pool.close().catch(() => undefined);
    }
  }

  async post(url: URL, address: ResolvedAddress, headers: Record<string, string>, body: string, abort?: AbortSignal): Promise<PostResult> {
    if (abort?.aborted) return { answered: false, error: 'The operation was aborted' };
    const pool = this.pool(url, address);
    const stop = new AbortController();
    const timeoutMs = this.timeoutMs;
    const timer = setTimeout(() => stop.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    // One listener of our own: the lease running out ends the POST in flight.
    const onAbort = () => stop.abort(new Error('The operation was aborted'));
    abort?.addEventListener('abort', onAbort, { once: true });
    try {
      const auth = url.username
        ? {
            authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`,
          }
        : {};
      const answer = await pool.request({
        method: 'POST',
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, ...auth },
        body,
        signal: stop.signal,
      });
      // Read to the end (the connection is kept for the next POST), keeping only the start.
      let text = '';
      answer.body.setEncoding('utf8');
      for await (const chunk of answer.body as AsyncIterable<string>) if (text.length < BODY_CHARS) text += chunk;
      return { answered: true, status: answer.statusCode, headers: answer.headers as IncomingHttpHeaders, text: text.slice(0, BODY_CHARS) };
    } catch (err) {
      return { answered: false, error: stop.signal.aborted ? (stop.signal.reason as Error).message : describe(err) };
    } finally {
      clearTimeout(timer);
      abort?.removeEventListener('abort', onAbort);
    }
  }

  close(): void {
    for (const { pool } of this.pools.values()) pool.destroy().catch(() => undefined);
    this.pools.clear();
  }
}

/** An error text from an answer: `HTTP <status>: <start of the body>`. */
export function answerError(status: number, text: string, chars = 200): string {
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, chars);
  return `HTTP ${status}${snippet ? `: ${snippet}` : ''}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
}
