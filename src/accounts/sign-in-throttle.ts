import type { JsonKv } from '../bus/index.ts';
import { SignInThrottledError } from '../errors.ts';
import type { AttemptsRecord } from '../../schemas/account-records.ts';
import { clientBlock } from './mint-limiter.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface ThrottleLimits {
  /** Attempts at one username before the waits begin (known or not: the same rule, so it tells nothing). */
  freePerName: number;
  /** Attempts from one address (IPv6: per /64) before the waits begin: higher, as many people may share one. */
  freePerAddress: number;
  /** The first wait; each further attempt doubles it… */
  firstDelayMs: number;
  /** …up to this. */
  maxDelayMs: number;
  /** A count is forgotten after this long without an attempt (the KV bucket's TTL says the same). */
  quietMs: number;
}

export const SIGN_IN_LIMITS: ThrottleLimits = {
  freePerName: 5,
  freePerAddress: 20,
  firstDelayMs: 30_000,
  maxDelayMs: 3_600_000,
  quietMs: 24 * 3_600_000,
};

/** How long after the latest of `count` attempts the next may come. */
export function delayAfter(count: number, free: number, limits: ThrottleLimits): number {
  if (count < free) return 0;
  return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** Math.min(30, count - free));
}

export const nameKey = (username: string): string => `name.${username.toLowerCase()}`;
export const addressKey = (ip: string): string => `addr.${Buffer.from(clientBlock(ip)).toString('base64url')}`;

/**
 * Growing waits between sign-in attempts, per username and per client address, in KV so every
 * edge process shares them. Every attempt counts when it starts (checked and counted in one
 * compare-and-set), so a burst of parallel guesses is cut off as surely as a sequence; a success
 * forgets the username's count and gives the address its attempt back. A refusal is 429 with
 * Retry-After, and is decided before any password is hashed.
 */
export class SignInThrottle {
  private readonly clock: Clock;

  constructor(
    private readonly kv: JsonKv<typeof AttemptsRecord>,
    private readonly limits: ThrottleLimits = SIGN_IN_LIMITS,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  /** Counts an attempt from `ip` (at `username`, when one is named), or throws SignInThrottledError. */
  async attempt(ip: string, username: string | null, now = this.clock.now()): Promise<void> {
    await this.count(addressKey(ip), this.limits.freePerAddress, now);
    if (username !== null) await this.count(nameKey(username), this.limits.freePerName, now);
  }

  /** The attempt succeeded: the username starts afresh, and the address does not pay for it. */
  async succeeded(ip: string, username: string | null): Promise<void> {
    if (username !== null) await this.kv.delete(nameKey(username));
    await this.kv.mutate(addressKey(ip), (current) => ({ count: Math.max(0, (current?.count ?? 1) - 1), last_at: current?.last_at ?? 0 }));
  }

  private async count(key: string, free: number, now: number): Promise<void> {
    await this.kv.mutate(key, (current) => {
      const count = current && now - current.last_at < this.limits.quietMs ? current.count : 0;
      const delay = current ? delayAfter(count, free, this.limits) : 0;
      // A free attempt never waits, even when a racing one, counted first, stamped a later time than this one started at.
      const waitMs = delay > 0 ? current!.last_at + delay - now : 0;
      if (waitMs > 0) {
        throw new SignInThrottledError(
          `too many sign-in attempts for this username or from this address: wait ${Math.ceil(waitMs / 1000)} s (Retry-After) — ` +
            'each further attempt doubles the wait; a recovery code or a passkey is checked the same way',
          waitMs / 1000,
        );
      }
      return { count: count + 1, last_at: Math.max(now, current?.last_at ?? 0) };
    });
  }
}
