import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { freshPage, launchBrowser, type WatchedPage } from '../helpers/browser.ts';
import { PASSWORD } from '../helpers/accounts.ts';

/**
 * Accounts people come back to, in a real browser (Debian chromium) against the real service:
 * a trial claimed with a passkey (Chromium's virtual authenticator, driven over the DevTools
 * protocol's WebAuthn domain), signed out, signed in again from a fresh profile holding the same
 * passkey, the key rotated there — the old key and the other session refused; password sign-in
 * throttled; a recovery code that works once; no other account's sessions in sight.
 */

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** A platform authenticator with user verification, as a phone or laptop has, in this page's browser context. */
async function addAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

const cookieHeader = async (watched: WatchedPage, base: string) => {
  const session = (await watched.context.cookies(base)).find((c) => c.name === 'sf_session');
  return { cookie: `sf_session=${session?.value ?? ''}` };
};

/** A failed sign-in is a 401 or 429 answer: Chromium logs each as a failed resource load, which is expected here. */
const withoutRefusedLoads = (problems: string[]) =>
  problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|429)/.test(p));

describe('signing in to the web app', () => {
  let sf: TestService;
  let browser: Browser;
  /** The service as http://localhost:<port>: WebAuthn takes a domain, never an IP address, as its RP ID. */
  let base: string;
  /** The first profile: it claims the trial with its passkey. */
  let first: WatchedPage;
  let second: WatchedPage;
  let trialKey: string;
  let username: string;
  let recoveryCodes: string[];

  before(async () => {
    [sf, browser] = await Promise.all([startTestService({ TRIAL_MINTS_PER_HOUR: '100' }), launchBrowser()]);
    base = sf.url.replace('127.0.0.1', 'localhost');
  });
  after(async () => {
    await browser?.close();
    await sf?.stop();
  });

  it('claims a trial account with a passkey, signs out, and signs in again from a fresh profile with the same passkey', async () => {
    first = await freshPage(browser);
    const { cdp, authenticatorId } = await addAuthenticator(first.page);
    const { page } = first;
    // A trial account as the app makes one on a first run: the key kept in this browser, the session in its cookie.
    await page.goto(`${base}/account`);
    const trial = await page.evaluate(async () => {
      const res = await fetch('/api/v1/key/trial', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = await res.json();
      localStorage.setItem('sf_api_key', body.api_key);
      localStorage.setItem('sf_had_key', '1');
      return body as { api_key: string; username: string };
    });
    trialKey = trial.api_key;
    username = trial.username;

    await page.goto(`${base}/account`);
    await page.click('#to-claim');
    await page.waitForSelector('#add-passkey');
    assert.match((await page.textContent('#account-state'))!, /trial account/);
    await page.click('#add-passkey');
    await page.waitForSelector('#recovery-codes');
    recoveryCodes = await page.$$eval('#recovery-codes li code', (codes) => codes.map((c) => c.textContent ?? ''));
    assert.equal(recoveryCodes.length, 10);
    assert.match((await page.textContent('#account-state'))!, /is claimed/);
    await first.screenshot('claimed-with-passkey');
    const who = await sf.api('GET', '/api/v1/whoami-key', { key: trialKey });
    assert.deepEqual([who.body.username, who.body.is_trial], [username, false], 'the same account, claimed, its key still working');
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] };
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0]!.rpId, 'localhost');
    assert.ok(credentials[0]!.isResidentCredential, 'a discoverable passkey: sign-in needs no username');

    // Sign out from the sessions page: the cookie no longer names anyone.
    await page.goto(`${base}/account/sessions`);
    const cookieBefore = await cookieHeader(first, base);
    await page.click('#sign-out');
    await page.waitForURL(/\/sign-in$/);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: cookieBefore })).status, 401, 'signed out');
    assert.deepEqual(first.problems, []);

    // A fresh profile (no cookie, no storage) with the same passkey on its authenticator.
    second = await freshPage(browser);
    const other = await addAuthenticator(second.page);
    await other.cdp.send('WebAuthn.addCredential', { authenticatorId: other.authenticatorId, credential: credentials[0]! });
    await second.page.goto(`${base}/sign-in`);
    await second.page.click('#passkey-sign-in');
    await second.page.waitForSelector('#signed-in');
    assert.equal(await second.page.textContent('#signed-in p'), `Signed in as ${username}.`);
    const me = await sf.api('GET', '/api/v1/whoami-key', { headers: await cookieHeader(second, base) });
    assert.equal(me.body.username, username);
    await second.screenshot('signed-in-with-passkey');
    assert.deepEqual(second.problems, []);

    // The first profile signs in again too, with the passkey as the second left it: a synced passkey
    // carries its signature counter along (a copy behind it would be refused as a clone).
    const synced = (await other.cdp.send('WebAuthn.getCredentials', { authenticatorId: other.authenticatorId })) as {
      credentials: VirtualCredential[];
    };
    await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: synced.credentials[0]! });
    await page.click('#passkey-sign-in');
    await page.waitForSelector('#signed-in');
    assert.deepEqual(first.problems, []);
  });

  it('rotates the key from the new profile: the old key and the other session are refused', async () => {
    const firstSession = await cookieHeader(first, base);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: firstSession })).status, 200);
    const { page } = second;
    await page.click('#to-account');
    await page.waitForSelector('#signed-in-as');
    await page.click('#rotate');
    const newKey = (await page.textContent('#new-key'))!;
    assert.match(newKey, /^sf_[A-Za-z0-9]{40}$/);
    assert.equal(await page.evaluate(() => localStorage.getItem('sf_api_key')), newKey, 'the new key is this browser’s now');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: trialKey })).status, 401, 'the old key is refused');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: firstSession })).status, 401, 'the other session is refused');
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: newKey })).body.username, username);

    await page.goto(`${base}/account/sessions`);
    await page.waitForSelector('#sessions li');
    const listed = await page.$$eval('#sessions li', (items) =>
      items.map((li) => ({ id: li.getAttribute('data-session'), current: li.classList.contains('current'), text: li.textContent })),
    );
    assert.equal(listed.length, 1, JSON.stringify(listed));
    assert.ok(listed[0]!.current);
    assert.match(listed[0]!.text!, /Headless Chrome on Linux/);
    await second.screenshot('sessions-after-rotation');
    assert.deepEqual(second.problems, []);
  });

  it('never shows another account’s sessions', async () => {
    // Another account, claimed with a password and signed in twice (over the API).
    const other = await sf.api('POST', '/api/v1/key/trial', { body: {} });
    assert.equal((await sf.api('PUT', '/api/v1/auth/password', { key: other.body.api_key, body: { password: PASSWORD } })).status, 200);
    for (let i = 0; i < 2; i++) {
      const res = await sf.api('POST', '/api/v1/auth/sign-in/password', { body: { username: other.body.username, password: PASSWORD } });
      assert.equal(res.status, 200, res.text);
    }
    const theirs = (await sf.api('GET', '/api/v1/auth/sessions', { key: other.body.api_key })).body.sessions.map(
      (s: { id: string }) => s.id,
    );
    assert.ok(theirs.length >= 2);
    const { page } = second;
    await page.reload();
    await page.waitForSelector('#sessions li');
    const mine = await page.$$eval('#sessions li', (items) => items.map((li) => li.getAttribute('data-session')));
    assert.equal(mine.filter((id) => theirs.includes(id)).length, 0, 'none of theirs on my page');
    // Nor can this browser end one of theirs.
    const ended = await page.evaluate(async (id) => (await fetch(`/api/v1/auth/sessions/${id}`, { method: 'DELETE' })).status, theirs[0]);
    assert.equal(ended, 404);
    assert.equal((await sf.api('GET', '/api/v1/auth/sessions', { key: other.body.api_key })).body.sessions.length, theirs.length);
  });

  it('throttles password sign-in after wrong passwords (429)', async () => {
    const account = await sf.api('POST', '/api/v1/key/trial', { body: {} });
    assert.equal((await sf.api('PUT', '/api/v1/auth/password', { key: account.body.api_key, body: { password: PASSWORD } })).status, 200);
    const visitor = await freshPage(browser);
    const { page } = visitor;
    await page.goto(`${base}/sign-in`);
    const attempt = async (password: string) => {
      await page.fill('#password-sign-in input[name=username]', account.body.username);
      await page.fill('#password-sign-in input[name=password]', password);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/sign-in/password')),
        page.click('#password-sign-in button'),
      ]);
      await page.waitForSelector('#sign-in-error');
      return {
        status: response.status(),
        retryAfter: response.headers()['retry-after'],
        shown: (await page.textContent('#sign-in-error'))!,
      };
    };
    for (let i = 0; i < 5; i++) {
      const wrong = await attempt(`wrong password ${i}`);
      assert.equal(wrong.status, 401);
      assert.match(wrong.shown, /do not match/);
    }
    // Now even the right password waits.
    const throttled = await attempt(PASSWORD);
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.retryAfter) > 0);
    assert.match(throttled.shown, /too many sign-in attempts/);
    await visitor.screenshot('sign-in-throttled');
    assert.deepEqual(withoutRefusedLoads(visitor.problems), []);
  });

  it('signs in with a recovery code once, and never again with the same code', async () => {
    const use = async () => {
      const visitor = await freshPage(browser);
      await visitor.page.goto(`${base}/recover`);
      await visitor.page.fill('#recovery-sign-in input[name=username]', username);
      await visitor.page.fill('#recovery-sign-in input[name=code]', recoveryCodes[0]!);
      await visitor.page.click('#recovery-sign-in button');
      await visitor.page.waitForSelector('#signed-in, #recover-error');
      return visitor;
    };
    const once = await use();
    assert.match((await once.page.textContent('#codes-left'))!, /9 left/);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: await cookieHeader(once, base) })).body.username, username);
    await once.screenshot('recovered');
    assert.deepEqual(once.problems, []);
    const twice = await use();
    assert.match((await twice.page.textContent('#recover-error'))!, /do not match an unused recovery code/);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { headers: await cookieHeader(twice, base) })).status, 401);
    assert.deepEqual(withoutRefusedLoads(twice.problems), []);
  });
});
