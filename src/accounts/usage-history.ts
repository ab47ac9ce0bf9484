import type { JsonKv } from '../bus/index.ts';
import { isBillable, type SpendPoint, type UsageRepo, type UsageRow } from '../store/index.ts';
import type { CreditsRecord } from '../../schemas/account-records.ts';

/**
 * The usage history as a reader must see it: the rows in `usage_events` plus the changes a credits
 * entry still carries (written by the ledger, not yet stored by the usage recorder), so a charge
 * shows at once, on any process. A carried change may already be stored too: the two are joined
 * by seq (the KV revision), the stored copy left out of the sums.
 */
export class UsageHistory {
  constructor(
    private readonly balances: JsonKv<typeof CreditsRecord>,
    private readonly repo: UsageRepo,
  ) {}

  /** The changes `userId`'s entry carries, as usage rows (oldest first). */
  async carried(userId: number): Promise<UsageRow[]> {
    const entry = await this.balances.get(String(userId));
    if (!entry) return [];
    return (entry.value.changes ?? []).map((c) => ({
      seq: c.seq ?? entry.revision,
      user_id: userId,
      ts: c.ts,
      delta: c.delta,
      balance_after: c.balance_after,
      reason: c.reason,
      ref: c.ref,
    }));
  }

  /** Newest first, with a seq below `beforeSeq` when given. */
  async history(userId: number, limit: number, beforeSeq = Number.MAX_SAFE_INTEGER): Promise<UsageRow[]> {
    const [carried, stored] = await Promise.all([this.carried(userId), this.repo.history(userId, limit, beforeSeq)]);
    const bySeq = new Map(stored.map((row) => [row.seq, row]));
    for (const row of carried) if (row.seq < beforeSeq) bySeq.set(row.seq, row);
    return [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, limit);
  }

  /** Credits spent (negative deltas, net of refunds tagged `refund`) since `sinceMs`. */
  async spentSince(userId: number, sinceMs: number): Promise<number> {
    const carried = await this.carried(userId);
    const stored = await this.repo.spentSince(
      userId,
      sinceMs,
      carried.map((row) => row.seq),
    );
    const recent = carried.filter((row) => row.ts >= sinceMs && isBillable(row)).reduce((sum, row) => sum - row.delta, 0);
    return Math.max(0, stored + recent);
  }

  /** The billable spend of these users in [fromMs, toMs), per user and instant (see UsageRepo.billableSpend). */
  async billableSpend(userIds: readonly number[], fromMs: number, toMs: number): Promise<SpendPoint[]> {
    const carried = (await Promise.all(userIds.map((id) => this.carried(id)))).flat();
    const points = await this.repo.billableSpend(
      userIds,
      fromMs,
      toMs,
      carried.map((row) => row.seq),
    );
    const at = new Map<string, SpendPoint>();
    for (const point of points) at.set(`${point.user_id}:${point.ts}`, point);
    for (const row of carried) {
      if (row.ts < fromMs || row.ts >= toMs || !isBillable(row)) continue;
      const key = `${row.user_id}:${row.ts}`;
      const point = at.get(key) ?? at.set(key, { user_id: row.user_id, ts: row.ts, spent: 0 }).get(key)!;
      point.spent -= row.delta;
    }
    return [...at.values()];
  }

  /** How many changes `userId` has had. */
  async countFor(userId: number): Promise<number> {
    const carried = await this.carried(userId);
    return (
      (await this.repo.countFor(
        userId,
        carried.map((row) => row.seq),
      )) + carried.length
    );
  }
}
