import type { JsonKv } from '../bus/index.ts';
import { OutOfCreditsError } from '../errors.ts';
import { KeyedMutex } from '../lib/keyed-mutex.ts';
import type { UsageRepo } from '../store/index.ts';
import type { CreditsRecord } from '../../schemas/messages.ts';

/**
 * The credits ledger. A balance changes only through compare-and-set on its KV entry, so
 * concurrent debits from any number of processes leave it exact and never below zero; each
 * change is then appended to the usage history under the KV revision it produced.
 */
export class CreditLedger {
  private readonly mutex = new KeyedMutex();

  constructor(
    private readonly balances: JsonKv<typeof CreditsRecord>,
    private readonly usage: UsageRepo,
  ) {}

  async balance(userId: number): Promise<number> {
    return (await this.balances.get(String(userId)))?.value.balance ?? 0;
  }

  /** Adds credits (signup grant, purchase, refund). Returns the new balance. */
  grant(userId: number, credits: number, reason: string, ref = ''): Promise<number> {
    return this.apply(userId, Math.abs(credits), reason, ref);
  }

  /** Takes credits, or throws OutOfCreditsError (402) and changes nothing. Returns the new balance. */
  charge(userId: number, credits: number, reason: string, ref = ''): Promise<number> {
    return this.apply(userId, -Math.abs(credits), reason, ref);
  }

  private async apply(userId: number, delta: number, reason: string, ref: string): Promise<number> {
    if (!Number.isInteger(delta)) throw new TypeError(`credit amounts are whole numbers, got ${delta}`);
    if (delta === 0) return this.balance(userId); // nothing moves, nothing to record
    const key = String(userId);
    const { value, revision } = await this.mutex.run(key, () =>
      this.balances.mutate(key, (current) => {
        const before = current?.balance ?? 0;
        if (before + delta < 0) throw new OutOfCreditsError(-delta, before);
        return { balance: before + delta, updated_at: Date.now() };
      }),
    );
    await this.usage.append({
      seq: revision,
      user_id: userId,
      ts: value.updated_at,
      delta,
      balance_after: value.balance,
      reason,
      ref,
    });
    return value.balance;
  }
}
