/**
 * Signing in (src/edge/routes/sign-in.ts) over real HTTP against the real service: by password,
 * by recovery code (each once), by passkey (a software authenticator); one refusal for every
 * mismatch, whether or not the username exists; growing waits (429 + Retry-After) per username
 * and per address; a foreign page cannot sign a browser in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { claimWithPassword, freshAddress, PASSWORD, sessionCookie, signInWithPassword, trial } from '../helpers/accounts.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

describe('sign-in', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1', TRIAL_MINTS_PER_HOUR: '1000' });
  });
  after(() => sf?.stop());

  const whoami = (headers: Record<string, string>) => sf.api('GET', '/api/v1/whoami-key', { headers });
  const passwordSignIn = (username: string, password: string, address: string) =>
    sf.api('POST', '/api/v1/auth/sign-in/password', { body: { username, password }, headers: { 'x-forwarded-for': address } });

  it('signs a fresh browser in with the password of a claimed account', async () => {
    const account = await trial(sf);
    await claimWithPassword(sf, account);
    const browser = await signInWithPassword(sf, account.username.toUpperCase());
    const who = await whoami(browser);
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.user_id, account.userId);
    assert.equal(who.body.is_trial, false);
  });

  it('refuses a wrong password, an unknown user and a trial account with one and the same answer', async () => {
    const claimed = await trial(sf);
    await claimWithPassword(sf, claimed);
    const unclaimed = await trial(sf);
    const answers = [
      await passwordSignIn(claimed.username, 'not the password at all', freshAddress()),
      await passwordSignIn('nobody-here-99', PASSWORD, freshAddress()),
      await passwordSignIn(unclaimed.username, PASSWORD, freshAddress()),
    ];
    for (const res of answers) {
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error_code, 'SF_SIGN_IN_FAILED');
      assert.equal(res.headers.getSetCookie().length, 0, 'no session for a failed sign-in');
    }
    assert.equal(new Set(answers.map((r) => r.text)).size, 1, `one message: ${answers.map((r) => r.text).join(' | ')}`);
  });

  it('makes a username wait after 5 attempts, from any address, known or not, and tells how long', async () => {
    const account = await trial(sf);
    await claimWithPassword(sf, account);
    for (const username of [account.username, 'nobody-there-42']) {
      for (let i = 0; i < 5; i++) assert.equal((await passwordSignIn(username, 'wrong password!', freshAddress())).status, 401);
      const refused = await passwordSignIn(username, PASSWORD, freshAddress());
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.error_code, 'SF_SIGN_IN_THROTTLED');
      const wait = Number(refused.headers.get('retry-after'));
      assert.ok(wait > 0 && wait <= 30, `the first wait is at most 30 s: ${wait}`);
    }
    // The right password is not even checked while the username waits.
    const again = await passwordSignIn(account.username, PASSWORD, freshAddress());
    assert.equal(again.status, 429);
  });

  it('makes an address wait after 20 attempts, whatever usernames it tries', async () => {
    const address = freshAddress();
    for (let i = 0; i < 20; i++) assert.equal((await passwordSignIn(`guess-${i}`, 'wrong password!', address)).status, 401);
    const refused = await passwordSignIn('guess-new', 'wrong password!', address);
    assert.equal(refused.status, 429, refused.text);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    // Another address is not held back.
    assert.equal((await passwordSignIn('guess-new', 'wrong password!', freshAddress())).status, 401);
  });

  it('counts parallel guesses as surely as sequential ones', async () => {
    const account = await trial(sf);
    await claimWithPassword(sf, account);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => passwordSignIn(account.username, 'wrong password!', freshAddress())),
    );
    assert.equal(answers.filter((r) => r.status === 401).length, 5, answers.map((r) => r.status).join(','));
    assert.equal(answers.filter((r) => r.status === 429).length, 7);
  });

  it('signs in with a recovery code once, and never with the same code again', async () => {
    const account = await trial(sf);
    const codes = await claimWithPassword(sf, account);
    assert.equal(codes.length, 10);
    const use = (code: string) =>
      sf.api('POST', '/api/v1/auth/sign-in/recovery-code', {
        body: { username: account.username, code },
        headers: { 'x-forwarded-for': freshAddress() },
      });
    const first = await use(codes[3]!.toUpperCase().replaceAll('-', ' '));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.recovery_codes_left, 9);
    assert.equal((await whoami({ cookie: `sf_session=${sessionCookie(first)}` })).body.user_id, account.userId);
    const second = await use(codes[3]!);
    assert.equal(second.status, 401, second.text);
    assert.equal(second.body.error_code, 'SF_SIGN_IN_FAILED');
    assert.equal((await use(codes[4]!)).status, 200, 'another code still works');
  });

  it('spends a recovery code once when two requests race with it', async () => {
    const account = await trial(sf);
    const [code] = await claimWithPassword(sf, account);
    const race = await Promise.all(
      [1, 2, 3].map(() =>
        sf.api('POST', '/api/v1/auth/sign-in/recovery-code', {
          body: { username: account.username, code },
          headers: { 'x-forwarded-for': freshAddress() },
        }),
      ),
    );
    assert.deepEqual(race.map((r) => r.status).sort(), [200, 401, 401]);
  });

  it('signs in with a passkey: the passkey names its account, each challenge answers once, another site cannot use it', async () => {
    const account = await trial(sf);
    const passkey = new SoftAuthenticator();
    const options = await sf.api('POST', '/api/v1/auth/passkeys/options', { headers: account.browser });
    assert.equal(options.status, 200, options.text);
    assert.equal(options.body.authenticatorSelection.residentKey, 'required');
    const origin = new URL(sf.url).origin;
    const registered = await sf.api('POST', '/api/v1/auth/passkeys', {
      body: { credential: passkey.register(options.body, origin) },
      headers: account.browser,
    });
    assert.equal(registered.status, 200, registered.text);
    assert.equal(registered.body.claimed, true);

    const start = async () => (await sf.api('POST', '/api/v1/auth/sign-in/passkey/options')).body;
    const finish = (credential: unknown) =>
      sf.api('POST', '/api/v1/auth/sign-in/passkey', { body: { credential }, headers: { 'x-forwarded-for': freshAddress() } });
    const request = await start();
    assert.equal(request.allowCredentials?.length ?? 0, 0, 'no username asked, no credentials listed');
    const answer = passkey.authenticate(request, origin);
    const signedIn = await finish(answer);
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal(signedIn.body.user_id, account.userId);
    assert.equal((await whoami({ cookie: `sf_session=${sessionCookie(signedIn)}` })).body.user_id, account.userId);

    const replayed = await finish(answer);
    assert.equal(replayed.status, 401, replayed.text);
    assert.equal(replayed.body.error_code, 'SF_SIGN_IN_FAILED');
    const phished = await finish(passkey.authenticate(await start(), 'https://evil.example'));
    assert.equal(phished.status, 401, phished.text);
    // A passkey that claims to be another account's (its user handle) does not match that account.
    const other = await trial(sf);
    const impostor = await finish(
      passkey.authenticate(await start(), origin, { userHandle: Buffer.from(String(other.userId)).toString('base64url') }),
    );
    assert.equal(impostor.status, 401, impostor.text);
  });

  it('refuses a sign-in sent by another site’s page', async () => {
    const account = await trial(sf);
    await claimWithPassword(sf, account);
    const res = await sf.api('POST', '/api/v1/auth/sign-in/password', {
      body: { username: account.username, password: PASSWORD },
      headers: { origin: 'https://evil.example', 'x-forwarded-for': freshAddress() },
    });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error_code, 'SF_FOREIGN_ORIGIN');
  });
});
