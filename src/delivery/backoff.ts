/**
 * When a failing delivery is tried again: exponential backoff with jitter, for a bounded window
 * counted from the first attempt. The last retry lands at the end of the window; after it the
 * signal becomes a dead letter.
 */
export interface RetryPolicy {
  /** Delay before the first retry. */
  baseMs: number;
  /** Longest delay between two retries. */
  maxMs: number;
  /** How long after its first attempt a signal is still retried. */
  windowMs: number;
  /** Relative jitter: each delay is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
}

export const DEFAULT_JITTER = 0.2;

/** The delay after the `failures`-th failed attempt (1 = after the first), jitter included. */
export function retryDelayMs(policy: RetryPolicy, failures: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 52);
  const nominal = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const factor = 1 + policy.jitter * (2 * random() - 1);
  return Math.max(1, Math.round(nominal * factor));
}

/**
 * When to try again after the `failures`-th failed attempt at `now`, for a signal first tried at
 * `firstAttemptAt`; null when the window is over (the signal is dead).
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  firstAttemptAt: number,
  failures: number,
  now: number,
  random: () => number = Math.random,
): number | null {
  const deadline = firstAttemptAt + policy.windowMs;
  if (now >= deadline) return null;
  return Math.min(now + retryDelayMs(policy, failures, random), deadline);
}

/** The nominal (jitter-free) schedule: offsets from the first attempt of every retry, for docs and tests. */
export function nominalSchedule(policy: RetryPolicy): number[] {
  const out: number[] = [];
  let at = 0;
  for (let failures = 1; at < policy.windowMs && out.length < 10_000; failures++) {
    at = Math.min(at + retryDelayMs({ ...policy, jitter: 0 }, failures), policy.windowMs);
    out.push(at);
  }
  return out;
}
