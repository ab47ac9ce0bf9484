import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashSecret } from './api-keys.ts';

/** Codes in a set, shown once when the account is claimed (or a new set is asked for). */
export const RECOVERY_CODE_COUNT = 10;
/** Without 0/o, 1/l/i: read off paper and typed back without doubt. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const GROUPS = 4;
const GROUP_LENGTH = 4;

/**
 * One code: 16 characters of a 31-letter alphabet (≈ 79 random bits), shown as `xxxx-xxxx-xxxx-xxxx`.
 * That many random bits make a plain SHA-256 a sound verifier (as for API keys): there is nothing
 * to brute-force that a slow hash would protect.
 */
export function generateRecoveryCode(): string {
  const chars: string[] = [];
  while (chars.length < GROUPS * GROUP_LENGTH) {
    for (const byte of randomBytes(32)) {
      // 248 = 8 × 31: rejection keeps every letter equally likely.
      if (byte < 248 && chars.length < GROUPS * GROUP_LENGTH) chars.push(ALPHABET[byte % 31]!);
    }
  }
  return Array.from({ length: GROUPS }, (_, g) => chars.slice(g * GROUP_LENGTH, (g + 1) * GROUP_LENGTH).join('')).join('-');
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export const normaliseRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

export const hashRecoveryCode = (code: string): string => hashSecret(normaliseRecoveryCode(code));

/**
 * The index of the unused code `code` is, or -1. Every stored hash is compared, in constant time,
 * whatever matches: how long this takes does not tell which code (or whether any) matched.
 */
export function findRecoveryCode(stored: readonly { hash: string; used_at: number | null }[], code: string): number {
  const candidate = Buffer.from(hashRecoveryCode(code), 'hex');
  let found = -1;
  stored.forEach((entry, i) => {
    const same = timingSafeEqual(Buffer.from(entry.hash, 'hex'), candidate);
    if (same && entry.used_at === null && found === -1) found = i;
  });
  return found;
}
