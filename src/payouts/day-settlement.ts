import type { JsonKv } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { utcDate, utcDayKey } from '../lib/utc-day.ts';
import type { PayoutRow, PayoutsRepo, UsageRepo } from '../store/index.ts';
import type { Plan } from '../../schemas/accounts.ts';
import type { EntryLink, PayoutMark } from '../../schemas/payouts.ts';
import { openForks, spendWithin } from './fork-windows.ts';
import { splitPayout } from './split.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

const DAY_MS = 86_400_000;
/**
 * Parents settled at once (each: a KV create, a compare-and-set credit whose usage row is
 * batched into ClickHouse). Wide, because each credit waits for its usage row's insert: more at
 * once means fewer, larger inserts (10,000 parents: 2.7 s at 256, 7 s at 32 on the bench machine).
 */
const PARALLEL = 256;

export interface DaySettlementDeps {
  /** Every community entry (the mirror of `sf_community`). */
  entries: () => ReadonlyMap<number, EntryLink>;
  usage: Pick<UsageRepo, 'billableSpend'>;
  ledger: Pick<PayoutsRepo, 'insert'>;
  marks: JsonKv<typeof PayoutMark>;
  /** The atomic credit path of balances (Metering / CreditLedger), once per user and day. */
  credits: { creditPayout(userId: number, credits: number, day: string, ref: string): Promise<{ applied: boolean }> };
  /** A user's plan now (the parent author's decides the charity share). */
  planOf: (userId: number) => Plan;
  /** The time the ledger rows are stamped with (liveClock unless a test sets it). */
  clock?: Clock;
  log: Logger;
  /**
   * Called at each step of a parent's settlement: `marked` (its record fixed, not credited yet)
   * and `credited` (credited, the day's ledger rows not written yet). The crash tests break the
   * sweep here: a restart must then neither lose nor double anything.
   */
  checkpoint?: (point: 'marked' | 'credited', day: string, parentUser: number) => void | Promise<void>;
}

export interface DaySummary {
  day: string;
  /** Parent authors paid (or donating) this day. */
  parents: number;
  rows: number;
  share: number;
  credited: number;
  charity: number;
  /** Credits this run added to balances (0 when another run had credited them already). */
  creditedNow: number;
}

/**
 * Settles one UTC day: finds the forks open that day and their publishers' billable spend, fixes
 * each parent author's payout in a KV record created once (the first sweeper wins; every later
 * one uses that record), credits the author once for the day (the day is marked in the balance's
 * own compare-and-set), then writes the ledger rows (keyed by day, parent and child entry, so a
 * repeat replaces them). Safe to run again, or by several processes at once, at any point.
 */
export async function settleDay(deps: DaySettlementDeps, dayStart: number): Promise<DaySummary> {
  const day = utcDate(dayStart);
  const dayKey = utcDayKey(dayStart);
  const entries = deps.entries();
  const computed = await computeMarks(deps, entries, dayStart);
  // A record made by an earlier run counts even if this run computes nothing for that parent.
  const existing = new Set(await deps.marks.keys(`${dayKey}.*`));
  const parents = new Set<number>([...computed.keys(), ...[...existing].map((k) => Number(k.slice(dayKey.length + 1)))]);
  const summary: DaySummary = { day, parents: 0, rows: 0, share: 0, credited: 0, charity: 0, creditedNow: 0 };
  const rows: PayoutRow[] = [];

  const settleParent = async (parentUser: number) => {
    const key = `${dayKey}.${parentUser}`;
    const fresh = computed.get(parentUser);
    const created = !existing.has(key) && fresh ? await deps.marks.create(key, fresh) : false;
    const mark = created !== false ? fresh! : (await deps.marks.get(key))?.value;
    if (!mark) throw new Error(`payout record ${key} vanished while the day was being settled`);
    await deps.checkpoint?.('marked', day, parentUser);
    const lines = splitPayout(mark.children, mark.plan);
    const credited = lines.reduce((sum, l) => sum + l.credited, 0);
    if (credited > 0) {
      const { applied } = await deps.credits.creditPayout(parentUser, credited, day, `payouts:${day}`);
      if (applied) summary.creditedNow += credited;
    }
    await deps.checkpoint?.('credited', day, parentUser);
    summary.parents++;
    for (const line of lines) {
      summary.share += line.share;
      summary.credited += line.credited;
      summary.charity += line.charity;
      rows.push({
        day,
        parent_entry: line.parentEntry,
        child_entry: line.childEntry,
        parent_user: parentUser,
        child_user: line.childUser,
        parent_author: mark.parent_author,
        child_author: entries.get(line.childEntry)?.author ?? '',
        plan: mark.plan,
        spend: line.spend,
        share: line.share,
        credited: line.credited,
        charity: line.charity,
        settled_at: mark.created_at,
      });
    }
  };

  const queue = [...parents].sort((a, b) => a - b);
  const workers = Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) await settleParent(parent);
  });
  // Every worker ends before a failure is reported: nothing of this run goes on behind the next one.
  const failed = (await Promise.allSettled(workers)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  await deps.ledger.insert(rows);
  summary.rows = rows.length;
  deps.log.info(summary, 'fork payouts settled');
  return summary;
}

/** Each parent author's payout record for the day, as this run computes it (forks with spend only). */
async function computeMarks(
  deps: DaySettlementDeps,
  entries: ReadonlyMap<number, EntryLink>,
  dayStart: number,
): Promise<Map<number, PayoutMark>> {
  const marks = new Map<number, PayoutMark>();
  const pairs = openForks(entries, dayStart);
  if (pairs.length === 0) return marks;
  const publishers = [...new Set(pairs.map((p) => p.childUser))];
  const points = new Map<number, Array<[number, number]>>();
  for (const p of await deps.usage.billableSpend(publishers, dayStart, dayStart + DAY_MS)) {
    (points.get(p.user_id) ?? points.set(p.user_id, []).get(p.user_id)!).push([p.ts, p.spent]);
  }
  const now = (deps.clock ?? liveClock).now();
  const day = utcDate(dayStart);
  for (const pair of pairs) {
    const spend = spendWithin(pair.spans, points.get(pair.childUser) ?? []);
    if (spend === 0) continue;
    let mark = marks.get(pair.parentUser);
    if (!mark) {
      mark = {
        day,
        parent_user: pair.parentUser,
        parent_author: pair.parentAuthor,
        plan: deps.planOf(pair.parentUser),
        created_at: now,
        children: [],
      };
      marks.set(pair.parentUser, mark);
    }
    mark.children.push([pair.parentEntry, pair.childEntry, pair.childUser, spend]);
  }
  return marks;
}
