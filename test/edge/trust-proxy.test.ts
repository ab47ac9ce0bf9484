import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * Without TRUST_PROXY (the default) X-Forwarded-For is the client's word, not a fact: the mint
 * limit must count the socket address, or anyone could mint unlimited trial keys by inventing
 * a new header value per request.
 */
describe('X-Forwarded-For without TRUST_PROXY', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService();
  });
  after(() => sf.stop());

  it('is ignored by the trial-key mint limit', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await sf.api('POST', '/api/v1/key/trial', {
        body: {},
        headers: { 'x-forwarded-for': `203.0.113.${i}` },
      });
      assert.equal(res.status, 200, `mint ${i}: ${res.text}`);
    }
    // A sixth address in the header changes nothing: every request came from 127.0.0.1.
    for (const headers of [{ 'x-forwarded-for': '203.0.113.99' }, {}] as Array<Record<string, string>>) {
      const res = await sf.api('POST', '/api/v1/key/trial', { body: {}, headers });
      assert.equal(res.status, 429, res.text);
      assert.equal(res.body.code, 429);
      assert.equal(typeof res.body.error, 'string');
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${res.headers.get('retry-after')}`);
    }
  });
});
