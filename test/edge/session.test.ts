/**
 * The sf_session cookie (src/edge/plugins/session.ts, POST /logout, the rotation rule): it ends
 * at logout and at any key rotation, it is Secure over TLS (behind TRUST_PROXY, per
 * X-Forwarded-Proto), a page of another site cannot use it to change anything, a non-JSON body
 * never reaches a route, and a malformed cookie is no cookie.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type ApiResponse, type TestService } from '../helpers/service.ts';

const ALLOWED = 'https://app.example.com';

let ipCounter = 0;
const freshIp = () => `198.18.0.${++ipCounter}`;

function setCookie(res: ApiResponse): { token: string; attributes: string[] } {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sf_session='));
  assert.ok(cookie, `no sf_session cookie in ${JSON.stringify(res.headers.getSetCookie())}`);
  const [pair, ...attributes] = cookie.split(';').map((s) => s.trim());
  return { token: pair!.slice('sf_session='.length), attributes: attributes.map((a) => a.toLowerCase()) };
}

describe('browser sessions', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1', SESSION_ALLOWED_ORIGINS: ALLOWED });
  });
  after(() => sf.stop());

  async function browser(headers: Record<string, string> = {}) {
    const res = await sf.api('POST', '/api/v1/key/trial', { body: {}, headers: { 'x-forwarded-for': freshIp(), ...headers } });
    assert.equal(res.status, 200, res.text);
    const { token, attributes } = setCookie(res);
    return {
      key: res.body.api_key as string,
      userId: res.body.user_id as number,
      token,
      attributes,
      cookie: { cookie: `sf_session=${token}` },
    };
  }
  const whoami = (headers: Record<string, string>) => sf.api('GET', '/api/v1/whoami-key', { headers });

  it('marks the cookie Secure over TLS (X-Forwarded-Proto behind TRUST_PROXY), not over plain HTTP', async () => {
    const tls = await browser({ 'x-forwarded-proto': 'https' });
    assert.ok(tls.attributes.includes('secure'), tls.attributes.join('; '));
    assert.ok(tls.attributes.includes('httponly'));
    assert.ok(tls.attributes.includes('samesite=lax'));
    const plain = await browser();
    assert.ok(!plain.attributes.includes('secure'), plain.attributes.join('; '));
  });

  it('ends every session of the account at a key rotation, whoever rotates', async () => {
    const a = await browser();
    // Rotated by the key (another client of the account): the browser's session ends too.
    const rotated = await sf.api('POST', '/api/v1/key/generate', { key: a.key });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal((await whoami(a.cookie)).status, 401, 'the session of the old key is over');

    const b = await browser();
    const byCookie = await sf.api('POST', '/api/v1/key/generate', { headers: b.cookie });
    assert.equal(byCookie.status, 200, byCookie.text);
    const renewed = setCookie(byCookie).token;
    assert.equal((await whoami(b.cookie)).status, 401);
    const who = await whoami({ cookie: `sf_session=${renewed}` });
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.user_id, b.userId);
  });

  it('ends the session at logout, clears the cookie, and leaves the key working', async () => {
    const a = await browser();
    assert.equal((await whoami(a.cookie)).status, 200);
    const out = await sf.api('POST', '/api/v1/logout', { headers: a.cookie });
    assert.equal(out.status, 200, out.text);
    assert.deepEqual(out.body, { logged_out: true });
    const cleared = setCookie(out);
    assert.equal(cleared.token, '');
    assert.ok(cleared.attributes.includes('max-age=0'), cleared.attributes.join('; '));
    assert.equal((await whoami(a.cookie)).status, 401, 'the old token no longer identifies anyone');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: a.key })).status, 200);

    const again = await sf.api('POST', '/api/v1/logout', { headers: a.cookie });
    assert.deepEqual(again.body, { logged_out: false });
    assert.deepEqual((await sf.api('POST', '/api/v1/logout')).body, { logged_out: false });
  });

  it('refuses a cookie-authenticated change sent by another site (403 SF_FOREIGN_ORIGIN), and rotates nothing', async () => {
    const a = await browser();
    const foreign: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'http://127.0.0.1:1' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const res = await sf.api('POST', '/api/v1/key/generate', { headers: { ...a.cookie, ...headers } });
      assert.equal(res.status, 403, `${JSON.stringify(headers)}: ${res.text}`);
      assert.equal(res.body.error_code, 'SF_FOREIGN_ORIGIN');
      assert.ok(!('api_key' in res.body));
      const logout = await sf.api('POST', '/api/v1/logout', { headers: { ...a.cookie, ...headers } });
      assert.equal(logout.status, 403, `logout ${JSON.stringify(headers)}: ${logout.text}`);
    }
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: a.key })).status, 200, 'the key was never rotated');
    assert.equal((await whoami({ ...a.cookie, origin: 'https://evil.example' })).status, 200, 'reading is not a change');
  });

  it('lets the service’s own origin, an allowed origin and non-browser clients change things', async () => {
    const a = await browser();
    const own = await sf.api('POST', '/api/v1/key/generate', { headers: { ...a.cookie, origin: sf.url, 'sec-fetch-site': 'same-origin' } });
    assert.equal(own.status, 200, own.text);
    let cookie = { cookie: `sf_session=${setCookie(own).token}` };
    const allowed = await sf.api('POST', '/api/v1/key/generate', {
      headers: { ...cookie, origin: ALLOWED, 'sec-fetch-site': 'same-site' },
    });
    assert.equal(allowed.status, 200, allowed.text);
    cookie = { cookie: `sf_session=${setCookie(allowed).token}` };
    const curl = await sf.api('POST', '/api/v1/key/generate', { headers: cookie });
    assert.equal(curl.status, 200, curl.text);
    // A key is not ambient authority: its requests are never refused for their origin.
    const byKey = await sf.api('POST', '/api/v1/key/generate', { key: curl.body.api_key, headers: { origin: 'https://evil.example' } });
    assert.equal(byKey.status, 200, byKey.text);
  });

  it('refuses a text/plain or form body with the cookie (415), the CORS-simple bodies a foreign page can send', async () => {
    const a = await browser();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await sf.api('POST', '/api/v1/key/generate', { raw: '{}', headers: { ...a.cookie, 'content-type': type } });
      assert.equal(res.status, 415, `${type}: ${res.text}`);
      assert.equal(res.body.error_code, 'SF_UNSUPPORTED_MEDIA_TYPE');
    }
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: a.key })).status, 200, 'the key was never rotated');
  });

  it('refuses any state change carrying the cookie from another site, whatever the route, before reading its body', async () => {
    const a = await browser();
    const foreign = { ...a.cookie, origin: 'https://evil.example' };
    // A trial mint would swap the visitor's session for the attacker's account (login CSRF).
    const mint = await sf.api('POST', '/api/v1/key/trial', { body: {}, headers: { ...foreign, 'x-forwarded-for': freshIp() } });
    assert.equal(mint.status, 403, mint.text);
    assert.equal(mint.headers.get('set-cookie'), null, 'no cookie was set');
    // A text/plain form post is refused as foreign (403), not merely as an unreadable body.
    const logout = await sf.api('POST', '/api/v1/logout', { raw: 'x', headers: { ...foreign, 'content-type': 'text/plain' } });
    assert.equal(logout.status, 403, logout.text);
    assert.equal(logout.body.error_code, 'SF_FOREIGN_ORIGIN');
    const deploy = await sf.api('POST', '/api/v1/deploy', { key: a.key, body: { model_name: 'x' }, headers: foreign });
    assert.equal(deploy.status, 403, deploy.text);
    assert.equal((await whoami(a.cookie)).status, 200, 'the session still stands');
  });

  it('treats a malformed cookie as no cookie: 401 where one is needed, never 500', async () => {
    for (const cookie of ['sf_session=%', 'sf_session=%E0%A4%A', 'sf_session=', 'sf_session', '=x; sf_session=%zz']) {
      const res = await whoami({ cookie });
      assert.equal(res.status, 401, `${cookie}: ${res.text}`);
      assert.equal(res.body.error_code, 'SF_UNAUTHORIZED');
      const open = await sf.api('GET', '/api/v1/activity', { headers: { cookie, 'x-forwarded-for': freshIp() } });
      assert.equal(open.status, 200, `${cookie}: ${open.text}`);
      const logout = await sf.api('POST', '/api/v1/logout', { headers: { cookie } });
      assert.equal(logout.status, 200, `${cookie}: ${logout.text}`);
    }
  });

  it('documents logout and the 403 in /openapi.json', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    assert.ok(spec.paths['/api/v1/logout']?.post, 'POST /api/v1/logout is documented');
    assert.ok(spec.paths['/api/v1/key/generate'].post.responses['403'], 'key/generate declares its 403');
  });
});
