import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type ApiResponse, type TestService } from '../helpers/service.ts';

/** Every failure leaves as JSON `{ error, code }` with code = the HTTP status. */

const BODY_LIMIT = 1024;
const TRIAL = '/api/v1/key/trial';

function assertError(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `content-type of a ${status}`);
  assert.ok(res.body && typeof res.body === 'object', `JSON body: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error']);
  assert.equal(typeof res.body.error, 'string');
  assert.ok(res.body.error.length > 0);
  assert.equal(res.body.code, status);
}

describe('error responses', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ BODY_LIMIT_BYTES: String(BODY_LIMIT), TRUST_PROXY: '1' });
  });
  after(() => sf.stop());

  let ip = 0;
  /** Each request from its own address, so the mint limit never gets in the way. */
  const post = (options: Parameters<TestService['api']>[2]) =>
    sf.api('POST', TRIAL, { ...options, headers: { 'x-forwarded-for': `192.0.2.${++ip}`, ...options?.headers } });

  it('answers 404 for an unknown route, naming it', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/nope?x=1'],
      ['DELETE', '/api/v1/caps'],
      ['GET', TRIAL],
    ] as const) {
      const res = await sf.api(method, path);
      assertError(res, 404);
      assert.ok(res.body.error.includes(path.split('?')[0]!), res.body.error);
    }
  });

  it('answers 400 for a malformed JSON body', async () => {
    for (const raw of ['{', '{"username":', "{'username':'abc'}", 'not json']) {
      const res = await post({ raw });
      assertError(res, 400);
      assert.match(res.body.error, /JSON/i);
    }
  });

  it('takes an empty body sent as application/json as no fields (curl -X POST -H content-type)', async () => {
    const res = await post({ raw: '' });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.username, /^[a-z]+-[a-z]+-\d{2}$/);
  });

  it('answers 400 naming the field when validation fails', async () => {
    const res = await post({ body: { username: 'a' } });
    assertError(res, 400);
    assert.match(res.body.error, /username/);

    const query = await sf.api('GET', '/api/v1/activity?limit=0');
    assertError(query, 400);
    assert.match(query.body.error, /limit/);
  });

  it('answers 413 for a body over BODY_LIMIT_BYTES, and accepts one under it', async () => {
    const big = JSON.stringify({ username: 'okname', pad: 'x'.repeat(BODY_LIMIT) });
    assert.ok(Buffer.byteLength(big) > BODY_LIMIT);
    const tooBig = await post({ raw: big });
    assertError(tooBig, 413);
    assert.match(tooBig.body.error, new RegExp(`limit is ${BODY_LIMIT} bytes`));

    const small = JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT - 100) });
    assert.ok(Buffer.byteLength(small) <= BODY_LIMIT);
    assert.equal((await post({ raw: small })).status, 200);
  });

  it('answers 413 for an oversized chunked body (no content-length)', async () => {
    const chunks = [new TextEncoder().encode('{"pad":"'), new TextEncoder().encode('x'.repeat(BODY_LIMIT * 4)), new TextEncoder().encode('"}')];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
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
    assertError({ status: res.status, headers: res.headers, body: JSON.parse(text), text }, 413);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await post({ raw: 'username=abc', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertError(res, 415);
  });

  it('answers 401 and 429 in the same shape', async () => {
    assertError(await sf.api('GET', '/api/v1/caps'), 401);
    const sameIp = { 'x-forwarded-for': '192.0.2.251' };
    let res: ApiResponse | undefined;
    for (let i = 0; i < 6; i++) res = await sf.api('POST', TRIAL, { body: {}, headers: sameIp });
    assertError(res!, 429);
  });
});
