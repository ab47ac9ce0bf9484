/**
 * A small typed client of the REST API: the one implementation of what the MCP tools do. Every
 * answer is parsed with the same zod schemas the routes declare, so a tool returns exactly what
 * the REST API returned (unknown fields dropped, nothing invented).
 */
import type { z } from 'zod';
import { KeyResponse, type TrialKeyRequest } from '../../schemas/accounts.ts';
import { ErrorBody } from '../../schemas/common.ts';
import { GenerateResponse, type GenerateRequest } from '../../schemas/generation.ts';
import { DeployedList } from '../../schemas/live.ts';
import { OneShotDone, OneShotStep, type OneShotRequest } from '../../schemas/oneshot.ts';
import { OptimizeJobView, OptimizeProgress, OptimizeStart, type OptimizeRequest } from '../../schemas/optimize.ts';
import { ModelList } from '../../schemas/training.ts';

/** A refusal of the REST API (its `{error, code}` body), or a one_shot stream that ended in `error`. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    /** The HTTP status; null for the `error` event that ends a one_shot stream (the stream itself was a 200). */
    readonly status: number | null,
    message: string,
    /** Seconds to wait, from a 429's Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Gives the API key to send; may mint one on first use. */
export type KeySource = () => Promise<string>;

export interface ApiClientOptions {
  /** Base URL of the service, without /api/v1 (e.g. http://127.0.0.1:8080). */
  baseUrl: string;
  key: KeySource;
  /** Time limit of a plain JSON call, default 5 minutes (the one_shot stream has none: it ends with done or error). */
  timeoutMs?: number;
}

type SseFrame = { event: string; data: string };

export class ApiClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 300_000;
  }

  /** POST /api/v1/key/trial (no key sent). */
  mintTrialKey(body: TrialKeyRequest = {}, signal?: AbortSignal): Promise<KeyResponse> {
    return this.json('POST', '/api/v1/key/trial', KeyResponse, { body, signal, anonymous: true });
  }

  /** GET /api/v1/models. */
  listModels(signal?: AbortSignal): Promise<z.infer<typeof ModelList>> {
    return this.json('GET', '/api/v1/models', ModelList, { signal });
  }

  /** GET /api/v1/deployed. */
  listDeployed(signal?: AbortSignal): Promise<DeployedList> {
    return this.json('GET', '/api/v1/deployed', DeployedList, { signal });
  }

  /** POST /api/v1/generate. */
  generate(body: z.input<typeof GenerateRequest>, signal?: AbortSignal): Promise<GenerateResponse> {
    return this.json('POST', '/api/v1/generate', GenerateResponse, { body, signal });
  }

  /**
   * POST /api/v1/one_shot: reads the SSE stream, hands each `step` to `onStep`, resolves with the
   * `done` payload; an `error` event (or a stream that ends without a terminal event) rejects.
   */
  async oneShot(body: OneShotRequest, onStep: (step: OneShotStep) => void, signal?: AbortSignal): Promise<OneShotDone> {
    const res = await this.send('POST', '/api/v1/one_shot', { body, signal, timeout: false });
    if (!res.ok) throw await this.refusal(res);
    if (!res.body) throw new ApiError(502, 'one_shot answered without a stream');
    for await (const frame of readSse(res.body)) {
      if (frame.event === 'step') {
        const step = OneShotStep.safeParse(safeJson(frame.data));
        if (step.success) onStep(step.data);
      } else if (frame.event === 'done') {
        return parseAnswer(OneShotDone, safeJson(frame.data), 'POST /api/v1/one_shot (done)');
      } else if (frame.event === 'error') {
        const data = safeJson(frame.data) as { error?: unknown } | undefined;
        throw new ApiError(null, typeof data?.error === 'string' ? data.error : 'one_shot failed');
      }
    }
    throw new ApiError(502, 'the one_shot stream ended without a result: see list_deployed, the pipeline may still finish');
  }

  /** POST /api/v1/optimize: the job is queued (charged by its size); follow it with followOptimize. */
  startOptimize(body: z.input<typeof OptimizeRequest>, signal?: AbortSignal): Promise<z.infer<typeof OptimizeStart>> {
    return this.json('POST', '/api/v1/optimize', OptimizeStart, { body, signal });
  }

  /**
   * GET /api/v1/optimize/{id}/stream: hands each `progress` to `onProgress`, resolves with the
   * `done` job view. A stream that ends without it (the service restarting) rejects, naming the
   * job to poll: the optimisation itself goes on.
   */
  async followOptimize(id: number, onProgress: (progress: OptimizeProgress) => void, signal?: AbortSignal): Promise<OptimizeJobView> {
    const path = `/api/v1/optimize/${id}/stream`;
    const res = await this.send('GET', path, { signal, timeout: false });
    if (!res.ok) throw await this.refusal(res);
    if (!res.body) throw new ApiError(502, 'optimize answered without a stream');
    for await (const frame of readSse(res.body)) {
      if (frame.event === 'progress') {
        const progress = OptimizeProgress.safeParse(safeJson(frame.data));
        if (progress.success) onProgress(progress.data);
      } else if (frame.event === 'done') {
        return parseAnswer(OptimizeJobView, safeJson(frame.data), `GET ${path} (done)`);
      }
    }
    throw new ApiError(
      502,
      `the stream of optimisation ${id} ended before the job did; it goes on: GET /api/v1/optimize/${id} tells where it stands`,
    );
  }

  private async json<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: { body?: unknown; signal?: AbortSignal | undefined; anonymous?: boolean },
  ): Promise<z.infer<S>> {
    const res = await this.send(method, path, { ...options, timeout: true });
    if (!res.ok) throw await this.refusal(res);
    const text = await res.text();
    return parseAnswer(schema, safeJson(text), `${method} ${path}`);
  }

  private async send(
    method: string,
    path: string,
    options: { body?: unknown; signal?: AbortSignal | undefined; anonymous?: boolean; timeout: boolean },
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (!options.anonymous) headers['x-api-key'] = await this.options.key();
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const signals = [options.signal, options.timeout ? AbortSignal.timeout(this.timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    try {
      return await fetch(this.baseUrl + path, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(signals.length ? { signal: AbortSignal.any(signals) } : {}),
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw new ApiError(504, `${method} ${path} took longer than ${this.timeoutMs / 1000} s`);
      if ((err as Error).name === 'AbortError') throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiError(503, `signalforge is unreachable at ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
  }

  /** The `{error, code}` body of a non-2xx answer as an ApiError (a non-JSON body: its first line). */
  private async refusal(res: Response): Promise<ApiError> {
    const text = await res.text().catch(() => '');
    const body = ErrorBody.pick({ error: true }).safeParse(safeJson(text));
    const message = body.success ? body.data.error : text.split('\n')[0]!.slice(0, 300) || res.statusText || 'request failed';
    const retryAfter = Number(res.headers.get('retry-after'));
    return new ApiError(res.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }
}

function parseAnswer<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError(
    502,
    `unexpected answer from ${what}: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'out of shape'}`,
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The frames of a Server-Sent Events body (`event:` / `data:` lines, blank-line separated). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: SseFrame = { event: 'message', data: '' };
  let hasData = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (hasData) yield frame;
        frame = { event: 'message', data: '' };
        hasData = false;
      } else if (line.startsWith('event:')) {
        frame.event = line.slice(6).trim();
      } else if (line.startsWith('data:')) {
        const value = line.slice(5).replace(/^ /, '');
        frame.data = hasData ? `${frame.data}\n${value}` : value;
        hasData = true;
      }
    }
  }
}
