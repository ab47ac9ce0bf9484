import type { UserRecord } from '../../schemas/account-records.ts';

const DAY_MS = 86_400_000;

/** Days an account must have been claimed (signing in by itself) before its forks count. */
export const ESTABLISHED_AFTER_DAYS = 7;

/** What the rule reads of the forking account. */
export type ForkerAccount = Pick<UserRecord, 'plan' | 'is_trial' | 'created_at' | 'claimed_at'>;

/**
 * Whether a fork counts in the entry's `forks` (else in `trial_forks`), decided when the account
 * forks. Minting a trial key costs nothing (five an hour per address, more with more addresses),
 * so a count anyone can sort on takes an account that cost something: a paid plan, or one claimed
 * with a passkey or password at least ESTABLISHED_AFTER_DAYS before. An attacker then has to hold
 * every account a week ahead, and each still counts once per entry; a fork made while the
 * account was new does not count later by itself (its owner forks again once established).
 */
export function forkCounts(account: ForkerAccount, now: number): boolean {
  if (account.plan === 'pro') return true;
  if (account.is_trial) return false;
  const claimedAt = account.claimed_at ?? account.created_at;
  return now - claimedAt >= ESTABLISHED_AFTER_DAYS * DAY_MS;
}

/** The rule in words (OpenAPI, README). */
export const FORK_COUNT_RULE =
  '**Forks.** `forks` counts distinct accounts other than the author that forked the entry while **established**: on ' +
  `the pro plan, or claimed (a passkey or password added, so no longer a trial) at least ${ESTABLISHED_AFTER_DAYS} days ` +
  'before the fork. Forks by trial keys and newer accounts are shown apart as `trial_forks` and never ranked. An ' +
  'account’s fork is judged when it forks; one made while new counts once its owner, established, forks the entry ' +
  'again (POST /api/v1/fork/{id}, which answers with the same copy). Forks recorded before this rule count as before.';
