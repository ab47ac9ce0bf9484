/**
 * The discovery documents (/api/v1/docs, /llms.txt, /.well-known/ai-plugin.json, /sitemap.xml),
 * all derived from the generated OpenAPI document: a route added to the app appears in every one
 * of them without anyone writing it down twice.
 */
import type { Catalogue, CatalogueEndpoint, EndpointAuth } from '../../../schemas/discovery.ts';
import { robustnessGuides } from './robustness-guide.ts';
import { exampleOf } from './schema-example.ts';

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The tasks a client comes for, in the order a newcomer needs them; an unknown tag is its own task. */
const TASKS: Record<string, { title: string; order: number }> = {
  keys: { title: 'Get and manage your API key', order: 0 },
  pipeline: { title: 'Idea to live signal in one call', order: 1 },
  generation: { title: 'Write strategy code from an idea', order: 2 },
  training: { title: 'Train, backtest and read results', order: 3 },
  optimize: { title: 'Optimise a strategy, walk-forward', order: 3.5 },
  models: { title: 'Train, backtest and read results', order: 3 },
  deploy: { title: 'Deploy a model and receive live signals', order: 4 },
  delivery: { title: 'Deploy a model and receive live signals', order: 4 },
  market: { title: 'Market data', order: 5 },
  indicators: { title: 'Indicators', order: 6 },
  community: { title: 'Community: share, fork, leaderboard', order: 7 },
  activity: { title: 'Public activity feed', order: 8 },
  usage: { title: 'Credits, usage and caps', order: 9 },
  discovery: { title: 'Discovery documents', order: 10 },
  meta: { title: 'Operations (health, metrics)', order: 11 },
};

/** What a call costs, by "METHOD /path"; routes not listed are free. */
export type CostTable = Record<string, { credits: number; note?: string }>;

export interface DiscoveryContext {
  baseUrl: string;
  costs: CostTable;
}

/** Every operation of the document, as [METHOD, path, operation]. */
export function operationsOf(spec: Json): [string, string, Json][] {
  const out: [string, string, Json][] = [];
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    for (const method of METHODS) if (item[method]) out.push([method.toUpperCase(), path, item[method]]);
  }
  return out;
}

function authOf(op: Json): EndpointAuth {
  const schemes = (op.security ?? []).flatMap((r: Json) => Object.keys(r));
  if (schemes.includes('SessionCookie')) return 'key-or-session';
  return schemes.includes('ApiKey') ? 'key' : 'none';
}

function successOf(op: Json, components: Json): CatalogueEndpoint['response'] {
  const [status, response] = Object.entries<Json>(op.responses ?? {}).find(([s]) => /^(101|2\d\d)$/.test(s)) ?? ['200', {}];
  const [contentType, media] = Object.entries<Json>(response.content ?? {})[0] ?? ['application/json', {}];
  return { status: Number(status), content_type: contentType, example: exampleOf(media.schema, components) };
}

/** The smallest valid request: every path parameter, the query parameters and the JSON body, each from its schema's example. */
function requestOf(op: Json, components: Json): CatalogueEndpoint['request'] {
  const params = (where: string) => (op.parameters ?? []).filter((p: Json) => p.in === where);
  const [path, query] = [params('path'), params('query')];
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (!path.length && !query.length && !body) return undefined;
  const example = (list: Json[]) => Object.fromEntries(list.map((p: Json) => [p.name, p.example ?? exampleOf(p.schema, components)]));
  const request: NonNullable<CatalogueEndpoint['request']> = {};
  if (path.length) request.path = example(path);
  if (query.length) request.query = example(query);
  if (body) request.body = exampleOf(body, components);
  return request;
}

export function buildCatalogue(spec: Json, ctx: DiscoveryContext): Catalogue {
  const components = spec.components?.schemas ?? {};
  const groups = new Map<string, { order: number; endpoints: CatalogueEndpoint[] }>();
  const operations = operationsOf(spec);
  for (const [method, path, op] of operations) {
    const tag: string = op.tags?.[0] ?? 'other';
    const task = TASKS[tag] ?? { title: tag, order: 99 };
    const group = groups.get(task.title) ?? { order: task.order, endpoints: [] };
    groups.set(task.title, group);
    const cost = ctx.costs[`${method} ${path}`];
    group.endpoints.push({
      method,
      path,
      summary: op.summary ?? '',
      purpose: op.description ?? op.summary ?? '',
      auth: authOf(op),
      credits: cost?.credits ?? 0,
      ...(cost?.note ? { credits_note: cost.note } : {}),
      ...(requestOf(op, components) ? { request: requestOf(op, components) } : {}),
      response: successOf(op, components),
    });
  }
  return {
    service: spec.info?.title ?? 'signalforge',
    version: spec.info?.version ?? '',
    base_url: ctx.baseUrl,
    openapi_url: `${ctx.baseUrl}/openapi.json`,
    mcp_url: `${ctx.baseUrl}/mcp`,
    auth: 'Send X-API-Key: <key>. Get a key with POST /api/v1/key/trial (no signup). auth "none" routes need no key; "key-or-session" also accepts the web app\'s sf_session cookie.',
    tasks: [...groups.entries()].sort((a, b) => a[1].order - b[1].order).map(([task, g]) => ({ task, endpoints: g.endpoints })),
    guides: robustnessGuides(new Set(operations.map(([method, path]) => `${method} ${path}`))),
  };
}

const curlFor = (base: string, e: CatalogueEndpoint): string => {
  const key = e.auth === 'none' ? '' : ' -H "X-API-Key: $SF_KEY"';
  const body = e.request?.body !== undefined ? ` -H 'content-type: application/json' -d '${JSON.stringify(e.request.body)}'` : '';
  const method = e.method === 'GET' ? '' : ` -X ${e.method}`;
  return `curl${method} ${base}${e.path}${key}${body}`;
};

/** /llms.txt: what the service does and how to use it, for an AI agent, in plain text. */
export function buildLlmsTxt(catalogue: Catalogue): string {
  const b = catalogue.base_url;
  const lines = [
    `# ${catalogue.service}`,
    '',
    '> Turns a plain-language forex trading idea into Python strategy code, trains a classifier on it, backtests it',
    '> walk-forward, and deploys it as a live signal (webhook, execution-bridge webhook, Discord, Slack, Telegram, e-mail, SSE). Symbols: EURUSD, GBPUSD, USDJPY, USDCHF,',
    '> AUDUSD, NZDUSD, USDCAD (and BTCUSD). Timeframes: 1min, 5min, 15min, 1h.',
    '',
    `OpenAPI: ${catalogue.openapi_url}`,
    `Catalogue (JSON, grouped by task): ${b}/api/v1/docs`,
    `MCP server (Streamable HTTP, no account needed): ${catalogue.mcp_url}`,
    `Web app deep link: ${b}/quick-deploy?prompt=<url-encoded idea>&run=1`,
    `Web pages: ${b}/ (idea box), ${b}/market (charts), ${b}/pulse (live public activity)`,
    '',
    '## Get a key (no signup)',
    '',
    `curl -X POST ${b}/api/v1/key/trial`,
    'export SF_KEY=sf_...   # the api_key of the answer; send it as X-API-Key',
    '',
    '## Main flows',
    '',
    '1. One call, idea to live signal (SSE stream of token, step, done | error):',
    `   curl -N -X POST ${b}/api/v1/one_shot -H "X-API-Key: $SF_KEY" -H 'content-type: application/json' -d '{"prompt":"RSI mean reversion on EURUSD 15min"}'`,
    '2. Step by step: POST /api/v1/generate → POST /api/v1/train (poll GET /api/v1/train/{job_id}) → GET /api/v1/results/{model} → POST /api/v1/deploy.',
    '3. Market data: GET /api/v1/ohlc?symbol=EURUSD&timeframe=15min ; indicators: POST /api/v1/indicators.',
    '4. Is the edge real? Every model’s robustness report and verdict: GET /api/v1/results/{model} → robustness. Deploy only a model that is not overfit:',
    `   curl -N -X POST ${b}/api/v1/one_shot -H "X-API-Key: $SF_KEY" -H 'content-type: application/json' -d '{"prompt":"RSI mean reversion on EURUSD 15min","deploy_if":"not_overfit"}'`,
    `   The community by deflated Sharpe: curl ${b}/api/v1/leaderboard?metric=dsr`,
    '',
    `Errors are JSON {"error", "code"}: 400 bad input, 401 key, 402 out of credits, 404, 409, 422, 429 (Retry-After).`,
    '',
  ];
  for (const guide of catalogue.guides) lines.push(`## ${guide.topic}`, '', guide.text, '');
  lines.push('## Endpoints');
  for (const task of catalogue.tasks) {
    lines.push('', `### ${task.task}`, '');
    for (const e of task.endpoints) {
      const cost = e.credits ? `, ${e.credits}+ credits` : '';
      lines.push(`- ${e.method} ${e.path} — ${e.summary} (auth: ${e.auth}${cost})`, `  ${curlFor(b, e)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** /.well-known/ai-plugin.json: the plugin manifest, pointing at /openapi.json. */
export function buildAiPlugin(catalogue: Catalogue): Json {
  return {
    schema_version: 'v1',
    name_for_human: catalogue.service,
    name_for_model: catalogue.service,
    description_for_human: 'Turn a trading idea into a backtested, live forex signal.',
    description_for_model:
      'Generate, train, backtest and deploy forex trading strategies from a plain-language idea. Get a key with ' +
      'POST /api/v1/key/trial, send it as X-API-Key. POST /api/v1/one_shot does everything in one call. ' +
      `The JSON catalogue of every endpoint is ${catalogue.base_url}/api/v1/docs.`,
    auth: { type: 'user_http', authorization_type: 'custom', custom_auth_header: 'X-API-Key' },
    api: { type: 'openapi', url: catalogue.openapi_url, is_user_authenticated: false },
    logo_url: `${catalogue.base_url}/favicon.svg`,
    contact_email: 'support@signalforge.invalid',
    legal_info_url: `${catalogue.base_url}/`,
  };
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** /sitemap.xml: the public pages, then every public GET document of the API without parameters. */
/** "GET /path" of each operation that needs a query parameter (a link's token, say): no document of its own. */
export function queryBound(spec: Json): Set<string> {
  return new Set(
    operationsOf(spec)
      .filter(([, , op]) => (op.parameters ?? []).some((p: Json) => p.in === 'query' && p.required))
      .map(([method, path]) => `${method} ${path}`),
  );
}

export function buildSitemap(catalogue: Catalogue, pages: readonly string[], needsQuery: ReadonlySet<string>): string {
  const documents = catalogue.tasks
    .flatMap((t) => t.endpoints)
    // Documents only: no path or required query parameters, no streams (SSE, or the WebSocket upgrade answering 101).
    .filter(
      (e) =>
        e.method === 'GET' &&
        e.auth === 'none' &&
        !e.path.includes('{') &&
        !needsQuery.has(`GET ${e.path}`) &&
        !e.path.startsWith('/_') &&
        e.response.status === 200 &&
        e.response.content_type !== 'text/event-stream',
    )
    .map((e) => e.path);
  const urls = [...new Set([...pages, '/openapi.json', '/api-docs', ...documents])];
  const body = urls.map((u) => `  <url><loc>${escapeXml(catalogue.base_url + u)}</loc></url>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${body}\n</urlset>\n`;
}
