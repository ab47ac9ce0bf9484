import type { ClickHouseClient } from '@clickhouse/client';
import { selectRows } from './clickhouse.ts';
import { retry } from '../lib/retry.ts';

/** One fork payout row: what one child entry's publisher earned one parent on one UTC day. */
export interface PayoutRow extends Record<string, unknown> {
  /** YYYY-MM-DD */
  day: string;
  parent_entry: number;
  child_entry: number;
  parent_user: number;
  child_user: number;
  parent_author: string;
  child_author: string;
  plan: string;
  spend: number;
  share: number;
  credited: number;
  charity: number;
  /** epoch ms */
  settled_at: number;
}

export interface PayoutTotals {
  share: number;
  credited: number;
  charity: number;
  rows: number;
}

/** A donor's donation of one day (public: handles only). */
export interface DonationRow {
  day: string;
  donor: string;
  credits: number;
  forks: number;
}

/** Rows of the fork payout ledger, newest day first. */
export class PayoutsRepo {
  constructor(private readonly client: ClickHouseClient) {}

  /** Writes rows; safe to repeat (a row replaces the one with its day, parent and child). */
  async insert(rows: readonly PayoutRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 10_000) {
      const values = rows.slice(i, i + 10_000);
      await retry(() => this.client.insert({ table: 'fork_payouts', values, format: 'JSONEachRow' }));
    }
  }

  /** Sums over the whole ledger, or over one parent author's rows. */
  async totals(parentUser?: number): Promise<PayoutTotals> {
    const [row] = await selectRows<PayoutTotals>(
      this.client,
      `SELECT toInt64(sum(share)) AS share, toInt64(sum(credited)) AS credited, toInt64(sum(charity)) AS charity, toUInt64(count()) AS rows
         FROM fork_payouts FINAL
        WHERE {all:UInt8} = 1 OR parent_user = {user:UInt64}`,
      { all: parentUser === undefined ? 1 : 0, user: parentUser ?? 0 },
    );
    return row ?? { share: 0, credited: 0, charity: 0, rows: 0 };
  }

  /** Number of donations (donor-days with charity) so far. */
  async donationCount(): Promise<number> {
    const [row] = await selectRows<{ n: number }>(
      this.client,
      `SELECT toUInt64(count()) AS n FROM (SELECT day, parent_user FROM fork_payouts FINAL WHERE charity > 0 GROUP BY day, parent_user)`,
    );
    return row?.n ?? 0;
  }

  /** Donations, one per day and donor: newest day first, then by donor handle; after (day, donor) when given. */
  donations(limit: number, after?: { day: string; donor: string }): Promise<DonationRow[]> {
    return selectRows<DonationRow>(
      this.client,
      `SELECT day, parent_author AS donor, toInt64(sum(charity)) AS credits, toUInt32(count()) AS forks
         FROM fork_payouts FINAL
        WHERE charity > 0
          AND ({first:UInt8} = 1 OR day < toDate({day:String}) OR (day = toDate({day:String}) AND parent_author > {donor:String}))
        GROUP BY day, parent_user, parent_author
        ORDER BY day DESC, donor ASC
        LIMIT {limit:UInt32}`,
      { first: after ? 0 : 1, day: after?.day ?? '1970-01-01', donor: after?.donor ?? '', limit },
    );
  }

  /** One parent author's rows: newest day first, then by child entry; after (day, child entry) when given. */
  earnings(parentUser: number, limit: number, after?: { day: string; child: number }): Promise<PayoutRow[]> {
    return selectRows<PayoutRow>(
      this.client,
      `SELECT day, parent_entry, child_entry, parent_user, child_user, parent_author, child_author, plan,
              spend, share, credited, charity, toUnixTimestamp64Milli(settled_at) AS settled_at
         FROM fork_payouts FINAL
        WHERE parent_user = {user:UInt64}
          AND ({first:UInt8} = 1 OR day < toDate({day:String}) OR (day = toDate({day:String}) AND child_entry > {child:UInt64}))
        ORDER BY day DESC, child_entry ASC
        LIMIT {limit:UInt32}`,
      { user: parentUser, first: after ? 0 : 1, day: after?.day ?? '1970-01-01', child: after?.child ?? 0, limit },
    );
  }

  /** Every row of one day (for audits and tests), by parent then child entry. */
  day(day: string): Promise<PayoutRow[]> {
    return selectRows<PayoutRow>(
      this.client,
      `SELECT day, parent_entry, child_entry, parent_user, child_user, parent_author, child_author, plan,
              spend, share, credited, charity, toUnixTimestamp64Milli(settled_at) AS settled_at
         FROM fork_payouts FINAL
        WHERE day = toDate({day:String})
        ORDER BY parent_entry, child_entry`,
      { day },
    );
  }
}
