/**
 * Requests without a valid key are limited per client address (ANON_RATE_BURST at once, then
 * ANON_RATE_PER_MIN — here 6 a minute, so a slow machine cannot refill its way past the counts):
 * a flood of 300 `GET /activity?limit=200` in a moment is shed with 429, Retry-After and
 * SF_RATE_LIMITED; other addresses, keyed requests and /_healthz are not touched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

const BURST = 40;

describe('anonymous rate limit per address', () => {
  let sf: TestService;
  let key: string;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1', ANON_RATE_BURST: String(BURST), ANON_RATE_PER_MIN: '6' });
    key = (await sf.mintKey()).api_key;
  });
  after(() => sf.stop());

  const flood = (n: number, headers: Record<string, string>) =>
    Promise.all(Array.from({ length: n }, () => sf.api('GET', '/api/v1/activity?limit=200', { headers })));

  it('sheds a flood of 300 anonymous reads from one address with 429 + Retry-After', async () => {
    const answers = await flood(300, { 'x-forwarded-for': '203.0.113.7' });
    const ok = answers.filter((r) => r.status === 200).length;
    const shed = answers.filter((r) => r.status === 429);
    assert.ok(ok >= BURST && ok <= BURST + 5, `${ok} answered`);
    assert.equal(ok + shed.length, 300);
    for (const res of shed.slice(0, 5)) {
      assert.equal(res.body.error_code, 'SF_RATE_LIMITED');
      assert.equal(res.body.code, 429);
      assert.ok(Number(res.headers.get('retry-after')) >= 1, `Retry-After: ${res.headers.get('retry-after')}`);
    }
  });

  it('limits each address on its own (IPv6 per /64)', async () => {
    assert.equal((await sf.api('GET', '/api/v1/activity', { headers: { 'x-forwarded-for': '203.0.113.8' } })).status, 200);
    const v6 = await flood(BURST + 10, { 'x-forwarded-for': '2001:db8:1:2::1' });
    assert.ok(v6.some((r) => r.status === 429));
    const sameBlock = await sf.api('GET', '/api/v1/activity', { headers: { 'x-forwarded-for': '2001:db8:1:2:ffff::9' } });
    assert.equal(sameBlock.status, 429, 'another address of the same /64 shares its bucket');
  });

  it('counts requests with a bad key as anonymous, and leaves keyed requests and /_healthz alone', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    await flood(BURST + 5, headers);
    const badKey = await sf.api('GET', '/api/v1/activity', { headers: { ...headers, 'x-api-key': `sf_${'B'.repeat(40)}` } });
    assert.equal(badKey.status, 429);
    const keyed = await sf.api('GET', '/api/v1/activity', { key, headers });
    assert.equal(keyed.status, 200, keyed.text);
    const health = await sf.api('GET', '/_healthz', { headers });
    assert.equal(health.status, 200);
  });
});
