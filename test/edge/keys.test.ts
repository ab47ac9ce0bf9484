import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type ApiResponse, type TestService } from '../helpers/service.ts';

/**
 * POST /api/v1/key/trial, POST /api/v1/key/generate, GET /api/v1/whoami-key.
 * Runs with TRUST_PROXY=1 so that every request can come from its own client address through
 * X-Forwarded-For (the mint limit is per address); trust-proxy.test.ts covers the opposite.
 */

const KEY_PATTERN = /^sf_[A-Za-z0-9]{40}$/;
const AUTO_HANDLE = /^[a-z]+-[a-z]+-\d{2}$/;
const TRIAL = '/api/v1/key/trial';

let ipCounter = 0;
/** A client address no other request of this file has used. */
const freshIp = () => `198.51.100.${++ipCounter}`;

function assertError(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(typeof res.body.error, 'string');
  assert.ok(res.body.error.length > 0);
  assert.equal(res.body.code, status);
}

function assertKeyResponse(body: any): void {
  assert.deepEqual(Object.keys(body).sort(), ['api_key', 'credits', 'is_trial', 'user_id', 'username']);
  assert.match(body.api_key, KEY_PATTERN);
  assert.ok(Number.isInteger(body.credits));
  assert.equal(typeof body.is_trial, 'boolean');
  assert.ok(Number.isInteger(body.user_id) && body.user_id > 0);
  assert.equal(typeof body.username, 'string');
}

/** The sf_session token of a Set-Cookie header, with its attributes. */
function sessionCookie(res: ApiResponse): { token: string; attributes: string[] } {
  const cookies = res.headers.getSetCookie();
  const cookie = cookies.find((c) => c.startsWith('sf_session='));
  assert.ok(cookie, `no sf_session cookie in ${JSON.stringify(cookies)}`);
  const [pair, ...attributes] = cookie.split(';').map((s) => s.trim());
  const token = decodeURIComponent(pair!.slice('sf_session='.length));
  assert.ok(token.length >= 20, 'session token is long enough to be unguessable');
  return { token, attributes: attributes.map((a) => a.toLowerCase()) };
}

const mint = (sf: TestService, body?: unknown, ip = freshIp()) => sf.api('POST', TRIAL, { body, headers: { 'x-forwarded-for': ip } });

describe('trial and personal keys', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1' });
  });
  after(() => sf.stop());

  describe('POST /api/v1/key/trial', () => {
    it('mints a working key with 50 credits, is_trial and the requested username', async () => {
      const res = await mint(sf, { username: 'alice' });
      assert.equal(res.status, 200, res.text);
      assertKeyResponse(res.body);
      assert.equal(res.body.credits, 50);
      assert.equal(res.body.is_trial, true);
      assert.equal(res.body.username, 'alice');

      const who = await sf.api('GET', '/api/v1/whoami-key', { key: res.body.api_key });
      assert.equal(who.status, 200, who.text);
      assert.equal(who.body.user_id, res.body.user_id);
      assert.equal(who.body.username, 'alice');
    });

    it('gives every key a distinct value and user_id', async () => {
      const a = await sf.mintKey();
      const b = await sf.mintKey();
      assert.notEqual(a.api_key, b.api_key);
      assert.notEqual(a.user_id, b.user_id);
      assert.notEqual(a.username, b.username);
    });

    it('sets an HttpOnly sf_session cookie for the whole site', async () => {
      const res = await mint(sf, {});
      assert.equal(res.status, 200, res.text);
      const { attributes } = sessionCookie(res);
      assert.ok(attributes.includes('httponly'), `attributes: ${attributes.join('; ')}`);
      assert.ok(attributes.includes('path=/'), `attributes: ${attributes.join('; ')}`);
    });

    it('accepts usernames at both length bounds and with _ and -', async () => {
      for (const username of ['abc', 'B0b', 'x'.repeat(20), '9lives_-x']) {
        const res = await mint(sf, { username });
        assert.equal(res.status, 200, `${username}: ${res.text}`);
        assert.equal(res.body.username, username);
      }
    });

    it('rejects usernames outside ^[A-Za-z0-9][A-Za-z0-9_-]{2,19}$ with 400 naming the field', async () => {
      for (const username of ['ab', '_abc', '-abc', 'a'.repeat(21), 'a b c', 'abc!', 'tést', '', 123, null]) {
        const res = await mint(sf, { username });
        assertError(res, 400);
        assert.match(res.body.error, /username/, `${JSON.stringify(username)}: ${res.body.error}`);
      }
    });

    it('does not spend a mint slot on a request it rejects as invalid', async () => {
      const ip = freshIp();
      for (let i = 0; i < 6; i++) assertError(await mint(sf, { username: '!' }, ip), 400);
      const res = await mint(sf, {}, ip);
      assert.equal(res.status, 200, res.text);
    });

    it('answers 409 for a taken username, case-insensitively', async () => {
      await sf.mintKey('carol');
      for (const username of ['carol', 'Carol', 'CAROL']) {
        const res = await mint(sf, { username });
        assertError(res, 409);
        assert.match(res.body.error, /taken/);
      }
      // 'alice' was taken by the first test.
      assertError(await mint(sf, { username: 'Alice' }), 409);
    });

    it('keeps the requested case of a username', async () => {
      const res = await mint(sf, { username: 'MixedCase' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.username, 'MixedCase');
    });

    it('gives an auto handle adjective-noun-NN when the username is omitted', async () => {
      const res = await mint(sf, {});
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.username, AUTO_HANDLE);
    });

    it('works with no body at all (no content-type)', async () => {
      const res = await sf.api('POST', TRIAL, { headers: { 'x-forwarded-for': freshIp() } });
      assert.equal(res.status, 200, res.text);
      assertKeyResponse(res.body);
      assert.match(res.body.username, AUTO_HANDLE);
      assert.equal(res.body.credits, 50);
    });

    it('allows 5 mints per client address per hour, then 429 with Retry-After', async () => {
      const ip = freshIp();
      for (let i = 0; i < 5; i++) {
        const res = await mint(sf, {}, ip);
        assert.equal(res.status, 200, `mint ${i + 1}: ${res.text}`);
      }
      const limited = await mint(sf, {}, ip);
      assertError(limited, 429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter), `Retry-After: ${limited.headers.get('retry-after')}`);
      assert.ok(retryAfter >= 1 && retryAfter <= 3600, `Retry-After: ${retryAfter}`);
      // The limit is per address: another one still mints.
      assert.equal((await mint(sf, {})).status, 200);
    });

    it('does not spend a mint slot on a taken username (409)', async () => {
      await sf.mintKey('heidi');
      const ip = freshIp();
      for (let i = 0; i < 7; i++) assertError(await mint(sf, { username: 'heidi' }, ip), 409);
      for (let i = 0; i < 5; i++) assert.equal((await mint(sf, {}, ip)).status, 200, `mint ${i + 1} after the 409s`);
      assertError(await mint(sf, {}, ip), 429);
    });

    it('does not keep a username whose mint the limit refused', async () => {
      const ip = freshIp();
      for (let i = 0; i < 5; i++) assert.equal((await mint(sf, {}, ip)).status, 200);
      const refused = await mint(sf, { username: 'ivan' }, ip);
      assertError(refused, 429);
      assert.equal(refused.body.error_code, 'SF_MINT_LIMITED');
      const elsewhere = await mint(sf, { username: 'ivan' });
      assert.equal(elsewhere.status, 200, elsewhere.text);
      assert.equal(elsewhere.body.username, 'ivan');
    });

    it('gives a username to exactly one of two concurrent mints', async () => {
      const results = await Promise.all([mint(sf, { username: 'judy' }), mint(sf, { username: 'Judy' })]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
    });
  });

  describe('GET /api/v1/whoami-key', () => {
    it('resolves the X-API-Key header, with the key masked to prefix … last 4', async () => {
      const minted = await sf.mintKey('dave');
      const res = await sf.api('GET', '/api/v1/whoami-key', { key: minted.api_key });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        api_key: `sf_…${minted.api_key.slice(-4)}`,
        is_trial: true,
        plan: 'free',
        user_id: minted.user_id,
        username: 'dave',
      });
      assert.ok(!res.text.includes(minted.api_key), 'the full key is never echoed');
    });

    it('resolves the session cookie when no key is sent', async () => {
      const res = await mint(sf, { username: 'erin' });
      const { token } = sessionCookie(res);
      const who = await sf.api('GET', '/api/v1/whoami-key', { headers: { cookie: `sf_session=${token}` } });
      assert.equal(who.status, 200, who.text);
      assert.equal(who.body.user_id, res.body.user_id);
      assert.equal(who.body.username, 'erin');
      assert.equal(who.body.plan, 'free');
      assert.equal(who.body.is_trial, true);
      assert.equal(who.body.api_key, `sf_…${res.body.api_key.slice(-4)}`);
    });

    it('answers 401 with neither a key nor a session, or with unknown ones', async () => {
      assertError(await sf.api('GET', '/api/v1/whoami-key'), 401);
      assertError(await sf.api('GET', '/api/v1/whoami-key', { key: `sf_${'A'.repeat(40)}` }), 401);
      assertError(await sf.api('GET', '/api/v1/whoami-key', { headers: { cookie: `sf_session=${'x'.repeat(48)}` } }), 401);
    });
  });

  describe('POST /api/v1/key/generate', () => {
    it('rotates the key: the new one works, the old one is refused at once', async () => {
      const minted = await sf.mintKey('frank');
      const res = await sf.api('POST', '/api/v1/key/generate', { key: minted.api_key });
      assert.equal(res.status, 200, res.text);
      assertKeyResponse(res.body);
      assert.notEqual(res.body.api_key, minted.api_key);
      assert.equal(res.body.user_id, minted.user_id);
      assert.equal(res.body.username, 'frank');
      assert.equal(res.body.is_trial, true);
      assert.equal(res.body.credits, 50, 'rotation keeps the balance');

      assertError(await sf.api('GET', '/api/v1/whoami-key', { key: minted.api_key }), 401);
      assertError(await sf.api('GET', '/api/v1/caps', { key: minted.api_key }), 401);
      const who = await sf.api('GET', '/api/v1/whoami-key', { key: res.body.api_key });
      assert.equal(who.status, 200, who.text);
      assert.equal(who.body.user_id, minted.user_id);
      assert.equal(who.body.api_key, `sf_…${res.body.api_key.slice(-4)}`);
      assert.equal((await sf.api('GET', '/api/v1/caps', { key: res.body.api_key })).status, 200);
    });

    it('accepts an empty JSON object as the body', async () => {
      const minted = await sf.mintKey();
      const res = await sf.api('POST', '/api/v1/key/generate', { key: minted.api_key, body: {} });
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.api_key, KEY_PATTERN);
    });

    it('works with the session cookie alone, ends that session and hands the caller a new one', async () => {
      const minted = await mint(sf, {});
      const { token } = sessionCookie(minted);

      const first = await sf.api('POST', '/api/v1/key/generate', { headers: { cookie: `sf_session=${token}` } });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.user_id, minted.body.user_id);
      assertError(await sf.api('GET', '/api/v1/whoami-key', { key: minted.body.api_key }), 401);
      assertError(await sf.api('GET', '/api/v1/whoami-key', { headers: { cookie: `sf_session=${token}` } }), 401);

      const renewed = sessionCookie(first).token;
      assert.notEqual(renewed, token);
      const second = await sf.api('POST', '/api/v1/key/generate', { headers: { cookie: `sf_session=${renewed}` } });
      assert.equal(second.status, 200, second.text);
      assert.notEqual(second.body.api_key, first.body.api_key);
      assertError(await sf.api('GET', '/api/v1/whoami-key', { key: first.body.api_key }), 401);
      assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: second.body.api_key })).status, 200);
    });

    it('sets no cookie when the caller used its key', async () => {
      const minted = await sf.mintKey();
      const res = await sf.api('POST', '/api/v1/key/generate', { key: minted.api_key });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.headers.getSetCookie(), []);
    });

    it('answers 401 without a key or session', async () => {
      assertError(await sf.api('POST', '/api/v1/key/generate'), 401);
      assertError(await sf.api('POST', '/api/v1/key/generate', { key: 'sf_nope' }), 401);
    });
  });

  describe('after a restart', () => {
    it('keeps keys, rotations, sessions, usernames and the mint window', async () => {
      const kept = await mint(sf, { username: 'grace' });
      assert.equal(kept.status, 200, kept.text);
      const { token } = sessionCookie(kept);
      const rotatedAway = await sf.mintKey();
      const rotated = await sf.api('POST', '/api/v1/key/generate', { key: rotatedAway.api_key });
      assert.equal(rotated.status, 200, rotated.text);
      const limitedIp = freshIp();
      for (let i = 0; i < 5; i++) assert.equal((await mint(sf, {}, limitedIp)).status, 200);

      await sf.restart();

      const who = await sf.api('GET', '/api/v1/whoami-key', { key: kept.body.api_key });
      assert.equal(who.status, 200, who.text);
      assert.equal(who.body.username, 'grace');
      assert.equal(who.body.user_id, kept.body.user_id);
      const bySession = await sf.api('GET', '/api/v1/whoami-key', { headers: { cookie: `sf_session=${token}` } });
      assert.equal(bySession.status, 200, bySession.text);
      assert.equal(bySession.body.user_id, kept.body.user_id);

      assertError(await sf.api('GET', '/api/v1/whoami-key', { key: rotatedAway.api_key }), 401);
      assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: rotated.body.api_key })).status, 200);

      assertError(await mint(sf, { username: 'GRACE' }), 409);
      assertError(await mint(sf, { username: 'alice' }), 409);
      assertError(await mint(sf, {}, limitedIp), 429);

      // New accounts after the restart get fresh ids.
      const fresh = await sf.mintKey();
      assert.ok(fresh.user_id > kept.body.user_id, `${fresh.user_id} > ${kept.body.user_id}`);
    });
  });
});
