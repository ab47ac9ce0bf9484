/**
 * A local stand-in for the Anthropic Messages API: a real HTTP server speaking the streaming
 * protocol (message_start, content_block_start, content_block_delta text_delta,
 * content_block_stop, message_delta with usage, message_stop) and the API's error bodies, for
 * the real @anthropic-ai/sdk client pointed at it with baseURL. It records every request and
 * emulates prompt caching: the first request with a given cached system prompt writes the cache,
 * later ones read it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeReply {
  /** The assistant's text, streamed in chunks of `chunk` characters. */
  text?: string;
  chunk?: number;
  /** An error answer instead: HTTP status and API error type (e.g. 529 overloaded_error). */
  status?: number;
  errorType?: string;
  /** An `event: error` in the middle of the stream, after this many text chunks. */
  streamErrorAfter?: number;
  /** Wait this long between chunks (to test aborts). */
  delayMs?: number;
  stopReason?: 'end_turn' | 'max_tokens';
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** The token counts the stand-in reported for its answer (message_start, with message_delta's output_tokens); none for an error answer. */
  usage?: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

export interface FakeAnthropic {
  url: string;
  requests: RecordedRequest[];
  /** Replies to hand out in order; when none is queued, `fallback` answers. */
  queue(...replies: FakeReply[]): void;
  fallback: (request: RecordedRequest) => FakeReply;
  /** Forgets the cached system prompts (the next request writes the cache again). */
  forgetCache(): void;
  close(): Promise<void>;
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The text of a request's messages (what the model would read). */
export function messageText(body: any): string[] {
  return (body?.messages ?? []).map((m: any) =>
    typeof m.content === 'string' ? m.content : (m.content as any[]).map((b) => b.text ?? '').join(''),
  );
}

export async function startFakeAnthropic(
  fallback: (request: RecordedRequest) => FakeReply = () => ({ text: 'no reply queued' }),
): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const queued: FakeReply[] = [];
  const cachedSystems = new Set<string>();
  let nextId = 1;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        /* recorded as null */
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const reply = queued.shift() ?? fake.fallback(recorded);
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) return error(res, 404, 'not_found_error', 'no such route');
      if (!req.headers.authorization && !req.headers['x-api-key']) return error(res, 401, 'authentication_error', 'missing key');
      if (reply.status) return error(res, reply.status, reply.errorType ?? 'api_error', `stand-in ${reply.status}`);
      await stream(res, recorded, reply);
    });
  });

  function error(res: import('node:http').ServerResponse, status: number, type: string, message: string): void {
    // retry-after-ms keeps the SDK's backoff short in tests.
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '5', 'request-id': `req_${nextId++}` });
    res.end(JSON.stringify({ type: 'error', error: { type, message } }));
  }

  async function stream(res: import('node:http').ServerResponse, recorded: RecordedRequest, reply: FakeReply): Promise<void> {
    const body = recorded.body;
    const system: string = Array.isArray(body?.system) ? body.system.map((b: any) => b.text).join('') : (body?.system ?? '');
    const cacheable = Array.isArray(body?.system) && body.system.some((b: any) => b.cache_control?.type === 'ephemeral');
    const input = messageText(body).join('');
    const usage = {
      input_tokens: tokens(input),
      output_tokens: 1,
      cache_creation_input_tokens: cacheable && !cachedSystems.has(system) ? tokens(system) : 0,
      cache_read_input_tokens: cacheable && cachedSystems.has(system) ? tokens(system) : 0,
    };
    if (!cacheable) usage.input_tokens += tokens(system);
    if (cacheable) cachedSystems.add(system);
    const text = reply.text ?? '';
    recorded.usage = { ...usage, output_tokens: tokens(text) };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${nextId}` });
    res.write(
      frame('message_start', {
        type: 'message_start',
        message: {
          id: `msg_${nextId++}`,
          type: 'message',
          role: 'assistant',
          model: body?.model ?? 'fake',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      }),
    );
    res.write(frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    const size = reply.chunk ?? 7;
    let sent = 0;
    for (let i = 0; i < text.length; i += size) {
      if (reply.streamErrorAfter !== undefined && sent === reply.streamErrorAfter) {
        res.end(frame('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
        return;
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      res.write(
        frame('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: text.slice(i, i + size) },
        }),
      );
      sent++;
    }
    res.write(frame('content_block_stop', { type: 'content_block_stop', index: 0 }));
    res.write(
      frame('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: reply.stopReason ?? 'end_turn', stop_sequence: null },
        usage: { output_tokens: tokens(text) },
      }),
    );
    res.end(frame('message_stop', { type: 'message_stop' }));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeAnthropic = {
    url: `http://127.0.0.1:${port}`,
    requests,
    queue: (...replies) => void queued.push(...replies),
    fallback,
    forgetCache: () => cachedSystems.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
