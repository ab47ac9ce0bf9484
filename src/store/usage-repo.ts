import type { ClickHouseClient } from '@clickhouse/client';
import { selectRows } from './clickhouse.ts';
import { InsertBatcher } from './insert-batcher.ts';
import { retry } from '../lib/retry.ts';

/** One credit balance change, as stored. `ts` is epoch ms. */
export interface UsageRow extends Record<string, unknown> {
  seq: number;
  user_id: number;
  ts: number;
  delta: number;
  balance_after: number;
  reason: string;
  ref: string;
}

/**
 * Billable spend, as a condition on usage rows: every charge (a negative delta: generation,
 * one_shot, custom indicators…) counts, net of the refunds (`refund` grants) that gave credits
 * back. Other grants (signup, purchases, fork payouts) are not spend.
 */
const BILLABLE = `(delta < 0 OR reason = 'refund')`;
/** BILLABLE for a row not stored yet (the same rule, for rows read from the credits entry). */
export const isBillable = (row: Pick<UsageRow, 'delta' | 'reason'>): boolean => row.delta < 0 || row.reason === 'refund';

/** One instant's billable spend of a user (refunds negative). `ts` is epoch ms. */
export interface SpendPoint {
  user_id: number;
  ts: number;
  spent: number;
}

/** The append-only usage history in ClickHouse. */
export class UsageRepo {
  private readonly batcher: InsertBatcher<UsageRow>;

  constructor(private readonly client: ClickHouseClient) {
    this.batcher = new InsertBatcher(client, 'usage_events');
  }

  /**
   * Stores changes. The balance has already moved when this runs, so a failed insert is retried
   * (a row is keyed by its seq, so a retry never doubles it) rather than given up.
   */
  append(row: UsageRow | UsageRow[]): Promise<void> {
    return retry(() => this.batcher.insert(row));
  }

  flush(): Promise<void> {
    return this.batcher.flush();
  }

  /** Newest first, with a seq below `beforeSeq` when given. */
  history(userId: number, limit: number, beforeSeq?: number): Promise<UsageRow[]> {
    return selectRows<UsageRow>(
      this.client,
      `SELECT seq, user_id, toUnixTimestamp64Milli(ts) AS ts, delta, balance_after, reason, ref
         FROM usage_events FINAL
        WHERE user_id = {user:UInt64} AND seq < {before:UInt64}
        ORDER BY seq DESC
        LIMIT {limit:UInt32}`,
      { user: userId, before: beforeSeq ?? Number.MAX_SAFE_INTEGER, limit },
    );
  }

  /**
   * Credits spent (negative deltas, net of refunds tagged `refund`) since `sinceMs`, leaving out
   * the rows of `without` (seqs the caller counts itself). May be negative (refunds of earlier spend).
   */
  async spentSince(userId: number, sinceMs: number, without: readonly number[] = []): Promise<number> {
    const [row] = await selectRows<{ spent: number }>(
      this.client,
      `SELECT toInt64(-sumIf(delta, ${BILLABLE})) AS spent
         FROM usage_events FINAL
        WHERE user_id = {user:UInt64} AND ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
          AND seq NOT IN {without:Array(UInt64)}`,
      { user: userId, since: sinceMs, without },
    );
    return row?.spent ?? 0;
  }

  /**
   * The billable spend of these users in [fromMs, toMs), summed per user and instant (refunds
   * negative), for the payout sweep to split by each fork's window, leaving out the rows of `without`
   * (seqs the caller counts itself). Users go in chunks so the
   * query parameters stay small on a ClickHouse server.
   */
  async billableSpend(userIds: readonly number[], fromMs: number, toMs: number, without: readonly number[] = []): Promise<SpendPoint[]> {
    const out: SpendPoint[] = [];
    for (let i = 0; i < userIds.length; i += 2000) {
      // `at_ms`, not `ts`: an alias named like a column would stand for it in WHERE too.
      const rows = await selectRows<{ user_id: number; at_ms: number; spent: number }>(
        this.client,
        `SELECT user_id, toInt64(toUnixTimestamp64Milli(ts)) AS at_ms, toInt64(-sum(delta)) AS spent
           FROM usage_events FINAL
          WHERE user_id IN {users:Array(UInt64)}
            AND ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
            AND ${BILLABLE} AND seq NOT IN {without:Array(UInt64)}
          GROUP BY user_id, at_ms`,
        { users: userIds.slice(i, i + 2000), from: fromMs, to: toMs, without },
      );
      for (const row of rows) out.push({ user_id: row.user_id, ts: row.at_ms, spent: row.spent });
    }
    return out;
  }

  /** Rows of `userId`, leaving out those of `without`. */
  async countFor(userId: number, without: readonly number[] = []): Promise<number> {
    const [row] = await selectRows<{ n: number }>(
      this.client,
      'SELECT toUInt64(count()) AS n FROM usage_events FINAL WHERE user_id = {user:UInt64} AND seq NOT IN {without:Array(UInt64)}',
      { user: userId, without },
    );
    return row?.n ?? 0;
  }
}
