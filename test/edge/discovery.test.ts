import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { z } from 'zod';
import { ENGINE_TRIAL_CREDITS, MODEL_TRIAL_CREDITS } from '../../src/optimize/index.ts';
import { BASELINE_RUNS, MIN_TRADES, SIGNIFICANCE_P } from '../../src/robustness/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * The discovery documents agree with /openapi.json: an operation in one is in all of them, with
 * the same auth, and the costs are the configured ones.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The zod schema a component of /openapi.json was generated from (its `.meta({ id })`; request bodies are named `<id>Input`). */
function zodOfComponent(ref: string): z.ZodType | undefined {
  const ids = (z.globalRegistry as unknown as { _idmap: Map<string, z.ZodType> })._idmap;
  const name = ref.replace('#/components/schemas/', '');
  return ids.get(name) ?? ids.get(name.replace(/Input$/, ''));
}

/** A JSON Schema validator for the document's own schemas (its $refs resolved against its components). */
function specValidator(spec: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: Ajv2020) => void;
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: spec.components });
  return (schema: object, value: unknown): string | null => {
    const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
    return ajv.validate(resolved, value) ? null : ajv.errorsText();
  };
}

describe('GET /api/v1/docs, /llms.txt, /.well-known/ai-plugin.json, /sitemap.xml', () => {
  let sf: TestService;
  let spec: any;
  /** "METHOD /path" → operation */
  const operations = new Map<string, any>();
  before(async () => {
    sf = await startTestService({ ONE_SHOT_FEE: '7', GENERATE_COST_OFFLINE: '2', GENERATE_COST_TEMPLATE: '3' });
    spec = (await sf.api('GET', '/openapi.json')).body;
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      for (const m of METHODS) if (item[m]) operations.set(`${m.toUpperCase()} ${path}`, item[m]);
    }
  });
  after(() => sf.stop());

  it('the catalogue lists exactly the operations of /openapi.json, grouped by task, each with auth, cost and examples', async () => {
    const res = await sf.api('GET', '/api/v1/docs');
    assert.equal(res.status, 200);
    const listed = new Map<string, any>();
    for (const task of res.body.tasks) {
      assert.ok(task.task.length > 0 && task.endpoints.length > 0);
      for (const e of task.endpoints) listed.set(`${e.method} ${e.path}`, e);
    }
    assert.deepEqual([...listed.keys()].sort(), [...operations.keys()].sort());
    for (const [route, e] of listed) {
      const op = operations.get(route);
      const schemes = (op.security ?? []).flatMap((r: object) => Object.keys(r));
      const auth = schemes.includes('SessionCookie') ? 'key-or-session' : schemes.includes('ApiKey') ? 'key' : 'none';
      assert.equal(e.auth, auth, `${route} auth`);
      assert.equal(e.summary, op.summary, `${route} summary`);
      // A success: 2xx, or 101 for the WebSocket stream's upgrade.
      const success = route === 'GET /api/v1/predict' ? e.response.status === 101 : e.response.status >= 200 && e.response.status < 300;
      assert.ok(success, `${route} example response is a success (${e.response.status})`);
      if (op.requestBody) assert.ok(e.request && 'body' in e.request, `${route} has an example body`);
    }
    assert.equal(listed.get('POST /api/v1/one_shot').credits, 2 + 7, 'one_shot: offline generation + the fee');
    assert.equal(listed.get('POST /api/v1/generate').credits, 2);
    if (listed.has('POST /api/v1/optimize')) {
      assert.equal(listed.get('POST /api/v1/optimize').credits, ENGINE_TRIAL_CREDITS, 'an optimisation costs at least one engine trial');
      assert.match(
        listed.get('POST /api/v1/optimize').credits_note,
        new RegExp(`${MODEL_TRIAL_CREDITS} per trial when the space changes the model`),
      );
    }
    assert.equal(listed.get('POST /api/v1/generate/from-template').credits, 3);
    assert.equal(listed.get('GET /api/v1/ohlc').credits, 0);
    assert.equal(listed.get('POST /api/v1/indicators/custom').credits, 1, 'a custom indicator costs its credit');
    assert.equal(listed.get('POST /api/v1/key/trial').response.example.api_key !== undefined, true);
    assert.equal(res.body.openapi_url, `${sf.url}/openapi.json`);
  });

  it('every operation that takes input (path, query or body) has an example request, valid by its own schema', async () => {
    const { body } = await sf.api('GET', '/api/v1/docs');
    const entries = new Map<string, any>(body.tasks.flatMap((t: any) => t.endpoints).map((e: any) => [`${e.method} ${e.path}`, e]));
    const valid = specValidator(spec);
    let withInput = 0;
    for (const [route, op] of operations) {
      const params = (op.parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query');
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      if (!params.length && !bodySchema) continue;
      withInput++;
      const request = entries.get(route)?.request;
      assert.ok(request, `${route} takes input: /api/v1/docs gives an example request`);
      for (const p of params) {
        const value = request[p.in]?.[p.name];
        assert.ok(value !== undefined, `${route}: an example of the ${p.in} parameter ${p.name}`);
        assert.equal(valid(p.schema, value), null, `${route}: ${p.in} ${p.name} = ${JSON.stringify(value)} fits its schema`);
      }
      if (!bodySchema) continue;
      assert.ok('body' in request, `${route}: an example body`);
      assert.equal(valid(bodySchema, request.body), null, `${route}: the example body fits its schema in /openapi.json`);
      // The body's own zod schema (what the route validates with), where the document names it.
      const zod = bodySchema.$ref ? zodOfComponent(bodySchema.$ref) : undefined;
      if (bodySchema.$ref) assert.ok(zod, `${route}: ${bodySchema.$ref} is a registered zod schema`);
      if (zod) {
        const parsed = zod.safeParse(request.body);
        assert.ok(parsed.success, `${route}: the example body parses with its zod schema: ${parsed.error?.message}`);
      }
    }
    assert.ok(withInput >= 40, `the walk saw the operations that take input (${withInput})`);
    // The two the issue named, with a path that can be typed as it is.
    assert.deepEqual(entries.get('GET /api/v1/train/{job_id}').request, { path: { job_id: 42 } });
    assert.deepEqual(entries.get('GET /api/v1/results/{model}').request, { path: { model: '7_EURUSD_15min_Model 3' } });
  });

  it('the example request of a catalogue entry is accepted by the service', async () => {
    const { body } = await sf.api('GET', '/api/v1/docs');
    const entry = body.tasks.flatMap((t: any) => t.endpoints).find((e: any) => e.path === '/api/v1/key/trial');
    const res = await sf.api('POST', entry.path, { body: entry.request.body });
    assert.equal(res.status, 200, res.text);
  });

  it('/llms.txt names every operation, how to get a key, the one_shot flow and the MCP URL', async () => {
    const res = await fetch(`${sf.url}/llms.txt`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    const named = new Set([...text.matchAll(/^- ([A-Z]+) (\S+) — /gm)].map((m) => `${m[1]} ${m[2]}`));
    assert.deepEqual([...named].sort(), [...operations.keys()].sort());
    assert.ok(text.includes(`curl -X POST ${sf.url}/api/v1/key/trial`));
    assert.ok(text.includes(`${sf.url}/api/v1/one_shot`));
    assert.ok(text.includes(`${sf.url}/mcp`));
  });

  it('/api/v1/docs and /llms.txt explain the robustness report, deploy_if, the leaderboard by dsr, and the optimiser when its routes exist', async () => {
    const docs = (await sf.api('GET', '/api/v1/docs')).body;
    const topics = docs.guides.map((g: { topic: string }) => g.topic);
    const guide = (pattern: RegExp) => docs.guides.find((g: { topic: string }) => pattern.test(g.topic))?.text as string;
    const report = guide(/robustness report/);
    assert.ok(report, `a guide to the robustness report: ${topics}`);
    for (const words of [
      'GET /api/v1/results/{model}',
      'walk-forward',
      'Deflated Sharpe',
      'random-entry baseline',
      'Monte Carlo',
      'minimum track record',
      '`overfit`',
      '`robust`',
      '`inconclusive`',
    ]) {
      assert.ok(report.includes(words), `the report guide names ${words}`);
    }
    // The thresholds are the verdict rule's own.
    assert.ok(
      report.includes(`at least ${MIN_TRADES} test trades`) &&
        report.includes(`below ${SIGNIFICANCE_P}`) &&
        report.includes(`${BASELINE_RUNS} seeded runs`),
    );
    assert.match(guide(/deploy_if/), /`not_overfit`.*`robust`.*fee is refunded.*`deployed: false`/s);
    assert.match(guide(/deflated Sharpe/), /metric=dsr/);
    const optimizing = operations.has('POST /api/v1/optimize');
    assert.equal(
      topics.some((t: string) => /optimize/.test(t)),
      optimizing,
      'the optimiser’s guide exactly when its routes are served',
    );
    if (optimizing) assert.match(guide(/optimize/), /DELETE \/api\/v1\/optimize\/\{optimize_id\}/);

    const text = await (await fetch(`${sf.url}/llms.txt`)).text();
    for (const g of docs.guides) {
      assert.ok(text.includes(`## ${g.topic}`), `llms.txt has the guide ${g.topic}`);
      assert.ok(text.includes(g.text), `llms.txt says ${g.topic} in full`);
    }
    assert.ok(text.includes(`"deploy_if":"not_overfit"`), 'a one_shot example with deploy_if');
    assert.ok(text.includes(`${sf.url}/api/v1/leaderboard?metric=dsr`));
  });

  it('the plugin manifest points at the /openapi.json this service serves', async () => {
    const res = await sf.api('GET', '/.well-known/ai-plugin.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.api.type, 'openapi');
    assert.equal(res.body.api.url, `${sf.url}/openapi.json`);
    assert.equal(res.body.auth.custom_auth_header, 'X-API-Key');
    assert.deepEqual((await sf.api('GET', new URL(res.body.api.url).pathname)).body, spec);
  });

  it('the sitemap lists the public documents, every one of them served without a key', async () => {
    const res = await fetch(`${sf.url}/sitemap.xml`);
    assert.equal(res.status, 200);
    const locs = [...(await res.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    for (const path of ['/openapi.json', '/api/v1/docs', '/llms.txt', '/api/v1/activity']) assert.ok(locs.includes(sf.url + path), path);
    for (const loc of locs) {
      assert.ok(loc.startsWith(sf.url), loc);
      const page = await fetch(loc);
      assert.equal(page.status, 200, loc);
      await page.arrayBuffer();
      const route = `GET ${new URL(loc).pathname}`;
      if (operations.has(route)) assert.equal(operations.get(route).security, undefined, `${route} needs no key`);
    }
  });
});
