import { hash, randomBytes } from 'node:crypto';

/** Every key starts with this, so a leaked key is recognisable by secret scanners. */
export const API_KEY_PREFIX = 'sf_';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM_CHARS = 40; // 40 × log2(62) ≈ 238 bits

/** Random base62 text, unbiased (rejection sampling). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export const generateApiKey = (): string => API_KEY_PREFIX + randomToken(RANDOM_CHARS);

/**
 * Keys carry ~238 random bits, so a plain SHA-256 is a sound, fast verifier: there is nothing
 * to brute-force that a slow hash would protect, and auth stays cheap on every request.
 */
export const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');

/** What whoami shows instead of the key: the prefix and the last 4 characters. */
export const maskKey = (key: string): string => `${API_KEY_PREFIX}…${key.slice(-4)}`;

/** Cheap shape check before any lookup, so junk never reaches the hash. */
export const looksLikeApiKey = (value: string): boolean =>
  value.length === API_KEY_PREFIX.length + RANDOM_CHARS && value.startsWith(API_KEY_PREFIX);
