import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findRecoveryCode, generateRecoveryCode, hashRecoveryCode, normaliseRecoveryCode } from '../../src/accounts/recovery-codes.ts';

describe('recovery codes', () => {
  it('are four groups of four unambiguous characters, different each time', () => {
    const codes = Array.from({ length: 200 }, generateRecoveryCode);
    for (const code of codes) assert.match(code, /^[a-hjkmnp-z2-9]{4}(-[a-hjkmnp-z2-9]{4}){3}$/);
    assert.equal(new Set(codes).size, codes.length);
  });

  it('match typed back in any case, with spaces or without dashes', () => {
    const code = generateRecoveryCode();
    assert.equal(normaliseRecoveryCode(code.toUpperCase().replaceAll('-', ' ')), code.replaceAll('-', ''));
    assert.equal(hashRecoveryCode(` ${code.toUpperCase()} `), hashRecoveryCode(code));
  });

  it('find only an unused stored code', () => {
    const codes = [generateRecoveryCode(), generateRecoveryCode(), generateRecoveryCode()];
    const stored = codes.map((c, i) => ({ hash: hashRecoveryCode(c), used_at: i === 1 ? 1 : null }));
    assert.equal(findRecoveryCode(stored, codes[2]!), 2);
    assert.equal(findRecoveryCode(stored, codes[1]!), -1, 'used already');
    assert.equal(findRecoveryCode(stored, generateRecoveryCode()), -1);
    assert.equal(findRecoveryCode([], codes[0]!), -1);
    assert.ok(!stored.some((s) => s.hash.includes(codes[0]!.replaceAll('-', ''))), 'only hashes are stored');
  });
});
