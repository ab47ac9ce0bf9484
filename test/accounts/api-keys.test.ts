import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { API_KEY_PREFIX, generateApiKey, hashSecret, looksLikeApiKey, maskKey, randomToken } from '../../src/accounts/api-keys.ts';

const KEY_SHAPE = /^sf_[A-Za-z0-9]{40}$/;

describe('generateApiKey', () => {
  it('is sf_ followed by exactly 40 base62 characters', () => {
    assert.equal(API_KEY_PREFIX, 'sf_');
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      assert.equal(key.length, 43);
      assert.match(key, KEY_SHAPE);
    }
  });

  it('never repeats over many keys', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 20_000; i++) keys.add(generateApiKey());
    assert.equal(keys.size, 20_000);
  });

  it('draws from the whole base62 alphabet, roughly evenly', () => {
    // 20,000 characters over 62 symbols: ~322 each. Modulo bias or a truncated alphabet would show.
    const counts = new Map<string, number>();
    for (let i = 0; i < 500; i++) {
      for (const ch of generateApiKey().slice(API_KEY_PREFIX.length)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    assert.equal(counts.size, 62, 'every base62 symbol appears');
    for (const [ch, n] of counts) assert.ok(n > 200 && n < 460, `symbol ${ch} appeared ${n} times`);
  });
});

describe('randomToken', () => {
  it('returns exactly the length asked, base62 only', () => {
    for (const length of [1, 7, 40, 48, 300]) {
      const token = randomToken(length);
      assert.equal(token.length, length);
      assert.match(token, /^[A-Za-z0-9]+$/);
    }
  });
});

describe('hashSecret', () => {
  it('is the lower-case sha256 hex of the secret', () => {
    const key = generateApiKey();
    const hash = hashSecret(key);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(hash, createHash('sha256').update(key).digest('hex'));
    // Known vector: sha256("abc").
    assert.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('is deterministic and tells different keys apart', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    assert.equal(hashSecret(a), hashSecret(a));
    assert.notEqual(hashSecret(a), hashSecret(b));
    assert.notEqual(hashSecret(a), a, 'the hash is not the key');
  });
});

describe('maskKey', () => {
  it('shows the prefix and the last 4 characters, nothing else of the key', () => {
    const key = generateApiKey();
    const masked = maskKey(key);
    assert.ok(masked.startsWith(API_KEY_PREFIX));
    assert.ok(masked.endsWith(key.slice(-4)));
    assert.equal(masked, `sf_…${key.slice(-4)}`);
    // The middle of the key must not leak.
    assert.ok(!masked.includes(key.slice(API_KEY_PREFIX.length, -4)));
    assert.ok(masked.length < 10);
  });

  it('gives a fixed known mask', () => {
    assert.equal(maskKey('sf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWxYz'), 'sf_…WxYz');
  });
});

describe('looksLikeApiKey', () => {
  it('accepts freshly generated keys', () => {
    for (let i = 0; i < 50; i++) assert.equal(looksLikeApiKey(generateApiKey()), true);
  });

  it('rejects wrong prefix, wrong length and junk', () => {
    const key = generateApiKey();
    assert.equal(looksLikeApiKey(''), false);
    assert.equal(looksLikeApiKey('sf_'), false);
    assert.equal(looksLikeApiKey(key.slice(0, -1)), false, 'one character short');
    assert.equal(looksLikeApiKey(key + 'a'), false, 'one character long');
    assert.equal(looksLikeApiKey('sk_' + key.slice(3)), false, 'other prefix');
    assert.equal(looksLikeApiKey('SF_' + key.slice(3)), false, 'prefix is case-sensitive');
    assert.equal(looksLikeApiKey(key.slice(3) + 'abc'), false, 'no prefix, right length');
    assert.equal(looksLikeApiKey(maskKey(key)), false, 'a masked key is not a key');
    assert.equal(looksLikeApiKey(hashSecret(key)), false, 'a hash is not a key');
    assert.equal(looksLikeApiKey('x'.repeat(10_000)), false);
  });
});
