/**
 * The fleet bench's webhook receiver. It stands in for the customers' servers, which in production
 * run elsewhere and here share the service's two cores, so it does as little as a receiver can
 * while still checking what delivery promises:
 * - HTTP/1.1 keep-alive POSTs read straight off the socket (no Node http server objects per
 *   request: those cost this machine more than delivery's own send);
 * - every Standard Webhooks signature verified with node:crypto (HMAC-SHA256 of
 *   `${webhook-id}.${webhook-timestamp}.${body}`, the timestamp within 5 minutes), by the
 *   deployment's secret (the signal in the body names its deployment);
 * - of each webhook, only what the bench reads: its path, signal, deployment, bar and arrival.
 * The tests' receiver (test/helpers/webhook-receiver.ts) keeps whole requests and verifies with the
 * reference package; this one is for thousands of webhooks a second.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SunkWebhook {
  path: string;
  signalId: string;
  deploymentId: string;
  /** The signal's bar, epoch ms (NaN when the body is no signal). */
  barTime: number;
  /** true: signed with the deployment's secret; false: a bad signature; null: no secret known for it. */
  verified: boolean | null;
  /** performance.now() when the body was complete. */
  at: number;
}

export interface WebhookSink {
  url: string;
  /** Every webhook answered 200, in arrival order. */
  hooks: SunkWebhook[];
  /** Requests that were not a readable webhook (answered 400). */
  readonly malformed: number;
  /** The secret a deployment's webhooks are verified with (`whsec_…`). */
  secret(deploymentId: string, secret: string): void;
  stop(): Promise<void>;
}

const TOLERANCE_S = 300;
const HEAD_END = Buffer.from('\r\n\r\n');
const OK = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok');
const BAD = Buffer.from('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 3\r\nconnection: close\r\n\r\nbad');
/** A head larger than this is no webhook of ours. */
const MAX_HEAD = 16 * 1024;

/** One parsed request off the socket, or null while it is incomplete; throws on what is not HTTP/1.1 with a length. */
function nextRequest(buf: Buffer): { path: string; headers: Map<string, string>; body: Buffer; used: number } | null {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) {
    if (buf.length > MAX_HEAD) throw new Error('request head too large');
    return null;
  }
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const [method, path, version] = lines[0]!.split(' ');
  if (method !== 'POST' || !path || !version?.startsWith('HTTP/1.')) throw new Error(`not a webhook POST: ${lines[0]}`);
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i]!.indexOf(':');
    if (colon > 0) headers.set(lines[i]!.slice(0, colon).trim().toLowerCase(), lines[i]!.slice(colon + 1).trim());
  }
  if (headers.has('transfer-encoding')) throw new Error('chunked bodies are not expected of delivery');
  const length = Number(headers.get('content-length'));
  if (!Number.isSafeInteger(length) || length < 0) throw new Error('no content-length');
  const start = end + HEAD_END.length;
  if (buf.length < start + length) return null;
  return { path, headers, body: buf.subarray(start, start + length), used: start + length };
}

/** Whether `signature` (space-separated `v1,<base64>`) holds the HMAC of the message under `key`. */
function signedBy(key: Buffer, headers: Map<string, string>, body: Buffer, nowS: number): boolean {
  const id = headers.get('webhook-id');
  const ts = headers.get('webhook-timestamp');
  const signature = headers.get('webhook-signature');
  if (!id || !ts || !signature || Math.abs(nowS - Number(ts)) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', key).update(`${id}.${ts}.`).update(body).digest();
  return signature.split(' ').some((s) => {
    const [version, mac] = s.split(',');
    const given = version === 'v1' && mac ? Buffer.from(mac, 'base64') : null;
    return given !== null && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const keys = new Map<string, Buffer>();
  const hooks: SunkWebhook[] = [];
  const sockets = new Set<Socket>();
  let malformed = 0;

  const receive = (path: string, headers: Map<string, string>, body: Buffer): void => {
    const at = performance.now();
    const data = (JSON.parse(body.toString('utf8')) as { data?: Record<string, unknown> }).data ?? {};
    const deploymentId = String(data.deployment_id ?? '');
    const key = keys.get(deploymentId);
    hooks.push({
      path,
      signalId: String(data.id ?? ''),
      deploymentId,
      barTime: Date.parse(String(data.bar_time)),
      verified: key ? signedBy(key, headers, body, Date.now() / 1000) : null,
      at,
    });
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const replies: Buffer[] = [];
      try {
        for (let request = nextRequest(pending); request; request = nextRequest(pending)) {
          pending = pending.subarray(request.used);
          receive(request.path, request.headers, request.body);
          replies.push(OK);
        }
      } catch {
        malformed++;
        socket.end(BAD);
        return;
      }
      if (replies.length) socket.write(replies.length === 1 ? replies[0]! : Buffer.concat(replies));
      // What is left is the start of the next request: copied out, so the read buffer can go.
      if (pending.length) pending = Buffer.from(pending);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hooks,
    get malformed() {
      return malformed;
    },
    secret: (deploymentId, secret) => void keys.set(deploymentId, Buffer.from(secret.replace(/^whsec_/, ''), 'base64')),
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
