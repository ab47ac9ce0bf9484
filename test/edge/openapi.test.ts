import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

/** /openapi.json describes exactly what the app serves, and /api-docs works offline. */

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Routes that exist today; the document must list each (more may follow). */
const EXPECTED_ROUTES = [
  'GET /_healthz',
  'POST /api/v1/key/trial',
  'POST /api/v1/key/generate',
  'GET /api/v1/whoami-key',
  'GET /api/v1/key/usage',
  'GET /api/v1/caps',
  'GET /api/v1/activity',
  'GET /api/v1/activity/stream',
  'POST /api/v1/share',
  'POST /api/v1/fork/{community_id}',
  'GET /api/v1/lineage/{community_id}',
  'GET /api/v1/community/{community_id}',
  'GET /api/v1/leaderboard',
  'GET /api/v1/community.json',
];

/**
 * Served on purpose without an entry in the document: the document itself and its viewer, and the
 * MCP endpoint (a JSON-RPC protocol of its own, named in the document's introduction).
 */
const UNDOCUMENTED = (path: string) =>
  path === '/openapi.json' ||
  path === '/api-docs' ||
  path.startsWith('/api-docs/') ||
  path === '/mcp' ||
  WEB_APP.has(path) ||
  path.startsWith('/assets/');

/** The web app's pages and assets: HTML for people, not API (the public ones are in /sitemap.xml). */
const WEB_APP = new Set([
  '/',
  '/quick-deploy',
  '/market',
  '/account',
  '/account/claim',
  '/account/sessions',
  '/sign-in',
  '/recover',
  '/models/{stem}',
  '/models/{stem}/optimize',
  '/community',
  '/community/{id}',
  '/favicon.svg',
]);

/**
 * Every route the app registered, as "METHOD /path" with {param} placeholders, read from Fastify's
 * route tree (printRoutes with commonPrefix off prints one node per line, indented 4 per level,
 * each node's text continuing its parent's path).
 */
function registeredRoutes(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[2]!;
    stack.push(path);
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.add(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return routes;
}

/** Every "$ref" string anywhere in a JSON value. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

describe('GET /openapi.json and /api-docs', () => {
  let sf: TestService;
  let spec: any;
  let documented: Map<string, any>;
  before(async () => {
    sf = await startTestService();
    const res = await sf.api('GET', '/openapi.json');
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    spec = res.body;
    documented = new Map();
    for (const [path, item] of Object.entries<any>(spec.paths ?? {})) {
      for (const method of METHODS) if (item[method]) documented.set(`${method.toUpperCase()} ${path}`, item[method]);
    }
  });
  after(() => sf.stop());

  it('is OpenAPI 3.1.0, API version 1.0.0, describing the key, the errors and the 50 trial credits', () => {
    assert.equal(spec.openapi, '3.1.0');
    assert.equal(spec.info.version, '1.0.0');
    assert.equal(typeof spec.info.title, 'string');
    const description: string = spec.info.description;
    assert.match(description, /\b50 credits\b/);
    assert.match(description, /X-API-Key/);
    assert.match(description, /POST \/api\/v1\/key\/trial/);
    assert.match(description, /"error"/);
    assert.deepEqual(spec.components.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('lists every route the app serves, and only those', () => {
    const registered = registeredRoutes(sf.service.edge.app.printRoutes({ commonPrefix: false }));
    assert.ok(registered.has('GET /_healthz'), `route tree parsed: ${[...registered].join(', ')}`);
    assert.ok(registered.has('GET /api/v1/activity/stream'), `route tree parsed: ${[...registered].join(', ')}`);
    for (const route of registered) {
      if (UNDOCUMENTED(route.split(' ')[1]!)) continue;
      assert.ok(documented.has(route), `${route} is served but missing from /openapi.json`);
    }
    for (const route of documented.keys()) {
      const [method, path] = route.split(' ') as [string, string];
      assert.ok(
        sf.service.edge.app.hasRoute({ method: method as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }),
        `${route} is in /openapi.json but not served`,
      );
    }
    for (const route of EXPECTED_ROUTES) assert.ok(documented.has(route), `${route} is documented`);
  });

  it('gives every operation a summary and a 2xx response (101 for the WebSocket upgrade)', () => {
    for (const [route, op] of documented) {
      assert.ok(typeof op.summary === 'string' && op.summary.length > 0, `${route} has a summary`);
      const success = route === 'GET /api/v1/predict' ? /^101$/ : /^2\d\d$/;
      assert.ok(
        Object.keys(op.responses ?? {}).some((s) => success.test(s)),
        `${route} declares a ${success.source}`,
      );
    }
  });

  it('names its shared schemas in components, and every $ref resolves', () => {
    const schemas = spec.components.schemas ?? {};
    for (const name of [
      'Error',
      'KeyResponse',
      'TrialKeyRequest',
      'WhoamiResponse',
      'UsageResponse',
      'CapsResponse',
      'ActivityList',
      'ActivityEvent',
      'ShareRequest',
      'CommunityEntry',
      'ForkResponse',
      'Lineage',
      'Leaderboard',
      'Catalogue',
      'ShareGateRejected',
      'IndicatorsResponse',
    ]) {
      assert.ok(schemas[name], `components.schemas.${name}`);
    }
    assert.deepEqual(schemas.Error.required?.slice().sort(), ['code', 'error', 'error_code']);
    assert.deepEqual(schemas.KeyResponse.required?.slice().sort(), ['api_key', 'credits', 'is_trial', 'user_id', 'username']);
    const refs = refsIn(spec);
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
      assert.ok(match && schemas[match[1]!], `${ref} resolves`);
    }
    const ok = (route: string) => documented.get(route).responses['200'].content['application/json'].schema.$ref;
    assert.equal(ok('POST /api/v1/key/trial'), '#/components/schemas/KeyResponse');
    assert.equal(ok('POST /api/v1/key/generate'), '#/components/schemas/KeyResponse');
    assert.equal(ok('GET /api/v1/whoami-key'), '#/components/schemas/WhoamiResponse');
    assert.equal(ok('POST /api/v1/indicators'), '#/components/schemas/IndicatorsResponse');
  });

  it('describes the robustness report, its summary, one_shot’s deploy_if and the leaderboard’s dsr (and the optimiser’s schemas when its routes exist)', () => {
    const schemas = spec.components.schemas ?? {};
    /** A property of a component, following one $ref. */
    const prop = (schema: string, name: string) => {
      const p = schemas[schema]?.properties?.[name];
      assert.ok(p, `${schema}.${name}`);
      return p.$ref ? schemas[p.$ref.split('/').pop()] : p;
    };
    for (const name of [
      'RobustnessReport',
      'RobustnessSummary',
      'WalkForward',
      'SharpeSignificance',
      'RandomBaseline',
      'MonteCarlo',
      'MinTrackRecord',
    ]) {
      assert.ok(schemas[name], `components.schemas.${name}`);
      for (const [field, p] of Object.entries<any>(schemas[name].properties)) {
        // A property is described where it is, or by the schema it refers to / the enum it is.
        const described =
          p.description ??
          (p.$ref ? schemas[p.$ref.split('/').pop()]?.description : undefined) ??
          (p.anyOf ? p.anyOf.find((x: any) => x.description)?.description : undefined);
        if (['verdict', 'reasons', 'dsr', 'psr', 'trials', 'p_value', 'dsr_p_value', 'random_p_value', 'efficiency'].includes(field))
          assert.ok(described, `${name}.${field} is described`);
      }
    }
    assert.deepEqual(prop('RobustnessReport', 'verdict').enum, ['robust', 'inconclusive', 'overfit']);
    assert.match(prop('RobustnessReport', 'verdict').description, /src\/robustness\/verdict\.ts/);
    assert.match(prop('SharpeSignificance', 'trials').description, /same symbol and timeframe/, 'what counts as a trial is said');

    const deployIf = prop('OneShotRequest', 'deploy_if');
    assert.deepEqual(deployIf.enum, ['always', 'not_overfit', 'robust']);
    assert.match(deployIf.description, /fee is refunded/);
    assert.ok(!schemas.OneShotRequest.required.includes('deploy_if'), 'optional: always by default');
    for (const field of ['robustness', 'deployed', 'not_deployed_reason', 'deployment_id', 'live_url'])
      assert.ok(schemas.OneShotDone.properties[field]?.description || schemas.OneShotDone.properties[field]?.anyOf, `OneShotDone.${field}`);
    assert.match(documented.get('POST /api/v1/one_shot').description, /deploy_if/);

    const metric = documented.get('GET /api/v1/leaderboard').parameters.find((p: any) => p.name === 'metric');
    assert.ok(metric.schema.enum.includes('dsr'), 'the leaderboard ranks by dsr');
    assert.match(documented.get('GET /api/v1/leaderboard').description, /`dsr` = the Deflated Sharpe Ratio/);
    for (const name of ['CommunityEntry', 'Leaderboard'])
      assert.ok(JSON.stringify(schemas[name]).includes('"verdict"'), `${name} shows the verdict`);

    if (documented.has('POST /api/v1/optimize')) {
      for (const name of ['OptimizeRequest', 'OptimizeJob']) {
        assert.ok(schemas[name], `components.schemas.${name}`);
        assert.ok(
          Object.values<any>(schemas[name].properties).some((p) => p.description),
          `${name} is described`,
        );
      }
      assert.ok(prop('OptimizeJob', 'robustness'), 'the optimisation’s robustness report');
    }
  });

  it('declares 400, 401 and 429 as Error (or an extension of it) on key-protected routes, and 400 and 429 on all', () => {
    // Error itself, or a schema extending it (TrainRejected = Error + violations): `error` and `code` required.
    const errorRef = (op: any, status: string) => {
      const ref: string | undefined = op.responses?.[status]?.content?.['application/json']?.schema?.$ref;
      const schema = ref ? spec.components.schemas[ref.replace('#/components/schemas/', '')] : undefined;
      const extendsError = ['error', 'code'].every((f) => schema?.properties?.[f] && schema.required?.includes(f));
      return extendsError ? '#/components/schemas/Error' : ref;
    };
    let keyed = 0;
    for (const [route, op] of documented) {
      const needsKey = (op.security ?? []).some((r: object) => 'ApiKey' in r);
      const statuses = needsKey ? ['400', '401', '429'] : ['400', '429'];
      if (needsKey) keyed++;
      for (const status of statuses) {
        assert.equal(errorRef(op, status), '#/components/schemas/Error', `${route} declares ${status}`);
      }
    }
    assert.ok(keyed >= 3, 'key-protected routes are marked with the ApiKey scheme');
    assert.ok(documented.get('POST /api/v1/key/trial').responses['409'], 'trial declares 409 (taken username)');
  });

  it('serves /api-docs as HTML that loads nothing from another origin, with assets that load', async () => {
    const res = await fetch(sf.url + '/api-docs');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    const base = res.url.endsWith('/') ? res.url : `${res.url}/`;

    const refs = [...html.matchAll(/<(script|link)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => ({
      tag: m[1]!.toLowerCase(),
      url: m[2]!,
    }));
    const scripts = refs.filter((r) => r.tag === 'script');
    assert.ok(scripts.length > 0, 'the page loads at least one script');
    assert.ok(
      refs.some((r) => r.tag === 'link' && /\.css$/.test(r.url)),
      'the page loads a stylesheet',
    );
    for (const { url } of refs) {
      assert.ok(!/^(https?:)?\/\//i.test(url), `${url} is on this service (the docs must work offline)`);
    }
    for (const { tag, url } of refs) {
      const asset = await fetch(new URL(url, base));
      assert.equal(asset.status, 200, `${url} loads`);
      const type = asset.headers.get('content-type') ?? '';
      if (tag === 'script') assert.match(type, /javascript/, `${url}: ${type}`);
      if (/\.css$/.test(url)) assert.match(type, /^text\/css/, `${url}: ${type}`);
      const body = await asset.text();
      if (tag === 'script') assert.ok(body.length > 0, `${url} is not empty`);
    }

    // The viewer reads the same document.
    const viewerSpec = await fetch(new URL('json', base));
    assert.equal(viewerSpec.status, 200);
    assert.deepEqual(await viewerSpec.json(), spec);
  });
});
