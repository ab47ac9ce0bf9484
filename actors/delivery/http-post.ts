import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Pool, util, type Dispatcher } from 'undici';
import type { ResolvedAddress } from '../../src/delivery/index.ts';

const { parseHeaders } = util;

/** What a POST came to: the answer (status, headers, the start of its body), or why there was none. */
export type PostResult =
  { answered: true; status: number; headers: IncomingHttpHeaders; text: string } | { answered: false; error: string };

/** How much of an answer's body is kept (error texts, Discord's rate-limit JSON). */
const BODY_CHARS = 2_000;
/** Bytes kept to decode them from (UTF-8: at most 4 per character). */
const BODY_BYTES = 4 * BODY_CHARS;

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
 * One POST's answer, as undici's dispatch hands it over. A class, not closures: nothing is made
 * per POST but this object (a bar's thousands of webhooks).
 */
class PostHandler implements Dispatcher.DispatchHandlers {
  private cancel: ((err: Error) => void) | null = null;
  /** Why we ended it (timeout, lease), if we did. */
  private ended: Error | null = null;
  private settled = false;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly resolve: (outcome: PostResult) => void,
    timeoutMs: number,
    private readonly abort: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.end(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    // One listener of our own: the lease running out ends the POST in flight.
    abort?.addEventListener('abort', this, { once: true });
  }

  /** The lease's abort (an EventListener object: no closure per POST). */
  handleEvent(): void {
    this.end(new Error('The operation was aborted'));
  }

  /** Ended by us: the answer is that reason, and the request is cut off now or as soon as it starts. */
  private end(err: Error): void {
    this.ended = err;
    this.cancel?.(err);
    this.finish({ answered: false, error: err.message });
  }

  private finish(outcome: PostResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.abort?.removeEventListener('abort', this);
    this.resolve(outcome);
  }

  onConnect(abortRequest: (err?: Error) => void): void {
    this.cancel = abortRequest;
    if (this.ended) abortRequest(this.ended);
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    // 1xx: informational, the answer follows.
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.headers = parseHeaders(raw) as IncomingHttpHeaders;
    return true;
  }

  /** Read to the end (the connection is kept for the next POST), keeping only the start. */
  onData(chunk: Buffer): boolean {
    if (this.kept < BODY_BYTES) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
    }
    return true;
  }

  onComplete(): void {
    const text = Buffer.concat(this.chunks).toString('utf8').slice(0, BODY_CHARS);
    this.finish({ answered: true, status: this.status, headers: this.headers, text });
  }

  onError(err: Error): void {
    this.finish({ answered: false, error: this.ended ? this.ended.message : describe(err) });
  }
}

/**
 * Keep-alive connection pools and one POST to an SSRF-checked address: the socket connects to
 * `address` (checked before), never to what a second DNS answer would say. A pool is one origin at
 * one checked address, so an address that changes after a new check never reuses a connection made
 * to the old one. undici's client: a third less CPU per POST than node:http's (measured).
 */
export class PinnedPoster {
  private readonly pools = new Map<string, { pool: Pool; used: number }>();
  private swept = performance.now();

  constructor(private readonly timeoutMs: number) {}

  private pool(url: URL, address: ResolvedAddress): Pool {
    const key = `${url.origin}|${address.address}`;
    const now = performance.now();
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

  /**
   * One POST. undici's dispatch with a handler of our own: no stream, abort controller or request
   * object per POST (a bar's thousands of webhooks made those a fifth of delivery's CPU).
   */
  post(url: URL, address: ResolvedAddress, headers: Record<string, string>, body: string, abort?: AbortSignal): Promise<PostResult> {
    if (abort?.aborted) return Promise.resolve({ answered: false, error: 'The operation was aborted' });
    const auth = url.username
      ? {
          authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`,
        }
      : undefined;
    return new Promise<PostResult>((resolve) => {
      const handler = new PostHandler(resolve, this.timeoutMs, abort);
      this.pool(url, address).dispatch(
        {
          method: 'POST',
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          headers: auth ? { ...headers, ...auth } : headers,
          body,
        },
        handler,
      );
    });
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
