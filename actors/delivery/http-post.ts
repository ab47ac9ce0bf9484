import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Pool, util, type Dispatcher } from 'undici';
import type { ResolvedAddress } from '../../src/delivery/index.ts';

const { parseHeaders } = util;

/** What a POST came to: the answer (status, headers, the start of its body), or why there was none. */
export type PostResult =
  { answered: true; status: number; readonly headers: IncomingHttpHeaders; text: string } | { answered: false; error: string };

/**
 * An answer whose headers are parsed when first read: a webhook needs only the status (chat hooks
 * read their rate-limit headers), and parsing them made an object and strings per POST.
 */
class Answer {
  readonly answered = true;
  private parsed: IncomingHttpHeaders | null = null;

  constructor(
    readonly status: number,
    private readonly raw: Buffer[] | null,
    readonly text: string,
  ) {}

  get headers(): IncomingHttpHeaders {
    return (this.parsed ??= this.raw ? (parseHeaders(this.raw) as IncomingHttpHeaders) : {});
  }
}

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

interface PoolEntry {
  pool: Pool;
  used: number;
  /** Closed (idle too long, or the poster closed): a destination holding it looks it up again. */
  closed: boolean;
}

/** A URL's origin, path and Basic authorization, and the pool it was last posted through. */
interface Destination {
  origin: string;
  path: string;
  auth: string | null;
  address: string | null;
  entry: PoolEntry | null;
}

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
  private rawHeaders: Buffer[] | null = null;
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
    this.rawHeaders = raw;
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
    const chunks = this.chunks;
    const text =
      chunks.length === 0 ? '' : (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8').slice(0, BODY_CHARS);
    this.finish(new Answer(this.status, this.rawHeaders, text));
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
  private readonly pools = new Map<string, PoolEntry>();
  /** What every POST to a URL repeats, by the URL object a sender keeps for its checked target. */
  private readonly destinations = new WeakMap<URL, Destination>();
  private swept = performance.now();

  constructor(private readonly timeoutMs: number) {}

  private destination(url: URL): Destination {
    let d = this.destinations.get(url);
    if (!d) {
      const auth = url.username
        ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
        : null;
      d = { origin: url.origin, path: `${url.pathname}${url.search}`, auth, address: null, entry: null };
      this.destinations.set(url, d);
    }
    return d;
  }

  private pool(d: Destination, address: ResolvedAddress): Pool {
    const now = performance.now();
    let entry = d.address === address.address && d.entry && !d.entry.closed ? d.entry : undefined;
    if (!entry) {
      const key = `${d.origin}|${address.address}`;
      entry = this.pools.get(key);
      if (!entry) {
        const pool = new Pool(d.origin, {
          connections: CONNECTIONS,
          connect: { lookup: pinnedLookup(address) },
          // Kept between bars (a minute apart), unless the receiver's Keep-Alive says it closes sooner.
          keepAliveTimeout: 60_000,
          keepAliveMaxTimeout: 10 * 60_000,
          // The whole POST is bounded by timeoutMs below.
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        this.pools.set(key, (entry = { pool, used: now, closed: false }));
      }
      d.address = address.address;
      d.entry = entry;
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
      entry.closed = true;
      entry.pool.close().catch(() => undefined);
    }
  }

  /**
   * One POST. undici's dispatch with a handler of our own: no stream, abort controller or request
   * object per POST (a bar's thousands of webhooks made those a fifth of delivery's CPU).
   */
  post(url: URL, address: ResolvedAddress, headers: Record<string, string>, body: string, abort?: AbortSignal): Promise<PostResult> {
    if (abort?.aborted) return Promise.resolve({ answered: false, error: 'The operation was aborted' });
    const d = this.destination(url);
    return new Promise<PostResult>((resolve) => {
      const handler = new PostHandler(resolve, this.timeoutMs, abort);
      this.pool(d, address).dispatch(
        {
          method: 'POST',
          origin: d.origin,
          path: d.path,
          headers: d.auth ? { ...headers, authorization: d.auth } : headers,
          body,
        },
        handler,
      );
    });
  }

  close(): void {
    for (const entry of this.pools.values()) {
      entry.closed = true;
      entry.pool.destroy().catch(() => undefined);
    }
    this.pools.clear();
  }
}

/** An error text from an answer: `HTTP <status>: <start of the body>`. */
export function answerError(status: number, text: string, chars = 200): string {
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, chars);
  return `HTTP ${status}${snippet ? `: ${snippet}` : ''}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
}
