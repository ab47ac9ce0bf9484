/**
 * Claiming and keeping an account (src/edge/routes/credentials.ts) over real HTTP: the first
 * passkey or password claims a trial (recovery codes once, key kept, credits raised to the monthly allowance); a claimed
 * account's credentials change only from a fresh browser sign-in; a password change needs the
 * current password and ends the other sessions; new recovery codes void the old.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { claimWithPassword, freshAddress, PASSWORD, sessionCookie, signInWithPassword, trial } from '../helpers/accounts.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

describe('claim and credentials', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1', TRIAL_MINTS_PER_HOUR: '1000' });
  });
  after(() => sf?.stop());

  const account = (headers: Record<string, string>) => sf.api('GET', '/api/v1/auth/account', { headers });

  it('claims a trial with a password by its key: recovery codes once, the key and username kept, the monthly credits', async () => {
    const t = await trial(sf);
    assert.equal((await account({ 'x-api-key': t.key })).body.is_trial, true);
    const res = await sf.api('PUT', '/api/v1/auth/password', { key: t.key, body: { password: PASSWORD } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.claimed, true);
    assert.equal(res.body.is_trial, false);
    assert.equal(res.body.recovery_codes.length, 10);
    assert.equal(new Set(res.body.recovery_codes).size, 10);
    for (const code of res.body.recovery_codes) assert.match(code, /^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);

    const who = await sf.api('GET', '/api/v1/whoami-key', { key: t.key });
    assert.equal(who.status, 200, 'the key still works');
    assert.deepEqual([who.body.is_trial, who.body.username, who.body.plan], [false, t.username, 'free']);
    assert.equal(
      (await sf.api('GET', '/api/v1/key/usage', { key: t.key })).body.balance,
      20_000,
      'the 50 trial credits raised to the monthly allowance',
    );
    const status = (await account({ 'x-api-key': t.key })).body;
    assert.deepEqual([status.password, status.passkeys.length, status.recovery_codes_left], [true, 0, 10]);
    assert.ok(status.claimed_at);

    // Claimed now: the key alone no longer changes credentials.
    const byKey = await sf.api('PUT', '/api/v1/auth/password', {
      key: t.key,
      body: { password: 'another long password', current_password: PASSWORD },
    });
    assert.equal(byKey.status, 403, byKey.text);
    assert.equal(byKey.body.error_code, 'SF_RECENT_SIGN_IN_REQUIRED');
    assert.equal((await sf.api('POST', '/api/v1/auth/passkeys/options', { key: t.key })).status, 403);
  });

  it('claims a trial with a passkey by its session, and a second passkey may follow at once', async () => {
    const t = await trial(sf);
    const origin = new URL(sf.url).origin;
    const first = new SoftAuthenticator();
    const options = (await sf.api('POST', '/api/v1/auth/passkeys/options', { headers: t.browser })).body;
    const res = await sf.api('POST', '/api/v1/auth/passkeys', {
      body: { credential: first.register(options, origin), name: 'laptop' },
      headers: t.browser,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.claimed, true);
    assert.equal(res.body.recovery_codes.length, 10);
    // The claim signed this browser in afresh: a recent sign-in, so it may add more.
    const browser = { ...t.browser, cookie: `sf_session=${sessionCookie(res)}` };
    const second = new SoftAuthenticator();
    const more = (await sf.api('POST', '/api/v1/auth/passkeys/options', { headers: browser })).body;
    assert.deepEqual(
      more.excludeCredentials.map((c: { id: string }) => c.id),
      [first.credentialId.toString('base64url')],
    );
    const added = await sf.api('POST', '/api/v1/auth/passkeys', { body: { credential: second.register(more, origin) }, headers: browser });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual([added.body.claimed, added.body.recovery_codes], [false, null]);
    const status = (await account(browser)).body;
    assert.deepEqual(
      status.passkeys.map((p: { name: string }) => p.name),
      ['laptop', 'Node.js passkey'],
    );
  });

  it('refuses a registration answer for another site, or for a challenge already used', async () => {
    const t = await trial(sf);
    const passkey = new SoftAuthenticator();
    const options = (await sf.api('POST', '/api/v1/auth/passkeys/options', { headers: t.browser })).body;
    const foreign = await sf.api('POST', '/api/v1/auth/passkeys', {
      body: { credential: passkey.register(options, 'https://evil.example') },
      headers: t.browser,
    });
    assert.equal(foreign.status, 400, foreign.text);
    assert.equal(foreign.body.error_code, 'SF_PASSKEY_REJECTED');
    // The challenge was spent by the refused answer: the right origin is too late now.
    const late = await sf.api('POST', '/api/v1/auth/passkeys', {
      body: { credential: passkey.register(options, new URL(sf.url).origin) },
      headers: t.browser,
    });
    assert.equal(late.status, 400, late.text);
    const wrongRp = (await sf.api('POST', '/api/v1/auth/passkeys/options', { headers: t.browser })).body;
    const res = await sf.api('POST', '/api/v1/auth/passkeys', {
      body: { credential: passkey.register(wrongRp, new URL(sf.url).origin, { rpId: 'evil.example' }) },
      headers: t.browser,
    });
    assert.equal(res.status, 400, res.text);
    assert.equal((await account(t.browser)).body.is_trial, true, 'nothing claimed');
  });

  it('changes a password only with the current one, and the change ends every other session', async () => {
    const t = await trial(sf);
    await claimWithPassword(sf, t);
    const here = await signInWithPassword(sf, t.username);
    const elsewhere = await signInWithPassword(sf, t.username);

    const missing = await sf.api('PUT', '/api/v1/auth/password', { body: { password: 'a brand new password' }, headers: here });
    assert.equal(missing.status, 400, missing.text);
    const wrong = await sf.api('PUT', '/api/v1/auth/password', {
      body: { password: 'a brand new password', current_password: 'not it at all' },
      headers: here,
    });
    assert.equal(wrong.status, 401, wrong.text);
    const short = await sf.api('PUT', '/api/v1/auth/password', { body: { password: 'short', current_password: PASSWORD }, headers: here });
    assert.equal(short.status, 400, short.text);

    const changed = await sf.api('PUT', '/api/v1/auth/password', {
      body: { password: 'a brand new password', current_password: PASSWORD },
      headers: here,
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual([changed.body.claimed, changed.body.recovery_codes], [false, null]);
    const renewed = { ...here, cookie: `sf_session=${sessionCookie(changed)}` };
    assert.equal(
      (await sf.api('GET', '/api/v1/whoami-key', { headers: renewed })).status,
      200,
      'the browser that changed it stays signed in',
    );
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: here })).status, 401, 'its old cookie is over');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: elsewhere })).status, 401, 'the other session is over');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: t.key })).status, 200, 'the key is untouched');

    const old = await sf.api('POST', '/api/v1/auth/sign-in/password', {
      body: { username: t.username, password: PASSWORD },
      headers: { 'x-forwarded-for': freshAddress() },
    });
    assert.equal(old.status, 401);
    await signInWithPassword(sf, t.username, 'a brand new password');
  });

  it('replaces the recovery codes of a claimed account (the old ones stop working), never of a trial', async () => {
    const t = await trial(sf);
    assert.equal((await sf.api('POST', '/api/v1/auth/recovery-codes', { headers: t.browser })).status, 409);
    const [oldCode] = await claimWithPassword(sf, t);
    const fresh = await sf.api('POST', '/api/v1/auth/recovery-codes', { headers: t.browser });
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.recovery_codes.length, 10);
    const use = (code: string) =>
      sf.api('POST', '/api/v1/auth/sign-in/recovery-code', {
        body: { username: t.username, code },
        headers: { 'x-forwarded-for': freshAddress() },
      });
    assert.equal((await use(oldCode!)).status, 401);
    assert.equal((await use(fresh.body.recovery_codes[0])).status, 200);
  });
});
