/** A WebSocket client for tests of GET /api/v1/predict: every frame kept, parsed by the protocol's schema. */
import WebSocket from 'ws';
import { ServerMessage } from '../../schemas/stream.ts';

export interface StreamClient {
  ws: WebSocket;
  /** Every server message so far, in order. */
  messages: ServerMessage[];
  send(message: unknown): void;
  /** Resolves with the first message (from `from` on) that `match` accepts; fails after `timeoutMs`. */
  next<T extends ServerMessage['type']>(
    type: T,
    match?: (m: Extract<ServerMessage, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<ServerMessage, { type: T }>>;
  /** Resolves once the socket is closed, with the server's code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export function wsUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/api/v1/predict`;
}

export async function connectStream(httpUrl: string, headers: Record<string, string> = {}): Promise<StreamClient> {
  const ws = new WebSocket(wsUrl(httpUrl), { headers });
  const messages: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(ServerMessage.parse(JSON.parse(data.toString())));
    for (const w of waiters) w();
  });
  let closedWith: { code: number; reason: string } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      closedWith = { code, reason: reason.toString() };
      resolve(closedWith);
      for (const w of waiters) w();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    closed,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    close: () => ws.close(),
    next(type, match = () => true, timeoutMs = 20_000) {
      type M = Extract<ServerMessage, { type: typeof type }>;
      let seen = 0;
      return new Promise<M>((resolve, reject) => {
        const look = () => {
          for (; seen < messages.length; seen++) {
            const m = messages[seen]!;
            if (m.type === type && match(m as M)) {
              waiters.delete(look);
              clearTimeout(timer);
              resolve(m as M);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(
            new Error(
              `no ${type} message within ${timeoutMs} ms; got ${JSON.stringify(messages.slice(-5))}${closedWith ? `; closed ${JSON.stringify(closedWith)}` : ''}`,
            ),
          );
        }, timeoutMs);
        waiters.add(look);
        look();
      });
    },
  };
}
