import type { JsonKv } from '../bus/index.ts';
import { OutOfCreditsError } from '../errors.ts';
import { KeyedMutex } from '../lib/keyed-mutex.ts';
import type { UsageRepo } from '../store/index.ts';
import type { CreditsRecord } from '../../schemas/messages.ts';

/** Thrown inside a compare-and-set to leave the balance as it is (the day's payout is in already). */
class AlreadyCredited extends Error {}

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

  /**
   * Adds a fork payout of one UTC day (`day` YYYY-MM-DD), at most once per user and day: the day
   * is written into the balance in the same compare-and-set as the credit, and a day at or before
   * the one recorded adds nothing (the payout sweep settles days in order). `applied` is false
   * when the day was in already — a second sweeper, or this one after a restart.
   */
  async creditPayout(userId: number, credits: number, day: string, ref: string): Promise<{ applied: boolean; balance: number }> {
    if (!Number.isInteger(credits) || credits <= 0) throw new TypeError(`a payout is a positive whole number of credits, got ${credits}`);
    try {
      const balance = await this.apply(userId, credits, 'fork_payout', ref, (current) => {
        if (current?.payout_day !== undefined && current.payout_day >= day) throw new AlreadyCredited();
        return { payout_day: day };
      });
      return { applied: true, balance };
    } catch (err) {
      if (err instanceof AlreadyCredited) return { applied: false, balance: await this.balance(userId) };
      throw err;
    }
  }

  /**
   * The one write path of a balance. `mark` may add fields to the new record (or throw to write
   * nothing); fields already there (the payout day) are carried over by every change.
   */
  private async apply(
    userId: number,
    delta: number,
    reason: string,
    ref: string,
    mark?: (current: CreditsRecord | null) => Partial<CreditsRecord>,
  ): Promise<number> {
    if (!Number.isInteger(delta)) throw new TypeError(`credit amounts are whole numbers, got ${delta}`);
    if (delta === 0) return this.balance(userId); // nothing moves, nothing to record
    const key = String(userId);
    const { value, revision } = await this.mutex.run(key, () =>
      this.balances.mutate(key, (current) => {
        const before = current?.balance ?? 0;
        if (before + delta < 0) throw new OutOfCreditsError(-delta, before);
        return { ...current, ...mark?.(current), balance: before + delta, updated_at: Date.now() };
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
