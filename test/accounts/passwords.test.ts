import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from '@node-rs/argon2';
import { ARGON2_OPTIONS, hashPassword, verifyPassword } from '../../src/accounts/passwords.ts';

describe('passwords', () => {
  it('are stored as Argon2id PHC strings with the documented parameters and a fresh salt', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(a, b, 'salted');
    assert.ok(!a.includes('correct horse'));
    const parsed = parseOptions(a);
    assert.deepEqual(
      [parsed.memoryCost, parsed.timeCost, parsed.parallelism, parsed.outputLen],
      [ARGON2_OPTIONS.memoryCost, ARGON2_OPTIONS.timeCost, ARGON2_OPTIONS.parallelism, 32],
    );
  });

  it('verify the right password only', async () => {
    const stored = await hashPassword('correct horse battery staple');
    assert.equal(await verifyPassword(stored, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(stored, 'correct horse battery stapler'), false);
    assert.equal(await verifyPassword('not a phc string', 'anything'), false);
  });

  it('answer false without a stored hash (no such user), whatever the password', async () => {
    assert.equal(await verifyPassword(null, 'correct horse battery staple'), false);
    assert.equal(await verifyPassword(undefined, ''), false);
  });
});
