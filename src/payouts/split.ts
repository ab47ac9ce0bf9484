import { PAYOUT_TERMS } from '../../schemas/payouts.ts';
import type { Plan } from '../../schemas/accounts.ts';
import type { PayoutMark } from '../../schemas/payouts.ts';

/** One fork's part of its parent author's payout for a day. */
export interface PayoutLine {
  parentEntry: number;
  childEntry: number;
  childUser: number;
  spend: number;
  /** 10 % of the spend, after the daily cap and rounding: credited + charity. */
  share: number;
  credited: number;
  charity: number;
}

/**
 * A parent author's payout for one day, split over the forks that earned it. Credits are whole:
 * - the day's total is 10 % of the summed spend, rounded down, at most 200 (the cap is per
 *   parent author and day, over all their forks);
 * - it is split in proportion to each fork's spend by largest remainder (ties: the older child
 *   entry first), so the parts add up to the total exactly;
 * - on pro, each part gives 20 % to charity: the author is credited 80 % rounded down, the
 *   rest (the rounding included) is the donation.
 */
export function splitPayout(children: PayoutMark['children'], plan: Plan): PayoutLine[] {
  const lines = [...children]
    .sort((a, b) => a[1] - b[1])
    .map(([parentEntry, childEntry, childUser, spend]) => ({
      parentEntry,
      childEntry,
      childUser,
      spend,
      share: 0,
      credited: 0,
      charity: 0,
    }));
  const spent = lines.reduce((sum, l) => sum + l.spend, 0);
  if (spent === 0) return lines;
  const total = Math.min(PAYOUT_TERMS.daily_cap, Math.floor((spent * PAYOUT_TERMS.share_pct) / 100));
  let given = 0;
  const remainders = lines.map((line, i) => {
    line.share = Math.floor((total * line.spend) / spent);
    given += line.share;
    return { i, rest: (total * line.spend) % spent };
  });
  remainders.sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0; k < total - given; k++) lines[remainders[k]!.i]!.share += 1;
  for (const line of lines) {
    line.credited = plan === 'pro' ? Math.floor((line.share * (100 - PAYOUT_TERMS.pro_charity_pct)) / 100) : line.share;
    line.charity = line.share - line.credited;
  }
  return lines;
}
