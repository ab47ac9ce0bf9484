import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonKv } from '../../src/bus/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { hashSecret } from '../../src/accounts/api-keys.ts';
import { SESSION_MAX_AGE_MS, Sessions } from '../../src/accounts/sessions.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type SessionRecord } from '../../schemas/account-records.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

describe('sessions', () => {
  let nats: TestNats;
  let kv: JsonKv<typeof SessionRecord>;
  /** Per user: from when sessions count (absent: no such user). */
  const validFrom = new Map<number, number>();
  let sessions: Sessions;
  before(async () => {
    nats = await startNats('sessions');
    kv = await openBucket(nats.bus, Buckets.sessions);
    // Last seen written on every use here, so the test sees it move.
    sessions = new Sessions(kv, async (id) => validFrom.get(id) ?? null, log, 0);
  });
  after(() => nats?.close());

  it('stores only the hash of a token, under its owner, and resolves the token to its session', async () => {
    validFrom.set(7, 0);
    const token = await sessions.create(7, 'Firefox on Linux');
    assert.match(token, /^7\.[A-Za-z0-9]{43}$/);
    const keys = await kv.keys('7.*');
    assert.deepEqual(keys, [`7.${hashSecret(token)}`]);
    const session = await sessions.resolve(token);
    assert.equal(session?.user_id, 7);
    assert.equal(session?.device, 'Firefox on Linux');
    assert.equal(session?.id, Sessions.idOfToken(token));
    assert.equal(await sessions.resolve(`8.${token.slice(2)}`), null, 'the owner in the token is part of the key');
  });

  it('notes when a session was last seen', async () => {
    validFrom.set(9, 0);
    const token = await sessions.create(9);
    const later = Date.now() + 60_000;
    await sessions.resolve(token, later);
    const [listed] = await sessions.list(9, later + 1);
    assert.equal(listed?.last_seen_at, later);
  });

  it('ends a session at its age limit, before its account’s cut-off, or when the account is gone', async () => {
    validFrom.set(11, 0);
    const token = await sessions.create(11);
    assert.ok(await sessions.resolve(token));
    assert.equal(await sessions.resolve(token, Date.now() + SESSION_MAX_AGE_MS + 1000), null);
    validFrom.set(11, Date.now() + 1);
    assert.equal(await sessions.resolve(token), null);
    assert.deepEqual(await sessions.list(11), []);
    validFrom.delete(11);
    assert.equal(await sessions.resolve(await sessions.create(11)), null);
  });

  it('still resolves a token of before (no owner in it), without listing it', async () => {
    validFrom.set(12, 0);
    const legacy = 'A'.repeat(48);
    await kv.put(hashSecret(legacy), { user_id: 12, created_at: Date.now() });
    assert.equal((await sessions.resolve(legacy))?.user_id, 12);
    assert.deepEqual(await sessions.list(12), []);
  });

  it('revokes one session by id, only its owner’s, and does not bring it back when a use was under way', async () => {
    validFrom.set(13, 0);
    validFrom.set(14, 0);
    const mine = await sessions.create(13);
    const theirs = await sessions.create(14);
    const theirId = Sessions.idOfToken(theirs)!;
    assert.equal(await sessions.revoke(13, theirId), false);
    assert.ok(await sessions.resolve(theirs));
    const entry = await kv.get(`13.${hashSecret(mine)}`);
    assert.equal(await sessions.revoke(13, Sessions.idOfToken(mine)!), true);
    // A last-seen write that read the session before the revocation cannot write it back.
    await assert.rejects(kv.update(`13.${hashSecret(mine)}`, { ...entry!.value, last_seen_at: Date.now() }, entry!.revision));
    assert.equal(await sessions.resolve(mine), null);
    assert.equal(await sessions.revoke(13, 'zz'), false);
  });
});
