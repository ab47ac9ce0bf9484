/**
 * An account's browser sessions (src/edge/routes/sessions.ts) over real HTTP: listed with device,
 * created and last seen; one ended by id, or all the others at once; a key rotation ends the other
 * sessions; and no request ever sees or ends another account's sessions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { claimWithPassword, sessionCookie, signInWithPassword, trial } from '../helpers/accounts.ts';

describe('sessions', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1', TRIAL_MINTS_PER_HOUR: '1000' });
  });
  after(() => sf?.stop());

  const list = (headers: Record<string, string>) => sf.api('GET', '/api/v1/auth/sessions', { headers });
  const whoami = (headers: Record<string, string>) => sf.api('GET', '/api/v1/whoami-key', { headers });

  async function claimedWithTwoBrowsers() {
    const t = await trial(sf);
    await claimWithPassword(sf, t);
    const firefox = await signInWithPassword(sf, t.username);
    return { t, firefox };
  }

  it('lists the account’s sessions: device, created, last seen, and which one is asking', async () => {
    const { t, firefox } = await claimedWithTwoBrowsers();
    const res = await list(firefox);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.sessions.length, 2, res.text);
    const current = res.body.sessions.filter((s: { current: boolean }) => s.current);
    assert.equal(current.length, 1);
    assert.equal(current[0].device, 'Firefox on Linux');
    for (const s of res.body.sessions) {
      assert.match(s.id, /^[0-9a-f]{16}$/);
      assert.ok(Date.parse(s.last_seen_at) >= Date.parse(s.created_at));
    }
    // By key: the same list, none of them "current".
    const byKey = await sf.api('GET', '/api/v1/auth/sessions', { key: t.key });
    assert.deepEqual(
      byKey.body.sessions.map((s: { id: string }) => s.id).sort(),
      res.body.sessions.map((s: { id: string }) => s.id).sort(),
    );
    assert.ok(byKey.body.sessions.every((s: { current: boolean }) => !s.current));
  });

  it('ends one session by id, at once, and says 404 for an id it does not know', async () => {
    const { t, firefox } = await claimedWithTwoBrowsers();
    const other = (await list(firefox)).body.sessions.find((s: { current: boolean }) => !s.current);
    const res = await sf.api('DELETE', `/api/v1/auth/sessions/${other.id}`, { headers: firefox });
    assert.equal(res.status, 200, res.text);
    assert.equal((await whoami(t.browser)).status, 401, 'the trial browser is signed out');
    assert.equal((await whoami(firefox)).status, 200);
    assert.equal((await list(firefox)).body.sessions.length, 1);
    const again = await sf.api('DELETE', `/api/v1/auth/sessions/${other.id}`, { headers: firefox });
    assert.equal(again.status, 404, again.text);
    assert.equal(again.body.error_code, 'SF_SESSION_NOT_FOUND');
    assert.equal((await sf.api('DELETE', '/api/v1/auth/sessions/not-an-id', { headers: firefox })).status, 400);
  });

  it('ends every other session, keeping the asking browser signed in with a new cookie', async () => {
    const { t, firefox } = await claimedWithTwoBrowsers();
    const third = await signInWithPassword(sf, t.username);
    const res = await sf.api('DELETE', '/api/v1/auth/sessions', { headers: firefox });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.revoked, 2);
    const renewed = { ...firefox, cookie: `sf_session=${sessionCookie(res)}` };
    assert.equal((await whoami(renewed)).status, 200);
    for (const gone of [t.browser, third, firefox]) assert.equal((await whoami(gone)).status, 401);
    const left = (await list(renewed)).body.sessions;
    assert.equal(left.length, 1);
    assert.equal(left[0].current, true);
    assert.equal(left[0].device, 'Firefox on Linux', 'the renewed session keeps its device');
  });

  it('ends the other sessions at a key rotation, and lists only the new one', async () => {
    const { t, firefox } = await claimedWithTwoBrowsers();
    const rotated = await sf.api('POST', '/api/v1/key/generate', { headers: firefox });
    assert.equal(rotated.status, 200, rotated.text);
    const renewed = { ...firefox, cookie: `sf_session=${sessionCookie(rotated)}` };
    assert.equal((await whoami(t.browser)).status, 401);
    assert.equal((await sf.api('GET', '/api/v1/whoami-key', { key: t.key })).status, 401, 'the old key is refused');
    const sessions = (await list(renewed)).body.sessions;
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].current, true);
  });

  it('never shows or ends another account’s sessions', async () => {
    const alice = await claimedWithTwoBrowsers();
    const bob = await claimedWithTwoBrowsers();
    const aliceIds = (await list(alice.firefox)).body.sessions.map((s: { id: string }) => s.id);
    const bobIds = (await list(bob.firefox)).body.sessions.map((s: { id: string }) => s.id);
    assert.equal(aliceIds.filter((id: string) => bobIds.includes(id)).length, 0);
    for (const id of aliceIds) {
      const res = await sf.api('DELETE', `/api/v1/auth/sessions/${id}`, { headers: bob.firefox });
      assert.equal(res.status, 404, res.text);
    }
    assert.equal((await sf.api('DELETE', '/api/v1/auth/sessions', { headers: bob.firefox })).status, 200);
    assert.equal((await whoami(alice.firefox)).status, 200, 'bob’s "end all" left alice signed in');
    assert.equal((await list(alice.firefox)).body.sessions.length, 2);
    assert.equal((await sf.api('GET', '/api/v1/auth/sessions')).status, 401);
  });
});
