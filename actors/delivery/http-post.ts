import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../../src/delivery/index.ts';

/** What a POST came to: the answer (status, headers, the start of its body), or why there was none. */
export type PostResult =
  { answered: true; status: number; headers: http.IncomingHttpHeaders; text: string } | { answered: false; error: string };

/** How much of an answer's body is kept (error texts, Discord's rate-limit JSON). */
const BODY_CHARS = 2_000;

/** A lookup that answers with the address already checked, whatever the socket asks. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * Keep-alive agents and one POST to an SSRF-checked address: the socket connects to `address`
 * (checked before), never to what a second DNS answer would say.
 */
export class PinnedPoster {
  // Every socket a burst opened stays open for the next (a bar's signals come together: with fewer
  // kept, each bar paid new connections, and TLS handshakes, for most of them).
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });

  constructor(private readonly timeoutMs: number) {}

  post(
    url: URL,
    host: string,
    address: ResolvedAddress,
    headers: Record<string, string>,
    body: string,
    abort?: AbortSignal,
  ): Promise<PostResult> {
    const secure = url.protocol === 'https:';
    const timeoutMs = this.timeoutMs;
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const finish = (outcome: PostResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        abort?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const request = (secure ? https : http).request({
        method: 'POST',
        protocol: url.protocol,
        host,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: pinnedLookup(address),
        ...(url.username ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` } : {}),
      });
      const timer = setTimeout(() => {
        request.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      // One listener of our own rather than the request's `signal` option, which ties the signal to
      // the stream's end with half a dozen listeners per request (a measured 3 % of delivery).
      function onAbort() {
        request.destroy(new Error('The operation was aborted'));
      }
      if (abort?.aborted) onAbort();
      else abort?.addEventListener('abort', onAbort, { once: true });
      request.on('error', (err: NodeJS.ErrnoException) => {
        finish({ answered: false, error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
      });
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < BODY_CHARS) text += chunk;
        });
        response.on('error', () => undefined);
        response.on('end', () =>
          finish({ answered: true, status: response.statusCode ?? 0, headers: response.headers, text: text.slice(0, BODY_CHARS) }),
        );
      });
      request.on('close', () => finish({ answered: false, error: 'connection closed before an answer' }));
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** An error text from an answer: `HTTP <status>: <start of the body>`. */
export function answerError(status: number, text: string, chars = 200): string {
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, chars);
  return `HTTP ${status}${snippet ? `: ${snippet}` : ''}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
}
