import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('GET /_healthz and /_readyz', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService();
  });
  after(() => sf.stop());

  it('/_healthz answers the text ok without a key', async () => {
    const res = await sf.api('GET', '/_healthz');
    assert.equal(res.status, 200);
    assert.equal(res.text, 'ok');
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  });

  it('/_readyz answers 200 with every dependency checked', async () => {
    const res = await sf.api('GET', '/_readyz');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.ready, true);
    for (const name of ['nats', 'clickhouse', 'python']) {
      assert.equal(res.body.checks[name].ok, true, name);
      assert.equal(typeof res.body.checks[name].ms, 'number');
    }
  });

  it('/_readyz answers 503 naming the dependency that is gone', async () => {
    // The strategy runtime stopped: no live worker process is left.
    sf.service.domain.runtime.stop();
    const res = await sf.api('GET', '/_readyz');
    assert.equal(res.status, 503);
    assert.equal(res.body.ready, false);
    assert.equal(res.body.code, 503);
    assert.equal(res.body.checks.python.ok, false);
    assert.equal(res.body.checks.nats.ok, true);
    assert.match(res.body.error, /python/);
  });

  it('both are in the OpenAPI description', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    assert.ok(spec.paths['/_healthz']?.get);
    assert.ok(spec.paths['/_readyz']?.get?.responses?.['503']);
  });
});
