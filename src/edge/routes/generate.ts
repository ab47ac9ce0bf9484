import { describeCosts, type Generation } from '../../generation/index.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { FromTemplateRequest, GenerateRequest, GenerateResponse, GenerateStreamFrame } from '../../../schemas/generation.ts';
import { requireUser } from '../plugins/auth.ts';
import { openSse, type SseSlots } from '../plugins/sse.ts';
import type { App } from '../types.ts';

export interface GenerateRoutesDeps {
  generation: Generation;
  /** The app's SSE slots: the generate stream is the key's one concurrent SSE stream too. */
  slots: SseSlots;
  perKey: number;
  heartbeatMs: number;
}

const WHO_WRITES =
  'Who writes the code: with `ai_model` (sonnet, opus, haiku, or sonnet-haiku = Haiku drafts and Sonnet repairs) ' +
  'and Claude configured on this service, Claude writes it: the code is checked (the static check and strategy_config() ' +
  'against its schema) and the violations are sent back for repairs (GENERATE_REPAIR_TRIES, default 2). Without `ai_model`, without Claude, when the ' +
  'platform’s daily AI budget is spent, or when Claude fails (API errors after retries, or code still refused after the ' +
  'repairs), the offline generator writes it; `generator` and `ai_model` in the response say which. ';

const CHARGING = (generation: Generation) =>
  `Credits per call: ${describeCosts(generation.costs)}. They are charged before the work (402 when short); when Claude ` +
  'falls back to offline you pay the offline price (the difference is refunded), and a call that fails is refunded in ' +
  'full. A Claude call counts against the model’s daily cap (Sonnet 1, Haiku 3 — sonnet-haiku counts as Haiku — ' +
  'Opus 1 per UTC day): 429 with Retry-After past it (leave out `ai_model` for the offline generator); a fallback gives ' +
  'the cap back. The code starts with the `# signalforge: symbol=… timeframe=…` header line.';

export function generateRoutes(app: App, deps: GenerateRoutesDeps): void {
  const { generation } = deps;

  app.post('/api/v1/generate', {
    config: { auth: 'key' },
    schema: {
      tags: ['generation'],
      summary: 'Generate strategy code from an idea',
      description: WHO_WRITES + CHARGING(generation),
      body: GenerateRequest,
      response: { 200: GenerateResponse, 402: ErrorBody },
    },
    handler: async (request) => generation.generate(requireUser(request), request.body),
  });

  app.post('/api/v1/generate/stream', {
    config: { auth: 'key' },
    schema: {
      tags: ['generation'],
      summary: 'Generate strategy code, streamed as it is written (SSE)',
      description:
        'The same generation as POST /api/v1/generate, as Server-Sent Events: `event: token` frames (`{"text"}`) while the ' +
        'code is written, then `event: done` with the GenerateResponse, or `event: error` (`{"error"}`, credits refunded). ' +
        'The tokens after the last `event: reset` (`{"reason"}`, sent when Claude’s answer is being repaired or replaced by ' +
        'the offline generator) concatenate to the `done` code; `done.code` is authoritative. A `heartbeat` event every 15 s. ' +
        '402 and 429 come as plain JSON errors before the stream opens. It is the key’s one concurrent SSE stream ' +
        '(with /activity/stream and the signal streams): a second one gets 429. ' +
        CHARGING(generation),
      body: GenerateRequest,
      response: {
        200: { description: 'An SSE stream', content: { 'text/event-stream': { schema: GenerateStreamFrame } } },
        402: ErrorBody,
      },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const release = await deps.slots.acquireForKey(user.user_id, deps.perKey);
      const abort = new AbortController();
      let events: AsyncIterable<{ event: string; data: unknown }>;
      try {
        events = await generation.stream(user, request.body, abort.signal);
      } catch (err) {
        release();
        throw err;
      }
      const stream = openSse(request, reply, deps.heartbeatMs);
      stream.onClose(() => {
        abort.abort();
        release();
      });
      for await (const { event, data } of events) if (!stream.send(event, data)) break;
      stream.close();
    },
  });

  app.post('/api/v1/generate/from-template', {
    config: { auth: 'key' },
    schema: {
      tags: ['generation'],
      summary: 'Generate strategy code from a curated template',
      description:
        'One of the templates of GET /api/v1/presets, with your symbol, timeframe and model; `indicators` and `pos_rules` ' +
        'are merged over the template’s. Missing start_date / end_date mean the whole stored history. ' +
        WHO_WRITES +
        CHARGING(generation),
      body: FromTemplateRequest,
      response: { 200: GenerateResponse, 402: ErrorBody },
    },
    handler: async (request) => generation.fromTemplate(requireUser(request), request.body),
  });
}
