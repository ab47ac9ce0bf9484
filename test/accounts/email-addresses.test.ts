/**
 * Accounts' signal e-mail addresses on a real nats-server: a registration is confirmed only by its
 * own signed token, once, before it expires; tokens cannot be turned to another account, address
 * or purpose; one-click unsubscribe; the confirmation-mail and signal-mail day counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmailAddresses } from '../../src/accounts/index.ts';
import { BadRequestError, RateLimitedError, UnprocessableError } from '../../src/errors.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

const BASE = 'https://signals.example';
/** A token with its payload changed and its signature kept: what a forger can make. */
const forge = (token: string, change: (p: Record<string, unknown>) => void): string => {
  const [body, signature] = token.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(payload);
  return `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
};
const refusedAs =
  (pattern: RegExp, type: new (...a: never[]) => Error = BadRequestError) =>
  (err: unknown) => {
    assert.ok(err instanceof type, String(err));
    assert.match((err as Error).message, pattern);
    return true;
  };

describe('e-mail addresses', () => {
  let nats: TestNats;
  let addresses: EmailAddresses;

  before(async () => {
    nats = await startNats('email-addresses');
    addresses = await EmailAddresses.open(nats.bus);
  });
  after(() => nats?.close());

  it('confirms a registration by its token; the deploy check needs the confirmed address', async () => {
    await assert.rejects(
      addresses.requireConfirmed(1),
      refusedAs(/^the email channel needs a confirmed address: register one with POST \/api\/v1\/email/, UnprocessableError),
    );
    const { token, expires_at } = await addresses.register(1, 'one@example.com', BASE, 1_000);
    assert.equal(expires_at, 1_000 + 24 * 3600_000);
    await assert.rejects(
      addresses.requireConfirmed(1),
      refusedAs(/\(the link mailed to one@example\.com has not been followed yet\)/, UnprocessableError),
    );
    assert.deepEqual(await addresses.confirm(token, 2_000), { user_id: 1, address: 'one@example.com' });
    assert.equal(await addresses.requireConfirmed(1), 'one@example.com');
    // Followed a second time (a mail client's preview first): nothing more happens.
    assert.deepEqual(await addresses.confirm(token, 3_000), { user_id: 1, address: 'one@example.com' });
    assert.equal((await addresses.record(1))!.confirmed!.at, 2_000);
  });

  it('a newer registration voids the older link; the confirmed address stays until the new one is confirmed', async () => {
    const first = await addresses.register(2, 'old@example.com', BASE);
    await addresses.confirm(first.token);
    const a = await addresses.register(2, 'a@example.com', BASE);
    const b = await addresses.register(2, 'b@example.com', BASE);
    await assert.rejects(addresses.confirm(a.token), refusedAs(/already used or replaced by a newer one/));
    assert.equal(await addresses.confirmedAddress(2), 'old@example.com');
    await addresses.confirm(b.token);
    assert.equal(await addresses.confirmedAddress(2), 'b@example.com');
  });

  it('an expired link confirms nothing', async () => {
    const { token, expires_at } = await addresses.register(3, 'late@example.com', BASE, 0);
    await assert.rejects(addresses.confirm(token, expires_at + 1), refusedAs(/^this confirmation link has expired/));
    assert.equal(await addresses.confirmedAddress(3), null);
  });

  it('a token altered to name another account, address or purpose, or re-signed with a guess, is refused and changes nothing', async () => {
    const mine = await addresses.register(4, 'four@example.com', BASE);
    const theirs = await addresses.register(5, 'five@example.com', BASE);
    for (const token of [
      forge(mine.token, (p) => (p.u = 5)),
      forge(mine.token, (p) => (p.a = 'five@example.com')),
      forge(mine.token, (p) => (p.x = Number(p.x) + 86_400_000)),
      `${mine.token.split('.')[0]}.${theirs.token.split('.')[1]}`,
      `${mine.token}x`,
      'not-a-token-at-all',
    ]) {
      await assert.rejects(addresses.confirm(token), refusedAs(/^this link is not valid/));
      await assert.rejects(addresses.unsubscribe(token), refusedAs(/^this link is not valid/));
    }
    assert.equal(await addresses.confirmedAddress(4), null);
    assert.equal(await addresses.confirmedAddress(5), null);
    await addresses.confirm(theirs.token);
    // A confirmation token is not an unsubscribe token, nor the reverse.
    await assert.rejects(addresses.unsubscribe(theirs.token), refusedAs(/^this link is not valid/));
    await assert.rejects(addresses.confirm(addresses.unsubscribeToken(5, 'five@example.com')), refusedAs(/^this link is not valid/));
    assert.equal(await addresses.confirmedAddress(5), 'five@example.com');
  });

  it('unsubscribe stops the address, once; tokens verify in another process of the installation', async () => {
    const { token } = await addresses.register(6, 'six@example.com', BASE);
    await addresses.confirm(token);
    const elsewhere = await EmailAddresses.open(nats.bus);
    const unsubscribe = addresses.unsubscribeToken(6, 'six@example.com');
    assert.equal(elsewhere.unsubscribeToken(6, 'six@example.com'), unsubscribe, 'one signing secret per installation');
    assert.deepEqual(await elsewhere.unsubscribe(unsubscribe, 9_000), { user_id: 6, address: 'six@example.com', changed: true });
    assert.deepEqual(await addresses.unsubscribe(unsubscribe), { user_id: 6, address: 'six@example.com', changed: false });
    const record = (await addresses.record(6))!;
    assert.deepEqual([record.confirmed, record.unsubscribed], [null, { address: 'six@example.com', at: 9_000 }]);
    assert.equal((await addresses.status(6, 200, { available: true, reason: null })).status, 'unsubscribed');
  });

  it('at most 5 confirmation mails per account per UTC day', async () => {
    const day = Date.UTC(2026, 0, 5, 12);
    for (let i = 0; i < 5; i++) await addresses.register(7, `n${i}@example.com`, BASE, day);
    await assert.rejects(
      addresses.register(7, 'n5@example.com', BASE, day),
      refusedAs(/^at most 5 confirmation mails per account per UTC day/, RateLimitedError),
    );
    await addresses.register(7, 'n5@example.com', BASE, day + 12 * 3600_000);
  });

  it('counts signal mails against the daily cap; a mail given back frees its place', async () => {
    const day = Date.UTC(2026, 0, 5, 12);
    assert.deepEqual(
      [await addresses.takeSignal(8, 2, day), await addresses.takeSignal(8, 2, day), await addresses.takeSignal(8, 2, day)],
      [true, true, false],
    );
    await addresses.releaseSignal(8, day);
    assert.equal(await addresses.takeSignal(8, 2, day), true);
    assert.equal(await addresses.takeSignal(8, 2, day + 12 * 3600_000), true, 'a new UTC day');
    assert.equal(await addresses.sentToday(8, 'signal', day), 2);
  });
});
