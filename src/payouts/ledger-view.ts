import type { PayoutsRepo } from '../store/index.ts';
import { PAYOUT_TERMS, type PayoutsQuery, type PayoutsResponse } from '../../schemas/payouts.ts';

/** Splits a `<day>~<rest>` paging cursor. */
const cursor = (value: string | undefined): { day: string; rest: string } | undefined => {
  if (!value) return undefined;
  const at = value.indexOf('~');
  return { day: value.slice(0, at), rest: value.slice(at + 1) };
};

/**
 * GET /payouts: the public charity ledger (handles only), and for a caller with a key what their
 * entries have earned from forks. Rows come newest day first, paged by cursor.
 */
export class PayoutsLedger {
  constructor(
    private readonly repo: PayoutsRepo,
    private readonly settledThrough: () => Promise<string | null>,
  ) {}

  async read(query: PayoutsQuery, caller: { user_id: number; username: string } | null): Promise<PayoutsResponse> {
    const donationsAfter = cursor(query.before);
    const [settled, totals, donations, rows, earnings] = await Promise.all([
      this.settledThrough(),
      this.repo.totals(),
      this.repo.donationCount(),
      this.repo.donations(query.limit, donationsAfter && { day: donationsAfter.day, donor: donationsAfter.rest }),
      caller ? this.earnings(caller, query) : null,
    ]);
    const last = rows.at(-1);
    return {
      terms: PAYOUT_TERMS,
      settled_through: settled,
      charity: {
        total_credits: totals.charity,
        donations,
        rows,
        next_before: rows.length === query.limit && last ? `${last.day}~${last.donor}` : null,
      },
      earnings,
    };
  }

  private async earnings(caller: { user_id: number; username: string }, query: PayoutsQuery): Promise<PayoutsResponse['earnings']> {
    const after = cursor(query.earnings_before);
    const [totals, rows] = await Promise.all([
      this.repo.totals(caller.user_id),
      this.repo.earnings(caller.user_id, query.limit, after && { day: after.day, child: Number(after.rest) }),
    ]);
    const last = rows.at(-1);
    return {
      username: caller.username,
      total_credits_earned: totals.credited,
      total_donated: totals.charity,
      rows: rows.map((r) => ({
        day: r.day,
        parent_id: r.parent_entry,
        child_id: r.child_entry,
        child_author: r.child_author,
        share: r.share,
        credited: r.credited,
        charity: r.charity,
      })),
      next_before: rows.length === query.limit && last ? `${last.day}~${last.child_entry}` : null,
    };
  }
}
