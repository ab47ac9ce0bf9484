import type { Config } from '../config.ts';
import type { CreditsRecord, UserRecord } from '../../schemas/account-records.ts';

export type AllowanceConfig = Pick<Config, 'MONTHLY_CREDITS_FREE' | 'MONTHLY_CREDITS_PRO'>;

/**
 * The credits an account's balance is topped up to each UTC month: pro (trial or not) gets
 * MONTHLY_CREDITS_PRO, a claimed free account MONTHLY_CREDITS_FREE, a free trial none (its
 * signup credits are all it gets, so minting trials mints no allowance).
 */
export function monthlyAllowance(user: Pick<UserRecord, 'plan' | 'is_trial'> | null, config: AllowanceConfig): number {
  if (!user) return 0;
  if (user.plan === 'pro') return config.MONTHLY_CREDITS_PRO;
  return user.is_trial ? 0 : config.MONTHLY_CREDITS_FREE;
}

export interface TopUp {
  /** What the balance gains: up to the allowance, never below what it holds (nothing stacks, nothing is taken). */
  delta: number;
  /** The mark written with it (CreditsRecord.allowance). */
  allowance: { month: string; credits: number };
}

/**
 * The top-up this balance is due in `month` (YYYY-MM) for an allowance, or null: none when there
 * is no allowance, when this month's top-up reached it already, or when a later month is in (a
 * process whose clock is behind). A higher allowance within a month (an upgrade) is due again.
 */
export function topUpDue(current: CreditsRecord | null, allowance: number, month: string): TopUp | null {
  if (allowance <= 0) return null;
  const mark = current?.allowance;
  if (mark && (mark.month > month || (mark.month === month && mark.credits >= allowance))) return null;
  return { delta: Math.max(0, allowance - (current?.balance ?? 0)), allowance: { month, credits: allowance } };
}
