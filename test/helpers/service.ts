/**
 * Boots the real service (embedded nats-server, chdb, Fastify on a free port) in a temporary
 * data directory, and talks to it over real HTTP. chdb allows one data directory per process,
 * so a test file starts one service and may restart it on the same directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startService, type Service } from '../../src/roles/index.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body text, sent as-is (for malformed JSON tests). */
  raw?: string;
}

export interface TestService {
  service: Service;
  url: string;
  dataDir: string;
  api<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Mints a trial key (each call from its own X-Forwarded-For address when TRUST_PROXY is on). */
  mintKey(username?: string): Promise<{ api_key: string; user_id: number; username: string; credits: number }>;
  /** Stops the service and starts it again on the same data directory, with `more` settings on top from now on. */
  restart(more?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  /** Receives every log line (as JSON text) instead of the default silent logger. */
  logSink?: (line: string) => void;
  /** A data directory prepared beforehand (e.g. ticks imported into it); the service takes it over and removes it on stop. */
  dataDir?: string;
}

export async function startTestService(env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sf-test-'));
  let settings: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Four days of synthetic history: at least two trading days whenever the tests run (forex is shut
    // from Friday 22:00 to Sunday 22:00 UTC, so two calendar days on a Monday morning hold ~200
    // 1-minute bars, fewer than a train needs), and a start stays quick.
    HISTORY_DAYS: '4',
    ...env,
  };
  const config = loadConfig(settings);
  const sink = options.logSink;
  const log = sink ? createLogger(config.LOG_LEVEL, { write: (line: string) => sink(line) }) : createLogger(config.LOG_LEVEL);
  let service = await startService(config, log);
  let mints = 0;

  const self: TestService = {
    get service() {
      return service;
    },
    get url() {
      return service.url;
    },
    dataDir,
    async api(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers['x-api-key'] = options.key;
      let body: string | undefined;
      if (options.raw !== undefined) body = options.raw;
      else if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(service.url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async mintKey(username) {
      mints++;
      const res = await self.api('POST', '/api/v1/key/trial', {
        body: username ? { username } : {},
        headers: { 'x-forwarded-for': `10.99.${Math.floor(mints / 250)}.${mints % 250}` },
      });
      if (res.status !== 200) throw new Error(`mint failed: ${res.status} ${res.text}`);
      return res.body;
    },
    async restart(more = {}) {
      await service.close();
      settings = { ...settings, ...more };
      service = await startService(loadConfig(settings), log);
    },
    async stop() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return self;
}

/** Reads an SSE response until `until` says stop (or the timeout), returning the frames seen. */
export async function readSse(res: Response, until: (frames: SseFrame[]) => boolean, timeoutMs = 10_000): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  try {
    while (!until(frames)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`SSE: timed out with ${frames.length} frames: ${JSON.stringify(frames)}`);
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('SSE: timed out waiting for data')), left)),
      ]);
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseFrame = { event: 'message', data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('data: ')) frame.data += line.slice(6);
          else if (line.startsWith('id: ')) frame.id = line.slice(4);
        }
        frames.push(frame);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return frames;
}

export interface SseFrame {
  event: string;
  data: string;
  id?: string;
}
