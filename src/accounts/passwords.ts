import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { concurrencyLimit } from '../lib/concurrency-limit.ts';

/**
 * Password hashing: Argon2id with OWASP's recommended minimum (Password Storage Cheat Sheet,
 * first configuration): m = 19 MiB (19456 KiB), t = 2 passes, p = 1 lane; 16-byte random salt,
 * 32-byte output, stored as the PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`), so a
 * later change of parameters still verifies old hashes. One hash or verify takes some tens of
 * milliseconds and 19 MiB: at most two run at once in a process (the rest wait their turn), and
 * sign-in throttling is checked before any of them starts.
 */
export const ARGON2_OPTIONS = {
  // `Algorithm.Argon2id` is a const enum, not present at run time: its value is 2.
  algorithm: 2 as Algorithm,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} as const;

const limit = concurrencyLimit(2);

export const hashPassword = (password: string): Promise<string> => limit(() => hash(password, ARGON2_OPTIONS));

/** A hash of a random password of no account, made once: what an unknown user's "password" is checked against. */
let dummy: Promise<string> | null = null;
const dummyHash = () => (dummy ??= hashPassword(randomBytes(24).toString('base64')));

/**
 * Whether `password` matches `stored`. Without a stored hash (no such user, or a user without a
 * password) the same Argon2 work is done against a dummy hash and the answer is false, so the
 * time taken does not tell whether the account exists or has a password. Argon2's own comparison
 * of the digests is constant-time.
 */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  const target = stored ?? (await dummyHash());
  const ok = await limit(() => verify(target, password).catch(() => false));
  return ok && stored !== null && stored !== undefined;
}
