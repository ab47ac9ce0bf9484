/**
 * A local webhook receiver speaking plain HTTP: records every POST, verifies its Standard
 * Webhooks signature with the reference implementation (the `standardwebhooks` package, not
 * our signing code), and answers with a status the test chooses (to play a receiver that is down).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body. */
  payload: any;
  /** true when the signature verified with the path's secret; false when it did not; null without a secret. */
  verified: boolean | null;
  verifyError?: string;
  /** The status this request was answered with. */
  status: number;
  /** performance.now() when the body was complete. */
  at: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Every request, in arrival order (answered with any status). */
  requests: ReceivedWebhook[];
  /** Requests answered 2xx. */
  accepted(path?: string): ReceivedWebhook[];
  /** Sets the secret a path's requests are verified with. */
  secret(path: string, secret: string): void;
  /** Chooses the answer for each next request (default 200). */
  respond(status: number | ((req: { path: string; payload: any }) => number)): void;
  /** Called on every accepted request (benchmarks). */
  onAccepted?: (hook: ReceivedWebhook) => void;
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secrets = new Map<string, Webhook>();
  let answer: number | ((req: { path: string; payload: any }) => number) = 200;
  const requests: ReceivedWebhook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      let payload: any = null;
      try {
        payload = JSON.parse(body);
      } catch {
        /* keep null */
      }
      let verified: boolean | null = null;
      let verifyError: string | undefined;
      const verifier = secrets.get(path);
      if (verifier) {
        try {
          verifier.verify(body, req.headers as Record<string, string>);
          verified = true;
        } catch (err) {
          verified = false;
          verifyError = (err as Error).message;
        }
      }
      const status = typeof answer === 'function' ? answer({ path, payload }) : answer;
      const hook: ReceivedWebhook = {
        path,
        headers: req.headers,
        body,
        payload,
        verified,
        status,
        at: performance.now(),
        ...(verifyError ? { verifyError } : {}),
      };
      requests.push(hook);
      if (status >= 200 && status < 300) self.onAccepted?.(hook);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status >= 200 && status < 300 ? 'ok' : `receiver says ${status}`);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const self: WebhookReceiver = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    accepted: (path) => requests.filter((r) => r.status >= 200 && r.status < 300 && (!path || r.path === path)),
    secret: (path, secret) => void secrets.set(path, new Webhook(secret)),
    respond: (status) => void (answer = status),
    async waitFor(predicate, timeoutMs = 15_000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${requests.length} requests seen`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return self;
}
