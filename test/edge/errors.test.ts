import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES } from '../../schemas/errors.ts';
import { startTestService, type ApiResponse, type TestService } from '../helpers/service.ts';
import { rawRequest } from './raw-http.ts';

/**
 * Every failure, from every layer — Node's HTTP parser, Fastify's router, the body parser,
 * validation, auth, the handlers — leaves as JSON `{ error, code, error_code }` with code = the
 * HTTP status and error_code one of the table's codes for that status.
 */

const BODY_LIMIT = 1024;
const TRIAL = '/api/v1/key/trial';

interface Answer {
  status: number;
  contentType: string;
  body: any;
  text: string;
}

function assertError(res: Answer, status: number, errorCode?: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.contentType, /^application\/json/, `content-type of a ${status}`);
  assert.ok(res.body && typeof res.body === 'object', `JSON body: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'error_code'], res.text);
  assert.equal(typeof res.body.error, 'string');
  assert.ok(res.body.error.length > 0);
  assert.equal(res.body.code, status);
  assert.equal(ERROR_CODES[res.body.error_code as keyof typeof ERROR_CODES]?.status, status, `${res.body.error_code} is a ${status} code`);
  if (errorCode) assert.equal(res.body.error_code, errorCode, res.text);
}

const fromApi = (res: ApiResponse): Answer => ({
  status: res.status,
  contentType: res.headers.get('content-type') ?? '',
  body: res.body,
  text: res.text,
});

describe('error responses', () => {
  let sf: TestService;
  let key: string;
  let cookie: string;
  before(async () => {
    sf = await startTestService({
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      TRUST_PROXY: '1',
      TRIAL_CREDITS: '0',
    });
    const minted = await post({ body: { username: 'errtable' } });
    assert.equal(minted.status, 200, minted.text);
    key = minted.body.api_key;
    cookie = minted.headers.getSetCookie()[0]!.split(';')[0]!;
  });
  after(() => sf.stop());

  let ip = 0;
  /** Each request from its own address, so the mint limit never gets in the way. */
  function post(options: Parameters<TestService['api']>[2]) {
    return sf.api('POST', TRIAL, { ...options, headers: { 'x-forwarded-for': `192.0.2.${++ip}`, ...options?.headers } });
  }
  const raw = async (request: string): Promise<Answer> => {
    const res = await rawRequest(sf.url, request);
    return { status: res.status, contentType: res.headers['content-type'] ?? '', body: res.body, text: res.text };
  };

  it('answers every layer in the one shape, with the status and machine code of the table', async (t) => {
    const table: Array<[layer: string, send: () => Promise<Answer>, status: number, errorCode: string]> = [
      [
        'HTTP parser: headers over the limit',
        () => raw(`GET /api/v1/activity HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`),
        431,
        'SF_HEADERS_TOO_LARGE',
      ],
      ['HTTP parser: a malformed request line', () => raw('BLAH\r\n\r\n'), 400, 'SF_MALFORMED_REQUEST'],
      ['router: an undecodable URL', async () => fromApi(await sf.api('GET', '/api/v1/results/%C0%AE%C0%AE', { key })), 400, 'SF_BAD_URL'],
      [
        'router: a 10 kB path parameter',
        async () => fromApi(await sf.api('GET', `/api/v1/results/${'m'.repeat(10_000)}`, { key })),
        414,
        'SF_URI_TOO_LONG',
      ],
      ['router: an unknown route', async () => fromApi(await sf.api('GET', '/api/v1/nope')), 404, 'SF_ROUTE_NOT_FOUND'],
      ['body parser: malformed JSON', async () => fromApi(await post({ raw: '{"username":' })), 400, 'SF_MALFORMED_JSON'],
      [
        'body parser: over the body limit',
        async () => fromApi(await post({ raw: JSON.stringify({ username: 'x'.repeat(BODY_LIMIT) }) })),
        413,
        'SF_PAYLOAD_TOO_LARGE',
      ],
      [
        'body parser: a form body',
        async () => fromApi(await post({ raw: 'username=abc', headers: { 'content-type': 'application/x-www-form-urlencoded' } })),
        415,
        'SF_UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'body parser: text/plain',
        async () => fromApi(await post({ raw: '{}', headers: { 'content-type': 'text/plain' } })),
        415,
        'SF_UNSUPPORTED_MEDIA_TYPE',
      ],
      ['validation: a bad value', async () => fromApi(await post({ body: { username: 'a' } })), 400, 'SF_VALIDATION'],
      ['validation: a bad query', async () => fromApi(await sf.api('GET', '/api/v1/activity?limit=0')), 400, 'SF_VALIDATION'],
      ['validation: an unknown field', async () => fromApi(await post({ body: { usernme: 'abcd' } })), 400, 'SF_UNKNOWN_FIELD'],
      ['auth: no key', async () => fromApi(await sf.api('GET', '/api/v1/caps')), 401, 'SF_UNAUTHORIZED'],
      [
        'metering: no credits',
        async () => fromApi(await sf.api('POST', '/api/v1/generate', { key, body: { description: 'rsi' } })),
        402,
        'SF_CREDITS_SHORT',
      ],
      [
        'session: a change from another site',
        async () => fromApi(await sf.api('POST', '/api/v1/key/generate', { headers: { cookie, origin: 'https://evil.example' } })),
        403,
        'SF_FOREIGN_ORIGIN',
      ],
      ['handler: an unknown model', async () => fromApi(await sf.api('GET', '/api/v1/results/nope', { key })), 404, 'SF_MODEL_NOT_FOUND'],
      ['handler: an unknown job', async () => fromApi(await sf.api('GET', '/api/v1/train/987654', { key })), 404, 'SF_JOB_NOT_FOUND'],
      [
        'handler: a model not deployed',
        async () => fromApi(await sf.api('DELETE', '/api/v1/deploy/nope', { key })),
        404,
        'SF_DEPLOYMENT_NOT_FOUND',
      ],
      ['accounts: a taken username', async () => fromApi(await post({ body: { username: 'ErrTable' } })), 409, 'SF_USERNAME_TAKEN'],
    ];
    for (const [layer, send, status, errorCode] of table) {
      await t.test(layer, async () => assertError(await send(), status, errorCode));
    }
  });

  it('names the route of a 404', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/nope?x=1'],
      ['DELETE', '/api/v1/caps'],
      ['GET', TRIAL],
    ] as const) {
      const res = await sf.api(method, path);
      assertError(fromApi(res), 404, 'SF_ROUTE_NOT_FOUND');
      assert.ok(res.body.error.includes(path.split('?')[0]!), res.body.error);
    }
  });

  it('answers 400 for each kind of malformed JSON body', async () => {
    for (const body of ['{', '{"username":', "{'username':'abc'}", 'not json']) {
      const res = await post({ raw: body });
      assertError(fromApi(res), 400, 'SF_MALFORMED_JSON');
      assert.match(res.body.error, /JSON/i);
    }
  });

  it('takes an empty body sent as application/json as no fields (curl -X POST -H content-type)', async () => {
    const res = await post({ raw: '' });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.username, /^[a-z]+-[a-z]+-\d{2}$/);
  });

  it('names the field when validation fails', async () => {
    const res = await post({ body: { username: 'a' } });
    assert.match(res.body.error, /username/);
    const query = await sf.api('GET', '/api/v1/activity?limit=0');
    assert.match(query.body.error, /limit/);
  });

  it('answers 413 for a body over BODY_LIMIT_BYTES, and accepts one under it', async () => {
    const tooBig = await post({ raw: JSON.stringify({ username: 'x'.repeat(BODY_LIMIT) }) });
    assertError(fromApi(tooBig), 413, 'SF_PAYLOAD_TOO_LARGE');
    assert.match(tooBig.body.error, new RegExp(`limit is ${BODY_LIMIT} bytes`));

    const small = JSON.stringify({ username: 'fits' }) + ' '.repeat(BODY_LIMIT - 100);
    assert.ok(Buffer.byteLength(small) <= BODY_LIMIT);
    assert.equal((await post({ raw: small })).status, 200);
  });

  it('answers 413 for an oversized chunked body (no content-length)', async () => {
    const parts = ['{"username":"', 'x'.repeat(BODY_LIMIT * 4), '"}'];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    const res = await fetch(sf.url + TRIAL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.250' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    assertError(
      { status: res.status, contentType: res.headers.get('content-type') ?? '', body: JSON.parse(text), text },
      413,
      'SF_PAYLOAD_TOO_LARGE',
    );
  });

  it('answers the 429 of the mint limit in the same shape, with Retry-After', async () => {
    const sameIp = { 'x-forwarded-for': '192.0.2.251' };
    let res: ApiResponse | undefined;
    for (let i = 0; i < 6; i++) res = await sf.api('POST', TRIAL, { body: {}, headers: sameIp });
    assertError(fromApi(res!), 429, 'SF_MINT_LIMITED');
    assert.ok(Number(res!.headers.get('retry-after')) >= 1);
  });

  it('declares error_code and its table in the OpenAPI error schema', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    const schema = spec.components.schemas.Error;
    assert.deepEqual([...schema.required].sort(), ['code', 'error', 'error_code']);
    assert.deepEqual([...schema.properties.error_code.enum].sort(), Object.keys(ERROR_CODES).sort());
    for (const code of Object.keys(ERROR_CODES)) assert.ok(schema.properties.error_code.description.includes(`\`${code}\``), code);
  });
});
