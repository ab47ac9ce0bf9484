import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('GET /_healthz', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService();
  });
  after(() => sf.stop());

  it('answers the text ok without a key', async () => {
    const res = await sf.api('GET', '/_healthz');
    assert.equal(res.status, 200);
    assert.equal(res.text, 'ok');
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  });
});
