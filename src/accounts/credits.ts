import type { JsonKv, Versioned } from '../bus/index.ts';
import { OutOfCreditsError } from '../errors.ts';
import { KeyedMutex } from '../lib/keyed-mutex.ts';
import { utcMonth } from '../lib/utc-day.ts';
import { CREDITS_HISTORY } from '../../schemas/messages.ts';
import { type CreditChange, type CreditsRecord } from '../../schemas/account-records.ts';
import { topUpDue } from './monthly-allowance.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** Thrown inside a compare-and-set to leave the balance as it is (the day's payout is in already). */
class AlreadyCredited extends Error {}

/** Thrown inside a change's compare-and-set: the month's allowance goes in first, as its own change. */
class TopUpFirst extends Error {}

/** Thrown inside a top-up's compare-and-set: it is in already (another request, another process). */
class NothingDue extends Error {
  constructor(readonly balance: number) {
    super('no top-up due');
  }
}

export interface LedgerOptions {
  /** The user's monthly allowance now, 0 for none (see monthly-allowance.ts). */
  allowanceOf?: (userId: number) => number;
  /** The clock: the UTC month of the allowance, and the time of each change. */
  clock?: Clock;
  /** How far the usage recorder has stored changes (its cursor, a KV revision; 0 when unknown). */
  recordedThrough?: () => number;
}

/**
 * Changes an entry may carry before a write is refused: a recorder that far behind on one user is
 * down, and a change it could not store later must not be made (about 120 bytes each, well under
 * the 1 MB message limit).
 */
const MAX_UNRECORDED = 4000;

/**
 * Accounts whose entry a ledger keeps as last seen, and the most changes such an entry may carry
 * (an entry is a few kB; one the usage recorder fell far behind on is read each time instead), so
 * what is kept stays within a few tens of MB whatever happens.
 */
const REMEMBERED_ACCOUNTS = 1_000;
const REMEMBERED_CHANGES = 250;

/**
 * The changes a new revision of an entry carries: those of `current` (at `revision`) the usage
 * recorder may not have stored, then `change`. A carried change is known stored when the recorder
 * has passed its revision while the bucket still keeps it (fewer than CREDITS_HISTORY writes
 * since), or when it has passed the current revision (which carries every listed change).
 */
function carriedChanges(
  current: CreditsRecord | null,
  revision: number | null,
  recorded: number,
  change: CreditChange | null,
): CreditChange[] {
  const writes = current?.writes ?? 0;
  const kept: CreditChange[] = [];
  if (revision !== null && revision > recorded) {
    for (const c of current?.changes ?? []) {
      const seq = c.seq ?? revision;
      if (seq <= recorded && writes - c.n < CREDITS_HISTORY) continue;
      kept.push({ ...c, seq });
    }
  }
  if (change) kept.push(change);
  if (kept.length > MAX_UNRECORDED)
    throw new Error(`the usage recorder has not stored ${kept.length} credit changes of this account; try again once it runs`);
  return kept;
}

/**
 * The credits ledger. A balance changes only through compare-and-set on its KV entry, so
 * concurrent debits from any number of processes leave it exact and never below zero; each
 * change is carried in the entry until the usage recorder has stored it in the usage history
 * under the KV revision it produced (see UsageHistory for reads that include the newest).
 *
 * A user with a monthly allowance has it topped up by the first operation of each UTC month that
 * touches the balance (a read too), before that operation, as a change of its own (reason
 * `monthly_allowance`): the month is marked in the same compare-and-set, so it happens once per
 * account and month however many requests and processes race.
 */
export class CreditLedger {
  private readonly mutex = new KeyedMutex();
  /**
   * Each account's entry as this process last read or wrote it: its next change is tried on it
   * without a read (compare-and-set keeps that exact; another writer's change costs a read then).
   */
  private readonly latest = new Map<string, Versioned<CreditsRecord>>();
  private readonly allowanceOf: (userId: number) => number;
  private readonly clock: Clock;
  private readonly recordedThrough: () => number;

  constructor(
    private readonly balances: JsonKv<typeof CreditsRecord>,
    options: LedgerOptions = {},
  ) {
    this.allowanceOf = options.allowanceOf ?? (() => 0);
    this.clock = options.clock ?? liveClock;
    this.recordedThrough = options.recordedThrough ?? (() => 0);
  }

  async balance(userId: number): Promise<number> {
    const entry = await this.balances.get(String(userId));
    if (entry) this.remember(String(userId), entry);
    const current = entry?.value ?? null;
    if (topUpDue(current, this.allowanceOf(userId), utcMonth(this.clock.now()))) return this.topUp(userId);
    return current?.balance ?? 0;
  }

  /**
   * The balance as this process last saw it (no read) when that covers `needed`, or else read: for
   * refusing work early. A short one is always read, since another process may have granted credits
   * or this month's top-up may be due; one that covers may be behind another process's spending, and
   * the charge itself is exact.
   */
  lastSeenBalance(userId: number, needed: number): Promise<number> {
    const seen = this.latest.get(String(userId));
    return seen && seen.value.balance >= needed ? Promise.resolve(seen.value.balance) : this.balance(userId);
  }

  private remember(key: string, entry: Versioned<CreditsRecord>): void {
    // A read that raced this process's own write may come back older than it.
    if ((this.latest.get(key)?.revision ?? 0) > entry.revision) return;
    this.latest.delete(key);
    if ((entry.value.changes?.length ?? 0) > REMEMBERED_CHANGES) return;
    this.latest.set(key, entry);
    // Insertion order is recency: the account seen longest ago goes first.
    if (this.latest.size > REMEMBERED_ACCOUNTS) this.latest.delete(this.latest.keys().next().value!);
  }

  /**
   * Raises the balance to the user's monthly allowance when this month's top-up is due (see
   * topUpDue); a no-op otherwise. Called at the claim and the plan change, so they count at once.
   * Returns the balance.
   */
  topUp(userId: number): Promise<number> {
    return this.topUpFor(userId, this.allowanceOf(userId), utcMonth(this.clock.now()));
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

  private async topUpFor(userId: number, allowance: number, month: string): Promise<number> {
    try {
      return await this.write(userId, 'monthly_allowance', month, (current) => {
        const due = topUpDue(current, allowance, month);
        if (!due) throw new NothingDue(current?.balance ?? 0);
        return { delta: due.delta, mark: { allowance: due.allowance } };
      });
    } catch (err) {
      if (err instanceof NothingDue) return err.balance;
      throw err;
    }
  }

  /**
   * A change of `delta` credits. `mark` may add fields to the new record (or throw to write
   * nothing). A due top-up goes first (it is found in the same read, so it costs nothing when
   * none is due).
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
    const allowance = this.allowanceOf(userId);
    const month = utcMonth(this.clock.now());
    const change = () =>
      this.write(userId, reason, ref, (current) => {
        if (topUpDue(current, allowance, month)) throw new TopUpFirst();
        return { delta, mark: mark?.(current) };
      });
    try {
      return await change();
    } catch (err) {
      if (!(err instanceof TopUpFirst)) throw err;
    }
    // After this the month's top-up is in (here or elsewhere): the change cannot ask for it again.
    await this.topUpFor(userId, allowance, month);
    return change();
  }

  /**
   * The one write path of a balance: `change` sees the current record and says what moves; fields
   * already there (the payout day, the allowance mark) are carried over by every change. The change
   * goes into the entry itself (its `changes`), in the same compare-and-set: the usage recorder
   * copies it into `usage_events` under this write's revision, so a process that dies right after
   * the write loses no row, and the request waits for no ClickHouse insert. A change that moves no
   * credit (a top-up of a balance above its allowance) writes its mark but no usage row.
   */
  private async write(
    userId: number,
    reason: string,
    ref: string,
    change: (current: CreditsRecord | null) => { delta: number; mark?: Partial<CreditsRecord> },
  ): Promise<number> {
    const key = String(userId);
    const apply = (current: CreditsRecord | null, revision: number | null): CreditsRecord => {
      const next = change(current);
      const before = current?.balance ?? 0;
      const balance = before + next.delta;
      if (balance < 0) throw new OutOfCreditsError(-next.delta, before);
      const ts = this.clock.now();
      const writes = (current?.writes ?? 0) + 1;
      const made = next.delta === 0 ? null : { n: writes, ts, delta: next.delta, balance_after: balance, reason, ref };
      const changes = carriedChanges(current, revision, this.recordedThrough(), made);
      return { ...current, ...next.mark, balance, updated_at: ts, writes, changes };
    };
    const written = await this.mutex.run(key, () =>
      this.balances.mutate(key, apply, this.latest.get(key)).catch((err: unknown) => {
        this.latest.delete(key);
        throw err;
      }),
    );
    this.remember(key, written);
    return written.value.balance;
  }
}
