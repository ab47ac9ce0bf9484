/**
 * A stand-in for the Telegram Bot API on loopback, speaking its HTTP protocol to the real grammy
 * client: `POST /bot<token>/<method>` with a JSON body, answers in `{ ok, result }` envelopes.
 * Implements getMe, deleteWebhook, setWebhook, getUpdates (long polling over a queue the test
 * fills) and sendMessage (recorded; optionally answered 429 with retry_after).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  chat_id: string;
  text: string;
  parse_mode?: string;
  /** Date.now() when the stand-in accepted it. */
  at: number;
}

export interface TelegramStandIn {
  apiRoot: string;
  token: string;
  botUsername: string;
  /** Messages the bot sent, in order (429-refused attempts are not here). */
  sent: SentMessage[];
  /** Every sendMessage call, including refused ones: [chat_id, status, at]. */
  sendAttempts: Array<{ chat_id: string; status: number; at: number }>;
  /** Every method called, in order. */
  calls: string[];
  /** Queues an incoming text message (a user typing `/start CODE`) for getUpdates. */
  userSends(chat: { id: number; type?: 'private' | 'group'; title?: string; first_name?: string }, text: string): void;
  /** The next `count` sendMessage calls are refused with 429 and this retry_after (seconds). */
  rateLimitNext(retryAfterSeconds: number, count?: number): void;
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startTelegramStandIn(options: { token?: string; botUsername?: string } = {}): Promise<TelegramStandIn> {
  const token = options.token ?? '123456789:TEST-token_forSignalforge';
  const botUsername = options.botUsername ?? 'signalforge_test_bot';
  const updates: any[] = [];
  let nextUpdateId = 1;
  let nextMessageId = 1;
  let refuse: { retryAfter: number; left: number } | null = null;
  const pollers = new Set<() => void>();
  const sent: SentMessage[] = [];
  const sendAttempts: TelegramStandIn['sendAttempts'] = [];
  const calls: string[] = [];

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const ok = (res: ServerResponse, result: unknown) => reply(res, 200, { ok: true, result });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!match) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      if (match[1] !== token) return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = match[2]!;
      calls.push(method);
      const text = Buffer.concat(chunks).toString('utf8');
      const params: any = text ? JSON.parse(text) : {};
      switch (method) {
        case 'getMe':
          return ok(res, {
            id: 123456789,
            is_bot: true,
            first_name: 'Signalforge Test',
            username: botUsername,
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          });
        case 'deleteWebhook':
        case 'setWebhook':
          return ok(res, true);
        case 'getUpdates': {
          const offset = Number(params.offset ?? 0);
          // Updates below the offset are confirmed: forget them.
          while (updates.length && updates[0].update_id < offset) updates.shift();
          const answer = () => ok(res, updates.slice(0, params.limit ?? 100));
          const timeout = Number(params.timeout ?? 0);
          if (updates.length || timeout <= 0) return answer();
          const wake = () => {
            clearTimeout(timer);
            pollers.delete(wake);
            answer();
          };
          const timer = setTimeout(wake, Math.min(timeout, 2) * 1000);
          pollers.add(wake);
          res.on('close', () => {
            clearTimeout(timer);
            pollers.delete(wake);
          });
          return;
        }
        case 'sendMessage': {
          const chatId = String(params.chat_id);
          const at = Date.now();
          if (refuse && refuse.left > 0) {
            refuse.left--;
            sendAttempts.push({ chat_id: chatId, status: 429, at });
            return reply(res, 429, {
              ok: false,
              error_code: 429,
              description: `Too Many Requests: retry after ${refuse.retryAfter}`,
              parameters: { retry_after: refuse.retryAfter },
            });
          }
          sendAttempts.push({ chat_id: chatId, status: 200, at });
          sent.push({ chat_id: chatId, text: String(params.text), ...(params.parse_mode ? { parse_mode: params.parse_mode } : {}), at });
          return ok(res, {
            message_id: nextMessageId++,
            date: Math.floor(at / 1000),
            chat: { id: Number(chatId), type: 'private' },
            text: params.text,
          });
        }
        default:
          return reply(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method} is not in the stand-in` });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    botUsername,
    sent,
    sendAttempts,
    calls,
    userSends(chat, text) {
      const date = Math.floor(Date.now() / 1000);
      const command = /^\/\w+(@\w+)?/.exec(text);
      updates.push({
        update_id: nextUpdateId++,
        message: {
          message_id: nextMessageId++,
          date,
          chat: {
            id: chat.id,
            type: chat.type ?? 'private',
            ...(chat.title ? { title: chat.title } : {}),
            ...(chat.first_name ? { first_name: chat.first_name } : {}),
          },
          from: { id: Math.abs(chat.id), is_bot: false, first_name: chat.first_name ?? 'User' },
          text,
          ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
        },
      });
      for (const wake of [...pollers]) wake();
    },
    rateLimitNext(retryAfterSeconds, count = 1) {
      refuse = { retryAfter: retryAfterSeconds, left: count };
    },
    async waitFor(predicate, timeoutMs = 15_000, what = 'condition') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; calls: ${calls.join(',')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      for (const wake of [...pollers]) wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
