import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type ApiResponse, type TestService } from '../helpers/service.ts';

/**
 * Authentication is checked against what the service itself publishes: every operation that
 * /openapi.json marks with the ApiKey scheme must refuse a request without a valid key.
 */

const RATE_LIMIT = 5;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The rows of the contract's endpoint table whose Auth column is `key`. */
const CONTRACT_KEY_ROUTES = [
  'POST /api/v1/key/generate',
  'GET /api/v1/key/usage',
  'GET /api/v1/caps',
  'POST /api/v1/generate',
  'POST /api/v1/generate/stream',
  'POST /api/v1/generate/from-template',
  'POST /api/v1/one_shot',
  'POST /api/v1/train',
  'GET /api/v1/train/{job_id}',
  'GET /api/v1/models',
  'DELETE /api/v1/models/{name}',
  'GET /api/v1/results/{model}',
  'POST /api/v1/predict',
  'GET /api/v1/signals/{model}',
  'POST /api/v1/deploy',
  'DELETE /api/v1/deploy/{model}',
  'GET /api/v1/deployed',
  'GET /api/v1/messenger/code',
  'GET /api/v1/ohlc',
  'GET /api/v1/ticks',
  'POST /api/v1/indicators',
  'POST /api/v1/indicators/custom',
  'POST /api/v1/share',
  'POST /api/v1/fork/{community_id}',
];

interface Operation {
  method: string;
  path: string;
  /** The path with every {param} filled with a dummy value. */
  url: string;
  security: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
}

function operationsOf(spec: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        url: path.replace(/\{[^}]+\}/g, '1'),
        security: op.security ?? spec.security ?? [],
        responses: op.responses ?? {},
      });
    }
  }
  return ops;
}

/** Public, but a key that is sent must be valid (`security: [{}, {ApiKey: []}]`). */
const keyIfSent = (op: Operation) => op.security.some((requirement) => Object.keys(requirement).length === 0);
const needsKey = (op: Operation) => !keyIfSent(op) && op.security.some((requirement) => 'ApiKey' in requirement);

function assertError(res: ApiResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
  assert.equal(typeof res.body.error, 'string', what);
  assert.ok(res.body.error.length > 0, what);
  assert.equal(res.body.code, status, what);
}

describe('authentication and the per-key rate limit', () => {
  let sf: TestService;
  let keyed: Operation[];
  let all: Operation[];
  before(async () => {
    // Hundreds of keyless requests from one address: the anonymous limit has its own test.
    sf = await startTestService({ TRUST_PROXY: '1', RATE_LIMIT_PER_MIN: String(RATE_LIMIT), ANON_RATE_PER_MIN: '0' });
    const spec = await sf.api('GET', '/openapi.json');
    assert.equal(spec.status, 200);
    all = operationsOf(spec.body);
    keyed = all.filter(needsKey);
  });
  after(() => sf.stop());

  it('publishes key-protected operations, each declaring a 401', () => {
    assert.ok(keyed.length >= 3, `keyed operations: ${keyed.map((o) => `${o.method} ${o.path}`).join(', ')}`);
    for (const op of keyed) assert.ok('401' in op.responses, `${op.method} ${op.path} declares 401`);
  });

  it('marks every contract key route this service has with the ApiKey scheme', () => {
    const published = new Set(keyed.map((op) => `${op.method} ${op.path}`));
    const present = CONTRACT_KEY_ROUTES.filter((route) => {
      const [method, path] = route.split(' ') as [string, string];
      return sf.service.edge.app.hasRoute({ method: method as 'GET', url: path.replace(/\{([^}]+)\}/g, ':$1') });
    });
    for (const route of ['POST /api/v1/key/generate', 'GET /api/v1/key/usage', 'GET /api/v1/caps']) {
      assert.ok(present.includes(route), `${route} is served`);
    }
    for (const route of present) assert.ok(published.has(route), `${route} requires ApiKey in /openapi.json`);
  });

  it('answers 401 {error, code} on every key-protected operation without a key', async () => {
    for (const op of keyed) {
      assertError(await sf.api(op.method, op.url), 401, `${op.method} ${op.url} without a key`);
    }
  });

  it('answers 401 with a malformed or unknown key, even with a valid-looking body', async () => {
    const badKeys = ['nope', 'sf_', `sf_${'A'.repeat(40)}`, `xx_${'A'.repeat(40)}`, `sf_${'A'.repeat(41)}`];
    for (const op of keyed) {
      for (const key of badKeys) {
        const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
        assertError(await sf.api(op.method, op.url, { key, body }), 401, `${op.method} ${op.url} with key ${key}`);
      }
    }
  });

  it('answers 401 with an unknown session cookie where a session is accepted', async () => {
    for (const op of keyed.filter((o) => o.security.some((r) => 'SessionCookie' in r))) {
      const res = await sf.api(op.method, op.url, { headers: { cookie: `sf_session=${'z'.repeat(48)}` } });
      assertError(res, 401, `${op.method} ${op.url} with an unknown session`);
    }
  });

  it('lets a valid key through on every key-protected operation', async () => {
    for (const op of keyed) {
      // A key of its own per operation, so the small rate limit of this file never interferes.
      const { api_key } = await sf.mintKey();
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
      const res = await sf.api(op.method, op.url, { key: api_key, body });
      assert.ok(![401, 429].includes(res.status) && res.status < 500, `${op.method} ${op.url}: ${res.status} ${res.text}`);
    }
  });

  it('where a key is optional: answers without one, and 401 to one that is not valid', async () => {
    const optional = all.filter(keyIfSent);
    assert.ok(
      optional.some((op) => op.path === '/api/v1/payouts'),
      'GET /payouts takes an optional key',
    );
    for (const op of optional) {
      assert.ok('401' in op.responses, `${op.method} ${op.path} declares 401`);
      const res = await sf.api(op.method, op.url);
      assert.ok(res.status !== 401 && res.status < 500, `${op.method} ${op.url}: ${res.status} ${res.text}`);
      assertError(await sf.api(op.method, op.url, { key: 'sf_nope' }), 401, `${op.method} ${op.url} with a bad key`);
      const { api_key } = await sf.mintKey();
      const ok = await sf.api(op.method, op.url, { key: api_key });
      assert.ok(![401, 429].includes(ok.status) && ok.status < 500, `${op.method} ${op.url} with a valid key: ${ok.status}`);
    }
  });

  it('never asks for a key on public operations, and ignores a bad one there', async () => {
    for (const op of all.filter((o) => !needsKey(o) && !keyIfSent(o) && o.method === 'GET' && !o.path.endsWith('/stream'))) {
      const res = await sf.api(op.method, op.url);
      assert.ok(res.status !== 401 && res.status < 500, `${op.method} ${op.url}: ${res.status} ${res.text}`);
      const withBadKey = await sf.api(op.method, op.url, { key: 'sf_nope' });
      assert.equal(withBadKey.status, res.status, `${op.method} ${op.url} with a bad key: ${withBadKey.text}`);
    }
  });

  it(`allows ${RATE_LIMIT} requests per key per minute, then 429 with Retry-After; other keys are unaffected`, async () => {
    const a = await sf.mintKey();
    const b = await sf.mintKey();
    for (let i = 1; i <= RATE_LIMIT; i++) {
      const res = await sf.api('GET', '/api/v1/caps', { key: a.api_key });
      assert.equal(res.status, 200, `call ${i}: ${res.text}`);
    }
    const limited = await sf.api('GET', '/api/v1/caps', { key: a.api_key });
    assertError(limited, 429, 'call past the limit');
    const retryAfter = limited.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^\d+$/, `Retry-After: ${retryAfter}`);
    // A claim's stamp counts for the minute plus 0.5 s of clock skew between edges: at most 61 s.
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 61, `Retry-After: ${retryAfter}`);

    // The limit is per key, across routes.
    assertError(await sf.api('GET', '/api/v1/key/usage', { key: a.api_key }), 429, 'another route, same key');
    const other = await sf.api('GET', '/api/v1/caps', { key: b.api_key });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.rate_limit.per_minute, RATE_LIMIT, 'caps reports the configured limit');
  });
});
